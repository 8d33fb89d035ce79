"""CL103: Python control flow on tensor data."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import is_data, is_data_scalar
from compilelint.context import RuleContext
from compilelint.findings import Applicability, Mode
from compilelint.registry import Rule

WHAT = {ast.If: "`if`", ast.While: "`while`", ast.IfExp: "conditional expression"}


class TensorDependentBranch(Rule):
    """Checks for `if`, `while`, `and`/`or`/`not` and ternaries that test tensor data.

    ## What it does
    Flags a test whose value is a tensor (`if x.sum() > 0:`, `while (err > tol).any():`,
    `y if mask.any() else z`, `a and b` on tensors) inside a compiled region, and a test on a
    Python number computed from tensor data (`if loss.item() > 0:`).

    ## Why is this bad?
    Python has to turn the tensor into a bool to pick a branch, and Dynamo cannot know
    that bool while tracing. Measured on torch 2.13: the default mode breaks the graph
    at the test (GB0170 "Data-dependent branching") and runs the branch in Python;
    `fullgraph=True` fails. A test on an `.item()` value breaks at the `.item()` (CL105) and,
    under `fullgraph=True`, fails with "Could not guard on data-dependent expression".

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            if x.sum() > 0:
                y = x * 2
            else:
                y = -x
            return y
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            y = torch.where(x.sum() > 0, x * 2, -x)
            return y
    ```
    `torch.where` computes both arms and selects element-wise, inside the graph. For arms
    with side effects or different shapes, use `torch.cond(pred, true_fn, false_fn, (x,))`.

    ## Fix safety
    A `torch.where` rewrite is unsafe: both arms run, so an error, NaN or inf in the arm
    that eager would skip now happens (and can reach gradients). It is offered only where
    both arms assign the same names from tensor expressions (see `--unsafe-fixes`).
    """

    code = "CL103"
    name = "tensor-dependent-branch"
    message = "Python branch on tensor data breaks the graph (GB0170); use `torch.where` or `torch.cond`"
    gb_ids = ("GB0170",)
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.If, ast.While, ast.IfExp, ast.BoolOp, ast.UnaryOp, ast.comprehension)
    fix_applicability = Applicability.UNSAFE

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            self._check_test(node.test, WHAT[type(node)], ctx)
        elif isinstance(node, ast.comprehension):
            for condition in node.ifs:
                self._check_test(condition, "comprehension `if`", ctx)
        elif isinstance(node, ast.BoolOp) and not ctx.in_test_position(node):
            # `z = a or b` takes the truth of every operand but the last
            operator = "`and`" if isinstance(node.op, ast.And) else "`or`"
            for value in node.values[:-1]:
                self._check_test(value, operator, ctx)
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not) and not ctx.in_test_position(node):
            self._check_test(node.operand, "`not`", ctx)

    def _check_test(self, test: ast.expr, what: str, ctx: RuleContext) -> None:
        if ctx.static_value(test) is not None:
            return
        for part in ctx.truth_tested(test):
            kind = ctx.kind(part)
            if is_data(kind):
                ctx.report(part, f"{what} on tensor data breaks the graph (GB0170); use `torch.where` or `torch.cond`")
            elif is_data_scalar(kind):
                ctx.report(
                    part,
                    f"{what} on a Python number taken from tensor data: `fullgraph=True` cannot guard on it, "
                    "and the default mode recompiles for each new value; keep it a tensor",
                    breaks=(Mode.FULLGRAPH,),
                    gb_ids=(),
                )
