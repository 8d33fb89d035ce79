"""CL131: `.data`, `.real` or `.imag` of a tensor assigned in compiled code."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import Kind
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

# attribute -> GB id, measured on torch 2.13 (default, fullgraph=True, dynamic=True).
PARTS = {"real": "GB0058", "imag": "GB0058"}


class TensorAttributeAssignment(Rule):
    """Checks for assignments to `.data` of an intermediate tensor, and to `.real`/`.imag`.

    ## What it does
    Flags, inside a compiled region, `t.real = ...` and `t.imag = ...` on a tensor, and
    `t.data = ...` where `t` is a tensor computed in the function (not one of its
    arguments, not a module attribute).

    ## Why is this bad?
    Dynamo cannot swap the storage behind a tensor it has already traced. Measured on torch
    2.13 (backend eager): `y.data = ...` on an intermediate breaks the graph (GB0056
    "Failed to mutate tensor data attribute"), and `t.real = ...` / `t.imag = ...` break on
    any tensor (GB0058 "Failed to set tensor attribute"), in the default mode and with
    `dynamic=True`; both fail under `fullgraph=True`. `x.data = ...` on an argument,
    `self.weight.data = ...` on a parameter or buffer, and `t.data.copy_(...)` compile,
    and are not flagged.

    ## Example
    ```python
    class Quant(nn.Module):
        def forward(self, x):
            y = x * 2
            y.data = torch.round(y)
            return y
    ```

    ## Use instead
    ```python
    class Quant(nn.Module):
        def forward(self, x):
            y = x * 2
            return y + (torch.round(y) - y).detach()
    ```
    Compute a new tensor (with `.detach()` where gradients must skip the change), or write
    in place with `copy_`; build complex tensors with `torch.complex(real, imag)`.

    ## Fix safety
    No automatic fix: the replacement depends on what autograd should see.
    """

    code = "CL131"
    name = "tensor-attribute-assignment"
    message = "assigning a tensor's `.data`, `.real` or `.imag` in compiled code breaks the graph"
    gb_ids = ("GB0056", "GB0058")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Assign, ast.AugAssign, ast.AnnAssign)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target")]
        for target in targets:
            if isinstance(target, ast.Attribute) and ctx.kind(target.value) & Kind.TENSOR:
                self._check_target(target, ctx)

    @staticmethod
    def _check_target(target: ast.Attribute, ctx: RuleContext) -> None:
        if target.attr in PARTS:
            ctx.report(
                target,
                f"assigning `.{target.attr}` of a tensor in compiled code breaks the graph (GB0058); "
                "build the tensor with `torch.complex(real, imag)`",
                gb_ids=(PARTS[target.attr],),
            )
        elif target.attr == "data" and _is_intermediate(target.value, ctx):
            ctx.report(
                target,
                "assigning `.data` of a tensor computed in compiled code breaks the graph (GB0056); "
                "compute a new tensor, or write in place with `copy_`",
                gb_ids=("GB0056",),
            )


def _is_intermediate(value: ast.expr, ctx: RuleContext) -> bool:
    """A name the function binds that is none of its arguments: arguments, parameters and
    buffers (``self.w.data = ...``) compile."""
    if not isinstance(value, ast.Name) or ctx.function is None:
        return False
    function = ctx.function.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return False
    arguments = function.args
    names = {a.arg for a in arguments.posonlyargs + arguments.args + arguments.kwonlyargs}
    names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    if value.id in names:
        return False
    return any(
        isinstance(node, ast.Name) and node.id == value.id and isinstance(node.ctx, ast.Store)
        for node in ast.walk(function)
    )
