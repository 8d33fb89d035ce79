"""Values the verifier passes around: Dynamo events, one target's run, and their JSON.

The child process writes a :class:`TargetRun` as JSON and the parent reads it back, so
every value here round-trips through ``to_json`` / ``from_json``. No torch in this module.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from compilelint.verify.backend_failure import BackendFailure

DEFAULT = "default"  # torch.compile(fn)
FULLGRAPH = "fullgraph"  # torch.compile(fn, fullgraph=True)
DYNAMIC = "dynamic"  # torch.compile(fn, dynamic=True), the --dynamic phase


@dataclass(frozen=True)
class Frame:
    """One user-code frame of a graph break's stack."""

    path: str
    line: int
    function: str

    def to_json(self) -> list[Any]:
        return [self.path, self.line, self.function]

    @staticmethod
    def from_json(data: list[Any]) -> Frame:
        return Frame(str(data[0]), int(data[1]), str(data[2]))


@dataclass(frozen=True)
class BreakEvent:
    """A graph break as Dynamo reported it, attributed to the innermost user frame."""

    mode: str
    path: str
    line: int
    gb_type: str
    gb_id: str | None
    explanation: str = ""
    stack: tuple[Frame, ...] = ()  # outermost first; the last frame is (path, line)
    wrapped_by: str | None = None  # e.g. "graph break in loop" around this root cause
    input_set: int = 0  # index of the first input set that produced it
    count: int = 1  # how many times Dynamo logged it (recompiles, resume frames)
    # Lines of the function Dynamo then ran eager whole ("graph break in loop"): it never
    # traced them, so a finding there is not reached by the compiler, not disproved.
    skipped_lines: tuple[int, int] | None = None
    # Frames below the user's (installed packages, the standard library), outermost
    # first: where in torchdiffeq the user's ``odeint(...)`` call broke
    inner: tuple[Frame, ...] = ()

    @property
    def key(self) -> tuple[str, str, int, str]:
        return (self.mode, self.path, self.line, self.gb_type)

    def to_json(self) -> dict[str, Any]:
        return {
            "mode": self.mode,
            "path": self.path,
            "line": self.line,
            "gb_type": self.gb_type,
            "gb_id": self.gb_id,
            "explanation": self.explanation,
            "stack": [frame.to_json() for frame in self.stack],
            "wrapped_by": self.wrapped_by,
            "input_set": self.input_set,
            "count": self.count,
            "skipped_lines": list(self.skipped_lines) if self.skipped_lines else None,
            "inner": [frame.to_json() for frame in self.inner],
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> BreakEvent:
        return BreakEvent(
            mode=str(data["mode"]),
            path=str(data["path"]),
            line=int(data["line"]),
            gb_type=str(data["gb_type"]),
            gb_id=data.get("gb_id"),
            explanation=str(data.get("explanation", "")),
            stack=tuple(Frame.from_json(item) for item in data.get("stack", [])),
            wrapped_by=data.get("wrapped_by"),
            input_set=int(data.get("input_set", 0)),
            count=int(data.get("count", 1)),
            skipped_lines=_span(data.get("skipped_lines")),
            inner=tuple(Frame.from_json(item) for item in data.get("inner", [])),
        )


def _span(value: Any) -> tuple[int, int] | None:
    return (int(value[0]), int(value[1])) if value else None


@dataclass(frozen=True)
class CompileError:
    """The exception that stopped a compiled run (under fullgraph=True: the first break)."""

    type: str  # qualified exception type, e.g. torch._dynamo.exc.Unsupported
    message: str
    gb_type: str | None = None
    gb_id: str | None = None
    path: str | None = None
    line: int | None = None
    explanation: str = ""
    inner: tuple[Frame, ...] = ()  # frames inside installed packages, below (path, line)

    @property
    def reported_type(self) -> str:
        """What the error counts as when it stands for a break: its graph-break type, else
        the exception's class name."""
        return self.gb_type or self.type.rsplit(".", 1)[-1]

    @property
    def reported_explanation(self) -> str:
        return self.explanation or self.message[:300]

    def to_json(self) -> dict[str, Any]:
        data = dict(self.__dict__)
        data["inner"] = [frame.to_json() for frame in self.inner]
        return data

    @staticmethod
    def from_json(data: dict[str, Any] | None) -> CompileError | None:
        if data is None:
            return None
        inner = tuple(Frame.from_json(item) for item in data.get("inner", []))
        return CompileError(**{**data, "inner": inner})


@dataclass(frozen=True)
class Recompile:
    """One time guards failed on a frame and Dynamo compiled it again (or gave up)."""

    function: str
    path: str
    first_line: int
    reason: str  # the first failed guard of the newest cache entry
    input_set: int
    limit_hit: bool = False  # Dynamo hit the recompile limit instead of compiling
    # Where the failed guard was installed (the user line Dynamo specialised on), when the
    # reason says; a size mismatch on an input tensor says nowhere.
    guard_path: str | None = None
    guard_line: int | None = None

    def describe(self) -> str:
        where = f"{self.function} ({self.path}:{self.first_line})"
        suffix = " [recompile limit hit: runs eager from now on]" if self.limit_hit else ""
        return f"{where}: {self.reason}{suffix}"

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @staticmethod
    def from_json(data: dict[str, Any]) -> Recompile:
        return Recompile(**data)


@dataclass(frozen=True)
class Recompiles:
    events: tuple[Recompile, ...] = ()
    limit: int | None = None  # torch._dynamo.config.recompile_limit at the time

    @property
    def count(self) -> int:
        return sum(1 for event in self.events if not event.limit_hit)

    @property
    def limit_hit(self) -> bool:
        return any(event.limit_hit for event in self.events)

    def unexpected(self) -> list[Recompile]:
        """The recompiles that are hazards: all but each frame's first size change.

        Every model recompiles once when batch or sequence length first changes (automatic
        dynamic shapes at work); only the recompiles beyond those are hazards.
        """
        seen: set[tuple[str, str, int]] = set()
        hazards = []
        for event in self.events:
            frame = (event.function, event.path, event.first_line)
            if not event.limit_hit and "size mismatch" in event.reason and frame not in seen:
                seen.add(frame)
                continue
            hazards.append(event)
        return hazards

    @property
    def expected(self) -> int:
        return len(self.events) - len(self.unexpected())

    def to_json(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "expected": self.expected,
            "limit_hit": self.limit_hit,
            "limit": self.limit,
            "reasons": [event.describe() for event in self.events],
            "events": [event.to_json() for event in self.events],
        }

    @staticmethod
    def from_json(data: dict[str, Any] | None) -> Recompiles:
        if not data:
            return Recompiles()
        events = tuple(Recompile.from_json(item) for item in data.get("events", []))
        return Recompiles(events=events, limit=data.get("limit"))


@dataclass(frozen=True)
class Recording:
    """What :func:`compilelint.verify.recorder.record` saw in one mode."""

    mode: str
    events: tuple[BreakEvent, ...]
    error: CompileError | None
    recompiles: Recompiles
    hook: str  # which Dynamo function was hooked: tells a reader how far to trust it
    torch_version: str = ""

    def break_lines(self, path: str | None = None) -> set[tuple[str, int]]:
        """(path, line) of every break, the error under fullgraph=True included."""
        found = {(event.path, event.line) for event in self.events}
        if self.error is not None and self.error.path and self.error.line:
            found.add((self.error.path, self.error.line))
        return {item for item in found if path is None or item[0] == path}


@dataclass(frozen=True)
class Timing:
    eager_ms: float | None = None
    compiled_ms: float | None = None
    compile_s: float | None = None

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @staticmethod
    def from_json(data: dict[str, Any] | None) -> Timing:
        return Timing(**data) if data else Timing()


@dataclass(frozen=True)
class DynamicRun:
    """The input sets again under ``torch.compile(dynamic=True)`` (``--dynamic``)."""

    recompiles: Recompiles = field(default_factory=Recompiles)
    graphs: int | None = None
    error: str = ""  # the exception that stopped the phase, if one did
    first_call_s: float | None = None
    cuda_fault: bool = False
    # its breaks (mode "dynamic"): they judge the findings that claim dynamic=True only
    events: tuple[BreakEvent, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"recompiles": self.recompiles.to_json(), "graphs": self.graphs, "error": self.error,
                "first_call_s": self.first_call_s, "cuda_fault": self.cuda_fault,
                "events": [event.to_json() for event in self.events]}  # fmt: skip

    @staticmethod
    def from_json(data: dict[str, Any] | None) -> DynamicRun | None:
        if not data:
            return None
        return DynamicRun(Recompiles.from_json(data.get("recompiles")), data.get("graphs"), str(data.get("error", "")),
                          data.get("first_call_s"), bool(data.get("cuda_fault", False)),
                          tuple(BreakEvent.from_json(item) for item in data.get("events", [])))  # fmt: skip


@dataclass(frozen=True)
class TargetRun:
    """Everything the child process found out about one target; written as JSON."""

    status: str
    detail: str = ""
    notes: tuple[str, ...] = ()
    torch_version: str = ""
    device: str = ""
    backend: str = ""
    callable_files: tuple[str, ...] = ()
    events: tuple[BreakEvent, ...] = ()  # default mode and fullgraph, deduplicated
    fullgraph_error: CompileError | None = None
    fullgraph_ran: bool = False
    # the default mode failed to compile (status compile-error): the error, at its user line
    default_error: CompileError | None = None
    recompiles: Recompiles = field(default_factory=Recompiles)
    coverage: dict[str, tuple[int, ...]] = field(default_factory=dict)
    timing: Timing = field(default_factory=Timing)
    output_match: bool | None = None
    hook: str = ""
    # the backend could not compile the graph: what it said; the events then come from a
    # second run of the phase with backend="eager" (every break Dynamo reports)
    backend_failure: BackendFailure | None = None
    graphs: int | None = None  # graphs the default-mode run compiled (Dynamo's counters)
    cudagraph_skips: tuple[str, ...] = ()  # why Inductor did not use CUDA graphs (reduce-overhead)
    compile_mode: str = "default"  # torch.compile(mode=...)
    dynamic: DynamicRun | None = None  # --dynamic
    # --compile-time: {variant: {"first_call_s", "block", "error", ...}} (compile_time.py)
    compile_time: dict[str, dict[str, Any]] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "detail": self.detail,
            "notes": list(self.notes),
            "torch_version": self.torch_version,
            "device": self.device,
            "backend": self.backend,
            "callable_files": list(self.callable_files),
            "events": [event.to_json() for event in self.events],
            "fullgraph_error": None if self.fullgraph_error is None else self.fullgraph_error.to_json(),
            "fullgraph_ran": self.fullgraph_ran,
            "default_error": None if self.default_error is None else self.default_error.to_json(),
            "recompiles": self.recompiles.to_json(),
            "coverage": {path: list(lines) for path, lines in self.coverage.items()},
            "timing": self.timing.to_json(),
            "output_match": self.output_match,
            "hook": self.hook,
            "backend_failure": self.backend_failure.to_json() if self.backend_failure else None,
            "graphs": self.graphs,
            "cudagraph_skips": list(self.cudagraph_skips),
            "compile_mode": self.compile_mode,
            "dynamic": self.dynamic.to_json() if self.dynamic else None,
            "compile_time": self.compile_time,
        }

    @staticmethod
    def from_json(data: dict[str, Any]) -> TargetRun:
        return TargetRun(
            status=str(data["status"]),
            detail=str(data.get("detail", "")),
            notes=tuple(data.get("notes", ())),
            torch_version=str(data.get("torch_version", "")),
            device=str(data.get("device", "")),
            backend=str(data.get("backend", "")),
            callable_files=tuple(data.get("callable_files", ())),
            events=tuple(BreakEvent.from_json(item) for item in data.get("events", [])),
            fullgraph_error=CompileError.from_json(data.get("fullgraph_error")),
            fullgraph_ran=bool(data.get("fullgraph_ran", False)),
            default_error=CompileError.from_json(data.get("default_error")),
            recompiles=Recompiles.from_json(data.get("recompiles")),
            coverage={p: tuple(lines) for p, lines in data.get("coverage", {}).items()},
            timing=Timing.from_json(data.get("timing")),
            output_match=data.get("output_match"),
            hook=str(data.get("hook", "")),
            backend_failure=BackendFailure.from_json(data.get("backend_failure")),
            graphs=data.get("graphs"),
            cudagraph_skips=tuple(data.get("cudagraph_skips", ())),
            compile_mode=str(data.get("compile_mode", "default")),
            dynamic=DynamicRun.from_json(data.get("dynamic")),
            compile_time=data.get("compile_time"),
        )
