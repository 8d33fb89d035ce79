"""CL117: a module built in compiled code whose constructor breaks: GB0119 follows."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from compilelint.analysis.frames import own_nodes
from compilelint.analysis.module_index import ClassInfo, FunctionInfo
from compilelint.analysis.regions import RegionAnalysis
from compilelint.context import RawFinding, RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule


class ModuleConstructorBreak(Rule):
    """Checks for `nn.Module` classes built in compiled code whose `__init__` breaks the graph.

    ## What it does
    Flags `super().__init__()` in the `__init__` of an
    `nn.Module` subclass that compiled code constructs, when another rule finds a graph
    break in that `__init__`; and the same call in the `__init__` of each local base class
    on the way up.

    ## Why is this bad?
    When the constructor breaks, Dynamo gives up on the call that builds the module and
    runs it in Python; Python then calls `__init__`, which Dynamo compiles as a frame of
    its own, and its first use of `self` meets a module whose `nn.Module.__init__` has not
    run yet (GB0119 "Uninitialized nn.Module"). The same happens in each base class's
    `__init__`. Measured on torch 2.13 (default mode and `dynamic=True`): a parameter built
    in the constructor, a `warnings.warn` in a decorator of it, or a tensor-dependent `if` in
    a loop in it each added GB0119 at the `super().__init__()` of the class and of its local
    base; the zoo hit it in transformers 4.46's `HybridCache` (gemma2) and its base `Cache`.
    Under `fullgraph=True` the constructor's own break is the error, so this rule claims the
    default mode only.

    ## Example
    ```python
    class Gate(nn.Module):
        def __init__(self, features):
            super().__init__()
            self.gate = nn.Linear(features, features)

        def forward(self, x):
            return torch.sigmoid(self.gate(x)) * x


    class Net(nn.Module):
        def forward(self, x):
            return Gate(x.shape[-1])(x)
    ```

    ## Use instead
    ```python
    class Gate(nn.Module):
        def __init__(self, features):
            super().__init__()
            self.gate = nn.Linear(features, features)

        def forward(self, x):
            return torch.sigmoid(self.gate(x)) * x


    class Net(nn.Module):
        def __init__(self, features):
            super().__init__()
            self.gate = Gate(features)

        def forward(self, x):
            return self.gate(x)
    ```
    Build the module outside the compiled code, or remove the break from its constructor.

    ## Fix safety
    No automatic fix: the cause is the constructor's break, reported by its own rule.
    """

    code = "CL117"
    name = "module-constructor-break"
    message = "this module is built in compiled code and its constructor breaks the graph: GB0119 follows"
    gb_ids = ("GB0119",)
    breaks = (Mode.DEFAULT,)
    nodes = (ast.Module,)  # no per-node check: everything comes from ``derive``
    derived_from_breaks = True

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        return None

    def derive(self, breaks: Sequence[RawFinding], analysis: RegionAnalysis) -> list[RawFinding]:
        found: list[RawFinding] = []
        for state in analysis.regions():
            info = state.info
            if info.name != "__init__" or info.owner is None or not info.owner.is_module:
                continue
            cause = _first_break(breaks, state.chain, self.code)
            if cause is None:
                continue
            where = f"line {getattr(cause.node, 'lineno', '?')}"
            for klass in info.owner.mro():
                init = klass.methods.get("__init__")
                if init is None:
                    continue
                call = _base_init_call(init)
                if call is None:
                    break  # the chain up to nn.Module.__init__ stops here
                base_state = analysis.states.get(id(init))
                found.append(self._finding(call, init, analysis, base_state.chain if base_state else state.chain, info.owner, where))
        return found

    def _finding(
        self, call: ast.Call, init: FunctionInfo, analysis: RegionAnalysis, chain: tuple[str, ...], built: ClassInfo, where: str
    ) -> RawFinding:
        parents = analysis.parents_of(init.node)
        statement: ast.AST | None = call
        while statement is not None and not isinstance(statement, ast.stmt):
            statement = parents.get(id(statement))
        return RawFinding(
            code=self.code,
            name=self.name,
            message=(
                f"`{built.name}` is built in compiled code and its constructor breaks the graph ({where}); Dynamo then "
                "compiles this `__init__` on its own and meets an uninitialized module here (GB0119); build the module "
                "outside the compiled code"
            ),
            node=call,
            statement=statement if isinstance(statement, ast.stmt) else None,
            region=chain,
            breaks=self.breaks,
            gb_ids=self.gb_ids,
            fix=None,
        )


def _first_break(breaks: Sequence[RawFinding], chain: tuple[str, ...], own_code: str) -> RawFinding | None:
    """The earliest default-mode graph break another rule reports in this ``__init__``."""
    inside = [
        r
        for r in breaks
        if r.code.startswith("CL1") and r.code != own_code and Mode.DEFAULT in r.breaks and r.region and r.region[-1] == chain[-1]
    ]
    return min(inside, key=lambda r: getattr(r.node, "lineno", 0), default=None)


def _base_init_call(init: FunctionInfo) -> ast.Call | None:
    """``super().__init__(...)`` or ``super(Cls, self).__init__(...)``. (An explicit
    ``nn.Module.__init__(self)`` breaks differently: a skipped call, GB0007, measured.)"""
    for node in own_nodes(init.node):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"):
            continue
        target = node.func.value
        if isinstance(target, ast.Call) and isinstance(target.func, ast.Name) and target.func.id == "super":
            return node
    return None
