"""The bytes a fix may change, and a check that it changed no others (the README's promise).

Each pass of the fix loop claims character ranges of its input: a replaced expression's
own span; a replaced or guarded statement's span, widened over the blanks and the one
``;`` that tie it to its neighbours on the line (splitting ``a = 1; print(x)`` rewrites
that ``;``, never ``b = 2;``'s own), or back to the line's start when it begins the line;
and the point where ``import torch`` goes. Everything outside the claims must reappear,
byte for byte and in order, in the pass's output: ``changes_outside`` finds the first
place where it does not. Checked per pass, so a file fixed in several passes is covered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import libcst as cst
from libcst.metadata import MetadataWrapper, WhitespaceInclusivePositionProvider

from compilelint.files import decode_source
from compilelint.fix.edits import Edit, ReplaceNode, ReplaceStatement
from compilelint.fix.imports import import_index
from compilelint.fix.locate import Locator

Claim = tuple[int, int]  # [start, end) in characters of the pass's decoded input
LINE_BREAK = re.compile(r"\r\n|\r|\n")
BLANKS = " \t\f"


@dataclass(frozen=True)
class FixPass:
    """One pass of the fix loop: its input, its output and the ranges its fixes claimed."""

    before: bytes
    after: bytes
    claims: tuple[Claim, ...]


@dataclass(frozen=True)
class OutsideChange:
    """Where the first unclaimed byte that did not survive is (1-based line, 0-based column)."""

    line: int
    column: int
    expected: str  # the original text from there (a short excerpt)

    def __str__(self) -> str:
        return f"line {self.line}, column {self.column}: {self.expected!r} changed outside every fix"


class LineStarts:
    """Line/column (libcst's: 1-based lines, character columns) to offsets, and back."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.starts = [0] + [match.end() for match in LINE_BREAK.finditer(text)]

    def offset(self, line: int, column: int) -> int:
        return self.starts[line - 1] + column

    def position(self, offset: int) -> tuple[int, int]:
        low, high = 0, len(self.starts) - 1
        while low < high:  # the last line that starts at or before ``offset``
            middle = (low + high + 1) // 2
            low, high = (middle, high) if self.starts[middle] <= offset else (low, middle - 1)
        return low + 1, offset - self.starts[low]


def claims_of(edits: Sequence[Edit], module: cst.Module, locator: Locator, text: str, adds_import: bool) -> tuple[Claim, ...]:
    """The ranges of ``text`` (``module``'s code) that ``edits`` may rewrite."""
    lines = LineStarts(text)
    inclusive = MetadataWrapper(module, unsafe_skip_copy=True).resolve(WhitespaceInclusivePositionProvider)
    claims: list[Claim] = []
    for edit in edits:
        if isinstance(edit, ReplaceNode):  # with the parentheses it owns
            whole = inclusive[edit.target]
            claims.append((lines.offset(whole.start.line, whole.start.column), lines.offset(whole.end.line, whole.end.column)))
            continue
        line, column, end_line, end_column = locator.span(edit.target)
        start, end = lines.offset(line, column), lines.offset(end_line, end_column)
        start, end = statement_claim(text, start, end)
        if isinstance(edit, ReplaceStatement) and isinstance(edit.target, cst.BaseStatement):
            whole = inclusive[edit.target]  # a whole line or block goes: its newline and footer too
            end = lines.offset(whole.end.line, whole.end.column)
            if edit.comments_moved:
                start = lines.offset(whole.start.line, whole.start.column)
        claims.append((start, end))
    if adds_import:
        index = import_index(module)
        point = len(module.with_changes(body=module.body[:index], footer=()).code)
        claims.append((point, point))
    return tuple(claims)


def statement_claim(text: str, start: int, end: int) -> Claim:
    """A statement's span widened over what ties it to its line: the blanks and ``;``
    before it (or the indentation, when it starts the line) and its own ``;`` after it."""
    before = start
    while before > 0 and text[before - 1] in BLANKS:
        before -= 1
    if before > 0 and text[before - 1] == ";":
        before -= 1
        while before > 0 and text[before - 1] in BLANKS:
            before -= 1
    elif before > 0 and text[before - 1] not in "\r\n:":
        before = start  # after a continuation or a comment: only the statement
    after = end
    while after < len(text) and text[after] in BLANKS:
        after += 1
    if after < len(text) and text[after] == ";":
        after += 1
        while after < len(text) and text[after] in BLANKS:
            after += 1
    else:
        after = end
    return before, after


def merged(claims: Sequence[Claim]) -> list[Claim]:
    out: list[Claim] = []
    for start, end in sorted(claims):
        if out and start <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return out


def changes_outside(before: bytes, after: bytes, claims: Sequence[Claim]) -> OutsideChange | None:
    """The first unclaimed piece of ``before`` that ``after`` does not keep, or None."""
    old, new = decode_source(before), decode_source(after)
    pieces: list[Claim] = []
    cursor = 0
    for start, end in merged(claims):
        pieces.append((cursor, start))
        cursor = end
    pieces.append((cursor, len(old)))
    found = 0
    for number, (start, end) in enumerate(pieces):
        piece = old[start:end]
        first, last = number == 0, number == len(pieces) - 1
        if first and not new.startswith(piece):
            return _report(old, start, _kept_prefix(piece, new, 0, anchored=True))
        if last and not (new.endswith(piece) and len(new) - len(piece) >= found):
            return _report(old, start, _kept_prefix(piece, new, found, anchored=first))
        where = 0 if first else new.find(piece, found)
        if where < 0:
            return _report(old, start, _kept_prefix(piece, new, found, anchored=False))
        found = where + len(piece)
    return None


def _kept_prefix(piece: str, new: str, found: int, anchored: bool) -> int:
    """How many characters of ``piece`` still appear (at ``found``, or anywhere after it)."""
    low, high = 0, len(piece)
    while low < high:
        middle = (low + high + 1) // 2
        prefix = piece[:middle]
        kept = new.startswith(prefix, found) if anchored else new.find(prefix, found) >= 0
        low, high = (middle, high) if kept else (low, middle - 1)
    return low


def _report(text: str, start: int, kept: int) -> OutsideChange:
    offset = start + kept
    line, column = LineStarts(text).position(offset)
    return OutsideChange(line, column, text[offset : offset + 40])


def first_outside_change(trace: Sequence[FixPass]) -> tuple[int, OutsideChange] | None:
    """The first pass (1-based) that changed bytes outside its claims, and where."""
    for number, fix_pass in enumerate(trace, start=1):
        change = changes_outside(fix_pass.before, fix_pass.after, fix_pass.claims)
        if change is not None:
            return number, change
    return None
