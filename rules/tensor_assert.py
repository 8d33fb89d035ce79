"""CL104: assert on tensor data that Dynamo cannot rewrite."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from compilelint.analysis.kinds import is_data, is_data_scalar
from compilelint.context import RuleContext
from compilelint.findings import Applicability, Fix, Mode
from compilelint.fix.eligibility import static_message, tensor_condition
from compilelint.fix.plans import AssertPlan, Check, Keep
from compilelint.registry import Rule

if TYPE_CHECKING:
    from compilelint.findings import Finding
    from compilelint.fix.edits import FixContext, FixEdit

CHECK_FIX = Fix(Applicability.UNSAFE, "Replace with `torch._assert_async` (raises RuntimeError)")


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
    graph (GB0170 "Data-dependent branching") and `fullgraph=True` fails; a message that
    is not a string at all (`assert ok, (a, b)`) is passed to `torch._assert_async`, and the
    compiled call raises TypeError in both modes. An `assert` on
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
    Unsafe (`--unsafe-fixes`). `assert cond, msg` becomes `torch._assert_async(cond, msg)` for
    a tensor condition (`not`/`or` become `~`/`torch.logical_or`; each `and` operand gets its
    own check) and `torch._check(cond, lambda: msg)` for a comparison of Python numbers taken
    from tensor data. Measured on torch 2.13: both trace without a break in both modes and
    raise `RuntimeError`, not `AssertionError`, when the condition fails, eagerly and compiled
    (on CUDA `_assert_async` is a device-side assert, raised at a later synchronisation); they
    run under `python -O` too; a formatted message becomes its template text, literally:
    `f"bad {x.shape}"` gives the message `"bad {x.shape}"` (an f-string of a shape stops
    tracing once shapes are dynamic).
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
        plan = _plan(node, ctx)
        fix = CHECK_FIX if plan is not None else None
        if compound:
            ctx.report(
                node.test,
                "`assert` on tensor data combined with `and`/`or`/`not` breaks the graph (GB0170); "
                "use `torch._assert_async(cond, msg)` on one tensor condition",
                fix=fix,
                fix_data=plan,
            )
        elif node.msg is not None and _not_text(node.msg):
            ctx.report(
                node.msg,
                "`assert` on tensor data with a message that is not a string: Dynamo turns it into "
                "`torch._assert_async(cond, msg)`, which raises TypeError when the compiled code runs, in both modes; "
                "use a string message",
                gb_ids=(),
            )
        elif not literal_message:
            ctx.report(
                node.msg or node,
                "`assert` on tensor data with a computed message breaks the graph (GB0170); "
                "use a string literal message or `torch._assert_async(cond, msg)`",
                fix=fix,
                fix_data=plan,
            )

    def build_fix(self, finding: Finding, fix: FixContext) -> FixEdit | None:
        import libcst as cst

        from compilelint.fix import builders as b
        from compilelint.fix.edits import FixEdit, ReplaceStatement

        plan = finding.fix_data
        assert isinstance(plan, AssertPlan)
        target = cst.ensure_type(fix.node(plan.statement), cst.Assert)
        used: list[cst.CSTNode] = []

        def use(node: cst.BaseExpression) -> cst.BaseExpression:
            clone = any(node is seen for seen in used)
            used.append(node)
            return node.deep_clone() if clone else node

        checks: list[cst.BaseSmallStatement] = []
        for check in plan.checks:
            args = [b.condition(check.condition, lambda keep: use(fix.expression(keep.expr)))]
            if plan.message is not None:
                expr = plan.message.expr
                message = b.string(plan.message.text or "") if expr is None else use(fix.expression(expr))
                # torch._check takes the message as a callable, built only when the check fails
                args.append(cst.Lambda(params=cst.Parameters(), body=message) if check.function == "_check" else message)
            checks.append(b.statement(b.call(f"torch.{check.function}", *args)))
        return FixEdit((ReplaceStatement(target, tuple(checks), b.comments_outside([target], used)),))


def _not_text(message: ast.expr) -> bool:
    """A display or literal that is surely no string: ``(a, b)``, ``[...]``, ``{...}``, ``3``."""
    if isinstance(message, ast.Constant):
        return not isinstance(message.value, str)
    return isinstance(message, (ast.Tuple, ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp))


def _plan(node: ast.Assert, ctx: RuleContext) -> AssertPlan | None:
    """One check per top-level `and` operand: `torch._assert_async` for a tensor condition,
    `torch._check` for a Python number taken from tensor data (a comparison, not negated)."""
    message = static_message(node.msg, ctx)
    if node.msg is not None and message is None:
        return None
    operands = node.test.values if isinstance(node.test, ast.BoolOp) and isinstance(node.test.op, ast.And) else [node.test]
    checks: list[Check] = []
    for operand in operands:
        condition = tensor_condition(operand, ctx)
        if condition is not None:
            checks.append(Check("_assert_async", condition))
        elif isinstance(operand, ast.Compare) and is_data_scalar(ctx.kind(operand)):
            checks.append(Check("_check", Keep(operand, boolean=True)))
        else:
            return None
    return AssertPlan(node, tuple(checks), message)
