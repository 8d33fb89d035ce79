"""Where each compiled function runs in Python with Dynamo's frame hook on.

Two ways lead there (measured on torch 2.13, CPU, backend eager, default mode and
``dynamic=True``, Python 3.11):

- a graph break Dynamo cannot resume from: in a loop, a ``try`` body or a ``with`` block
  of the user's own context manager (``eager_code.eager_after``);
- a frame that records no operation (``traced_ops``): a function Dynamo compiles as a frame
  of its own, or the rest of one after its last graph break, is skipped when nothing from
  there to its return lands in the graph ("No ops traced for the FX graph").

A function is a frame of its own when Dynamo starts there (what ``torch.compile`` is
given: a module's ``forward`` may be a submodule's, inlined into its caller's trace), when
it breaks the graph on every path (its caller breaks at the call and Python calls it), or
when code that runs in Python calls it. What Python runs, comprehensions included, is offered to
Dynamo again, frame by frame (``comprehension_frames``).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from compilelint.analysis.eager_code import eager_after, happens_with_its_block, inside
from compilelint.analysis.frames import LOOPS, on_every_path
from compilelint.analysis.traced_ops import FunctionOps, Resume, free_functions, operations_between, records_after
from compilelint.findings import Mode

if TYPE_CHECKING:
    from compilelint.analysis.breaking import Break
    from compilelint.analysis.regions import FunctionState, RegionAnalysis

UNRESUMABLE = (ast.Try, ast.With, ast.AsyncWith, *LOOPS)


@dataclass(frozen=True)
class PythonRun:
    """From which line on a function runs in Python (0: all of it), and why."""

    line: int
    why: str


BREAK_IT_CANNOT_RESUME = "Dynamo runs this code in Python after a graph break it cannot resume from (in a loop, a `try` or a `with`)"
NO_OPS = "Dynamo skips the frame that runs this code: nothing from there to its return lands in the graph ('No ops traced')"
NO_CHECKPOINT = (
    "Dynamo runs this code in Python: a graph break in a later `try` finds fewer than two operations traced "
    "before the `try` to resume from, so Dynamo gives up on the whole frame"
)


def python_runs(
    analysis: RegionAnalysis, points: Mapping[str, list[ast.AST]], breaks: Sequence[Break], ops: Mapping[str, FunctionOps],
    ignored: str,
) -> dict[str, PythonRun]:  # fmt: skip
    """Per function (qualname) of the region, where Python runs it with the hook on."""
    free = free_functions(ops)
    states = {state.info.qualname: state for state in analysis.regions()}
    lines = break_lines(breaks, points, ignored)
    # Dynamo starts at what ``torch.compile`` is given; a module's forward may as well be
    # inlined into a bigger model's trace, where its lack of operations does not matter
    own = {name for name, state in states.items() if state.root and state.info.compiled}

    def run_of(name: str) -> PythonRun | None:
        state = states[name]
        return _python_run(state, points.get(name, []), lines.get(name, set()), ops.get(name), free, analysis, name in own)

    found = {name: run for name in states if (run := run_of(name)) is not None}
    pending = sorted(found)
    while pending:
        name = pending.pop()
        for call, callee in ops[name].calls if name in ops else ():
            if getattr(call, "lineno", 0) > found[name].line and callee not in own and callee in states:
                own.add(callee)  # called from Python: a frame of its own
                run = run_of(callee)
                if run is not None and (callee not in found or run.line < found[callee].line):
                    found[callee] = run
                    pending.append(callee)
    return found


def _python_run(
    state: FunctionState, points: list[ast.AST], break_lines: set[int], found: FunctionOps | None,
    free: frozenset[str], analysis: RegionAnalysis, own_frame: bool,
) -> PythonRun | None:  # fmt: skip
    """Where ``state``'s function runs in Python; a function that never breaks is skipped
    for recording nothing only where it is a frame of its own (``own_frame``), not inlined."""
    function = state.info.node
    parents = analysis.parents_of(function)
    runs: list[PythonRun] = []
    eager = eager_after(function, points, parents, analysis.index)
    if eager is not None:
        runs.append(PythonRun(eager, BREAK_IT_CANNOT_RESUME))
    if found is None:
        return min(runs, key=lambda run: run.line, default=None)
    resumes = _trace_start(function, points, break_lines, analysis)
    if resumes is not None and (own_frame or resumes[0] is not None) and not records_after(found, *resumes, free):
        runs.append(PythonRun(_end(resumes[1]), NO_OPS))
    for statement in _breaking_tries(function, points, analysis):
        start = _trace_start(function, points, break_lines, analysis, before=statement.lineno)
        looping = functools.partial(_held, function=function, analysis=analysis, around=LOOPS)
        if start is not None and operations_between(found, start, statement.lineno, free, looping) < 2:
            runs.append(PythonRun(_end(start[1]), NO_CHECKPOINT))
    return min(runs, key=lambda run: run.line, default=None)


def skipped_in_arm(
    node: ast.AST, state: FunctionState, points: list[ast.AST], break_lines: set[int], found: FunctionOps | None,
    free: frozenset[str], analysis: RegionAnalysis,
) -> bool:  # fmt: skip
    """Whether ``node`` runs in Python because a break before it in the same block (an
    ``if`` arm, say) is resumed into a frame that records nothing: the resume function
    holds the rest of that block and of the function, so whenever ``node`` runs the break
    happened and the frame was skipped. Measured on 2.13: ``if not self.training:`` then
    ``.tolist()`` reads, a Python loop and a comprehension over the lists it filled
    (GB4347 there). ``break_lines``: the function's (``break_lines``)."""
    if found is None:
        return False
    function = state.info.node
    parents = analysis.parents_of(function)
    target = _statement(node, function, analysis)
    before = [p for p in points if _end(p) < getattr(node, "lineno", 0)]
    for point in sorted(before, key=_position, reverse=True):
        statement = _statement(point, function, analysis)
        if statement is None or target is None or _held(point, function, analysis):
            continue
        if not happens_with_its_block(point, statement, parents) or not _later_in_block(statement, target, parents):
            continue
        if any(_end(statement) < line < getattr(node, "lineno", 0) for line in break_lines):
            return False  # another break may come between
        return not records_after(found, point, statement, free)
    return False


def _later_in_block(statement: ast.stmt, target: ast.stmt, parents: dict[int, ast.AST]) -> bool:
    """``target`` is, or lies in, a statement after ``statement`` in the block holding it."""
    holder = parents.get(id(statement))
    if holder is None:
        return False
    for field in ("body", "orelse", "finalbody"):
        block = getattr(holder, field, None)
        block = block if isinstance(block, list) else []
        for index, item in enumerate(block):
            if item is statement:
                return any(inside(target, later) for later in block[index + 1 :])
    return False


def _trace_start(
    function: ast.AST, points: list[ast.AST], break_lines: set[int], analysis: RegionAnalysis, before: int | None = None,
) -> Resume | None:  # fmt: skip
    """Where the trace of the frame that reaches ``before`` (None: its return) starts: the
    last break before it that happens on every path and is resumable (outside loops,
    ``try`` and ``with``), with its statement, or (None, None) for the function's start;
    None when another break may come between (that trace may start anywhere)."""
    assert isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
    limit = before if before is not None else float("inf")
    sure = [
        p for p in points
        if on_every_path(p, function, analysis.parents_of) and not _held(p, function, analysis) and _end(p) < limit
    ]  # fmt: skip
    last = max(sure, key=_position, default=None)
    statement = _statement(last, function, analysis) if last is not None else None
    if last is not None and statement is None:
        return None
    since = _end(statement) if statement is not None else 0
    if any(since < line < limit for line in break_lines):
        return None
    return last, statement


def _breaking_tries(function: ast.AST, points: list[ast.AST], analysis: RegionAnalysis) -> list[ast.Try]:
    """The outermost ``try`` statements, run on every path, whose body breaks whenever it runs."""
    assert isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef))
    parents = analysis.parents_of(function)
    found: list[ast.Try] = []
    for point in points:
        if not happens_with_its_block(point, function, parents):
            continue
        outermost: ast.Try | None = None
        child, parent = point, parents.get(id(point))
        while parent is not None and parent is not function:
            if isinstance(parent, ast.Try) and any(child is stmt for stmt in parent.body):
                outermost = parent
            child, parent = parent, parents.get(id(parent))
        if outermost is not None and on_every_path(outermost, function, analysis.parents_of) and outermost not in found:
            found.append(outermost)
    return found


def _position(point: ast.AST) -> tuple[int, int]:
    """Where ``point`` ends: the later of two breaks is where Dynamo's trace resumes."""
    return _end(point), getattr(point, "end_col_offset", 0)


def _end(node: ast.AST | None) -> int:
    return (getattr(node, "end_lineno", None) or getattr(node, "lineno", 0) or 0) if node is not None else 0


def _statement(point: ast.AST, function: ast.AST, analysis: RegionAnalysis) -> ast.stmt | None:
    parents = analysis.parents_of(function)  # type: ignore[arg-type]
    node: ast.AST | None = point
    while node is not None and not isinstance(node, ast.stmt):
        node = parents.get(id(node))
    return node


def _held(point: ast.AST, function: ast.AST, analysis: RegionAnalysis, around: tuple[type[ast.AST], ...] = UNRESUMABLE) -> bool:
    """Whether a statement of kind ``around`` (a loop, ``try`` or ``with``) holds ``point``.
    A ``for`` does not hold its iterable: Python evaluates it once, before the loop, and
    Dynamo resumes after a break there (measured on 2.13: `for a, b in zip(p.tolist(),
    q.tolist())` breaks twice and the resume function traces the whole loop)."""
    parents = analysis.parents_of(function)  # type: ignore[arg-type]
    child, parent = point, parents.get(id(point))
    while parent is not None and parent is not function:
        if isinstance(parent, around) and not (isinstance(parent, (ast.For, ast.AsyncFor)) and child is parent.iter):
            return True
        child, parent = parent, parents.get(id(parent))
    return False


def break_lines(breaks: Sequence[Break], points: Mapping[str, list[ast.AST]], ignored: str) -> dict[str, set[int]]:
    """Per function, the lines of every default-mode break in it, sure or not."""
    lines: dict[str, set[int]] = {name: {getattr(p, "lineno", 0) for p in nodes} for name, nodes in points.items()}
    for finding in breaks:
        if finding.code.startswith("CL1") and finding.code != ignored and Mode.DEFAULT in finding.breaks and finding.region:
            lines.setdefault(finding.region[-1], set()).add(getattr(finding.node, "lineno", 0))
    return lines

