"""What a failing backend says: the op it could not compile, why, and the user's line.

Inductor wraps a lowering error as ``LoweringException`` (message: the inner error, then
``target: aten._unique2.default`` and the arguments, then ``Found from :`` and the FX
node's stack trace, which names the user's source line); Dynamo wraps that again as
``BackendCompilerFailed``. Other backends raise whatever they raise: then the op is
unknown and the line is the innermost user frame of the traceback, if any. No torch here.
"""

from __future__ import annotations

import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

_TARGET = re.compile(r"^\s*target:\s*(\S+)", re.M)
_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


@dataclass(frozen=True)
class BackendFailure:
    backend: str
    op: str | None  # aten._unique2.default
    reason: str  # the inner error's first line
    path: str | None = None
    line: int | None = None

    def describe(self) -> str:
        what = f"cannot compile `{self.op}`" if self.op else "failed"
        return f"backend {self.backend!r} {what}: {self.reason}"

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)

    @staticmethod
    def from_json(data: dict[str, Any] | None) -> BackendFailure | None:
        return BackendFailure(**data) if data else None


def _chain(exc: BaseException) -> list[BaseException]:
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen:
        seen.append(current)
        current = getattr(current, "inner_exception", None) or current.__cause__ or current.__context__
    return seen


def backend_failure(exc: BaseException, backend: str, is_user_file: Callable[[str], bool]) -> BackendFailure:
    """Read ``exc`` (a BackendCompilerFailed or what it wraps)."""
    chain = _chain(exc)
    inner = chain[1] if len(chain) > 1 and type(chain[0]).__name__ == "BackendCompilerFailed" else chain[0]
    text = "\n".join(str(item) for item in chain)
    target = _TARGET.search(text)
    reason = (str(inner).strip().splitlines() or [type(inner).__name__])[0][:300]
    path, line = _user_line(text, exc, is_user_file)
    return BackendFailure(backend, target.group(1) if target else None, reason, path, line)


def _user_line(text: str, exc: BaseException, is_user_file: Callable[[str], bool]) -> tuple[str | None, int | None]:
    """The innermost user frame of the FX node's stack trace (else its innermost frame), or
    of the exception's traceback."""
    found = text.split("Found from :", 1)[1] if "Found from :" in text else ""
    fx_frames = [(p, int(n)) for p, n in _FRAME.findall(found)]
    frames = [frame for frame in fx_frames if is_user_file(frame[0])]
    if not frames and fx_frames:
        # the graph was traced from a package's function (an earlier break split the user's
        # frame): the package line, which a call-site finding of the user's file can claim
        frames = fx_frames
    if not frames:
        stack = traceback.extract_tb(exc.__traceback__) if exc.__traceback__ else []
        frames = [(f.filename, f.lineno or 0) for f in stack if is_user_file(f.filename)]
    return frames[-1] if frames else (None, None)
