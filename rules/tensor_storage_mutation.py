"""CL130: in-place methods that replace or share a tensor's storage, in compiled code."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import Kind
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

# method -> GB id, measured on torch 2.13 (default, fullgraph=True, dynamic=True): each
# breaks in every mode. `resize_` on an input reports GB0148 at the same line.
STORAGE_METHODS = {
    "resize_": ("GB0126", "GB0148"),
    "resize_as_": ("GB0127",),
    "share_memory_": ("GB0117",),
    "set_": ("GB0128",),
}


class TensorStorageMutation(Rule):
    """Checks for in-place methods that resize, replace or share a tensor's storage.

    ## What it does
    Flags, inside a compiled region, calls on a tensor of `.resize_(...)`,
    `.resize_as_(...)`, `.share_memory_()` and `.set_(source, offset, size, ...)` (with
    more than one argument).

    ## Why is this bad?
    These change the storage behind a tensor rather than its values, which Dynamo's fake
    tensors cannot follow. Measured on torch 2.13 (backend eager): each breaks the graph in
    the default mode and with `dynamic=True`, and fails under `fullgraph=True`:
    `resize_` (GB0126; on an input GB0148 "Unsupported function call (delayed)"),
    `resize_as_` (GB0127), `share_memory_()` (GB0117 "Unhandled args for method") and
    `set_(storage, offset, size, stride)` (GB0128). `t.set_(other)` with one tensor and
    `t.set_()` compile, and are not flagged.

    ## Example
    ```python
    class Pad(nn.Module):
        def forward(self, x):
            out = x.new_empty(0)
            out.resize_(x.shape[0], 8)
            return out.zero_()
    ```

    ## Use instead
    ```python
    class Pad(nn.Module):
        def forward(self, x):
            return x.new_zeros(x.shape[0], 8)
    ```
    Allocate a tensor of the final shape (`new_zeros`, `torch.empty(shape)`), or reshape
    with `view`/`reshape`; share memory between processes outside the compiled code.

    ## Fix safety
    No automatic fix: the replacement depends on whether the old contents are read.
    """

    code = "CL130"
    name = "tensor-storage-mutation"
    message = "resizing, replacing or sharing a tensor's storage in compiled code breaks the graph"
    gb_ids = ("GB0126", "GB0127", "GB0117", "GB0128", "GB0148")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        if not isinstance(func, ast.Attribute) or func.attr not in STORAGE_METHODS:
            return
        if func.attr == "set_" and len(node.args) + len(node.keywords) < 2:
            return  # set_() and set_(tensor) compile
        if not ctx.kind(func.value) & Kind.TENSOR:
            return
        gb_ids = STORAGE_METHODS[func.attr]
        ctx.report(
            node,
            f"`.{func.attr}()` changes a tensor's storage, which Dynamo cannot trace: breaks the graph "
            f"({gb_ids[0]}); allocate a tensor of the final shape instead",
            gb_ids=gb_ids,
        )
