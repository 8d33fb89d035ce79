"""CL132: inference-mode queries (`t.is_inference()`, `torch.is_inference_mode_enabled()`) in compiled code."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import Kind
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

# function -> GB id, measured on torch 2.13 (default, fullgraph=True, dynamic=True).
FUNCTIONS = {"torch.is_inference_mode_enabled": "GB0046"}


class InferenceModeQuery(Rule):
    """Checks for questions about inference mode asked inside compiled code.

    ## What it does
    Flags, inside a compiled region, `t.is_inference()` on a tensor and
    `torch.is_inference_mode_enabled()`.

    ## Why is this bad?
    Dynamo does not trace these queries. Measured on torch 2.13 (backend eager): each breaks
    the graph in the default mode and with `dynamic=True`, and fails under
    `fullgraph=True`: `t.is_inference()` (GB0045), `torch.is_inference_mode_enabled()`
    (GB0046). `torch.is_inference(t)` breaks too (GB0208) but is not flagged by this rule
    (used as a test, it is reported as a tensor-dependent branch). `torch.is_grad_enabled()`
    compiles, and is not flagged.

    ## Example
    ```python
    class Head(nn.Module):
        def forward(self, x):
            if torch.is_inference_mode_enabled():
                return self.proj(x)
            return self.proj(self.drop(x))
    ```

    ## Use instead
    ```python
    class Head(nn.Module):
        def forward(self, x):
            if not self.training:
                return self.proj(x)
            return self.proj(self.drop(x))
    ```
    Branch on `self.training` or `torch.is_grad_enabled()` (both traced, and guarded), or
    decide outside the compiled code and pass the answer in.

    ## Fix safety
    No automatic fix: inference mode and `self.training` are different switches.
    """

    code = "CL132"
    name = "inference-mode-query"
    message = "asking about inference mode in compiled code breaks the graph"
    gb_ids = ("GB0045", "GB0046")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        name = ctx.qualname(node.func)
        if name in FUNCTIONS:
            gb_id = FUNCTIONS[name]
            ctx.report(node, f"`{name}()` in compiled code breaks the graph ({gb_id}); branch on `self.training` or decide outside", gb_ids=(gb_id,))
        elif (
            isinstance(node.func, ast.Attribute)
            and node.func.attr == "is_inference"
            and not node.args
            and ctx.kind(node.func.value) & Kind.TENSOR
        ):
            ctx.report(node, "`.is_inference()` of a tensor in compiled code breaks the graph (GB0045); decide outside the compiled code", gb_ids=("GB0045",))
