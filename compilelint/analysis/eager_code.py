"""Code Dynamo gives back to Python while its frame hook stays on, found from the breaks.

Measured on torch 2.13 (CPU, backend eager, default mode and ``dynamic=True``, Python
3.11): when Dynamo gives up on a frame, the frame runs in Python but every function it
calls is offered to Dynamo again as a frame of its own. Two kinds of graph break make
Dynamo give up on the rest of a frame:

- a break inside a ``for``/``while`` loop ("graph break in loop", GB7000): the frame is
  skipped whole, or from the resume point of an earlier break outside any loop
  (``frames.skipped_after``);
- a break inside a ``try`` body: Dynamo cannot resume there, so it compiles up to the
  last point with an empty stack outside the ``try`` ("compiling up to the previous
  resumable state, then skipping the rest of the function") and runs everything after
  it in Python, the rest of the ``try`` and the code after it included. With fewer than
  two operations traced before the ``try``, there is no such point and the frame is
  skipped whole ("Failed to handle graph break gracefully"); that depends on what ran
  before, so only the code from the ``try`` statement on is counted here.

A break inside a ``with`` block of a context manager of the user's own (a class with
``__enter__``, a ``contextlib.contextmanager`` function) does the same (GB0066 "Graph break
under GenericContextWrappingVariable", then the rest in Python). A break in an ``except``
handler does the same, but only when the exception is raised; a break in a ``finally``
block or in a ``with torch.no_grad():`` block resumes as usual (all measured). A break counts only when it happens whenever its loop or ``try`` runs:
not in the arm of an ``if``, a conditional expression or a later operand of ``and``/``or``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from compilelint.analysis.breaking import call_graph, direct_breaks
from compilelint.analysis.frames import breaking_functions, skipped_after
from compilelint.analysis.module_index import ModuleIndex

if TYPE_CHECKING:
    from compilelint.analysis.regions import RegionAnalysis
    from compilelint.context import RawFinding

def break_points(
    breaks: Sequence[RawFinding], analysis: RegionAnalysis, ignored: Iterable[str] = ()
) -> dict[str, list[ast.AST]]:
    """Default-mode graph breaks per compiled function (qualname), and its calls of local
    functions, or of other files' (``KnownReturn.breaks``), that break whenever they run
    (``frames.breaking_functions``). A callee counts
    only when a break lies on every path through it: a data-dependent break behind
    ``if self.training:`` breaks in one mode only, and a claim built on it would be a guess."""
    direct = direct_breaks(breaks, analysis, ignored)
    if not direct:
        return {}
    functions, callers = call_graph(analysis)
    return breaking_functions(functions, direct, analysis.resolved_calls, callers, analysis.parents_of)


def eager_after(
    function: ast.AST,
    points: Sequence[ast.AST],
    parents: dict[int, ast.AST],
    index: ModuleIndex | None = None,
    decided: frozenset[int] = frozenset(),
) -> int | None:
    """The line after which ``function`` runs in Python with Dynamo's hook on (0: all of
    it), or None when no sure break in a loop, a ``try`` body or a ``with`` block of a
    context manager of ``index``'s file makes Dynamo give up. ``decided``: lines of the
    ``if`` statements whose test the analysis knew (``RegionAnalysis.decided_ifs``)."""
    sure = [point for point in points if happens_with_its_block(point, function, parents, decided)]
    lines = [line for line in (skipped_after(function, sure), _unresumable_line(sure, function, parents, index)) if line is not None]
    return min(lines, default=None)


def _unresumable_line(points: Sequence[ast.AST], function: ast.AST, parents: dict[int, ast.AST], index: ModuleIndex | None) -> int | None:
    """The line before the outermost ``try``, or ``with`` of a user's context manager,
    whose body holds one of ``points``."""
    lines = []
    for point in points:
        outermost: ast.stmt | None = None
        child, parent = point, parents.get(id(point))
        while parent is not None and parent is not function:
            if isinstance(parent, ast.Try) and any(child is stmt for stmt in parent.body):
                outermost = parent
            elif isinstance(parent, ast.With) and index is not None and any(child is stmt for stmt in parent.body):
                if any(users_context_manager(item.context_expr, index) for item in parent.items):
                    outermost = parent
            child, parent = parent, parents.get(id(parent))
        if outermost is not None:
            lines.append(outermost.lineno - 1)
    return min(lines, default=None)


def users_context_manager(expr: ast.expr, index: ModuleIndex) -> bool:
    """``Ctx(...)`` of a class of this file with ``__enter__``, or ``cm(...)`` of a function
    of this file decorated with ``contextlib.contextmanager``."""
    if not (isinstance(expr, ast.Call) and isinstance(expr.func, ast.Name)):
        return False
    name = expr.func.id
    cls = index.classes.get(name)
    if cls is not None:
        return cls.find_method("__enter__") is not None
    function = index.functions.get(name)
    return function is not None and any(d.endswith("contextmanager") for d in index.decorator_names(function.node))


def happens_with_its_block(
    point: ast.AST, function: ast.AST, parents: dict[int, ast.AST], decided: frozenset[int] = frozenset()
) -> bool:
    """``point`` runs whenever the statements around it do: no ``if`` arm, conditional
    expression, later ``and``/``or`` operand or ``except`` handler lies between it and
    ``function``. The arm of an ``if`` whose test the analysis knew (a line in ``decided``)
    is no condition: only the arm taken was analysed, so a point found there is in it
    (``if self.gradient_checkpointing and self.training:`` with the flag off)."""
    child, parent = point, parents.get(id(point))
    while parent is not None and parent is not function:
        if isinstance(parent, ast.If) and child is not parent.test and parent.lineno in decided:
            pass
        elif isinstance(parent, (ast.If, ast.IfExp)) and child is not parent.test:
            return False
        if isinstance(parent, ast.BoolOp) and child is not parent.values[0]:
            return False
        if isinstance(parent, (ast.ExceptHandler, ast.Match)):
            return False
        child, parent = parent, parents.get(id(parent))
    return True


def inside(node: ast.AST, container: ast.AST) -> bool:
    """Whether ``node`` is ``container`` or one of its descendants."""
    return any(child is node for child in ast.walk(container))
