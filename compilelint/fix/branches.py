"""Which tensor-dependent branches (CL103) have a branch-free rewrite, decided on the ast.

- ``if c: y = A`` / ``else: y = B`` (several names: one ``torch.where`` each; no ``else``:
  ``torch.where(c, A, y)`` when ``y`` is certainly bound before),
- ``if c: return A`` then ``return B`` (or ``else: return B``),
- ``if c: raise E("msg")`` -> ``torch._assert_async(<not c>, "msg")``,
- ``A if c else B``.

Arms must be pure tensor expressions (see ``eligibility``): the rewrite runs both.
"""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import Kind, is_data
from compilelint.context import RuleContext
from compilelint.fix.eligibility import (
    all_pure,
    calls_are_pure,
    certainly_bound,
    following,
    names_in,
    negate,
    scratch_evaluator,
    static_message,
    tensor_condition,
)
from compilelint.fix.plans import Condition, Message, RaisePlan, ReturnPlan, TernaryPlan, WherePlan

BranchPlan = WherePlan | ReturnPlan | RaisePlan


def plan_if(stmt: ast.If, ctx: RuleContext) -> BranchPlan | None:
    condition = tensor_condition(stmt.test, ctx)
    if condition is None:
        return None
    body = stmt.body
    if len(body) == 1 and isinstance(body[0], ast.Raise):
        return _raise_plan(stmt, body[0], condition, ctx) if not stmt.orelse else None
    if len(body) == 1 and isinstance(body[0], ast.Return):
        return _return_plan(stmt, body[0], condition, ctx)
    return _where_plan(stmt, condition, ctx)


def plan_ternary(node: ast.IfExp, ctx: RuleContext) -> TernaryPlan | None:
    condition = tensor_condition(node.test, ctx)
    if condition is None or not all_pure([node.body, node.orelse], ctx):
        return None
    return TernaryPlan(node, condition)


def _raise_plan(stmt: ast.If, raised: ast.Raise, condition: Condition, ctx: RuleContext) -> RaisePlan | None:
    """The check keeps the message; an exception without one is named in it instead."""
    exc = raised.exc
    if raised.cause is not None or exc is None:
        return None
    if isinstance(exc, (ast.Name, ast.Attribute)):
        return RaisePlan(stmt, negate(condition), Message(None, ast.unparse(exc)))
    if not isinstance(exc, ast.Call) or exc.keywords or len(exc.args) > 1:
        return None
    if not exc.args:
        return RaisePlan(stmt, negate(condition), Message(None, ast.unparse(exc.func)))
    message = static_message(exc.args[0], ctx)
    return RaisePlan(stmt, negate(condition), message) if message is not None else None


def _return_plan(stmt: ast.If, returned: ast.Return, condition: Condition, ctx: RuleContext) -> ReturnPlan | None:
    after: ast.stmt | None
    if stmt.orelse:
        after, removed = (stmt.orelse[0] if len(stmt.orelse) == 1 else None), None
    else:
        after = following(stmt, ctx)
        removed = after if isinstance(after, ast.Return) else None
    if not isinstance(after, ast.Return) or returned.value is None or after.value is None:
        return None
    scratch = scratch_evaluator(ctx)
    if scratch is None or not all_pure([returned.value, after.value], ctx, scratch):
        return None
    return ReturnPlan(stmt, condition, returned.value, after.value, removed)


def _assignments(block: list[ast.stmt]) -> list[tuple[str, ast.expr]] | None:
    """``y = A`` statements only, each to a different plain name."""
    pairs: list[tuple[str, ast.expr]] = []
    for stmt in block:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)):
            return None
        pairs.append((stmt.targets[0].id, stmt.value))
    names = [name for name, _ in pairs]
    return pairs if pairs and len(set(names)) == len(names) else None


def _where_plan(stmt: ast.If, condition: Condition, ctx: RuleContext) -> WherePlan | None:
    true_arms = _assignments(stmt.body)
    false_arms = _assignments(stmt.orelse) if stmt.orelse else []
    if true_arms is None or false_arms is None:
        return None
    scratch = scratch_evaluator(ctx)
    if scratch is None:
        return None
    false_by_name = dict(false_arms)
    if stmt.orelse and set(false_by_name) != {name for name, _ in true_arms}:
        return None
    arms: list[tuple[str, ast.expr, ast.expr | None]] = []
    for name, value in true_arms:
        other = false_by_name.get(name)
        if other is None and not (certainly_bound(name, stmt, ctx) and is_data(scratch.env.get(name, Kind.UNKNOWN))):
            return None
        arms.append((name, value, other))
    values = [v for _, a, b in arms for v in (a, b) if v is not None]
    if not all_pure(values, ctx, scratch):
        return None
    if len(arms) > 1 and not _independent(stmt.test, values, {name for name, _, _ in arms}, ctx):
        return None
    return WherePlan(stmt, condition, tuple(arms))


def _independent(test: ast.expr, values: list[ast.expr], names: set[str], ctx: RuleContext) -> bool:
    """With several ``torch.where``, each must read the values from before the branch, and
    the test, evaluated once per name, must be pure."""
    if not calls_are_pure(test, ctx) or names_in(test) & names:
        return False
    return not any(names_in(value) & names for value in values)

