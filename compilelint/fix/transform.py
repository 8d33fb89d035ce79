"""Apply a pass's edits to a module in one traversal (Fixit's replacement transformer).

Nodes are matched by identity, so the module must be the one the edits were built on. The
transformer never descends into a node it replaces. Statement edits are applied by the
block that holds the statement, because they change the block's list of statements: a
small statement may be split off its line (``a = 1; print(a)``), a one-line suite
(``if c: print(x)``) becomes an indented block, and neighbouring guards merge.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import libcst as cst

from compilelint.fix import builders
from compilelint.fix.edits import Edit, ReplaceNode, ReplaceStatement

Statement = cst.BaseSmallStatement | cst.BaseCompoundStatement


@dataclass
class _Guarded:
    """Lines to go under one guard, and the comment lines to put above the guard."""

    lines: list[cst.BaseStatement]
    leading: list[cst.EmptyLine] = field(default_factory=list)


Piece = cst.BaseStatement | _Guarded


class EditApplier(cst.CSTTransformer):
    def __init__(self, edits: Sequence[Edit]) -> None:
        super().__init__()
        self.replace: dict[int, cst.CSTNode] = {}
        self.statements: dict[int, ReplaceStatement] = {}
        self.guards: set[int] = set()
        for edit in edits:
            if isinstance(edit, ReplaceNode):
                self.replace[id(edit.target)] = edit.replacement
            elif isinstance(edit, ReplaceStatement):
                self.statements[id(edit.target)] = edit
            else:
                self.guards.add(id(edit.target))
        self._targets = set(self.replace) | set(self.statements) | self.guards

    # --- traversal -----------------------------------------------------------------------
    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) not in self._targets  # the outer edit wins; the inner waits a pass

    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
        replacement = self.replace.get(id(original_node))
        if replacement is not None:
            return replacement
        return super().on_leave(original_node, updated_node)  # type: ignore[return-value]

    def leave_Module(self, original_node: cst.Module, updated_node: cst.Module) -> cst.Module:
        return updated_node.with_changes(body=self._block(original_node.body, updated_node.body))

    def leave_IndentedBlock(self, original_node: cst.IndentedBlock, updated_node: cst.IndentedBlock) -> cst.IndentedBlock:
        body = self._block(original_node.body, updated_node.body)
        return updated_node.with_changes(body=body or [cst.SimpleStatementLine([cst.Pass()])])

    def leave_SimpleStatementSuite(
        self, original_node: cst.SimpleStatementSuite, updated_node: cst.SimpleStatementSuite
    ) -> cst.BaseSuite:
        if not any(self._touches(small) for small in original_node.body):
            return updated_node
        # `if c: print(x)  # note` -> the note stays on the header, the body gets its own lines
        line = cst.SimpleStatementLine(body=updated_node.body)
        pieces = self._split_line(original_node.body, line)
        body = _merge(pieces) or [cst.SimpleStatementLine([cst.Pass()])]
        return cst.IndentedBlock(header=updated_node.trailing_whitespace, body=body)

    def leave_If(self, original_node: cst.If, updated_node: cst.If) -> cst.If:
        orelse = original_node.orelse
        if isinstance(orelse, cst.If) and id(orelse) in self.statements:
            edit = self.statements[id(orelse)]
            body = _with_leading(_lines(edit.statements), list(edit.leading)) or [cst.SimpleStatementLine([cst.Pass()])]
            new_else = cst.Else(body=cst.IndentedBlock(body=body), leading_lines=orelse.leading_lines)
            return updated_node.with_changes(orelse=new_else)
        return updated_node

    # --- blocks --------------------------------------------------------------------------
    def _touches(self, node: cst.CSTNode) -> bool:
        return id(node) in self.statements or id(node) in self.guards

    def _block(self, originals: Sequence[cst.BaseStatement], updated: Sequence[cst.BaseStatement]) -> list[cst.BaseStatement]:
        if not any(
            self._touches(s) or (isinstance(s, cst.SimpleStatementLine) and any(self._touches(x) for x in s.body))
            for s in originals
        ):
            return list(updated)
        pieces: list[Piece] = []
        for original, new in zip(originals, updated):
            if id(original) in self.statements:
                edit = self.statements[id(original)]
                own = [] if edit.comments_moved else _leading(original)
                pieces += _with_leading(_lines(edit.statements), own + list(edit.leading))
            elif isinstance(original, cst.SimpleStatementLine) and any(self._touches(x) for x in original.body):
                assert isinstance(new, cst.SimpleStatementLine)
                pieces += self._split_line(original.body, new)
            else:
                pieces.append(new)
        return _merge(pieces)

    def _split_line(self, originals: Sequence[cst.BaseSmallStatement], line: cst.SimpleStatementLine) -> list[Piece]:
        """One line of small statements -> lines, replacements and guarded statements."""
        pieces: list[Piece] = []
        run: list[cst.BaseSmallStatement] = []

        def flush(end_of_line: bool = False) -> None:
            if run:  # the line's own last statement keeps its `;`, as the user wrote it
                pieces.append(cst.SimpleStatementLine(body=list(run) if end_of_line else _unsemicolon(run)))
                run.clear()

        for original, new in zip(originals, line.body):
            if id(original) in self.statements:
                flush()
                edit = self.statements[id(original)]
                pieces += _with_leading(_lines(edit.statements), list(edit.leading))
            elif id(original) in self.guards:
                flush()
                pieces.append(_Guarded([cst.SimpleStatementLine(body=_unsemicolon([new]))]))
            else:
                run.append(new)
        flush(end_of_line=True)
        return _dress(pieces, line)


def _unsemicolon(smalls: Sequence[cst.BaseSmallStatement]) -> list[cst.BaseSmallStatement]:
    """The last statement of a line carries no ``;``."""
    if not smalls:
        return []
    return [*smalls[:-1], smalls[-1].with_changes(semicolon=cst.MaybeSentinel.DEFAULT)]


def _lines(statements: Sequence[cst.BaseSmallStatement | cst.BaseCompoundStatement]) -> list[cst.BaseStatement]:
    lines: list[cst.BaseStatement] = []
    for statement in statements:
        if isinstance(statement, cst.BaseSmallStatement):
            lines.append(cst.SimpleStatementLine(body=[statement]))
        else:
            lines.append(statement)
    return lines


def _leading(statement: cst.BaseStatement) -> list[cst.EmptyLine]:
    assert isinstance(statement, (cst.SimpleStatementLine, cst.BaseCompoundStatement))
    return list(statement.leading_lines)


def _prepend(statement: cst.BaseStatement, leading: Sequence[cst.EmptyLine]) -> cst.BaseStatement:
    return statement.with_changes(leading_lines=[*leading, *_leading(statement)])


def _with_leading(lines: list[cst.BaseStatement], leading: list[cst.EmptyLine]) -> list[cst.BaseStatement]:
    """Put comment lines above the first line (a removed statement's become the next's)."""
    if not leading or not any(line.comment for line in leading) and not lines:
        return lines
    if not lines:
        return [cst.SimpleStatementLine([cst.Pass()], leading_lines=leading)]  # keep the comments
    return [_prepend(lines[0], leading), *lines[1:]]


def _dress(pieces: list[Piece], line: cst.SimpleStatementLine) -> list[Piece]:
    """Give the split line's leading comments to the first piece and its trailing comment to the last."""
    if not pieces:
        return list(_with_leading([], list(line.leading_lines)))
    first = pieces[0]
    if isinstance(first, _Guarded):
        first.leading = [*line.leading_lines, *first.leading]
    else:
        pieces[0] = _prepend(first, line.leading_lines)
    last = pieces[-1]
    target = last.lines[-1] if isinstance(last, _Guarded) else last
    dressed: cst.BaseStatement = target
    if isinstance(target, cst.SimpleStatementLine):
        dressed = target.with_changes(trailing_whitespace=line.trailing_whitespace)
    elif line.trailing_whitespace.comment is not None:  # a compound statement: comment goes above it
        comment = cst.EmptyLine(indent=True, comment=line.trailing_whitespace.comment)
        dressed = target.with_changes(leading_lines=[*_leading(target), comment])
    if isinstance(last, _Guarded):
        last.lines[-1] = dressed
    else:
        pieces[-1] = dressed
    return pieces


def _merge(pieces: Sequence[Piece]) -> list[cst.BaseStatement]:
    """Neighbouring guarded pieces share one ``if``, also with an existing guard next to them."""
    out: list[cst.BaseStatement] = []
    fresh = False  # whether out[-1] is a guard made in this pass
    for piece in pieces:
        previous = out[-1] if out else None
        if isinstance(piece, _Guarded):
            if isinstance(previous, cst.If) and builders.is_guard(previous):
                out[-1] = _extend(previous, _with_leading(piece.lines, piece.leading))
            else:
                out.append(builders.guard(piece.lines, piece.leading))
            fresh = True
        elif fresh and isinstance(previous, cst.If) and isinstance(piece, cst.If) and builders.is_guard(piece):
            assert isinstance(piece.body, cst.IndentedBlock)
            lines = list(piece.body.body)  # an existing guard right after a new one: one block
            out[-1] = _extend(previous, _with_leading(lines, list(piece.leading_lines)))
            fresh = False
        else:
            out.append(piece)
            fresh = False
    return out


def _extend(guard: cst.If, lines: Sequence[cst.BaseStatement]) -> cst.If:
    assert isinstance(guard.body, cst.IndentedBlock)
    return guard.with_changes(body=guard.body.with_changes(body=[*guard.body.body, *lines]))
