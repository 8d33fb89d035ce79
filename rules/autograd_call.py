"""CL114: backward() and torch.autograd.grad() inside compiled code."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import Kind
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

# qualified name -> GB id, measured on torch 2.13
FUNCTIONS = {"torch.autograd.grad": "GB9186", "torch.autograd.backward": "GB0007"}


class AutogradCall(Rule):
    """Checks for the backward pass run from inside compiled code.

    ## What it does
    Flags, inside a compiled region, `t.backward()` on a tensor, `torch.autograd.grad(...)`
    and `torch.autograd.backward(...)`.

    ## Why is this bad?
    `torch.compile` compiles the backward of the graph it captures through AOTAutograd; a
    backward pass started from inside the traced code is not part of that. Measured on torch
    2.13: `t.backward()` breaks the graph (GB0123 "Unsupported Tensor.backward() call"),
    `torch.autograd.grad` too (GB9186, with the default `trace_autograd_ops=False`) and
    `torch.autograd.backward` is a skipped function (GB0007), in the default mode and with
    `dynamic=True`; each is an error under `fullgraph=True`. With `trace_autograd_ops=True`
    a `backward()` whose loss is returned still broke (GB4927). Reading `.grad` compiles.

    ## Example
    ```python
    @torch.compile
    def train_step(model, x, y):
        loss = F.mse_loss(model(x), y)
        loss.backward()
        return loss
    ```

    ## Use instead
    ```python
    compiled_model = torch.compile(model)

    def train_step(x, y):
        loss = F.mse_loss(compiled_model(x), y)
        loss.backward()
        return loss
    ```
    Compile the forward (or the loss computation) and call `backward()` outside: the
    backward graph is still compiled. For the whole step, use compiled autograd.

    ## Fix safety
    No automatic fix: moving the backward call changes what the compiled function returns.
    """

    code = "CL114"
    name = "autograd-call"
    message = "a backward pass inside compiled code breaks the graph (GB0123)"
    gb_ids = ("GB0123", "GB9186", "GB0007")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        name = ctx.qualname(node.func)
        if name in FUNCTIONS:
            gb = FUNCTIONS[name]
            ctx.report(node, f"`{name}()` inside compiled code breaks the graph ({gb}); run the backward pass outside", gb_ids=(gb,))
        elif (
            isinstance(node.func, ast.Attribute)
            and node.func.attr == "backward"
            and ctx.kind(node.func.value) & Kind.TENSOR
            and not ctx.kind(node.func.value) & Kind.MODULE
        ):
            ctx.report(node, "`.backward()` inside compiled code breaks the graph (GB0123); call it on the compiled output", gb_ids=("GB0123",))
