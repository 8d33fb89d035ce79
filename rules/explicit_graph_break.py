"""CL113: graph breaks asked for in the source: graph_break(), skip_frame(), disable(...)."""

from __future__ import annotations

import ast

from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

# qualified name -> (what it is, GB ids), measured on torch 2.13
EXPLICIT = {
    "torch._dynamo.graph_break": ("an explicit graph break", ("GB0025",)),
    "torch._dynamo.skip_frame": ("an explicit frame skip: the whole function runs eager", ("GB4297",)),
    # PyTorch's own tests break this way: ComptimeContext graph break
    "torch._dynamo.comptime.comptime.graph_break": ("an explicit graph break", ("GB0030",)),
}
DISABLE = frozenset({"torch.compiler.disable", "torch._dynamo.disable", "torch._disable_dynamo"})


class ExplicitGraphBreak(Rule):
    """Checks for graph breaks the code asks for: `torch._dynamo.graph_break()` and relatives.

    ## What it does
    Flags, inside a compiled region, calls of `torch._dynamo.graph_break()`,
    `comptime.graph_break()` (`torch._dynamo.comptime`, GB0030) and
    `torch._dynamo.skip_frame()`, and `torch.compiler.disable(...)` /
    `torch._dynamo.disable(...)` called inside compiled code, or decorating a function
    that compiled code defines (`@torch.compiler.disable` on a nested `def`).

    ## Why is this bad?
    The break is intentional, so in the default mode this is information, not a bug: the
    graph ends there (GB0025 "Call to `torch._dynamo.graph_break()`"; `skip_frame()` runs the
    whole function eagerly, GB4297). Under `fullgraph=True` each one is a compile error, so
    a user who turns fullgraph on must know where they are. Calling `disable` inside
    compiled code is itself a skipped call (GB0007), and calling what it returns breaks
    again (GB0098, or GB0148 when the result is called on the same line). The same holds for
    `@torch.compiler.disable` on a `def` inside compiled code: the decorator runs each time
    the `def` does and breaks there (GB0007, and GB0008 for `@disable()` with parentheses),
    whether or not the function is then called. Measured on torch 2.13 in the default mode,
    with `dynamic=True` and under `fullgraph=True`.

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            x = self.encoder(x)
            torch._dynamo.graph_break()
            return self.decoder(x)
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            return self.decoder(self.encoder(x))
    ```
    Remove the break when the code around it traces, or keep it and compile without
    `fullgraph=True`. Apply `torch.compiler.disable` as a decorator at module level, where
    it costs one break per call instead of two.

    ## Fix safety
    No automatic fix: the break may be there on purpose.
    """

    code = "CL113"
    name = "explicit-graph-break"
    message = "an explicit graph break: intended, but an error under fullgraph=True (GB0025)"
    gb_ids = ("GB0025", "GB0030", "GB4297", "GB0007", "GB0098", "GB0148")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call, ast.FunctionDef, ast.AsyncFunctionDef)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            self._check_decorators(node, ctx)
            return
        assert isinstance(node, ast.Call)
        parent = ctx.parent(node)
        if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)) and node in parent.decorator_list:
            return  # `@torch.compiler.disable()` on a def: reported with the def's decorators
        name = ctx.qualname(node.func)
        if name in EXPLICIT:
            what, gb_ids = EXPLICIT[name]
            ctx.report(
                node,
                f"`{name}()` is {what} ({gb_ids[0]}): intended in the default mode, an error under fullgraph=True",
                gb_ids=gb_ids,
            )
        elif name in DISABLE and (node.args or any(k.arg != "recursive" for k in node.keywords)):
            ctx.report(
                node,
                f"`{name}(...)` called inside compiled code is itself a skipped call (GB0007), and calling its result "
                "breaks again (GB0098/GB0148); decorate the function at module level instead",
                gb_ids=("GB0007", "GB0098", "GB0148"),
            )

    def _check_decorators(self, node: ast.FunctionDef | ast.AsyncFunctionDef, ctx: RuleContext) -> None:
        """A def inside compiled code decorated with ``disable``: applying it is a skipped
        call each time the def runs (GB0007; GB0008 too for ``disable()``)."""
        for decorator in node.decorator_list:
            name = ctx.qualname(decorator.func if isinstance(decorator, ast.Call) else decorator)
            if name not in DISABLE:
                continue
            bare_call = isinstance(decorator, ast.Call) and not decorator.keywords
            gb_ids = ("GB0007", "GB0008") if bare_call else ("GB0007",)
            ctx.report(
                decorator,
                f"`@{name}` on a function defined inside compiled code is a skipped call each time the `def` runs "
                f"({'/'.join(gb_ids)}), and calling the function breaks again; define it at module level",
                gb_ids=gb_ids,
                own_span=True,
            )
