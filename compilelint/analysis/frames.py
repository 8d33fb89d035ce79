"""Code that Dynamo runs eagerly because it gives up on the frame that holds it.

Measured on torch 2.13 (backend eager, five input shapes): a graph break inside a ``for``
or ``while`` loop, or inside a generator expression, makes Dynamo skip the frame ("graph
break in loop"): the frame runs in Python, no graph is traced from it and no guard comes
from its lines. The frame is the function itself, or, after an earlier graph break
outside any loop, the resume function Dynamo made at that break; code before that break
was traced into an earlier graph and keeps its guards. A call whose callee breaks breaks
the caller at the call (nested graph breaks are off by default), so such a call inside a
loop skips the caller's frame too. Functions the skipped frame calls are frames of their
own and are still compiled.

On Python 3.11 a list, set or dict comprehension is a function of its own: a break
inside it breaks the enclosing frame at the comprehension and Dynamo resumes after it
(measured), so comprehensions count as break points here, not as loops.
"""

from __future__ import annotations

import ast
import weakref
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TypeVar

from compilelint.analysis.call_conditions import NESTED_SCOPES, parent_map
from compilelint.analysis.module_index import FunctionInfo, FunctionNode

LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.GeneratorExp)
N = TypeVar("N", bound=ast.AST)


def own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``function``'s body, not those of functions or classes defined in it."""
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, NESTED_SCOPES):
            stack.extend(ast.iter_child_nodes(node))


def first_in_source(nodes: Iterable[N]) -> N | None:
    """The node that comes first in source order: where Dynamo first evaluates a repeated
    read or call (the guard it installs, the frame it gives up on, the value it caches)."""
    return min(nodes, key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)), default=None)


def breaking_functions(
    functions: Iterable[FunctionInfo],
    direct: Mapping[str, list[ast.AST]],
    callees: Mapping[int, FunctionInfo],
    callers: Mapping[str, list[FunctionInfo]],
    parents_of: Callable[[FunctionNode], dict[int, ast.AST]] = parent_map,
    data_breaks: frozenset[int] = frozenset(),
) -> dict[str, list[ast.AST]]:
    """Break points per function (qualname): its own breaks, and its calls of functions
    that break whenever they run (to a fixed point: such a break deep in a call chain
    breaks every caller). A callee breaks whenever it runs if a break lies on every path
    through it, or if it takes a value from tensor data (``data_breaks``: ids of
    ``.tolist()``/``.item()``/``nonzero``... nodes), which is what the function computes
    rather than an option: LLaVA-OneVision's ``image_size.tolist()`` behind an
    ``isinstance`` test skips its caller's frame (measured). An optional print or
    warning behind a flag does not: the first trace takes the quiet path (measured).
    ``callers`` maps a function to the functions that call it (only they are walked);
    ``parents_of`` gives a function's parent map (the analysis caches them)."""
    return _propagate(functions, direct, callees, callers, parents_of, data_breaks)[0]


def always_breaking_functions(
    functions: Iterable[FunctionInfo],
    direct: Mapping[str, list[ast.AST]],
    callees: Mapping[int, FunctionInfo],
    callers: Mapping[str, list[FunctionInfo]],
    parents_of: Callable[[FunctionNode], dict[int, ast.AST]] = parent_map,
    data_breaks: frozenset[int] = frozenset(),
) -> frozenset[str]:
    """The functions (qualnames) that break the graph whenever they run, in the sense of
    ``breaking_functions``: a break on every path, a value taken from tensor data, or a
    call on every path of a function that always breaks."""
    return frozenset(_propagate(functions, direct, callees, callers, parents_of, data_breaks)[1])


def _propagate(
    functions: Iterable[FunctionInfo],
    direct: Mapping[str, list[ast.AST]],
    callees: Mapping[int, FunctionInfo],
    callers: Mapping[str, list[FunctionInfo]],
    parents_of: Callable[[FunctionNode], dict[int, ast.AST]],
    data_breaks: frozenset[int],
) -> tuple[dict[str, list[ast.AST]], set[str]]:
    by_name = {info.qualname: info for info in functions}
    points = {name: list(nodes) for name, nodes in direct.items() if nodes}
    always = {
        name
        for name, nodes in points.items()
        if name in by_name
        and any(id(node) in data_breaks or on_every_path(node, by_name[name].node, parents_of) for node in nodes)
    }
    calls: dict[str, list[tuple[ast.Call, FunctionInfo]]] = {}
    pending = list(always)
    while pending:
        callee_name = pending.pop()
        for caller in callers.get(callee_name, []):
            if caller.qualname not in calls:
                calls[caller.qualname] = [
                    (node, callees[id(node)]) for node in own_nodes(caller.node) if isinstance(node, ast.Call) and id(node) in callees
                ]
            known = {id(node) for node in points.get(caller.qualname, [])}
            new = [call for call, callee in calls[caller.qualname] if callee.qualname == callee_name and id(call) not in known]
            if not new:
                continue
            points.setdefault(caller.qualname, []).extend(new)
            if caller.qualname not in always and any(on_every_path(call, caller.node, parents_of) for call in new):
                always.add(caller.qualname)
                pending.append(caller.qualname)
    return points, always


CONDITIONAL = (ast.If, ast.IfExp, ast.BoolOp, ast.Try, ast.While, ast.Match, ast.comprehension)


def on_every_path(point: ast.AST, function: FunctionNode, parents_of: Callable[[FunctionNode], dict[int, ast.AST]]) -> bool:
    """``point`` runs on every call of ``function`` that returns: not under a test, a ``try``
    or a ``while``, and no ``return`` before it (a ``raise`` before it rejects bad input,
    torchsde's ``BrownianInterval.__init__``: the calls that go on all reach it)."""
    first_return = _first_return_line(function)
    if first_return is not None and first_return < _line(point):
        return False
    parents = parents_of(function)
    ancestor = parents.get(id(point))
    while ancestor is not None and ancestor is not function:
        if isinstance(ancestor, CONDITIONAL):
            return False
        ancestor = parents.get(id(ancestor))
    return True


# function node -> the line of its first ``return`` (None: it has none); asked once per break point
_FIRST_RETURNS: weakref.WeakKeyDictionary[ast.AST, int | None] = weakref.WeakKeyDictionary()


def _first_return_line(function: FunctionNode) -> int | None:
    if function not in _FIRST_RETURNS:
        _FIRST_RETURNS[function] = min((node.lineno for node in own_nodes(function) if isinstance(node, ast.Return)), default=None)
    return _FIRST_RETURNS[function]


def _line(node: ast.AST, end: bool = False) -> int:
    line: int = getattr(node, "lineno", 0)
    last: int | None = getattr(node, "end_lineno", None)
    return last if end and last is not None else line


def skipped_after(function: ast.AST, points: list[ast.AST]) -> int | None:
    """The line after which ``function``'s code runs eagerly (0: all of it), or None when
    no loop in it breaks the graph."""
    inside = {id(point) for point in points}
    looping: set[int] = set()  # break points a loop holds
    skipping: list[ast.AST] = []
    for loop, repeated in _loops_of(function):
        held = inside & repeated
        if held:
            looping.update(held)
            skipping.append(loop)
    if not skipping:
        return None
    first = min(_line(loop) for loop in skipping)
    resumes = [_line(p, end=True) for p in points if id(p) not in looping]
    earlier = [line for line in resumes if line < first]
    return max(earlier) if earlier else 0


# function node -> its loops, each with the ids of the nodes it runs on every trip; asked per break
_LOOPS: weakref.WeakKeyDictionary[ast.AST, list[tuple[ast.AST, frozenset[int]]]] = weakref.WeakKeyDictionary()


def _loops_of(function: ast.AST) -> list[tuple[ast.AST, frozenset[int]]]:
    found = _LOOPS.get(function)
    if found is None:
        found = [
            (loop, frozenset(id(n) for part in _repeated_parts(loop) for n in ast.walk(part)))
            for loop in own_nodes(function) if isinstance(loop, LOOPS)
        ]  # fmt: skip
        _LOOPS[function] = found
    return found


def _repeated_parts(loop: ast.AST) -> list[ast.AST]:
    """What a loop runs on every trip: a ``for``'s iterable is evaluated once, before."""
    if isinstance(loop, ast.While):
        return [loop.test, *loop.body]
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        return list(loop.body)
    assert isinstance(loop, ast.GeneratorExp)
    first, *rest = loop.generators
    return [loop.elt, first.target, *first.ifs, *rest]
