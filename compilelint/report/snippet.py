"""A finding's source lines with its span underlined, ruff style.

    |
 21 |         if h.sum() > 0:
    |            ^^^^^^^^^^^ CL103
    |

Columns are characters (the engine's unit); what a terminal needs is cells, so tabs are
expanded and wide characters counted twice before the carets are placed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from rich.cells import cell_len
from rich.text import Text

TAB_SIZE = 4
# A long span shows its first and last lines around an elision row, not 200 lines.
MAX_SPAN_LINES = 6
HEAD_LINES = 3
TAIL_LINES = 2

GUTTER_STYLE = "bold blue"
CARET_STYLE = "bold red"


@dataclass(frozen=True)
class Span:
    """1-based lines, 1-based character columns, end exclusive (``Finding``'s convention)."""

    line: int
    column: int
    end_line: int
    end_column: int


def render_snippet(lines: Sequence[str], span: Span, label: str, ascii_only: bool = False) -> Text | None:
    """The lines of ``span`` with carets under it, or None when the lines are not there."""
    last = max(span.line, span.end_line)
    if not 1 <= span.line <= len(lines):
        return None
    last = min(last, len(lines))
    numbers = list(range(span.line, last + 1))
    elided = len(numbers) > MAX_SPAN_LINES
    if elided:
        numbers = numbers[:HEAD_LINES] + numbers[-TAIL_LINES:]
    width = len(str(numbers[-1]))
    out = Text()
    _gutter(out, "", width)
    for index, number in enumerate(numbers):
        if elided and index == HEAD_LINES:
            out.append("\n")
            _gutter(out, "...", width)
        text = lines[number - 1]
        start, end = _underlined(text, number, span, last)
        shown, offsets = display_cells(text, ascii_only)
        out.append("\n")
        _gutter(out, str(number), width, content=True)
        out.append(shown)
        out.append("\n")
        _gutter(out, "", width, content=True)
        caret_start = offsets[start]
        caret_width = max(1, offsets[end] - caret_start)
        out.append(" " * caret_start)
        out.append("^" * caret_width, style=CARET_STYLE)
        if number == numbers[-1]:
            out.append(f" {label}", style=CARET_STYLE)
    out.append("\n")
    _gutter(out, "", width)
    return out


def _gutter(out: Text, number: str, width: int, content: bool = False) -> None:
    out.append(f"{number:>{width}} |", style=GUTTER_STYLE)
    if content:  # no trailing blank on the bare separator rows
        out.append(" ")


def _underlined(text: str, number: int, span: Span, last: int) -> tuple[int, int]:
    """Character range of ``text`` under the span (0-based, end exclusive, never empty)."""
    stripped = text.rstrip()
    indent = len(text) - len(text.lstrip())
    start = span.column - 1 if number == span.line else indent
    end = span.end_column - 1 if number == span.end_line else len(stripped)
    if number == last and last < span.end_line:  # the span runs past the file's end
        end = len(stripped)
    start = min(max(start, 0), len(text))
    end = min(max(end, start + 1), len(text) + 1)
    return start, end


def display_cells(text: str, ascii_only: bool = False) -> tuple[str, list[int]]:
    """``text`` as it should be printed, and the cell where each character starts.

    ``offsets`` has ``len(text) + 2`` entries so a caret may sit one past the end of the
    line (a zero-width span there, e.g. a syntax error at end of line).
    """
    parts: list[str] = []
    offsets: list[int] = []
    cell = 0
    for char in text:
        offsets.append(cell)
        if char == "\t":
            shown = " " * (TAB_SIZE - cell % TAB_SIZE)
        elif ord(char) < 0x20 or ord(char) == 0x7F:
            # A raw control character (ESC in a string literal) must not reach the
            # terminal: show its Unicode "control picture" instead.
            shown = "?" if ascii_only else chr(0x2400 + ord(char) if ord(char) < 0x20 else 0x2421)
        elif ascii_only and not char.isascii():
            shown = "?"
        else:
            shown = char
        parts.append(shown)
        cell += cell_len(shown) if not shown.isascii() else len(shown)
    offsets.extend((cell, cell + 1))
    return "".join(parts), offsets
