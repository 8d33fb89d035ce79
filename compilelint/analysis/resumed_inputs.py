"""Values the graph after a break receives as inputs, rather than computes.

At a graph break Dynamo ends the graph and resumes the function in a new frame whose
graph takes the live locals as inputs. A value some hazards need to be computed in the
graph (a 0-d index tensor, read back with ``__index__``: GB0033) is harmless once it
arrives as an input. Measured on torch 2.13 with torchcde's LinearInterpolation.evaluate:
``index`` comes back from ``self._interpret_t(t)``, which breaks; ``self._t[index]`` after
it is traced, while ``self._t[index + 1]`` breaks (the sum is computed in the new graph).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

from compilelint.analysis.frames import own_nodes
from compilelint.analysis.module_index import FunctionNode


def read_after_break(function: FunctionNode, use: ast.Name, points: Iterable[ast.AST]) -> bool:
    """``use`` reads a name bound before a break point of ``function`` that runs before it:
    the binding statement is the breaking call itself (``i = f(x)``, ``a, i = f(x)``), or a
    break lies between that statement and ``use``. Lines, not paths, decide "before"."""
    binding = _last_binding(function, use)
    if binding is None:
        return False
    bound_at, value = binding
    for point in points:
        line = getattr(point, "lineno", 0)
        if point is value or bound_at < line < use.lineno:
            return True
    return False


def _last_binding(function: FunctionNode, use: ast.Name) -> tuple[int, ast.AST | None] | None:
    """(end line of the last statement binding ``use.id`` before it, that statement's value);
    a parameter is bound on the ``def`` line."""
    found: tuple[int, ast.AST | None] | None = None
    parameters = function.args
    names = [a.arg for a in (*parameters.posonlyargs, *parameters.args, *parameters.kwonlyargs)]
    names += [a.arg for a in (parameters.vararg, parameters.kwarg) if a is not None]
    if use.id in names:
        found = (function.lineno, None)
    for node in own_nodes(function):
        if not isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With, ast.NamedExpr)):
            continue
        end = getattr(node, "end_lineno", node.lineno) if not isinstance(node, (ast.For, ast.With)) else node.lineno
        if end >= use.lineno or not _binds(node, use.id):
            continue
        if found is None or end > found[0]:
            found = (end, getattr(node, "value", None))
    return found


def _binds(node: ast.AST, name: str) -> bool:
    targets: list[ast.AST]
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.NamedExpr)):
        targets = [node.target]
    else:
        assert isinstance(node, ast.With)
        targets = [item.optional_vars for item in node.items if item.optional_vars is not None]
    return any(isinstance(n, ast.Name) and n.id == name for target in targets for n in ast.walk(target))
