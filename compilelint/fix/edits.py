"""The edits a rule's ``build_fix`` returns, and what it may ask while building them.

A fix is a set of libcst edits that apply together or not at all (Fixit's replacement
by node identity, plus two statement-level edits that need to see a whole block):

- ``ReplaceNode``: swap one node (usually an expression) for another.
- ``ReplaceStatement``: swap a statement for zero or more statements (lines).
- ``Guard``: wrap a small statement in ``if not torch.compiler.is_compiling():``; guarded
  statements that end up next to each other share one ``if`` block.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

import libcst as cst

from compilelint.fix.locate import Locator


@dataclass(frozen=True, eq=False)
class ReplaceNode:
    target: cst.CSTNode
    replacement: cst.CSTNode


@dataclass(frozen=True, eq=False)
class ReplaceStatement:
    """``target`` (a small or compound statement) becomes ``statements``, in its place.

    ``leading`` are comment lines to put above the first new statement: comments of the
    replaced code that the new code has no place for (never lose a comment).
    """

    target: cst.BaseSmallStatement | cst.BaseStatement
    statements: tuple[cst.BaseSmallStatement | cst.BaseCompoundStatement, ...]
    leading: tuple[cst.EmptyLine, ...] = ()
    comments_moved: bool = False  # the target's own comment lines went into another edit


@dataclass(frozen=True, eq=False)
class Guard:
    target: cst.BaseSmallStatement


Edit = ReplaceNode | ReplaceStatement | Guard


@dataclass(frozen=True)
class FixEdit:
    """All edits of one fix. ``needs_torch``: the new code names ``torch``."""

    edits: tuple[Edit, ...]
    needs_torch: bool = True


@dataclass
class FixContext:
    """What ``Rule.build_fix`` may use: the module and the ast -> libcst mapping."""

    module: cst.Module
    locator: Locator
    notes: list[str] = field(default_factory=list)

    def node(self, node: ast.AST) -> cst.CSTNode:
        return self.locator.find(node)

    def expression(self, node: ast.expr) -> cst.BaseExpression:
        found = self.locator.find(node)
        if not isinstance(found, cst.BaseExpression):
            raise LookupError(f"{type(found).__name__} is not an expression")
        return found

    def small_statement(self, node: ast.stmt) -> cst.BaseSmallStatement:
        found = self.locator.find(node)
        if not isinstance(found, cst.BaseSmallStatement):
            raise LookupError(f"{type(found).__name__} is not a small statement")
        return found

    def if_statement(self, node: ast.If) -> cst.If:
        return cst.ensure_type(self.locator.find(node), cst.If)

    def line(self, node: ast.stmt) -> cst.SimpleStatementLine:
        """The line of a statement that is alone on it."""
        return self.locator.line_of(node)


def guard_edit(statement: ast.AST, fix: FixContext) -> FixEdit:
    """The fix of CL101/CL102/CL107: the statement goes under ``if not is_compiling()``."""
    assert isinstance(statement, ast.stmt)
    return FixEdit((Guard(fix.small_statement(statement)),))
