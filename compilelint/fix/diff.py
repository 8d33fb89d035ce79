"""``--diff``: what ``--fix`` would change, as a unified diff per file that ``git apply``
and ``patch`` apply.

Lines are git's: split after each ``\\n`` only, each keeping its own ending, so a CRLF
file's lines carry their ``\\r``, a UTF-8 BOM stays on line 1, and a last line without a
newline gets git's "\\ No newline at end of file". The bytes are decoded as UTF-8 with
``surrogateescape``: writing the diff back with the same error handler gives the file's
exact bytes, whatever its encoding.
"""

from __future__ import annotations

import difflib
import re

_AFTER_NEWLINE = re.compile(rb"(?<=\n)")
NO_NEWLINE = "\\ No newline at end of file\n"


def _lines(data: bytes) -> list[str]:
    return [line.decode("utf-8", "surrogateescape") for line in _AFTER_NEWLINE.split(data) if line]


def unified_diff(path: str, old: bytes, new: bytes) -> str:
    """The diff of two versions of ``path`` ('' when they are the same)."""
    if old == new:
        return ""
    out = []
    for line in difflib.unified_diff(_lines(old), _lines(new), fromfile=f"a/{path}", tofile=f"b/{path}", lineterm="\n"):
        out.append(line)
        if not line.endswith("\n"):
            out.append("\n" + NO_NEWLINE)
    return "".join(out)
