"""Constructors Dynamo compiles as frames of their own, on a module not yet initialised.

Measured on torch 2.13 (CPU, backend eager, default mode and ``dynamic=True``, Python
3.11): code that Dynamo gives back to Python keeps the frame hook on (``eager_code``), so
building an ``nn.Module`` subclass there runs its ``__init__`` as a frame Dynamo compiles.
That frame's ``self`` is a module whose ``nn.Module.__init__`` has not run, and the first
instruction that touches ``self`` breaks the graph (GB0119 "Uninitialized nn.Module"):
``super().__init__()`` (CALL), or an earlier ``self.x = ...`` (STORE_ATTR); an explicit
``nn.Module.__init__(self)`` is GB0007 there. Dynamo then skips the frame, so the whole
``__init__`` runs in Python too: the base class's ``__init__`` that ``super().__init__()``
reaches is a frame of its own in turn, and breaks the same way, down to ``nn.Module``
(torch's own frames are not compiled). Measured for a module built after a graph break in
a loop (the frame skipped), after a break Dynamo cannot resume from, and inside such a
constructor; the class may live in another file (``GrowingCache`` built by a decoder's
skipped ``forward``, and its base ``Cache``). Under ``fullgraph=True`` the earlier break is
the error and nothing runs in Python.

Another file's construction reaches a class's file as an entry point ``Cls.__init__``
marked ``root`` (``constructor_calls``): ``RegionAnalysis.constructor_frames`` holds them.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from compilelint.analysis.eager_code import break_points, eager_after, happens_with_its_block
from compilelint.analysis.frames import LOOPS, own_nodes
from compilelint.analysis.module_index import FunctionInfo
from compilelint.analysis.new_objects import enclosing_statement
from compilelint.findings import Mode
from compilelint.project import ExternalCall

if TYPE_CHECKING:
    from compilelint.analysis.regions import FunctionState, RegionAnalysis
    from compilelint.context import RawFinding

COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.Try, ast.With, ast.AsyncWith, ast.Match)
NOT_FOLLOWED = ("torch.", "typing.", "abc.", "builtins.")
# findings in other frames than the one they are reported in: no break point of their region
OWN_FRAME_CODES = ("CL125",)
UNRESUMABLE = "GB0092"  # "Reconstruction failure": Dynamo cannot resume after this break


@dataclass(frozen=True)
class OwnFrame:
    """A module's ``__init__`` that runs as a frame of its own, and why."""

    init: FunctionInfo
    region: tuple[str, ...]  # the chain of the compiled code that runs it in Python
    why: str  # "built at line N, which Dynamo runs in Python" and the like
    only_when: tuple[str, ...] = ()  # the Python tests under which that code runs in Python


def own_frames(breaks: Sequence[RawFinding], analysis: RegionAnalysis, ignored: Sequence[str] = ()) -> list[OwnFrame]:
    """The module constructors of this file that Dynamo compiles as frames of their own:
    those another file's Python-run code builds (``constructor_frames``), those this file's
    Python-run code builds or calls through ``super().__init__()``, and, in turn, those
    these constructors run."""
    found: dict[int, OwnFrame] = {}
    pending: list[OwnFrame] = []
    for state in analysis.regions():
        if id(state.info) in analysis.constructor_frames and _is_module_init(state.info):
            pending.append(OwnFrame(state.info, state.chain, "built in code that another file runs in Python"))
    for eager in sorted(eager_calls(breaks, analysis, ignored), key=lambda found: (-len(found.only_when), not found.in_eval)):
        callee = analysis.callee(eager.call)
        if callee is not None and _is_module_init(callee):
            why = f"built at line {eager.call.lineno}, which Dynamo runs in Python{' in eval mode' if eager.in_eval else ''}"
            pending.append(OwnFrame(callee, eager.state.chain, why, eager.only_when))
    while pending:  # the unconditional ones first
        frame = pending.pop()
        if id(frame.init) in found:
            continue
        found[id(frame.init)] = frame
        for call in _calls(frame.init):
            callee = analysis.callee(call)
            if callee is not None and _is_module_init(callee):
                why = f"run by `{frame.init.qualname}` (line {call.lineno}), itself run in Python"
                pending.append(OwnFrame(callee, frame.region, why, frame.only_when))
    return list(found.values())


def constructor_calls(breaks: Sequence[RawFinding], analysis: RegionAnalysis, ignored: Sequence[str] = ()) -> list[ExternalCall]:
    """Calls into other files that Dynamo makes frames of their own, as ``Cls.__init__``
    entry points marked ``root``: each call of an imported name in code Dynamo runs in
    Python (a class's file reads the entry; a function's ignores it), and, in this file's
    constructors that run as frames of their own, their ``super().__init__()`` into a base
    class of another file."""
    wanted = {id(eager.call) for eager in eager_calls(breaks, analysis, ignored) if not eager.only_when}
    for frame in own_frames(breaks, analysis, ignored):
        if not frame.only_when:  # a constructor another file runs may run under conditions: ours are kept here
            wanted.update(id(call) for call in _calls(frame.init))
    calls: list[ExternalCall] = []
    for (target, _), sites in analysis.external_sites.items():
        if target.startswith(NOT_FOLLOWED):
            continue
        for call_id, site in sites.items():
            if call_id in wanted:
                name = target if target.endswith(".__init__") else f"{target}.__init__"
                calls.append(replace(site, target=name, root=True, receivers=()))
    return calls


@dataclass(frozen=True)
class EagerCall:
    """A call Dynamo runs in Python with its hook on, in a compiled function."""

    state: FunctionState
    call: ast.Call
    only_when: tuple[str, ...] = ()  # Python tests that must hold for it
    in_eval: bool = False  # sure in eval mode (``self.training`` false), where users compile most


def eager_calls(breaks: Sequence[RawFinding], analysis: RegionAnalysis, ignored: Sequence[str] = ()) -> list[EagerCall]:
    """Calls in compiled functions that Dynamo runs in Python with its hook on: after a
    graph break in a loop, a ``try`` or a user's context manager (``eager_code``), or a break
    it cannot resume from. A break in a loop in an ``if`` arm skips the frame when its arm
    runs: surely in eval mode when the test is then known (``else`` of ``if
    self.gradient_checkpointing and self.training:``), else under the test (``only_when``)."""
    points = break_points(breaks, analysis, ignored)
    unresumable = {id(r.node) for r in breaks if UNRESUMABLE in r.gb_ids and Mode.DEFAULT in r.breaks and not r.only_when}
    decided = frozenset(analysis.decided_ifs)
    found: list[EagerCall] = []
    for state in analysis.regions():
        function = state.info.node
        own = points.get(state.info.qualname)
        if not own:
            continue
        parents = analysis.parents_of(function)
        after, only_when, in_eval = _eager_line(state, own, unresumable, parents, analysis, decided)
        if after is not None:
            found.extend(EagerCall(state, call, only_when, in_eval) for call in _calls(state.info) if call.lineno > after)
    return found


def _eager_line(
    state: FunctionState,
    points: Sequence[ast.AST],
    unresumable: set[int],
    parents: dict[int, ast.AST],
    analysis: RegionAnalysis,
    decided: frozenset[int],
) -> tuple[int | None, tuple[str, ...], bool]:
    """The line after which the function runs in Python, the tests that must hold for it,
    and whether it holds surely in eval mode."""
    function = state.info.node
    after = eager_after(function, points, parents, analysis.index, decided)
    skipped = _skipped_from(function, points, unresumable, parents, decided)
    if skipped is not None and (after is None or skipped < after):
        after = skipped
    if after is not None:
        return after, (), False
    looping = [point for point in points if _in_loop(point, function, parents)]
    arms = {id(stmt): (stmt, taken) for point in looping for stmt, taken in _arms(point, function, parents)}
    in_eval = {stmt.lineno for stmt, taken in arms.values() if _eval_value(stmt.test, _self_name(state)) is taken}
    after = eager_after(function, points, parents, analysis.index, decided | in_eval)
    if after is not None:
        return after, (), True
    after = eager_after(function, points, parents, analysis.index, decided | {stmt.lineno for stmt, _ in arms.values()})
    return after, tuple(dict.fromkeys(_condition(stmt, taken) for stmt, taken in arms.values())), False


def _self_name(state: FunctionState) -> str | None:
    args = state.info.node.args.posonlyargs + state.info.node.args.args
    return args[0].arg if state.info.owner is not None and not state.info.is_static and args else None


def _eval_value(test: ast.expr, self_name: str | None) -> bool | None:
    """``test``'s truth in eval mode, where ``self.training`` is False; None where it
    depends on anything else."""
    if isinstance(test, ast.Attribute) and test.attr == "training" and isinstance(test.value, ast.Name):
        return False if test.value.id == self_name else None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _eval_value(test.operand, self_name)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        values = [_eval_value(value, self_name) for value in test.values]
        absorbing = isinstance(test.op, ast.Or)  # True absorbs an `or`, False an `and`
        if absorbing in values:
            return absorbing
        return None if None in values else not absorbing
    return None


def _skipped_from(
    function: ast.AST, points: Sequence[ast.AST], unresumable: set[int], parents: dict[int, ast.AST], decided: frozenset[int]
) -> int | None:
    """After a break Dynamo cannot resume from (GB0092), the line after which the function
    runs in Python. Measured: with a bound method of a built object on the stack
    (``solver.integrate(t)``), Dynamo compiles up to the statement of the call and runs the
    rest in Python (or skips the frame whole, with too little before it: not counted here);
    with a live object that holds a bound method of itself it finds no point to resume from
    and skips the frame, from the last sure break before (a resume function) or whole: a
    module built between that break and the GB0092 one is built in Python, one built
    before it is traced."""
    sure = [p for p in points if id(p) in unresumable and happens_with_its_block(p, function, parents, decided)]
    if not sure:
        return None
    lines = []
    for point in sure:
        if _method_call_on_a_name(point):
            statement = enclosing_statement(point, parents)
            lines.append((statement.lineno if statement is not None else getattr(point, "lineno", 1)) - 1)
            continue
        before = [
            _end_line(p)
            for p in points
            if getattr(p, "lineno", 0) < getattr(point, "lineno", 0)
            and happens_with_its_block(p, function, parents, decided)
            and not _in_loop(p, function, parents)
        ]
        lines.append(max(before, default=0))
    return min(lines)


def _method_call_on_a_name(node: ast.AST) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name)


def _arms(point: ast.AST, function: ast.AST, parents: dict[int, ast.AST]) -> list[tuple[ast.If, bool]]:
    """The ``if`` statements whose arm holds ``point``, and whether it is the body."""
    found: list[tuple[ast.If, bool]] = []
    child, parent = point, parents.get(id(point))
    while parent is not None and parent is not function:
        if isinstance(parent, ast.If) and child is not parent.test:
            found.append((parent, any(child is stmt for stmt in parent.body)))
        child, parent = parent, parents.get(id(parent))
    return found


def _end_line(node: ast.AST) -> int:
    last: int | None = getattr(node, "end_lineno", None)
    return last if last is not None else int(getattr(node, "lineno", 0))


def _in_loop(point: ast.AST, function: ast.AST, parents: dict[int, ast.AST]) -> bool:
    parent = parents.get(id(point))
    while parent is not None and parent is not function:
        if isinstance(parent, LOOPS):
            return True
        parent = parents.get(id(parent))
    return False


def _condition(stmt: ast.If, taken: bool) -> str:
    test = ast.unparse(stmt.test)
    return f"`{test}`" if taken else f"not `{test}`"


def first_self_use(init: FunctionInfo) -> ast.AST | None:
    """The first node of ``init`` that touches ``self`` (its first parameter), zero-argument
    ``super()`` included, in a statement that runs whenever ``init`` does; None when a
    statement before it may return, raise or branch around it."""
    args = init.node.args.posonlyargs + init.node.args.args
    if init.is_static or not args:
        return None
    self_name = args[0].arg
    for statement in init.node.body:
        use = _self_use(statement, self_name)
        if use is not None:
            return use if not isinstance(statement, COMPOUND) or _in_header(use, statement) else None
        if isinstance(statement, COMPOUND + (ast.Return, ast.Raise)):
            return None  # a condition or an early exit decides what runs next
    return None


def _self_use(statement: ast.stmt, self_name: str) -> ast.AST | None:
    uses = [
        node
        for node in _own_walk(statement)
        if (isinstance(node, ast.Name) and node.id == self_name)
        or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super" and not node.args)
    ]
    return min(uses, key=lambda node: (node.lineno, node.col_offset), default=None)


def _in_header(node: ast.AST, statement: ast.stmt) -> bool:
    """``node`` lies in what a compound statement evaluates first: an ``if``'s or
    ``while``'s test, a ``for``'s iterable, a ``with``'s context managers."""
    headers: list[ast.AST] = []
    if isinstance(statement, (ast.If, ast.While)):
        headers = [statement.test]
    elif isinstance(statement, (ast.For, ast.AsyncFor)):
        headers = [statement.iter]
    elif isinstance(statement, (ast.With, ast.AsyncWith)):
        headers = [item.context_expr for item in statement.items]
    return any(node is inner for header in headers for inner in ast.walk(header))


def _own_walk(node: ast.AST) -> list[ast.AST]:
    return [node, *own_nodes(node)]


def _calls(info: FunctionInfo) -> list[ast.Call]:
    return [node for node in own_nodes(info.node) if isinstance(node, ast.Call)]


def _is_module_init(info: FunctionInfo) -> bool:
    return info.name == "__init__" and info.owner is not None and info.owner.is_module
