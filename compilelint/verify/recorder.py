"""Run a callable under torch.compile in this process and record what Dynamo does.

``record()`` is the in-process API (the fixture tests call it directly); the child
process builds its phases from ``run_phase()``. Imports torch.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Union

import torch
import torch._dynamo

from compilelint.verify.attribution import UserFiles, merge_events
from compilelint.verify.dynamo_hooks import DynamoHooks, compile_error
from compilelint.verify.model import DEFAULT, FULLGRAPH, Recording
from compilelint.verify.targets import InputSet, normalize_input_set

Backend = Union[str, Callable[..., Any]]


def mode_name(mode: object) -> str:
    """Accepts "default"/"fullgraph" or compilelint.findings.Mode members."""
    value = getattr(mode, "value", mode)
    if value not in (DEFAULT, FULLGRAPH):
        raise ValueError(f"mode must be {DEFAULT!r} or {FULLGRAPH!r}, not {mode!r}")
    return str(value)


def to_device(value: Any, device: str) -> Any:
    """Tensors and modules moved to ``device``; containers rebuilt; anything else as is."""
    if device == "cpu":
        return value
    if isinstance(value, (torch.Tensor, torch.nn.Module)):
        return value.to(device)
    if isinstance(value, tuple):
        return tuple(to_device(item, device) for item in value)
    if isinstance(value, list):
        return [to_device(item, device) for item in value]
    if isinstance(value, dict):
        return {key: to_device(item, device) for key, item in value.items()}
    return value


def synchronize(device: str) -> None:
    if device.startswith("cuda"):
        torch.cuda.synchronize()


def override_suppress_errors() -> bool:
    """Turn off ``suppress_errors`` if user code set it: it hides failures as eager runs."""
    config = torch._dynamo.config
    if getattr(config, "suppress_errors", False):
        config.suppress_errors = False
        return True
    return False


@dataclass
class Phase:
    """One pass over the input sets with one callable."""

    outputs: list[Any] = field(default_factory=list)
    error: BaseException | None = None
    first_call_s: float | None = None


def run_phase(
    fn: Callable[..., Any],
    input_sets: Sequence[InputSet],
    *,
    device: str = "cpu",
    hooks: DynamoHooks | None = None,
) -> Phase:
    """Call ``fn`` on each input set in order; stop at the first exception (kept)."""
    phase = Phase()
    for index, inputs in enumerate(input_sets):
        if hooks is not None:
            hooks.input_set = index
        started = time.perf_counter()
        try:
            phase.outputs.append(fn(*inputs.args, **inputs.kwargs))
            synchronize(device)
        except Exception as exc:  # noqa: BLE001 - the exception is the result
            phase.error = exc
            return phase
        if index == 0:
            phase.first_call_s = time.perf_counter() - started
    return phase


def compile_fn(fn: Callable[..., Any], mode: str, backend: Backend, compile_mode: str = "default") -> Callable[..., Any]:
    """``compile_mode`` is torch.compile's ``mode`` (reduce-overhead, max-autotune, ...)."""
    options: dict[str, Any] = {} if compile_mode in ("", "default") else {"mode": compile_mode}
    compiled: Callable[..., Any] = torch.compile(fn, backend=backend, fullgraph=mode == FULLGRAPH, **options)
    return compiled


def record(
    fn: Callable[..., Any],
    input_sets: Iterable[Any],
    *,
    mode: object = DEFAULT,
    backend: Backend = "eager",
    device: str = "cpu",
    user_roots: Sequence[str] | None = None,
) -> Recording:
    """Compile ``fn`` in one mode, call it on every input set, and return what Dynamo did.

    Input sets are args tuples or ``(args, kwargs)`` pairs. Dynamo is reset before and
    after. Breaks are attributed to the innermost frame under ``user_roots`` (default:
    any file outside the standard library and installed packages). Under fullgraph=True
    the first break stops the run and is returned as ``Recording.error``.
    """
    name = mode_name(mode)
    sets = [InputSet(to_device(s.args, device), to_device(s.kwargs, device))
            for s in map(normalize_input_set, input_sets)]  # fmt: skip
    fn = to_device(fn, device)
    user = UserFiles(user_roots)
    torch._dynamo.reset()
    try:
        with DynamoHooks(user) as hooks:
            hooks.mode = name
            phase = run_phase(compile_fn(fn, name, backend), sets, device=device, hooks=hooks)
    finally:
        torch._dynamo.reset()
    return Recording(
        mode=name,
        events=merge_events(hooks.events),
        error=None if phase.error is None else compile_error(phase.error, user),
        recompiles=hooks.recompiles(),
        hook="; ".join(hooks.hook_names),
        torch_version=torch.__version__,
    )
