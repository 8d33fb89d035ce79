"""Fixture tests' view of Dynamo: the verifier's in-process recorder, plus compile counts."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any


@dataclass
class ModeResult:
    breaks: list[tuple[str, int, str]] = field(default_factory=list)  # (file, line, gb_type)
    error: str | None = None
    error_sites: list[tuple[str, int]] = field(default_factory=list)
    # breaks inside the fixture's installed packages (its site-packages/): (file, line)
    package_sites: list[tuple[str, int]] = field(default_factory=list)


def record(fn: Any, inputs: list[Any], path: str, fullgraph: bool, backend: str = "eager", dynamic: bool = False) -> ModeResult:
    """Breaks in ``path`` (innermost frame there) under one mode, via compilelint.verify;
    ``dynamic``: the default mode as ``torch.compile(dynamic=True)`` runs it."""
    import torch._dynamo

    from compilelint.verify.recorder import record as verify_record

    folder = os.path.dirname(path)  # roots are folders
    mode = "fullgraph" if fullgraph else "default"
    # what torch.compile(dynamic=True) patches (torch._dynamo.eval_frame.make_set_enable_dynamic)
    with torch._dynamo.config.patch(assume_static_by_default=not dynamic):
        recording = verify_record(fn, inputs, mode=mode, backend=backend, user_roots=[folder])
    result = ModeResult(breaks=[(e.path, e.line, e.gb_type) for e in recording.events if e.path == path])
    packages = os.path.join(folder, "site-packages") + os.sep
    for event in recording.events:
        inside = event.inner[-1] if event.inner else None
        site = (inside.path, inside.line) if inside else (event.path, event.line)
        if site[0].startswith(packages):
            result.package_sites.append(site)
    error = recording.error
    if error is not None and error.inner and error.inner[-1].path.startswith(packages):
        result.package_sites.append((error.inner[-1].path, error.inner[-1].line))
    if error is not None:
        result.error = f"{error.type}: {error.message.splitlines()[0] if error.message else ''}"
        if error.path == path and error.line:
            result.error_sites = [(error.path, error.line)]
    return result


def _call(compiled: Any, item: Any) -> Any:
    from compilelint.verify.targets import normalize_input_set

    inputs = normalize_input_set(item)
    return compiled(*inputs.args, **inputs.kwargs)


def count_recompiles(fn: Any, inputs: list[Any]) -> int:
    """Frames Dynamo compiled beyond the first, running every input set (default mode)."""
    import torch

    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    compiled = torch.compile(fn, backend="eager")
    for item in inputs:
        _call(compiled, item)
    frames = int(torch._dynamo.utils.counters["frames"]["ok"])
    torch._dynamo.reset()
    return frames - 1


def count_compiles(run: Any) -> int:
    """Frames Dynamo compiled while ``run()`` executes (it calls torch.compile itself)."""
    import torch

    torch._dynamo.utils.counters.clear()
    run()
    frames = int(torch._dynamo.utils.counters["frames"]["ok"])
    torch._dynamo.reset()
    return frames
