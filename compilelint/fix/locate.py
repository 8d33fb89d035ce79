"""From the ``ast`` nodes the analysis reported on to the libcst nodes a fix rewrites.

Both parsers give the same span for the nodes fixes touch (measured with libcst 1.9 on
CPython 3.11: statements without their trailing comment, expressions without their
parentheses). ast counts columns in UTF-8 bytes, libcst in characters; ``LineIndex``
converts. Positions are resolved once per pass, only for files that have fixes to apply.
"""

from __future__ import annotations

import ast
from collections import defaultdict

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider

from compilelint.positions import LineIndex

Span = tuple[int, int, int, int]  # start line, start column, end line, end column (0-based columns)

# The libcst classes that stand for an ast class, where several nodes share one span
# (``print(x)`` is an Expr, a Call and a SimpleStatementLine at once).
CST_CLASSES: dict[type[ast.AST], tuple[type[cst.CSTNode], ...]] = {
    ast.Expr: (cst.Expr,),
    ast.If: (cst.If,),
    ast.Assert: (cst.Assert,),
    ast.Return: (cst.Return,),
    ast.Assign: (cst.Assign,),
    ast.Raise: (cst.Raise,),
    ast.IfExp: (cst.IfExp,),
    ast.Call: (cst.Call,),
    ast.Subscript: (cst.Subscript,),
    ast.Attribute: (cst.Attribute,),
    ast.Name: (cst.Name,),
    ast.Compare: (cst.Comparison,),
    ast.BoolOp: (cst.BooleanOperation,),
    ast.UnaryOp: (cst.UnaryOperation,),
    ast.BinOp: (cst.BinaryOperation,),
    ast.JoinedStr: (cst.FormattedString, cst.ConcatenatedString),
    ast.Tuple: (cst.Tuple,),
    ast.List: (cst.List,),
    ast.Constant: (cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString, cst.ConcatenatedString,
                   cst.Name, cst.Ellipsis),
}


class Locator:
    """Finds the libcst node of a module that has the span (and class) of an ast node."""

    def __init__(self, module: cst.Module, text: str) -> None:
        wrapper = MetadataWrapper(module, unsafe_skip_copy=True)  # keep node identity
        self.positions: dict[cst.CSTNode, CodeRange] = dict(wrapper.resolve(PositionProvider))
        self._by_span: dict[Span, list[cst.CSTNode]] = defaultdict(list)
        for node, where in self.positions.items():
            self._by_span[(where.start.line, where.start.column, where.end.line, where.end.column)].append(node)
        self._lines = LineIndex(text)

    def span_of_ast(self, node: ast.AST) -> Span:
        line, end_line = getattr(node, "lineno"), getattr(node, "end_lineno")
        column = self._lines.column(line, getattr(node, "col_offset")) - 1
        end_column = self._lines.column(end_line, getattr(node, "end_col_offset")) - 1
        return (line, column, end_line, end_column)

    def find(self, node: ast.AST) -> cst.CSTNode:
        """The libcst twin of ``node``; LookupError when there is none (a fix is then skipped)."""
        candidates = self._by_span.get(self.span_of_ast(node), [])
        wanted = CST_CLASSES.get(type(node))
        for candidate in candidates:
            if wanted is None or isinstance(candidate, wanted):
                return candidate
        raise LookupError(f"no libcst node for {type(node).__name__} at line {getattr(node, 'lineno', '?')}")

    def line_of(self, node: ast.stmt) -> cst.SimpleStatementLine:
        """The line holding ``node`` and nothing else (LookupError otherwise)."""
        for candidate in self._by_span.get(self.span_of_ast(node), []):
            if isinstance(candidate, cst.SimpleStatementLine) and len(candidate.body) == 1:
                return candidate
        raise LookupError(f"line {getattr(node, 'lineno', '?')} holds more than one statement")

    def span(self, node: cst.CSTNode) -> Span:
        where = self.positions[node]
        return (where.start.line, where.start.column, where.end.line, where.end.column)


def overlaps(a: Span, b: Span) -> bool:
    """Half-open ranges that share at least one character (or are the same empty point)."""
    start_a, end_a, start_b, end_b = a[:2], a[2:], b[:2], b[2:]
    if start_a == end_a or start_b == end_b:
        return start_a == start_b or (start_b < start_a < end_b) or (start_a < start_b < end_a)
    return start_a < end_b and start_b < end_a
