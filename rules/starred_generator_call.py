"""CL129: a call that breaks inside, given `*(generator)`: Dynamo breaks again at the call."""

from __future__ import annotations

import ast
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

from compilelint.analysis.comprehension_frames import COMPREHENSIONS
from compilelint.analysis.eager_code import break_points, happens_with_its_block
from compilelint.analysis.frames import LOOPS
from compilelint.analysis.regions import RegionAnalysis
from compilelint.context import RawFinding, RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule


@dataclass(frozen=True)
class _Candidate:
    node: ast.Call
    statement: ast.stmt | None
    region: tuple[str, ...]


# Calls given a starred generator in each file's analysis, from ``check`` to ``derive``.
_CANDIDATES: weakref.WeakKeyDictionary[RegionAnalysis, list[_Candidate]] = weakref.WeakKeyDictionary()


class StarredGeneratorCall(Rule):
    """Checks for calls given only `*(generator)` whose callee breaks the graph.

    ## What it does
    Flags `f(*(g(x) for g in gs))` inside a compiled region where `f` is a Python
    function or class (of this file, another file of the run, or an installed package)
    that breaks the graph whenever it runs, and the starred generator is the call's only
    positional argument.

    ## Why is this bad?
    Python hands the generator itself to the call, which unpacks it. When the callee
    breaks the graph, Dynamo must rebuild the caller's stack for the code after the call,
    generator included, and cannot: it breaks a second time at the call (GB0091 "Read
    uninitialized cell" where the generator reads the caller's variables, else GB8335
    "Generator reconstruction with mutations") and the caller's graph ends there.
    Measured on torch 2.13 (backend eager, default mode and `dynamic=True`; `fullgraph=True`
    already fails inside the callee). Not when the generator follows other arguments
    (`f(x, *gen)` unpacks it into a list first), nor for a list comprehension
    (`f(*[... for ...])`), nor in a loop (Dynamo then runs the frame in Python), nor when
    the callee compiles. zuko's `LazyComposedTransform.forward` builds
    `ComposedTransform(*(t(c) for t in self.transforms))`, whose constructor breaks.

    ## Example
    ```python
    def combine(*parts):
        print("combining")
        return sum(parts)

    class Net(nn.Module):
        def forward(self, x):
            return combine(*(layer(x) for layer in self.layers))
    ```

    ## Use instead
    ```python
    def combine(*parts):
        return sum(parts)

    class Net(nn.Module):
        def forward(self, x):
            return combine(*(layer(x) for layer in self.layers))
    ```
    Remove the callee's break; where it must stay, pass a list, `combine(*[... for ...])`,
    which Dynamo rebuilds after the break (one break, in the callee).

    ## Fix safety
    No automatic fix: the cause is the callee's break, reported by its own rule.
    """

    code = "CL129"
    name = "starred-generator-call"
    message = "the callee breaks the graph and its `*(generator)` argument cannot be rebuilt: a second break at the call (GB0091)"
    gb_ids = ("GB0091", "GB8335")
    breaks = (Mode.DEFAULT,)
    nodes = (ast.Call,)
    derived_from_breaks = True

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if ctx.function is None or ctx.analysis is None or not _only_starred_generator(node):
            return
        if ctx.builtin(node.func) is not None:  # print(*gen) breaks at the call itself, once
            return
        _CANDIDATES.setdefault(ctx.analysis, []).append(_Candidate(node, ctx.statement, ctx.region))

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
            function = state.info.node
            parents = analysis.parents_of(function)
            own = points.get(state.info.qualname, [])
            if not any(point is candidate.node for point in own):
                continue
            if _in_loop_or_try(candidate.node, function, parents) or not happens_with_its_block(candidate.node, function, parents):
                continue
            found.append(
                RawFinding(
                    code=self.code,
                    name=self.name,
                    message=(
                        "this call breaks the graph inside, and Dynamo cannot rebuild its `*(generator)` argument "
                        "for the code after it: a second break here (GB0091 or GB8335) ends the graph; pass "
                        "`*[...]` (a list comprehension) or remove the callee's break"
                    ),
                    node=candidate.node,
                    statement=candidate.statement,
                    region=candidate.region,
                    breaks=self.breaks,
                    gb_ids=self.gb_ids,
                    fix=None,
                )
            )
        return found


def _only_starred_generator(call: ast.Call) -> bool:
    return len(call.args) == 1 and isinstance(call.args[0], ast.Starred) and isinstance(call.args[0].value, ast.GeneratorExp)


def _in_loop_or_try(node: ast.AST, function: ast.AST, parents: dict[int, ast.AST]) -> bool:
    parent = parents.get(id(node))
    while parent is not None and parent is not function:
        if isinstance(parent, (*LOOPS, *COMPREHENSIONS, ast.Try, ast.ExceptHandler, ast.With)):
            return True
        parent = parents.get(id(parent))
    return False
