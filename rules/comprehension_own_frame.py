"""CL123: a comprehension Dynamo compiles as a frame of its own fails on its iterator: GB4347."""

from __future__ import annotations

import ast
import sys
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

from compilelint.analysis.comprehension_frames import COMPREHENSIONS, Iterates, free_names, holds_tensors, is_kwargs, is_torch_module, iterates, local_names
from compilelint.analysis.eager_code import break_points, happens_with_its_block, inside
from compilelint.analysis.python_frames import NO_OPS, break_lines, python_runs, skipped_in_arm
from compilelint.analysis.traced_ops import OP_NODES, SEVERAL, FunctionOps, free_functions, records
from compilelint.analysis.regions import RegionAnalysis
from compilelint.context import RawFinding, RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule


@dataclass(frozen=True)
class _Candidate:
    node: ast.expr
    statement: ast.stmt | None
    region: tuple[str, ...]
    iterates: Iterates


# The comprehensions of each file's analysis that touch tensors, from ``check`` to ``derive``.
_CANDIDATES: weakref.WeakKeyDictionary[RegionAnalysis, list[_Candidate]] = weakref.WeakKeyDictionary()
# What each function's walked code records in Dynamo's graph (``traced_ops``), likewise.
_OPS: weakref.WeakKeyDictionary[RegionAnalysis, dict[str, FunctionOps]] = weakref.WeakKeyDictionary()


class ComprehensionOwnFrame(Rule):
    """Checks for comprehensions that Dynamo compiles on their own and cannot iterate.

    ## What it does
    Flags a list, set or dict comprehension that reads `torch` (or closes over a tensor or
    module) and iterates a list, dict, set, string, `zip`/`enumerate`/`map`, a module
    container or `.parameters()` (bound in the function, once at the file's top level,
    as `**kwargs`, or by a parameter annotated `list[...]`/`dict[...]`/`set[...]`), when
    Python runs it as a frame of its own: in code after
    a graph break in a loop, a `try` body or a `with` block of your own context manager in
    the same function; in a frame Dynamo skips because nothing in it, or in its rest after
    its last graph break, lands in the graph; in a function such code calls; or, for
    iterators other than lists and strings, when the comprehension itself breaks the graph.

    ## Why is this bad?
    On Python 3.11 a comprehension is a function called with an iterator. When Dynamo
    gives up on the code around it, Python calls that function with Dynamo's frame hook
    on, and Dynamo compiles it as a frame of its own whenever it touches tensors. The
    iterator is then an input Dynamo cannot step (GB4347 "Missing tp_iternext"), so the
    comprehension runs in Python too, with each call in it compiled apart. A frame whose
    trace records no operation (no torch call, tensor method or operator) is given up on
    the same way ("No ops traced for the FX graph"). Measured on
    torch 2.13 (default mode and `dynamic=True`); tuples, `range`, tensors and `x.shape`
    are iterated fine. `fullgraph=True` stops at the first break, so it never gets here.
    Python 3.12 inlines comprehensions (PEP 709): the rule is silent there.

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            parts = [x, x + 1]
            scaled = [torch.relu(t) for t in parts]
            for t in scaled:
                print(t.sum())
            return scaled
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            parts = [x, x + 1]
            scaled = [torch.relu(t) for t in parts]
            return scaled
    ```
    Remove the break that makes Dynamo give up (here the `print` in the loop); iterating
    a tuple (`tuple(parts)`) also lets Dynamo step the comprehension.

    ## Fix safety
    No automatic fix: the cause is the earlier break, reported by its own rule.
    """

    code = "CL123"
    name = "comprehension-own-frame"
    message = "Dynamo compiles this comprehension as a frame of its own and cannot step its iterator (GB4347)"
    gb_ids = ("GB4347",)
    breaks = (Mode.DEFAULT,)
    nodes = (*COMPREHENSIONS, *OP_NODES)
    derived_from_breaks = True

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if ctx.function is None or ctx.analysis is None or sys.version_info >= (3, 12):
            return
        if isinstance(node, OP_NODES):
            _note_operation(node, ctx)
        if not isinstance(node, COMPREHENSIONS):
            return
        what = iterates(node.generators[0].iter, ctx.function, ctx.qualname, module=ctx.index)
        if what is None or not _touches_tensors(node, ctx):
            return
        _CANDIDATES.setdefault(ctx.analysis, []).append(_Candidate(node, ctx.statement, ctx.region, what))

    def derive(self, breaks: Sequence[RawFinding], analysis: RegionAnalysis) -> list[RawFinding]:
        candidates = _CANDIDATES.pop(analysis, [])
        if not candidates:
            return []
        ops = _OPS.pop(analysis, {})
        states = {state.info.qualname: state for state in analysis.regions()}
        for name in states:
            ops.setdefault(name, FunctionOps())  # walked, whether or not it holds an operation
        points = break_points(breaks, analysis, ignored=(self.code,))
        runs = python_runs(analysis, points, breaks, ops, ignored=self.code)
        free = free_functions(ops)
        lines = break_lines(breaks, points, self.code)
        found: list[RawFinding] = []
        for candidate in candidates:
            state = states.get(candidate.region[-1]) if candidate.region else None
            if state is None:
                continue
            own = points.get(state.info.qualname, [])
            parents = analysis.parents_of(state.info.node)
            run = runs.get(state.info.qualname)
            if run is not None and candidate.node.lineno > run.line:
                why = run.why
            elif candidate.iterates is Iterates.OTHER and _breaks_inside(candidate.node, own, state.info.node, parents):
                why = "this comprehension breaks the graph, so Dynamo calls it as a frame of its own"
            elif skipped_in_arm(candidate.node, state, own, lines.get(state.info.qualname, set()),
                                ops.get(state.info.qualname), free, analysis):  # fmt: skip
                why = NO_OPS
            else:
                continue
            found.append(self._finding(candidate, why))
        return found

    def _finding(self, candidate: _Candidate, why: str) -> RawFinding:
        return RawFinding(
            code=self.code,
            name=self.name,
            message=(
                f"{why}; on Python 3.11 it compiles the comprehension on its own and cannot step "
                f"its iterator ({candidate.iterates.value}: GB4347), so it runs in Python; iterate a tuple"
                + ("" if why == NO_OPS else ", or remove the break")
            ),
            node=candidate.node,
            statement=candidate.statement,
            region=candidate.region,
            breaks=self.breaks,
            gb_ids=self.gb_ids,
            fix=None,
        )


def _note_operation(node: ast.AST, ctx: RuleContext) -> None:
    assert ctx.function is not None and ctx.analysis is not None
    if isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.iter, ast.Name) and is_kwargs(ctx.function.node, node.iter.id):
        return  # a dict: its keys are strings, stepping them records nothing
    callee = ctx.callee(node) if isinstance(node, ast.Call) else None
    verdict = records(node, ctx.kind, ctx.builtin, ctx.qualname, callee.qualname if callee else None, ctx.parent(node))
    if verdict is False:
        return
    found = _OPS.setdefault(ctx.analysis, {}).setdefault(ctx.function.qualname, FunctionOps())
    placed = node.iter if isinstance(node, ast.comprehension) else node  # a generator has no position
    if verdict is True or verdict == SEVERAL:
        found.ops.append(placed)
        if verdict == SEVERAL:
            found.several.append(placed)
    else:
        found.calls.append((placed, str(verdict)))


def _touches_tensors(node: ast.expr, ctx: RuleContext) -> bool:
    """Dynamo's ``has_tensor_in_frame`` for the comprehension's frame, from the source."""
    assert ctx.function is not None
    locals_ = local_names(ctx.function.node)
    for name in free_names(node):
        if name.id in locals_:
            if holds_tensors(ctx.kind(name)):
                return True
        elif name.id in ctx.index.imports:
            if is_torch_module(ctx.index.imports.get(name.id)):
                return True
    return False


def _breaks_inside(node: ast.expr, points: list[ast.AST], function: ast.AST, parents: dict[int, ast.AST]) -> bool:
    """A sure break in the comprehension's own code (its first iterable is the caller's)."""
    first = node.generators[0].iter  # type: ignore[attr-defined]
    return any(
        inside(point, node) and not inside(point, first) and happens_with_its_block(point, function, parents) for point in points
    )
