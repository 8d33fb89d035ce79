"""Local names bound only to functions: ``fn = helper_a if c else helper_b``, then ``fn(x)``.

Measured on torch 2.13 (backend eager; default, ``fullgraph=True``, ``dynamic=True``):
Dynamo inlines whichever function the name holds, so what that function does breaks the
graph as if it were called by name. normflows binds ``spline_fn`` to one of two spline
functions of another module on the two sides of an ``if``, and ``estimator_fn`` to one of
two functions of its own file; their mask indexing and ``torch.autograd.grad`` broke
where the linter saw an unknown callee.

A name counts as such an alias only while every value bound to it is a function of this
file or of an imported module (not torch's, NumPy's or the standard library's, which
other rules read by name); the call then reaches each of them.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING

from compilelint.analysis.kinds import Kind

if TYPE_CHECKING:
    from compilelint.analysis.expressions import Evaluator

NOT_FOLLOWED_ROOTS = frozenset({"torch", "numpy", "math", "builtins", "functools", "operator", "typing", "collections"})


def function_references(evaluator: Evaluator, value: ast.expr) -> tuple[ast.expr, ...] | None:
    """The functions ``value`` may be (either side of ``a if c else b``); None when it
    may be anything else."""
    from compilelint.analysis.calls import imported_root

    if isinstance(value, ast.IfExp):
        body, orelse = function_references(evaluator, value.body), function_references(evaluator, value.orelse)
        return body + orelse if body is not None and orelse is not None else None
    if isinstance(value, ast.Name) and (value.id in evaluator.locals or value.id in evaluator.env):
        return None
    if isinstance(value, ast.Name) and value.id in evaluator.index.functions:
        return (value,)
    if isinstance(value, (ast.Name, ast.Attribute)) and imported_root(evaluator, value):
        name = evaluator.qualname(value) or ""
        last = name.rsplit(".", 1)[-1]
        if name and name.split(".", 1)[0] not in NOT_FOLLOWED_ROOTS and last[:1].islower():
            return (value,)  # CapWords names are classes: class aliases follow those
    return None


def bind(evaluator: Evaluator, name: str, value: ast.expr | None) -> None:
    """Record what ``name = value`` makes the name hold; any other value ends the alias."""
    references = function_references(evaluator, value) if value is not None else None
    if references is None:
        evaluator.not_only_functions.add(name)
        return
    held = evaluator.function_aliases.get(name, ())
    evaluator.function_aliases[name] = held + tuple(r for r in references if r not in held)


def held_functions(evaluator: Evaluator, func: ast.expr) -> tuple[ast.expr, ...]:
    if not isinstance(func, ast.Name) or func.id in evaluator.not_only_functions:
        return ()
    return evaluator.function_aliases.get(func.id, ())


def call_each(evaluator: Evaluator, node: ast.Call, functions: tuple[ast.expr, ...],
              evaluate: Callable[[Evaluator, ast.Call], Kind]) -> Kind:
    """``fn(x)`` as a call of each function ``fn`` may hold; the union of their results."""
    result = Kind.NONE
    for position, function in enumerate(functions):
        key = (id(node), position)
        synthetic = evaluator.alias_calls.get(key)
        if synthetic is None:  # kept: external call sites are keyed by the call's id
            synthetic = ast.copy_location(ast.Call(func=function, args=node.args, keywords=node.keywords), node)
            evaluator.alias_calls[key] = synthetic
        result |= evaluate(evaluator, synthetic)
    return result or Kind.UNKNOWN
