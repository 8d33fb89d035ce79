"""CL108: a compiled region calls a function under torch.compiler.disable."""

from __future__ import annotations

import ast

from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule


class DisabledFunctionCall(Rule):
    """Checks for calls of `@torch.compiler.disable` functions from compiled code.

    ## What it does
    Flags a call, inside a compiled region, of a function of the same file decorated with
    `@torch.compiler.disable` or `@torch._dynamo.disable`.

    ## Why is this bad?
    `disable` tells Dynamo never to trace the function, so the caller's graph must end
    before the call and resume after it. Measured on torch 2.13: a graph break in the
    default mode (GB0098 "Skip calling `torch.compiler.disable()`d function"; GB0099
    "Skip inlining ..." for methods and `recursive=False`) and an error under
    `fullgraph=True`. `disable` is a way to contain code Dynamo cannot trace,
    not a way to avoid a break: each call still costs one.

    ## Example
    ```python
    @torch.compiler.disable
    def debug_stats(x):
        return {"mean": x.mean().item()}

    class Net(nn.Module):
        def forward(self, x):
            self.stats = debug_stats(x)
            return self.proj(x)
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            return self.proj(x)

    def training_step(model, x):
        out = model(x)
        stats = {"mean": x.mean().item()}  # outside the compiled model
        return out, stats
    ```
    Call the disabled code outside the compiled region, or make it traceable.

    ## Fix safety
    No automatic fix: moving the call changes when it runs.
    """

    code = "CL108"
    name = "disabled-function-call"
    message = "call of a `torch.compiler.disable`d function breaks the graph (GB0098)"
    gb_ids = ("GB0098", "GB0099")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        callee = ctx.callee(node)
        if callee is not None and callee.disabled:
            ctx.report(
                node,
                f"`{callee.qualname}` is under `torch.compiler.disable`: calling it from compiled code "
                "breaks the graph (GB0098/GB0099); call it outside the compiled region",
            )
