"""Line coverage of the user's files during the eager run.

It decides ``not-reached`` (no example ran the line) against ``not-reproduced`` (the
line ran and Dynamo did not break). ``sys.settrace`` works on every Python we support;
the global trace function returns a line tracer only for user files, so library code
(torch.nn, the stdlib) costs one call per frame and no per-line work.
"""

from __future__ import annotations

import sys
from types import FrameType, TracebackType
from typing import Any, Callable, Optional

from compilelint.verify.attribution import UserFiles, canonical

_Tracer = Callable[[FrameType, str, Any], Optional["_Tracer"]]  # noqa: UP007 (runtime alias)


class LineCoverage:
    """``with LineCoverage(user) as cov: ...`` then ``cov.lines``: path -> executed lines."""

    def __init__(self, user: UserFiles) -> None:
        self.user = user
        self.lines: dict[str, set[int]] = {}
        self._previous: Any = None

    def _on_call(self, frame: FrameType, event: str, arg: Any) -> _Tracer | None:
        filename = frame.f_code.co_filename
        if event != "call" or filename not in self.user:
            return None
        lines = self.lines.setdefault(canonical(filename), set())

        def on_line(frame: FrameType, event: str, arg: Any) -> _Tracer | None:
            if event == "line":
                lines.add(frame.f_lineno)
            return on_line

        return on_line

    def __enter__(self) -> LineCoverage:
        self._previous = sys.gettrace()
        sys.settrace(self._on_call)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        # Tracing must be off before torch.compile runs: Dynamo and a tracer do not mix.
        sys.settrace(self._previous)

    def as_json(self) -> dict[str, tuple[int, ...]]:
        return {path: tuple(sorted(lines)) for path, lines in sorted(self.lines.items())}
