"""Shared libcst builders for fixes: torch calls, tensor conditions, guards, kept comments.

New code is built from nodes (not text), reusing the user's own expression nodes, so their
formatting and comments travel with them; newlines and indentation are left to the module
(``Newline()``/``IndentedBlock(indent=None)`` take the file's own), so a CRLF or tab-indented
file stays CRLF and tab-indented.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

import libcst as cst

from compilelint.fix.plans import Combine, Condition, Keep, Message, Negate

ATOMS = (cst.Name, cst.Attribute, cst.Call, cst.Subscript, cst.Integer, cst.Float, cst.SimpleString,
         cst.List, cst.Tuple, cst.Dict, cst.Set)
GUARD_TEST = "not torch.compiler.is_compiling()"


def dotted(path: str) -> cst.Name | cst.Attribute:
    """``torch.compiler.is_compiling`` as a Name/Attribute chain."""
    first, *rest = path.split(".")
    node: cst.Name | cst.Attribute = cst.Name(first)
    for part in rest:
        node = cst.Attribute(value=node, attr=cst.Name(part))
    return node


def call(function: str, *args: cst.BaseExpression) -> cst.Call:
    """``function(a, b, c)``, with ", " between the arguments."""
    last = len(args) - 1
    return cst.Call(
        func=dotted(function),
        args=[
            cst.Arg(value=arg, comma=cst.MaybeSentinel.DEFAULT if i == last else cst.Comma(
                whitespace_after=cst.SimpleWhitespace(" ")))
            for i, arg in enumerate(args)
        ],
    )


def parenthesized(expr: cst.BaseExpression) -> cst.BaseExpression:
    """``expr`` safe to put before ``.attr`` or after ``~``: atoms as they are, others in parens."""
    if isinstance(expr, ATOMS) or expr.lpar:
        return expr
    return expr.with_changes(lpar=[cst.LeftParen()], rpar=[cst.RightParen()])


def condition(plan: Condition, node_of: Callable[[Keep], cst.BaseExpression]) -> cst.BaseExpression:
    """A boolean tensor with the truth Python would take of the original test."""
    if isinstance(plan, Keep):
        expr = node_of(plan)
        if plan.boolean:
            return expr
        # t.bool() is True exactly where bool(t) is (nonzero, NaN included)
        return cst.Call(func=cst.Attribute(value=parenthesized(expr), attr=cst.Name("bool")))
    if isinstance(plan, Negate):
        inner = plan.operand
        if isinstance(inner, Keep) and inner.boolean:
            return cst.UnaryOperation(operator=cst.BitInvert(), expression=parenthesized(node_of(inner)))
        return call("torch.logical_not", condition(inner, node_of))
    assert isinstance(plan, Combine)
    operands = [condition(operand, node_of) for operand in plan.operands]
    result = operands[0]
    for operand in operands[1:]:  # Python's `a and b and c` is left-associative
        result = call(f"torch.{plan.function}", result, operand)
    return result


def where(test: cst.BaseExpression, when_true: cst.BaseExpression, when_false: cst.BaseExpression) -> cst.Call:
    return call("torch.where", _bare(test), _bare(when_true), _bare(when_false))


def _bare(expr: cst.BaseExpression) -> cst.BaseExpression:
    """An argument needs no parentheses of its own (``torch.where((a), b, c)`` reads badly)."""
    if len(expr.lpar) == 1 and len(expr.rpar) == 1 and not isinstance(expr, (cst.Tuple, cst.GeneratorExp)):
        return expr.with_changes(lpar=[], rpar=[])
    return expr


def integer(value: int) -> cst.Integer:
    return cst.Integer(str(value))


def string(text: str) -> cst.SimpleString:
    """A string literal for ``text``, in double quotes where that needs no escaping."""
    literal = repr(text)
    if literal.startswith("'") and '"' not in text:
        literal = '"' + literal[1:-1].replace("\\'", "'") + '"'
    return cst.SimpleString(literal)


def message(plan: Message | None, node_of: Callable[[Message], cst.BaseExpression]) -> cst.BaseExpression | None:
    if plan is None:
        return None
    if plan.text is not None:
        return string(plan.text)
    return node_of(plan)


def statement(expr: cst.BaseExpression) -> cst.Expr:
    return cst.Expr(value=expr)


def assignment(name: str, value: cst.BaseExpression) -> cst.Assign:
    return cst.Assign(targets=[cst.AssignTarget(target=cst.Name(name))], value=value)


def guard(body: Sequence[cst.BaseStatement], leading: Sequence[cst.EmptyLine] = ()) -> cst.If:
    """``if not torch.compiler.is_compiling():`` around ``body``."""
    test = cst.parse_expression(GUARD_TEST)
    return cst.If(test=test, body=cst.IndentedBlock(body=list(body)), leading_lines=list(leading))


def is_guard(node: cst.CSTNode) -> bool:
    """An ``if not torch.compiler.is_compiling():`` without ``else`` (ours or the user's)."""
    return (
        isinstance(node, cst.If)
        and node.orelse is None
        and isinstance(node.body, cst.IndentedBlock)
        and node.test.deep_equals(cst.parse_expression(GUARD_TEST))
    )


def comments_outside(removed: Iterable[cst.CSTNode], kept: Iterable[cst.CSTNode]) -> tuple[cst.EmptyLine, ...]:
    """Comments in ``removed`` that are not inside a ``kept`` node, as comment lines."""
    keep = {id(node) for node in kept}
    found: list[cst.Comment] = []

    def walk(node: cst.CSTNode) -> None:
        if id(node) in keep:
            return
        if isinstance(node, cst.Comment):
            found.append(node)
        for child in node.children:
            walk(child)

    for node in removed:
        walk(node)
    return tuple(cst.EmptyLine(indent=True, comment=comment) for comment in found)
