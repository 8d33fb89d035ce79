"""CL125: a module built in code Dynamo runs in Python: its ``__init__`` is a frame of its own, GB0119."""

from __future__ import annotations

import ast
from collections.abc import Sequence

from compilelint.analysis.own_frames import OWN_FRAME_CODES, OwnFrame, first_self_use, own_frames
from compilelint.analysis.new_objects import enclosing_statement
from compilelint.analysis.regions import RegionAnalysis
from compilelint.context import RawFinding, RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule


class ModuleBuiltInPython(Rule):
    """Checks for `nn.Module` classes built in code that Dynamo gives back to Python.

    ## What it does
    Flags the first use of `self` in the `__init__` of an `nn.Module` subclass when compiled
    code builds it where Dynamo runs the code in Python: after a graph break in a loop (the
    frame is skipped; a break in the arm of `if self.training ...` counts where eval mode
    decides the test, else the finding names the test), a `try` body or a context manager of
    the user's own, after a break Dynamo cannot resume from (GB0092, CL124), in code another
    file runs that way (follow-imports), and in the `__init__` of a base class that such a
    constructor reaches through `super().__init__()`.

    ## Why is this bad?
    Code Dynamo gives back to Python runs with Dynamo's frame hook on, so each function it
    calls is compiled as a frame of its own. Building a module there starts a frame for its
    `__init__` whose `self` has not been through `nn.Module.__init__` yet: the first
    instruction that touches `self` breaks the graph (GB0119 "Uninitialized nn.Module"),
    usually `super().__init__()`, or an earlier `self.x = ...`. Dynamo then skips that frame
    too, and each base class's `__init__` breaks the same way. Measured on torch 2.13
    (default mode and `dynamic=True`): a cache built in a decoder's `forward` whose layer
    loop breaks (transformers 4.46's `DynamicCache` and its base `Cache` in Mixtral and
    Qwen2-MoE). Under `fullgraph=True` the earlier break is the error, so this rule claims
    the default mode only.

    ## Example
    ```python
    class Cache(nn.Module):
        def __init__(self):
            super().__init__()
            self.keys = []


    class Decoder(nn.Module):
        def forward(self, x):
            cache = Cache()
            for step in range(2):
                if x.sum() > 0:
                    x = -x
            return x + len(cache.keys)
    ```

    ## Use instead
    ```python
    class Cache:
        def __init__(self):
            self.keys = []


    class Decoder(nn.Module):
        def forward(self, x):
            cache = Cache()
            for step in range(2):
                x = torch.where(x.sum() > 0, -x, x)
            return x + len(cache.keys)
    ```
    Remove the break that makes Dynamo give the code back to Python, build the object
    outside compiled code, or make it a plain class when it holds no parameters.

    ## Fix safety
    No automatic fix: the cause is the earlier break, reported by its own rule.
    """

    code = "CL125"
    name = "module-built-in-python"
    message = "this module is built in code Dynamo runs in Python: its `__init__` is compiled on its own (GB0119)"
    gb_ids = ("GB0119",)
    breaks = (Mode.DEFAULT,)
    nodes = (ast.Module,)  # no per-node check: everything comes from ``derive``
    derived_from_breaks = True

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        return None

    def derive(self, breaks: Sequence[RawFinding], analysis: RegionAnalysis) -> list[RawFinding]:
        found: list[RawFinding] = []
        for frame in own_frames(breaks, analysis, ignored=OWN_FRAME_CODES):
            use = first_self_use(frame.init)
            if use is not None:
                found.append(self._finding(frame, use, analysis))
        return found

    def _finding(self, frame: OwnFrame, use: ast.AST, analysis: RegionAnalysis) -> RawFinding:
        owner = frame.init.owner
        name = owner.name if owner is not None else frame.init.qualname
        return RawFinding(
            code=self.code,
            name=self.name,
            message=(
                f"`{name}` is {frame.why}: Dynamo compiles this `__init__` as a frame of its own and meets a module "
                "not initialised yet at its first use of `self` (GB0119), then runs it in Python; remove the earlier "
                "break, or build the module outside compiled code"
            ),
            node=use,
            statement=enclosing_statement(use, analysis.parents_of(frame.init.node)),
            region=(*frame.region, frame.init.qualname),
            breaks=self.breaks,
            gb_ids=self.gb_ids,
            fix=None,
            only_when=tuple(f"the break that gives the code to Python runs when {test}" for test in frame.only_when),
        )
