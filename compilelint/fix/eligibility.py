"""Report-time questions a fix depends on, answered on the ``ast`` (no libcst here).

- Is an expression a *pure* tensor expression: only torch functions, tensor methods,
  operators, names, constants, attributes and subscripts, nothing random, in-place or
  user-defined? A ``torch.where`` rewrite evaluates both arms, so only pure arms qualify.
- How does a Python test on tensors become a boolean tensor (``not`` -> ``~`` ...)?
- Is a name certainly bound before a statement (so ``torch.where(c, A, y)`` may read it)?
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Sequence

from compilelint.analysis.expressions import Evaluator
from compilelint.analysis.kinds import Kind, is_data, is_mask
from compilelint.context import RuleContext
from compilelint.fix.plans import Combine, Condition, Keep, Message, Negate

# torch functions (last name) whose calls draw random numbers, write, assert or compile.
IMPURE_TORCH = frozenset({"normal", "bernoulli", "multinomial", "poisson", "manual_seed", "seed", "save", "load",
                          "print", "rrelu", "gumbel_softmax", "compile", "cond", "set_default_dtype"})
IMPURE_TORCH_PREFIXES = ("rand", "_assert", "_check", "set_", "use_")
IMPURE_METHODS = frozenset({"backward", "register_hook", "retain_grad", "item", "tolist", "numpy",
                            "record_stream", "storage", "untyped_storage", "data_ptr", "apply", "map", "exponential",
                            "geometric", "cauchy", "log_normal", "random", "uniform", "bernoulli", "multinomial"})
ALLOWED_NODES = (ast.Name, ast.Constant, ast.Attribute, ast.Subscript, ast.Slice, ast.Call, ast.BinOp,
                 ast.UnaryOp, ast.Compare, ast.Tuple, ast.List, ast.keyword, ast.Starred, ast.Load,
                 ast.operator, ast.unaryop, ast.cmpop)


def self_name(ctx: RuleContext) -> str | None:
    info = ctx.function
    if info is None or info.owner is None or info.is_static:
        return None
    args = info.node.args.posonlyargs + info.node.args.args
    return args[0].arg if args else None


def scratch_evaluator(ctx: RuleContext) -> Evaluator | None:
    """An evaluator on a copy of the environment at the current statement.

    Kinds of a branch's body are computed only after the branch's test is checked, so a
    rule that needs them evaluates the (pure) arms itself, without touching the analysis.
    """
    live = ctx.evaluator
    if live is None:
        return None
    scratch = Evaluator(live.index, dict(live.env), live.sink, {})
    scratch.locals = set(live.locals)
    return scratch


def _calls_are_pure(expr: ast.expr, ctx: RuleContext) -> bool:
    """Syntactic half of purity, checked before any evaluation (which must not resolve calls)."""
    owner = self_name(ctx)
    for node in ast.walk(expr):
        if not isinstance(node, ALLOWED_NODES) and not isinstance(node, ast.expr_context):
            return False
        if not isinstance(node, ast.Call):
            continue
        if any(k.arg == "out" for k in node.keywords):
            return False
        name = ctx.qualname(node.func)
        if name is not None and name.startswith("torch."):
            last = name.rsplit(".", 1)[-1]
            if last.endswith("_") or last in IMPURE_TORCH or last.startswith(IMPURE_TORCH_PREFIXES) or "dropout" in last:
                return False
            continue
        if not isinstance(node.func, ast.Attribute):
            return False  # a builtin or a function of this file: not a torch op
        method, receiver = node.func.attr, node.func.value
        if method.endswith("_") or method.rstrip("_") in IMPURE_METHODS:
            return False
        if isinstance(receiver, ast.Name) and (receiver.id == owner or receiver.id in ctx.index.classes):
            return False  # self.proj(x), Helper.run(x): user code
        if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
            return False
    return True


def _receivers_are_tensors(expr: ast.expr, ctx: RuleContext, kinds: dict[int, Kind]) -> bool:
    for node in ast.walk(expr):
        if isinstance(node, ast.Call) and not (ctx.qualname(node.func) or "").startswith("torch."):
            assert isinstance(node.func, ast.Attribute)
            if not is_data(kinds.get(id(node.func.value), Kind.UNKNOWN)):
                return False
    return True


def pure_tensor(expr: ast.expr, ctx: RuleContext, scratch: Evaluator | None = None) -> bool:
    """``expr`` evaluates to a tensor, with no effect beyond computing it.

    Without ``scratch`` the kinds the analysis already computed are used (for expressions
    of the statement being checked); with it, ``expr`` is evaluated there first.
    """
    if not _calls_are_pure(expr, ctx):
        return False
    if scratch is not None:
        scratch.kind(expr)
        kinds = scratch.cache
    else:
        kinds = ctx.evaluator.cache if ctx.evaluator is not None else {}
    if not is_data(kinds.get(id(expr), Kind.UNKNOWN)):
        return False
    return _receivers_are_tensors(expr, ctx, kinds)


def tensor_condition(test: ast.expr, ctx: RuleContext, kind_of: dict[int, Kind] | None = None) -> Condition | None:
    """``test`` as a boolean tensor with the same truth, or None if a part is not a tensor."""
    kinds = kind_of if kind_of is not None else (ctx.evaluator.cache if ctx.evaluator else {})
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = tensor_condition(test.operand, ctx, kinds)
        return Negate(inner) if inner is not None else None
    if isinstance(test, ast.BoolOp):
        parts = [tensor_condition(value, ctx, kinds) for value in test.values]
        if any(part is None for part in parts):
            return None
        function = "logical_and" if isinstance(test.op, ast.And) else "logical_or"
        return Combine(function, tuple(p for p in parts if p is not None))
    kind = kinds.get(id(test), Kind.UNKNOWN)
    if not is_data(kind):
        return None
    if isinstance(test, ast.Compare) and (
        len(test.ops) > 1 or isinstance(test.ops[0], (ast.In, ast.NotIn, ast.Is, ast.IsNot))
    ):
        return None  # `a < t < b`, `t in (0, 1)`: Python takes a tensor's truth inside the test itself
    return Keep(test, boolean=is_mask(kind))


def names_in(expr: ast.expr) -> set[str]:
    return {node.id for node in ast.walk(expr) if isinstance(node, ast.Name)}


def _blocks(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    for field in ("body", "orelse", "finalbody"):
        block = getattr(stmt, field, None)
        if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
            yield block
    for handler in getattr(stmt, "handlers", []):
        yield handler.body
    for case in getattr(stmt, "cases", []):
        yield case.body


def block_path(body: list[ast.stmt], target: ast.stmt) -> list[tuple[list[ast.stmt], int]] | None:
    """The blocks from ``body`` down to ``target``, with the index taken in each."""
    for index, stmt in enumerate(body):
        if stmt is target:
            return [(body, index)]
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for block in _blocks(stmt):
            inner = block_path(block, target)
            if inner is not None:
                return [(body, index), *inner]
    return None


def _binds(stmt: ast.stmt, name: str) -> bool:
    """``stmt`` binds ``name`` whenever it completes (plain assignments only)."""
    if isinstance(stmt, ast.Assign):
        return any(isinstance(t, ast.Name) and t.id == name for t in stmt.targets)
    if isinstance(stmt, ast.AnnAssign):
        return stmt.value is not None and isinstance(stmt.target, ast.Name) and stmt.target.id == name
    return False


def certainly_bound(name: str, target: ast.stmt, ctx: RuleContext) -> bool:
    """``name`` is a parameter, or assigned by a statement that always runs before ``target``."""
    info = ctx.function
    if info is None:
        return False
    args = info.node.args
    if name in {a.arg for a in args.posonlyargs + args.args + args.kwonlyargs}:
        return True
    path = block_path(info.node.body, target)
    if path is None:
        return False
    # Statements before `target` in its own block and in every enclosing block run first
    # (a loop's earlier iterations aside), whatever branch led to `target`.
    return any(_binds(stmt, name) for block, index in path for stmt in block[:index])


def following(target: ast.stmt, ctx: RuleContext) -> ast.stmt | None:
    """The statement after ``target`` in its block, if any."""
    info = ctx.function
    path = block_path(info.node.body, target) if info is not None else None
    if not path:
        return None
    block, index = path[-1]
    return block[index + 1] if index + 1 < len(block) else None


def static_message(message: ast.expr | None, ctx: RuleContext) -> Message | None:
    """A message ``torch._assert_async`` can carry under Dynamo, with dynamic shapes too.

    Measured on torch 2.13: a string constant (or a module-level one) traces; an f-string
    that formats a shape fails to trace once shapes turn dynamic, so formatted messages
    become their template text, placeholders and all.
    """
    if message is None:
        return None
    if isinstance(message, ast.Constant) and isinstance(message.value, str):
        return Message(message)
    if isinstance(message, ast.Name) and message.id not in (ctx.evaluator.locals if ctx.evaluator else ()):
        value = ctx.index.assignments.get(message.id)
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return Message(message)
    if isinstance(message, ast.JoinedStr):
        return Message(None, _template(message))
    if isinstance(message, ast.BinOp) and isinstance(message.op, ast.Mod):
        if isinstance(message.left, ast.Constant) and isinstance(message.left.value, str):
            operands = message.right.elts if isinstance(message.right, ast.Tuple) else [message.right]
            if all(isinstance(operand, ast.Constant) for operand in operands):
                return Message(message)  # formatting constants: Dynamo folds it
            return Message(None, message.left.value)
    return None


def _template(node: ast.JoinedStr) -> str:
    parts: list[str] = []
    for value in node.values:
        if isinstance(value, ast.Constant):
            parts.append(str(value.value))
        elif isinstance(value, ast.FormattedValue):
            parts.append("{" + ast.unparse(value.value) + "}")
    return "".join(parts)


def all_pure(exprs: Sequence[ast.expr], ctx: RuleContext, scratch: Evaluator | None = None) -> bool:
    return all(pure_tensor(expr, ctx, scratch) for expr in exprs)


def negate(condition: Condition) -> Condition:
    """``not c``, without a double negation."""
    return condition.operand if isinstance(condition, Negate) else Negate(condition)


def calls_are_pure(expr: ast.expr, ctx: RuleContext) -> bool:
    return _calls_are_pure(expr, ctx)


ELEMENTWISE_PREDICATES = frozenset({"isfinite", "isnan", "isinf", "isposinf", "isneginf", "signbit", "isreal"})


def elementwise_mask_of(mask: ast.expr, value: ast.Name, ctx: RuleContext) -> bool:
    """``mask`` has exactly ``value``'s shape: predicates of ``value`` alone and number literals
    (``x > 0``, ``torch.isfinite(x) & (x < 10)``), so ``torch.where(mask, x, 0)`` cannot broadcast."""
    if isinstance(mask, ast.UnaryOp) and isinstance(mask.op, ast.Invert):
        return elementwise_mask_of(mask.operand, value, ctx)
    if isinstance(mask, ast.BinOp) and isinstance(mask.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return elementwise_mask_of(mask.left, value, ctx) and elementwise_mask_of(mask.right, value, ctx)
    if isinstance(mask, ast.Compare) and len(mask.ops) == 1 and not isinstance(mask.ops[0], (ast.In, ast.NotIn, ast.Is, ast.IsNot)):
        sides = [mask.left, mask.comparators[0]]
        return any(_is_name(s, value) for s in sides) and all(_is_name(s, value) or _is_number(s) for s in sides)
    if isinstance(mask, ast.Call) and not mask.keywords:
        name = ctx.qualname(mask.func) or ""
        if name.startswith("torch.") and name.count(".") == 1 and name[6:] in ELEMENTWISE_PREDICATES:
            return len(mask.args) == 1 and _is_name(mask.args[0], value)
        func = mask.func
        return (isinstance(func, ast.Attribute) and func.attr in ELEMENTWISE_PREDICATES and not mask.args
                and _is_name(func.value, value))
    return False


def _is_name(node: ast.expr, value: ast.Name) -> bool:
    return isinstance(node, ast.Name) and node.id == value.id


def _is_number(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)
