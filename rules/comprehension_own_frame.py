"""CL123: a comprehension Dynamo compiles as a frame of its own fails on its iterator: GB4347."""

from __future__ import annotations

import ast
import sys
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

from compilelint.analysis.comprehension_frames import COMPREHENSIONS, Iterates, free_names, holds_tensors, is_torch_module, iterates, local_names
from compilelint.analysis.eager_code import break_points, eager_after, happens_with_its_block, inside
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


class ComprehensionOwnFrame(Rule):
    """Checks for comprehensions that Dynamo compiles on their own and cannot iterate.

    ## What it does
    Flags a list, set or dict comprehension that reads `torch` (or closes over a tensor or
    module) and iterates a list, dict, set, string, `zip`/`enumerate`/`map`, a module
    container or `.parameters()`, when Python runs it as a frame of its own: in code after
    a graph break in a loop, a `try` body or a `with` block of your own context manager in
    the same function, or, for iterators
    other than lists and strings, when the comprehension itself breaks the graph.

    ## Why is this bad?
    On Python 3.11 a comprehension is a function called with an iterator. When Dynamo
    gives up on the code around it, Python calls that function with Dynamo's frame hook
    on, and Dynamo compiles it as a frame of its own whenever it touches tensors. The
    iterator is then an input Dynamo cannot step (GB4347 "Missing tp_iternext"), so the
    comprehension runs in Python too, with each call in it compiled apart. Measured on
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
    nodes = COMPREHENSIONS
    derived_from_breaks = True

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, COMPREHENSIONS)
        if ctx.function is None or ctx.analysis is None or sys.version_info >= (3, 12):
            return
        what = iterates(node.generators[0].iter, ctx.function, ctx.qualname)
        if what is None or not _touches_tensors(node, ctx):
            return
        _CANDIDATES.setdefault(ctx.analysis, []).append(_Candidate(node, ctx.statement, ctx.region, what))

    def derive(self, breaks: Sequence[RawFinding], analysis: RegionAnalysis) -> list[RawFinding]:
        candidates = _CANDIDATES.pop(analysis, [])
        if not candidates:
            return []
        points = break_points(breaks, analysis, ignored=(self.code,))
        states = {state.info.qualname: state for state in analysis.regions()}
        found: list[RawFinding] = []
        for candidate in candidates:
            state = states.get(candidate.region[-1]) if candidate.region else None
            if state is None:
                continue
            own = points.get(state.info.qualname, [])
            parents = analysis.parents_of(state.info.node)
            eager = eager_after(state.info.node, own, parents, analysis.index)
            if eager is not None and candidate.node.lineno > eager:
                why = "Dynamo runs this code in Python after a graph break it cannot resume from (in a loop, a `try` or a `with`)"
            elif candidate.iterates is Iterates.OTHER and _breaks_inside(candidate.node, own, state.info.node, parents):
                why = "this comprehension breaks the graph, so Dynamo calls it as a frame of its own"
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
                f"its iterator ({candidate.iterates.value}: GB4347), so it runs in Python; iterate a tuple, "
                "or remove the break"
            ),
            node=candidate.node,
            statement=candidate.statement,
            region=candidate.region,
            breaks=self.breaks,
            gb_ids=self.gb_ids,
            fix=None,
        )


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
