"""CL106: operations whose output shape depends on tensor data."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import is_data, is_mask
from compilelint.context import RuleContext
from compilelint.findings import Applicability, Mode
from compilelint.registry import Rule

# Functions (torch.<name>) and methods (x.<name>()) whose result size is data-dependent.
ALWAYS_DYNAMIC = frozenset(
    {"nonzero", "argwhere", "unique", "unique_consecutive", "masked_select", "bincount"}
)


class DataDependentShape(Rule):
    """Checks for operations whose output shape depends on the values in a tensor.

    ## What it does
    Flags boolean-mask indexing (`x[x > 0]`, `x[mask]`), `nonzero`, `argwhere`, `unique`,
    `unique_consecutive`, `masked_select`, `bincount`, one-argument `torch.where(cond)`
    and `repeat_interleave` with tensor repeats, inside a compiled region.

    ## Why is this bad?
    The size of the result is only known once the data is, so Dynamo cannot give it a
    static shape. Measured on torch 2.13: the default mode breaks the graph (GB0036
    "Dynamic shape operator"); `fullgraph=True` compiles them with unbacked symbolic sizes,
    which later shape-dependent code may still fail on. Assigning through a mask
    (`x[mask] = 0`) is fine and is not flagged.

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            return x[x > 0].sum()
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            return torch.where(x > 0, x, 0).sum()
    ```
    Keep the shape: select with `torch.where(mask, x, 0)` or `x.masked_fill(~mask, 0)` and
    reduce, or use `torch.nonzero_static(x, size=...)` when an upper bound is known.

    ## Fix safety
    The `torch.where(mask, x, 0)` rewrite changes the result's shape, so it is only
    equivalent when the masked values are reduced with an operation for which 0 is
    neutral (`.sum()`); the fix is offered there only, as unsafe (it changes gradients'
    sparsity and NaN propagation from the unselected values).
    """

    code = "CL106"
    name = "data-dependent-shape"
    message = "output shape depends on tensor data: breaks the graph unless `fullgraph=True` (GB0036)"
    gb_ids = ("GB0036",)
    breaks = (Mode.DEFAULT,)
    nodes = (ast.Call, ast.Subscript)
    fix_applicability = Applicability.UNSAFE

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, ast.Subscript):
            if isinstance(node.ctx, ast.Load) and is_data(ctx.kind(node.value)) and self._has_mask(node, ctx):
                ctx.report(node, "boolean-mask indexing has a data-dependent shape: breaks the graph unless `fullgraph=True` (GB0036); use `torch.where(mask, x, 0)`")
            return
        assert isinstance(node, ast.Call)
        what = self._classify(node, ctx)
        if what is not None:
            ctx.report(node, f"{what} has a data-dependent output shape: breaks the graph unless `fullgraph=True` (GB0036)")

    @staticmethod
    def _has_mask(node: ast.Subscript, ctx: RuleContext) -> bool:
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return any(not isinstance(p, ast.Slice) and is_mask(ctx.kind(p)) for p in parts)

    @staticmethod
    def _classify(node: ast.Call, ctx: RuleContext) -> str | None:
        func = node.func
        name = ctx.qualname(func) or ""
        if name.startswith("torch.") and name.count(".") == 1:
            function = name.split(".", 1)[1]
            if function in ALWAYS_DYNAMIC:
                return f"`torch.{function}()`"
            if function == "where" and len(node.args) == 1 and not node.keywords:
                return "one-argument `torch.where()`"
            if function == "repeat_interleave" and len(node.args) >= 2 and is_data(ctx.kind(node.args[1])):
                return "`torch.repeat_interleave()` with tensor repeats"
            return None
        if not isinstance(func, ast.Attribute) or not is_data(ctx.kind(func.value)):
            return None
        if func.attr in ALWAYS_DYNAMIC:
            return f"`.{func.attr}()`"
        if func.attr == "repeat_interleave" and node.args and is_data(ctx.kind(node.args[0])):
            return "`.repeat_interleave()` with tensor repeats"
        return None
