"""``--diff``: what ``--fix`` would change, as a unified diff per file."""

from __future__ import annotations

import difflib
import re

from compilelint.files import SourceError, decode_source

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def _lines(data: bytes) -> list[str]:
    try:
        text = decode_source(data)
    except SourceError:
        text = data.decode("utf-8", errors="replace")
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()  # the text ended with a newline
    return lines


def unified_diff(path: str, old: bytes, new: bytes) -> str:
    """The diff of two versions of ``path`` ('' when they are the same), lines ending in \\n."""
    if old == new:
        return ""
    diff = difflib.unified_diff(_lines(old), _lines(new), fromfile=f"a/{path}", tofile=f"b/{path}", lineterm="")
    text = "\n".join(diff)
    if not text:  # never a silent diff: bytes differ where lines do not (line endings)
        return f"--- a/{path}\n+++ b/{path}\n@@ line endings or encoding differ @@\n"
    return text + "\n"
