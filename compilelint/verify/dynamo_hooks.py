"""Hooks into Dynamo's own reporting: every graph break, every recompile, the limit.

``torch._dynamo.explain`` under-reports (it misses frame skips and breaks before a
frame's first op), so we wrap the function Dynamo logs each graph break through. Its
name and signature moved between releases; each hook records which form it found so a
report can say how far to trust it. Imported only in the child or by ``record()``.
"""

from __future__ import annotations

import dis
import json
import logging
import os
import re
import sys
from collections.abc import Callable
from functools import lru_cache
from types import TracebackType
from typing import Any

import torch
import torch._dynamo

from compilelint.verify.attribution import UserFiles, attribute, canonical
from compilelint.verify.model import DEFAULT, BreakEvent, CompileError, Frame, Recompile, Recompiles

_LOOP_WRAPPER = "graph break in loop"  # wraps a root cause; the whole frame runs eager
_GB_URL = re.compile(r"/gb/(gb\d{4})\.html", re.IGNORECASE)
_EXPLANATION = re.compile(r"^\s*Explanation:\s*(.+)$", re.MULTILINE)
_USER_FRAME = re.compile(r'File "([^"]+)", line (\d+), in (\S+)')
_LIMIT_MESSAGE = re.compile(r"function: '([^']*)' \((.*):(\d+)\)")


@lru_cache(maxsize=1)
def _gb_registry() -> dict[str, str]:
    """gb_type -> GB id, from the registry shipped with torch (absent on old releases)."""
    path = os.path.join(os.path.dirname(torch._dynamo.__file__), "graph_break_registry.json")
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    table: dict[str, str] = {}
    for gb_id, entries in data.items():
        for entry in entries:
            table.setdefault(str(entry.get("Gb_type", "")), gb_id)
    return table


def gb_id_for(gb_type: str, message: str = "") -> str | None:
    known = _gb_registry().get(gb_type)
    if known:
        return known
    found = _GB_URL.search(message)  # the message links its GB page on newer releases
    return found.group(1).upper() if found else None


def _gb_type(exc: BaseException) -> str:
    value = getattr(exc, "gb_type", None)
    if isinstance(value, str) and value:
        return value
    first = str(getattr(exc, "msg", "") or exc).strip().splitlines()
    return first[0][:200] if first else type(exc).__name__


def root_cause(exc: BaseException) -> tuple[BaseException, str | None]:
    """The break a wrapper ("graph break in loop") stands for, and the wrapper's type."""
    wrapper = _gb_type(exc) if _gb_type(exc) == _LOOP_WRAPPER else None
    current = exc
    seen = 0
    while _gb_type(current) == _LOOP_WRAPPER and seen < 8:
        inner = current.__cause__ or current.__context__
        if inner is None or getattr(inner, "gb_type", None) is None:
            break
        current, seen = inner, seen + 1
    return current, wrapper


def _wrapped_gb_type(exc: BaseException) -> str:
    """The root cause's type when only the wrapper is at hand (torch 2.11: the chain does
    not hold it, but the wrapper's message starts with the root cause's)."""
    lines = str(getattr(exc, "msg", "") or exc).strip().splitlines()
    first = lines[0].strip() if lines else ""
    return first if first and first != _LOOP_WRAPPER and len(first) < 200 else _LOOP_WRAPPER


def explanation_of(exc: BaseException) -> str:
    text = str(getattr(exc, "msg", "") or exc)
    found = _EXPLANATION.search(text)
    line = found.group(1) if found else text.strip().splitlines()[0] if text.strip() else ""
    return line.strip()[:300]


def stack_of(exc: BaseException) -> tuple[Frame, ...]:
    """The user stack Dynamo attached (``real_stack``), else the one in its message."""
    real = getattr(exc, "real_stack", None)
    if real:
        return tuple(Frame(canonical(s.filename), int(s.lineno or 0), s.name) for s in real)
    found = _USER_FRAME.findall(str(exc))
    return tuple(Frame(canonical(path), int(line), name) for path, line, name in found)


def compile_error(exc: BaseException, user: UserFiles) -> CompileError:
    """A compiled run's exception, pointed at its innermost user frame when it has one."""
    root, _ = root_cause(exc)
    raw = stack_of(root)
    stack = attribute(raw, user)
    if not stack:
        raw = stack_of(exc)
        stack = attribute(raw, user)
    gb_type = getattr(root, "gb_type", None)
    message = " ".join(str(exc).split())[:600]
    return CompileError(
        type=f"{type(exc).__module__}.{type(exc).__qualname__}",
        message=message,
        gb_type=gb_type if isinstance(gb_type, str) and gb_type else None,
        gb_id=gb_id_for(gb_type, str(root)) if isinstance(gb_type, str) else None,
        path=stack[-1].path if stack else None,
        line=stack[-1].line if stack else None,
        explanation=explanation_of(root),
        inner=raw[len(stack) :] if stack else raw,  # no user frame: the package's own
    )


_GUARD_FILE = re.compile(r'File "([^"]+)", line (\d+)')
_GUARD_COMMENT = re.compile(r"#\s*([^\s#]+?\.py):(\d+) in [\w<>]+")


def _guard_location(reason: str, frame_path: str) -> tuple[str, int] | None:
    """The user line a failed guard came from. Reasons carry it as a "User stack trace",
    or as a "# path:line in fn" comment whose path may be relative or cut on the left."""
    found = _GUARD_FILE.search(reason)
    if found:
        return canonical(found.group(1)), int(found.group(2))
    lines = reason.strip().splitlines()
    matches = list(_GUARD_COMMENT.finditer(lines[0])) if lines else []
    if not matches:
        return None
    partial, line = matches[-1].group(1), int(matches[-1].group(2))
    if frame_path.endswith(partial.lstrip("./")):
        return frame_path, line
    return (canonical(partial), line) if os.path.exists(partial) else None


def _root_code_span(translator: Any) -> tuple[int, int] | None:
    """First and last line of the frame Dynamo is compiling (the one it will skip)."""
    while getattr(translator, "parent", None) is not None:
        translator = translator.parent
    code = getattr(translator, "f_code", None)
    if code is None:
        return None
    lines = [line for _, line in dis.findlinestarts(code) if line is not None]
    return (code.co_firstlineno, max(lines, default=code.co_firstlineno))


class _LimitHandler(logging.Handler):
    """Catches Dynamo's 'hit config.recompile_limit' warning: the frame now runs eager."""

    def __init__(self, hooks: DynamoHooks) -> None:
        super().__init__(logging.WARNING)
        self.hooks = hooks

    def emit(self, record: logging.LogRecord) -> None:
        message = record.getMessage()
        if message.startswith("torch._dynamo hit config."):
            self.hooks.on_limit_hit(message)


class DynamoHooks:
    """Context manager: while active, graph breaks and recompiles are collected.

    ``mode`` and ``input_set`` are set by the caller before each call so each event says
    when it happened; ``recording`` pauses collection (latency measurement).
    """

    def __init__(self, user: UserFiles) -> None:
        self.user = user
        self.mode = DEFAULT
        self.input_set = 0
        self.recording = True
        self.events: list[BreakEvent] = []
        self.recompile_events: list[Recompile] = []
        self.hook_names: list[str] = []
        self._undo: list[Callable[[], None]] = []

    # -- installing -----------------------------------------------------------------------
    def __enter__(self) -> DynamoHooks:
        self._hook_graph_breaks()
        self._hook_recompiles()
        handler = _LimitHandler(self)
        logger = logging.getLogger("torch._dynamo.convert_frame")
        logger.addHandler(handler)
        self._undo.append(lambda: logger.removeHandler(handler))
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        while self._undo:
            self._undo.pop()()

    def _patch(self, owner: Any, name: str, wrapper: Callable[..., Any]) -> None:
        # Restore exactly what was there: an inherited method must not become an own one.
        namespace = vars(owner)
        if name in namespace:
            original = namespace[name]
            self._undo.append(lambda: setattr(owner, name, original))
        else:
            self._undo.append(lambda: delattr(owner, name))
        setattr(owner, name, wrapper)

    def _hook_graph_breaks(self) -> None:
        from torch._dynamo import symbolic_convert as sc

        hooks = self
        method = getattr(sc.InstructionTranslatorBase, "log_graph_break", None)
        if method is not None:  # torch >= 2.8: a method that receives the exception
            def log_graph_break(translator: Any, *args: Any, **kwargs: Any) -> Any:
                exc = kwargs.get("exc", args[-1] if args else None)
                if not isinstance(exc, BaseException):
                    exc = sys.exc_info()[1]
                hooks.on_graph_break(exc, None, translator)
                return method(translator, *args, **kwargs)

            self._patch(sc.InstructionTranslatorBase, "log_graph_break", log_graph_break)
            self.hook_names.append("InstructionTranslatorBase.log_graph_break")
            return
        function = getattr(sc, "log_graph_break", None)
        if function is not None:  # older releases: a module function called in `except`
            def log_graph_break_fn(*args: Any, **kwargs: Any) -> Any:
                hooks.on_graph_break(sys.exc_info()[1], kwargs.get("user_stack"), None)
                return function(*args, **kwargs)

            self._patch(sc, "log_graph_break", log_graph_break_fn)
            self.hook_names.append("symbolic_convert.log_graph_break")
            return
        self.hook_names.append("no graph-break hook found: breaks not recorded")

    def _hook_recompiles(self) -> None:
        from torch._dynamo import convert_frame

        original = getattr(convert_frame, "get_and_maybe_log_recompilation_reasons", None)
        if original is None:
            self.hook_names.append("no recompile hook found: recompiles not recorded")
            return
        hooks = self

        def reasons_hook(cache_entries: Any, frame: Any, *args: Any, **kwargs: Any) -> Any:
            reasons = original(cache_entries, frame, *args, **kwargs)
            if not kwargs.get("skip_logging"):
                hooks.on_recompile(frame.f_code, list(reasons or []))
            return reasons

        self._patch(convert_frame, "get_and_maybe_log_recompilation_reasons", reasons_hook)
        self.hook_names.append("convert_frame.get_and_maybe_log_recompilation_reasons")

    # -- collecting -----------------------------------------------------------------------
    def on_graph_break(self, exc: BaseException | None, user_stack: Any, translator: Any) -> None:
        if exc is None or not self.recording or getattr(exc, "logged", False):
            return  # `logged`: Dynamo already reported this exception once
        root, wrapper = root_cause(exc)
        raw = stack_of(root) or stack_of(exc)
        if not raw and user_stack:
            raw = tuple(Frame(canonical(s.filename), int(s.lineno or 0), s.name) for s in user_stack)
        attributed = attribute(raw, self.user)
        inner = raw[len(attributed) :] if attributed else ()
        if not attributed and raw:
            # a library frame Python runs on its own (a resume function of torch.optim's
            # step wrapper, a logging method after the caller broke): the break is the user
            # line whose call is running
            attributed = self._running_user_frame()
            inner = raw if attributed else ()
        stack = attributed or raw[-1:]
        if not stack:
            return
        gb_type = _wrapped_gb_type(root) if _gb_type(root) == _LOOP_WRAPPER else _gb_type(root)
        self.events.append(
            BreakEvent(
                mode=self.mode,
                path=stack[-1].path,
                line=stack[-1].line,
                gb_type=gb_type,
                gb_id=gb_id_for(gb_type, str(root)),
                explanation=explanation_of(root),
                stack=stack,
                wrapped_by=wrapper,
                input_set=self.input_set,
                skipped_lines=_root_code_span(translator) if wrapper else None,
                inner=inner,
            )
        )

    def _running_user_frame(self) -> tuple[Frame, ...]:
        """The innermost user frame Python is running while Dynamo compiles a frame called
        from it (its line is the call), or nothing."""
        frame = sys._getframe(1)
        while frame is not None:
            path = canonical(frame.f_code.co_filename)
            if path in self.user:
                return (Frame(path, int(frame.f_lineno or 0), frame.f_code.co_name),)
            frame = frame.f_back  # type: ignore[assignment]
        return ()

    def on_recompile(self, code: Any, reasons: list[str]) -> None:
        if not self.recording:
            return
        first = reasons[0] if reasons else "unknown reason"
        # "0/1: self.step == 1   # source comment  # file:line in fn" -> "self.step == 1"
        text = first.strip().splitlines()[0] if first.strip() else first
        text = re.sub(r"^\d+/\d+:\s*", "", text).split("  #")[0]
        path = canonical(code.co_filename)
        guard = _guard_location(first, path)
        self.recompile_events.append(
            Recompile(
                function=code.co_name,
                path=path,
                first_line=code.co_firstlineno,
                reason=" ".join(text.split())[:300],
                input_set=self.input_set,
                guard_path=guard[0] if guard else None,
                guard_line=guard[1] if guard else None,
            )
        )

    def on_limit_hit(self, message: str) -> None:
        if not self.recording:
            return
        if self.recompile_events and not self.recompile_events[-1].limit_hit:
            last = self.recompile_events.pop()
            self.recompile_events.append(Recompile(**{**last.__dict__, "limit_hit": True}))
            return
        found = _LIMIT_MESSAGE.search(message)
        name, path, line = found.groups() if found else ("?", "?", "0")
        self.recompile_events.append(
            Recompile(name, canonical(path), int(line), "recompile limit", self.input_set, True)
        )

    def recompiles(self) -> Recompiles:
        return Recompiles(tuple(self.recompile_events), recompile_limit())


def recompile_limit() -> int | None:
    config = torch._dynamo.config
    for name in ("recompile_limit", "cache_size_limit"):  # renamed in torch 2.6/2.7
        value = getattr(config, name, None)
        if isinstance(value, int):
            return value
    return None
