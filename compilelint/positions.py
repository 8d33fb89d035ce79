"""Line texts and character columns, computed only for files that have findings."""

from __future__ import annotations

import re

# ast counts lines at \n, \r\n and \r only (str.splitlines also splits at \x0c, \u2028 ...).
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class LineIndex:
    def __init__(self, text: str) -> None:
        self._text = text
        self._lines: list[str] | None = None

    @property
    def source(self) -> str:
        return self._text

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = _LINE_BREAK.split(self._text)
        return self._lines

    def text(self, line: int) -> str:
        """The text of a 1-based line, without its line break ('' when out of range)."""
        if 1 <= line <= len(self.lines):
            return self.lines[line - 1]
        return ""

    def column(self, line: int, byte_offset: int) -> int:
        """ast's UTF-8 byte offset on ``line`` -> a 1-based character column."""
        text = self.text(line)
        if text.isascii():
            return byte_offset + 1
        prefix = text.encode("utf-8")[:byte_offset]
        return len(prefix.decode("utf-8", errors="ignore")) + 1
