"""Objects built in compiled code that Dynamo cannot rebuild at a graph break (GB0092).

At a graph break Dynamo compiles what it has and writes bytecode that rebuilds, for the
rest of the function, every value on the stack and in the live locals, and every object
built in the frame that those reach. A bound method of an object built in the frame has
no rebuild rule (GB0092 "Reconstruction failure"), and Dynamo then runs the rest of the
function in Python. Measured on torch 2.13 (CPU, backend eager, default mode):

- ``solver.integrate(t)`` on ``solver = Solver(...)`` when the method or an argument breaks
  (the bound method waits on the stack); not through the class, ``Solver.integrate(solver,
  t)``, nor on an object passed in, which Dynamo rebuilds from where it came from;
- any break while such an object is live (used later, or passed to the breaking call),
  when its ``__init__`` stored a bound method of itself (``self.f = self._zero``, also inside
  a conditional expression or ``{...}.get(k, self._zero)``); none once it is dead;
- never in a loop or a ``try`` (Dynamo skips the frame there instead), in code Dynamo
  already runs in Python, or after an earlier break rebuilt the object for a resume
  function, where it is an input with a source.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from compilelint.analysis.comprehension_frames import COMPREHENSIONS, assigned_values
from compilelint.analysis.eager_code import eager_after, happens_with_its_block, inside, users_context_manager
from compilelint.analysis.frames import LOOPS, own_nodes
from compilelint.analysis.module_index import ClassInfo, FunctionInfo, ModuleIndex


def sure_break_with_args(call: ast.Call, points: list[ast.AST], function: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """``call`` breaks whenever it runs (it is a break point), or an argument surely does."""
    if any(point is call for point in points):
        return True
    arguments = [*call.args, *(k.value for k in call.keywords)]
    return any(
        any(inside(point, argument) for argument in arguments) and happens_with_its_block(point, function, parents) for point in points
    )


def resumes_at(
    node: ast.AST, built: ast.AST, points: list[ast.AST], function: ast.AST, parents: dict[int, ast.AST], index: ModuleIndex
) -> bool:
    """Dynamo tries to resume after a break at ``node`` and so rebuilds what ``built`` made:
    ``node`` is not in a loop, a comprehension, a ``try`` or a ``with`` of the user's own
    context manager, the frame is still compiled there, and no break between ``built`` and
    ``node`` has rebuilt the object already."""
    parent = parents.get(id(node))
    while parent is not None and parent is not function:
        if isinstance(parent, (*LOOPS, *COMPREHENSIONS, ast.Try, ast.ExceptHandler)):
            return False
        if isinstance(parent, ast.With) and any(users_context_manager(item.context_expr, index) for item in parent.items):
            return False
        parent = parents.get(id(parent))
    line = getattr(node, "lineno", 0)
    eager = eager_after(function, points, parents, index)
    if eager is not None and line > eager:
        return False
    built_end = _last_line(built)
    return not [p for p in points if built_end < getattr(p, "lineno", 0) < line and not inside(p, node)]


def _last_line(node: ast.AST) -> int:
    last: int | None = getattr(node, "end_lineno", None)
    return last if last is not None else int(getattr(node, "lineno", 0))


def live_at(name: str, point: ast.AST, function: ast.AST) -> bool:
    """``name`` is read after ``point`` (or by it), before it is bound again: the object it
    holds is rebuilt there."""
    end = _last_line(point)
    stores = [n.lineno for n in own_nodes(function) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) and n.lineno > end]
    rebound = min(stores, default=None)
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)
        and ((end < n.lineno and (rebound is None or n.lineno <= rebound)) or inside(n, point))
        for n in own_nodes(function)
    )


def rebound_between(name: str, built: ast.AST, point: ast.AST, function: ast.AST) -> bool:
    """``name`` is bound again after ``built`` and before ``point``: what it holds there is
    another object."""
    start, end = _last_line(built), getattr(point, "lineno", 0)
    return any(
        isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Store) and start < n.lineno < end
        for n in own_nodes(function)
    )


def built_instance(
    name: str, function: FunctionInfo, callee: Callable[[ast.Call], FunctionInfo | None], allow_modules: bool = False
) -> tuple[ast.Call, ClassInfo] | None:
    """The construction ``name = Cls(...)`` of a class of this file, when it is the only
    binding of ``name`` in ``function`` (modules only with ``allow_modules``)."""
    values = assigned_values(function.node, name)
    if len(values) != 1 or not isinstance(values[0], ast.Call):
        return None
    init = callee(values[0])
    if init is None or init.name != "__init__" or init.owner is None or (init.owner.is_module and not allow_modules):
        return None
    return values[0], init.owner


def enclosing_statement(node: ast.AST, parents: dict[int, ast.AST]) -> ast.stmt | None:
    current: ast.AST | None = node
    while current is not None and not isinstance(current, ast.stmt):
        current = parents.get(id(current))
    return current if isinstance(current, ast.stmt) else None


def dominates(first: ast.AST, later: ast.AST, function: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """Whenever ``later`` runs, ``first`` ran before it in the same call: no ``if`` arm,
    loop body, ``except`` handler or short-circuited operand holds ``first`` without
    holding ``later`` too."""
    child, parent = first, parents.get(id(first))
    while parent is not None and parent is not function:
        arm = _arm(parent, child)
        if arm is not None and not any(inside(later, node) for node in arm):
            return False
        child, parent = parent, parents.get(id(parent))
    return True


def _arm(parent: ast.AST, child: ast.AST) -> list[ast.AST] | None:
    """The statements (or the operand) of ``parent`` that run only sometimes and hold
    ``child``; None where ``child`` runs whenever ``parent`` does."""
    if isinstance(parent, (ast.If, ast.For, ast.AsyncFor, ast.While)):
        if child is getattr(parent, "test", None) or child is getattr(parent, "iter", None):
            return None
        body: list[ast.AST] = list(parent.body)
        return body if any(node is child for node in body) else list(parent.orelse)
    if isinstance(parent, ast.IfExp) and child is not parent.test:
        return [child]
    if isinstance(parent, ast.BoolOp) and child is not parent.values[0]:
        return [child]
    if isinstance(parent, (ast.ExceptHandler, ast.match_case)):
        return list(parent.body)
    return None
