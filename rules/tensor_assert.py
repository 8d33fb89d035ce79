"""CL104: assert on tensor data that Dynamo cannot rewrite."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import is_data
from compilelint.context import RuleContext
from compilelint.findings import Applicability, Mode
from compilelint.registry import Rule


class TensorAssert(Rule):
    """Checks for `assert` statements on tensor data that still break the graph.

    ## What it does
    Flags an `assert` inside a compiled region whose condition is tensor data and that
    Dynamo cannot turn into a graph op: the condition combines tensors with `and`, `or`
    or `not`, or the message is anything but a string literal (an f-string, a variable,
    a `%`-format).

    ## Why is this bad?
    Dynamo rewrites `assert <tensor>` and `assert <tensor>, "literal"` into
    `torch._assert_async` and keeps one graph (measured on torch 2.13: no break). Any
    other form makes Python take the truth of the tensor: the default mode breaks the
    graph (GB0170 "Data-dependent branching") and `fullgraph=True` fails. An `assert` on
    shapes or Python values is fine and is not flagged.

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            assert not torch.isnan(x).any(), f"NaN in input of shape {x.shape}"
            return self.proj(x)
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            torch._assert_async(~torch.isnan(x).any(), "NaN in input")
            return self.proj(x)
    ```
    `torch._assert_async` checks on the device without a graph break. For a condition on
    a Python number from tensor data, use `torch._check(cond)`.

    ## Fix safety
    The rewrite to `torch._assert_async(cond, "message")` is unsafe: the error is raised
    asynchronously (on CUDA, at a later synchronisation, as a device-side assert) with a
    fixed message instead of an `AssertionError` carrying the formatted text.
    """

    code = "CL104"
    name = "tensor-assert"
    message = "`assert` on tensor data with a computed message or a compound condition breaks the graph (GB0170)"
    gb_ids = ("GB0170",)
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Assert,)
    fix_applicability = Applicability.UNSAFE

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Assert)
        parts = list(ctx.truth_tested(node.test))
        if not any(is_data(ctx.kind(part)) for part in parts):
            return
        compound = len(parts) > 1 or parts[0] is not node.test
        literal_message = node.msg is None or (
            isinstance(node.msg, ast.Constant) and isinstance(node.msg.value, str)
        )
        if compound:
            ctx.report(
                node.test,
                "`assert` on tensor data combined with `and`/`or`/`not` breaks the graph (GB0170); "
                "use `torch._assert_async(cond, msg)` on one tensor condition",
            )
        elif not literal_message:
            ctx.report(
                node.msg or node,
                "`assert` on tensor data with a computed message breaks the graph (GB0170); "
                "use a string literal message or `torch._assert_async(cond, msg)`",
            )
