"""Which frames are the user's, and how raw Dynamo breaks become one event per hazard.

Dynamo reports one hazard once per enclosing frame: the caller breaks at its call site
(its stack ends in the helper), then the helper breaks again as a frame of its own. Both
reports share the innermost user frame, which is where we attribute the break; the
caller's report is a call-site echo and is merged, not counted again.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache

from compilelint.verify.model import BreakEvent, Frame

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # compilelint/


def _library_dirs() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    dirs = {paths.get(key, "") for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    dirs.add(_PACKAGE_DIR)
    if sys.prefix != sys.base_prefix:
        # A virtualenv: everything under it is installed code, even outside site-packages.
        # (A system prefix such as /usr is not excluded whole: projects live under it.)
        dirs.add(sys.prefix)
    return tuple(sorted(os.path.realpath(d) + os.sep for d in dirs if d))


class UserFiles:
    """Decides whether a code file is the user's: under one of the roots (when given),
    and not the standard library, an installed package, or compilelint itself."""

    def __init__(self, roots: Sequence[str] | None = None) -> None:
        self.roots = tuple(os.path.realpath(root) + os.sep for root in roots or ())
        self._excluded = _library_dirs()
        self._cache: dict[str, bool] = {}

    def __contains__(self, filename: object) -> bool:
        if not isinstance(filename, str):
            return False
        known = self._cache.get(filename)
        if known is None:
            known = self._decide(filename)
            self._cache[filename] = known
        return known

    def _decide(self, filename: str) -> bool:
        if not filename or filename.startswith("<"):
            return False  # <frozen ...>, <string>, generated code
        real = os.path.realpath(filename)
        parts = real.split(os.sep)
        if "site-packages" in parts or "dist-packages" in parts:
            return False
        # A project's own virtualenv sits under its root: exclude library dirs first.
        if any(real.startswith(prefix) for prefix in self._excluded):
            return False
        return not self.roots or any(real.startswith(root) for root in self.roots)


@lru_cache(maxsize=4096)
def canonical(path: str) -> str:
    """The form paths are compared in: absolute, symlinks resolved."""
    return os.path.realpath(path)


def innermost_user_frame(stack: Sequence[Frame], user: UserFiles) -> int | None:
    """Index of the innermost frame in user code, or None when there is none."""
    for index in range(len(stack) - 1, -1, -1):
        if stack[index].path in user:
            return index
    return None


def attribute(stack: Sequence[Frame], user: UserFiles) -> tuple[Frame, ...] | None:
    """The stack cut at its innermost user frame (library frames below it dropped)."""
    index = innermost_user_frame(stack, user)
    if index is None:
        return None
    return tuple(stack[: index + 1])


def merge_events(events: Iterable[BreakEvent]) -> tuple[BreakEvent, ...]:
    """One event per (mode, path, line, gb_type); call-site echoes dropped."""
    merged: dict[tuple[str, str, int, str], BreakEvent] = {}
    for event in events:
        known = merged.get(event.key)
        if known is None:
            merged[event.key] = event
            continue
        stack = event.stack if len(event.stack) > len(known.stack) else known.stack
        merged[event.key] = replace(
            known,
            count=known.count + event.count,
            input_set=min(known.input_set, event.input_set),
            stack=stack,
            wrapped_by=known.wrapped_by or event.wrapped_by,
        )
    # An event at a location that is an outer frame of another event of the same type is
    # the caller's echo of that inner break.
    # A caller on the same line as the break (a comprehension, a lambda) is not an echo.
    outer: set[tuple[str, str, str, int]] = set()
    for event in merged.values():
        for frame in event.stack[:-1]:
            if (frame.path, frame.line) != (event.path, event.line):
                outer.add((event.mode, event.gb_type, frame.path, frame.line))
    kept = [e for e in merged.values() if (e.mode, e.gb_type, e.path, e.line) not in outer]
    return tuple(sorted(kept, key=lambda e: (e.mode, e.path, e.line, e.gb_type)))
