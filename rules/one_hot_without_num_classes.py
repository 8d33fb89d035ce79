"""CL133: `F.one_hot` without a fixed `num_classes` in compiled code."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import is_data
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

ONE_HOT = frozenset({"torch.nn.functional.one_hot"})


class OneHotWithoutNumClasses(Rule):
    """Checks for `F.one_hot` called without `num_classes` (or with `-1`) in compiled code.

    ## What it does
    Flags, inside a compiled region, `F.one_hot(t)` and `F.one_hot(t, -1)` /
    `F.one_hot(t, num_classes=-1)`, and `F.one_hot(t, n)` where `n` is a tensor.

    ## Why is this bad?
    Without `num_classes` the width of the result is `t.max() + 1`, which depends on the
    data. Measured on torch 2.13 (backend eager): breaks the graph in the default mode and
    with `dynamic=True`, and fails under `fullgraph=True` (GB0246 "Attempted to use
    `torch.nn.functional.one_hot` with data-dependent output shape"; with the keyword
    `num_classes=-1`, GB0033 "Data dependent operator"). So does a tensor `num_classes`
    (`t.max() + 1`, or the builtin `max(t.max() + 1, n)`, which is a tensor too): Dynamo must
    read the width back as a Python number (GB0033 in the default mode; under
    `fullgraph=True`, "Could not extract specialized integer from data-dependent
    expression"). Any other `num_classes` (a constant, a variable, a size) compiles.

    ## Example
    ```python
    class Classes(nn.Module):
        def forward(self, labels):
            return F.one_hot(labels).float()
    ```

    ## Use instead
    ```python
    class Classes(nn.Module):
        def forward(self, labels):
            return F.one_hot(labels, num_classes=10).float()
    ```
    Pass the number of classes, which the model knows.

    ## Fix safety
    No automatic fix: only the author knows the number of classes.
    """

    code = "CL133"
    name = "one-hot-without-num-classes"
    message = "`F.one_hot` without `num_classes` has a data-dependent width: breaks the graph (GB0246); pass `num_classes`"
    gb_ids = ("GB0246", "GB0033")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if ctx.qualname(node.func) not in ONE_HOT or not node.args:
            return
        if any(k.arg is None for k in node.keywords) or any(isinstance(a, ast.Starred) for a in node.args):
            return  # **kwargs / *args: the width is not visible
        width = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "num_classes"), None)
        if width is None or _is_minus_one(width):
            ctx.report(node)
        elif is_data(ctx.kind(width)):
            ctx.report(
                node,
                "`F.one_hot` with a tensor `num_classes` has a data-dependent width: breaks the graph (GB0033); "
                "pass a Python int the model knows (a config value, a size)",
                gb_ids=("GB0033",),
            )


def _is_minus_one(value: ast.expr) -> bool:
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.USub):
        return isinstance(value.operand, ast.Constant) and value.operand.value == 1
    return isinstance(value, ast.Constant) and value.value == -1
