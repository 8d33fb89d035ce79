"""The phases a user asks for: ``--dynamic`` (the input sets again under
``torch.compile(dynamic=True)``) and ``--compile-time`` (compile_time.py). Imports torch.

``dynamic=True`` asks Dynamo to make every size symbolic from the first call, so the
recompiles a size change causes in default mode should go; what remains (a Python number,
module state, a guard on a specific size that stays) shows what ``dynamic=True`` does not
fix. Its breaks judge only the findings that claim ``dynamic=True`` alone (a float
attribute turned into text): the default and fullgraph phases report the rest.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import torch
import torch._dynamo

from compilelint.verify import statuses
from compilelint.verify.attribution import UserFiles, merge_events
from compilelint.verify.dynamo_hooks import DynamoHooks
from compilelint.verify.model import DYNAMIC, DynamicRun, TargetRun
from compilelint.verify.recorder import run_phase
from compilelint.verify.statuses import describe_exception, is_cuda_fault
from compilelint.verify.targets import InputSet


def dynamic_phase(fn: Any, sets: list[InputSet], user: UserFiles, request: dict[str, Any]) -> DynamicRun:
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    with DynamoHooks(user) as hooks:
        hooks.mode = DYNAMIC
        compiled = torch.compile(fn, backend=request.get("backend", "eager"), dynamic=True)
        phase = run_phase(compiled, sets, device=str(request.get("device", "cpu")), hooks=hooks)
    graphs = int(torch._dynamo.utils.counters["stats"]["unique_graphs"])
    error = describe_exception(phase.error) if phase.error is not None else ""
    return DynamicRun(recompiles=hooks.recompiles(), graphs=graphs, error=error,
                      first_call_s=phase.first_call_s, cuda_fault=phase.error is not None and is_cuda_fault(phase.error),
                      events=merge_events(hooks.events))  # fmt: skip


def requested_phases(run: TargetRun, fn: Any, sets: list[InputSet], user: UserFiles,
                     request: dict[str, Any], enter: Callable[[str], None]) -> TargetRun:  # fmt: skip
    """``--dynamic`` and ``--compile-time`` after the other phases, for a target that ran."""
    if run.status != statuses.OK:
        return run
    if request.get("dynamic"):
        enter("compile-dynamic")
        dynamic = dynamic_phase(fn, sets, user, request)
        run = replace(run, dynamic=dynamic)
        if dynamic.cuda_fault:
            return run  # the CUDA context is gone: no more phases in this process
    if request.get("compile_time"):
        from compilelint.verify.compile_time import measure_compile_time

        enter("compile-time")
        run = replace(run, compile_time=measure_compile_time(request))
    return run
