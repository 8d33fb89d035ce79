"""The phases of one target inside the child: eager, default mode, measure, fullgraph.

Dynamo is reset between phases so no phase sees another's caches. A failure in a phase
becomes the target's status (eager failure: the user's code is wrong, not the compiler)
and ends the run; later phases would only repeat it, and after a CUDA fault the process
must not touch the GPU again. Imports torch.
"""

from __future__ import annotations

import inspect
import os
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import torch
import torch._dynamo

from compilelint.verify import statuses
from compilelint.verify.attribution import UserFiles, canonical, merge_events
from compilelint.verify.backend_failure import backend_failure
from compilelint.verify.coverage import LineCoverage
from compilelint.verify.dynamo_hooks import DynamoHooks, compile_error
from compilelint.verify.extra_phases import requested_phases
from compilelint.verify.measure import exclusive, median_ms, outputs_match
from compilelint.verify.model import DEFAULT, FULLGRAPH, BreakEvent, CompileError, Frame, TargetRun, Timing
from compilelint.verify.recorder import compile_fn, override_suppress_errors, run_phase, to_device
from compilelint.verify.statuses import classify_compile_failure, describe_exception, is_cuda_fault
from compilelint.verify.targets import InputSet, LoadedTarget

SUPPRESS_NOTE = "the target set torch._dynamo.config.suppress_errors = True; overridden to False"


def callable_files(fn: Any, user: UserFiles) -> tuple[str, ...]:
    """Source files of the callable: a module's class and its submodules' classes."""
    objects: list[Any] = []
    if isinstance(fn, torch.nn.Module):
        objects = [type(module) for module in fn.modules()]
    else:
        target = inspect.unwrap(getattr(fn, "func", fn))  # functools.partial, decorators
        objects = [getattr(target, "__func__", target)]
    files: set[str] = set()
    for item in objects:
        try:
            source = inspect.getsourcefile(item)
        except (TypeError, OSError):
            continue
        if source and source in user:
            files.add(canonical(source))
    return tuple(sorted(files))


def frames_converted() -> int:
    """Frames Dynamo has tried to convert in this process (its own counter)."""
    from torch._dynamo.utils import counters

    return int(counters["frames"]["total"])


def why_not_compiled() -> str:
    """What turned Dynamo off, as far as we can see."""
    reasons = [f"{name}={os.environ[name]}" for name in ("TORCHDYNAMO_DISABLE", "TORCH_COMPILE_DISABLE")
               if os.environ.get(name, "") == "1"]  # fmt: skip
    if getattr(torch._dynamo.config, "disable", False):
        reasons.append("torch._dynamo.config.disable is True")
    code = getattr(torch.compile, "__code__", None)
    if code is None or not code.co_filename.endswith(os.path.join("torch", "__init__.py")):
        reasons.append(f"torch.compile was replaced (by {getattr(torch.compile, '__module__', '?')})")
    return "; ".join(reasons) or "no frame was converted (something disabled Dynamo)"


def _fault(base: TargetRun, exc: BaseException, where: str) -> TargetRun:
    """The status of a run stopped by ``exc`` in phase ``where``."""
    if where == "eager" and not is_cuda_fault(exc):
        return replace(base, status=statuses.TARGET_ERROR,
                       detail=f"fails in eager too: {describe_exception(exc)}")  # fmt: skip
    status = classify_compile_failure(exc)
    return replace(base, status=status, detail=f"{where}: {describe_exception(exc)}")


def _as_event(error: CompileError) -> BreakEvent | None:
    """A fullgraph=True failure at a user line counts as a break there (mode fullgraph)."""
    if not (error.path and error.line and error.type.startswith("torch._dynamo.")):
        return None
    if "RecompileLimit" in error.type:
        return None  # not a break at a line: reported under recompiles
    stack = (Frame(error.path, error.line, ""),) if error.inner else ()
    return BreakEvent(FULLGRAPH, error.path, error.line, error.reported_type, error.gb_id, error.reported_explanation,
                      stack=stack, inner=error.inner)  # fmt: skip


def _median_ms(fn: Callable[..., Any], inputs: InputSet, request: dict[str, Any]) -> float:
    """``fn``'s median latency with the request's device, warm-up and repeats."""
    return median_ms(fn, inputs, device=request.get("device", "cpu"), warmup=int(request.get("warmup", 5)),
                     repeats=int(request.get("repeats", 20)))  # fmt: skip


def _measure(fn: Callable[..., Any], compiled: Callable[..., Any], inputs: InputSet,
             request: dict[str, Any]) -> tuple[float, float]:  # fmt: skip
    with exclusive(request.get("measure_lock")):
        return _median_ms(fn, inputs, request), _median_ms(compiled, inputs, request)


def _fullgraph(base: TargetRun, fn: Any, sets: list[InputSet], user: UserFiles,
               request: dict[str, Any]) -> TargetRun:  # fmt: skip
    torch._dynamo.reset()
    with DynamoHooks(user) as hooks:
        hooks.mode = FULLGRAPH
        compiled = compile_fn(fn, FULLGRAPH, request.get("backend", "eager"))
        phase = run_phase(compiled, sets, device=base.device, hooks=hooks)
    events = list(base.events) + hooks.events
    run = replace(base, fullgraph_ran=True)
    if phase.error is not None:
        if is_cuda_fault(phase.error):
            return _fault(run, phase.error, "compile-fullgraph")
        error = compile_error(phase.error, user)
        as_event = _as_event(error)
        events += [as_event] if as_event else []
        run = replace(run, fullgraph_error=error)
    return replace(run, events=merge_events(events))


def _after_backend_failure(base: TargetRun, fn: Any, sets: list[InputSet], user: UserFiles,
                           request: dict[str, Any], error: BaseException,
                           enter: Callable[[str], None]) -> TargetRun:  # fmt: skip
    """The backend could not compile a graph: Dynamo's breaks up to there are kept, the phase
    runs again with backend="eager" for every break after it, eager is still timed, and the
    failure itself becomes an event at the user's line that produced the op."""
    failure = backend_failure(error, str(request.get("backend")), lambda path: path in user)
    enter("compile-default-eager")
    torch._dynamo.reset()
    with DynamoHooks(user) as hooks:
        rerun = run_phase(compile_fn(fn, DEFAULT, "eager"), sets, device=base.device, hooks=hooks)
    events = list(base.events) + hooks.events
    if failure.path and failure.line:
        events.append(BreakEvent(DEFAULT, canonical(failure.path), failure.line,
                                 f"Backend compiler failed ({failure.backend})", None, failure.describe()))
    timing = base.timing
    if request.get("measure"):
        enter("measure-eager")
        with exclusive(request.get("measure_lock")):
            timing = replace(timing, eager_ms=_median_ms(fn, sets[0], request), compiled_ms=None)
    run = replace(base, status=statuses.BACKEND_ERROR, detail=f"compile-default: {failure.describe()}",
                  backend_failure=failure, events=merge_events(events),
                  recompiles=hooks.recompiles(), timing=timing)  # fmt: skip
    if rerun.error is not None:
        return replace(run, detail=f"{run.detail}; with backend='eager' too: {describe_exception(rerun.error)}")
    enter("compile-fullgraph")
    return _fullgraph(run, fn, sets, user, {**request, "backend": "eager"})


class CudagraphSkips:
    """Why Inductor skipped CUDA graphs (``mode="reduce-overhead"``): what it logs to its
    ``cudagraphs`` artifact logger, captured while the phase runs."""

    def __init__(self) -> None:
        self.reasons: tuple[str, ...] = ()
        self._logger: Any = None

    def __enter__(self) -> CudagraphSkips:
        import logging

        try:
            from torch._inductor import cudagraph_utils
        except Exception:  # noqa: BLE001 - no inductor: nothing to capture
            return self
        owner = self

        class Handler(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                owner.reasons = (*owner.reasons, record.getMessage()[:300])

        self._logger = cudagraph_utils.cudagraphs_log
        self._handler, self._level = Handler(), self._logger.level
        self._logger.addHandler(self._handler)
        self._logger.setLevel(min(self._level or logging.WARNING, logging.WARNING))
        return self

    def __exit__(self, *exc: object) -> None:
        if self._logger is not None:
            self._logger.removeHandler(self._handler)
            self._logger.setLevel(self._level)


def run_loaded_target(
    loaded: LoadedTarget, request: dict[str, Any], enter: Callable[[str], None]
) -> TargetRun:
    device, backend = request.get("device", "cpu"), request.get("backend", "eager")
    root = request.get("project_root")
    user = UserFiles([root] if root else None)
    base = TargetRun(statuses.OK, torch_version=torch.__version__, device=device, backend=backend)
    if device.startswith("cuda") and not torch.cuda.is_available():
        return replace(base, status=statuses.ENVIRONMENT_ERROR, detail="CUDA is not available")
    notes = [SUPPRESS_NOTE] if override_suppress_errors() else []
    fn = to_device(loaded.fn, device)
    sets = [InputSet(to_device(s.args, device), to_device(s.kwargs, device)) for s in loaded.input_sets]
    base = replace(base, callable_files=callable_files(fn, user), notes=tuple(notes))

    enter("eager")
    with LineCoverage(user) as coverage:
        eager = run_phase(fn, sets, device=device)
    base = replace(base, coverage=coverage.as_json())
    if eager.error is not None:
        return _fault(base, eager.error, "eager")

    enter("compile-default")
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    frames_before = frames_converted()
    compile_mode = str(request.get("compile_mode") or "default")
    with DynamoHooks(user) as hooks, CudagraphSkips() as skips:
        compiled = compile_fn(fn, DEFAULT, backend, compile_mode)
        default = run_phase(compiled, sets, device=device, hooks=hooks)
        timing = Timing(compile_s=default.first_call_s)
        graphs = int(torch._dynamo.utils.counters["stats"]["unique_graphs"])
        if request.get("measure") and default.error is None:
            enter("measure")
            hooks.recording = False  # timing loops would add their own recompiles
            eager_ms, compiled_ms = _measure(fn, compiled, sets[0], request)
            timing = replace(timing, eager_ms=eager_ms, compiled_ms=compiled_ms)
    hook = "; ".join(hooks.hook_names)
    base = replace(base, events=merge_events(hooks.events), recompiles=hooks.recompiles(), timing=timing,
                   hook=hook, graphs=graphs, cudagraph_skips=skips.reasons, compile_mode=compile_mode)  # fmt: skip
    if default.error is not None and classify_compile_failure(default.error) == statuses.BACKEND_ERROR \
            and backend != "eager":
        return _after_backend_failure(base, fn, sets, user, request, default.error, enter)
    if default.error is not None:
        failed = _fault(base, default.error, "compile-default")
        if failed.status != statuses.COMPILE_ERROR:
            return failed
        return replace(failed, default_error=compile_error(default.error, user))
    if frames_converted() == frames_before:  # nothing was compiled: "no break" would be a lie
        return replace(base, status=statuses.NOT_COMPILED, detail=f"Dynamo compiled nothing: {why_not_compiled()}")
    base = replace(base, output_match=outputs_match(eager.outputs[0], default.outputs[0]))
    if override_suppress_errors() and SUPPRESS_NOTE not in base.notes:
        base = replace(base, notes=(*base.notes, SUPPRESS_NOTE))

    enter("compile-fullgraph")
    run = _fullgraph(base, fn, sets, user, request)
    return requested_phases(run, fn, sets, user, request, enter)
