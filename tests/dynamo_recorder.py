"""Minimal in-process Dynamo recorder for the fixture tests (torch imported lazily)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

USER_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


@dataclass
class ModeResult:
    breaks: list[tuple[str, int, str]] = field(default_factory=list)  # (file, line, gb_type)
    error: str | None = None
    error_sites: list[tuple[str, int]] = field(default_factory=list)


def _innermost(stack: Any, path: str) -> tuple[str, int] | None:
    frames = [(f.filename, f.lineno) for f in stack or [] if f.filename == path]
    return frames[-1] if frames else None


def record(fn: Any, inputs: list[Any], path: str, fullgraph: bool) -> ModeResult:
    import torch
    from torch._dynamo.symbolic_convert import InstructionTranslatorBase

    result = ModeResult()
    original = InstructionTranslatorBase.log_graph_break

    def hook(self: Any, code_options: Any, reason: str, exc: Any) -> Any:
        if not getattr(exc, "logged", False):
            site = _innermost(getattr(exc, "real_stack", None), path)
            if site is not None:
                result.breaks.append((site[0], site[1], str(getattr(exc, "gb_type", type(exc).__name__))))
        return original(self, code_options, reason, exc)

    torch._dynamo.reset()
    InstructionTranslatorBase.log_graph_break = hook  # type: ignore[method-assign]
    try:
        compiled = torch.compile(fn, backend="eager", fullgraph=fullgraph)
        for item in inputs:
            args, kwargs = item if (isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], dict)) else (item, {})
            compiled(*args, **kwargs)
    except Exception as error:  # fullgraph failures
        result.error = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        site = _innermost(getattr(error, "real_stack", None), path)
        sites = [site] if site else [(p, int(n)) for p, n in USER_FRAME.findall(str(error)) if p == path]
        result.error_sites = sites[-1:]
    finally:
        InstructionTranslatorBase.log_graph_break = original  # type: ignore[method-assign]
        torch._dynamo.reset()
    return result


def _call(compiled: Any, item: Any) -> Any:
    args, kwargs = item if (isinstance(item, tuple) and len(item) == 2 and isinstance(item[1], dict)) else (item, {})
    return compiled(*args, **kwargs)


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
