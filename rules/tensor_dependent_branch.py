"""CL103: Python control flow on tensor data."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from compilelint.analysis.kinds import is_data, is_data_scalar
from compilelint.context import RuleContext
from compilelint.findings import Applicability, Fix, Mode
from compilelint.fix.branches import plan_if, plan_ternary
from compilelint.fix.plans import RaisePlan, ReturnPlan, TernaryPlan, WherePlan
from compilelint.registry import Rule

if TYPE_CHECKING:
    import libcst as cst

    from compilelint.findings import Finding
    from compilelint.fix.edits import FixContext, FixEdit

WHERE_FIX = Fix(Applicability.UNSAFE, "Rewrite with `torch.where` (both arms are computed)")
CHECK_FIX = Fix(Applicability.UNSAFE, "Replace with `torch._assert_async` (raises RuntimeError)")

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
    `t in xs` of a list or tuple of tensors is such a test too: Dynamo compares `t == e`
    element by element and takes the truth of each result (GB0170 in both modes), where
    Python matches the same tensor by identity first, so the compiled code raises
    "Boolean value of Tensor with more than one value is ambiguous" where eager found it
    (`not in` fails the compile in both modes). `t in d` of a dict or set hashes the
    tensor by identity and is traced.

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
    Unsafe (`--unsafe-fixes`). `if c: y = A` / `else: y = B` (one `torch.where` per assigned
    name; without `else`, `torch.where(c, A, y)` when `y` is bound before), `if c: return A`
    then `return B`, and `A if c else B` become `torch.where(c, A, B)`; `if c: raise E("msg")`
    becomes `torch._assert_async(<not c>, "msg")`. Offered only when every arm is a pure
    tensor expression (torch functions, tensor methods, operators; nothing random, in-place
    or user-defined). Unsafe because `torch.where` computes both arms: an error, NaN or inf
    in the arm eager would skip now happens and can reach gradients, arms of different shapes
    broadcast, and a test on several elements selects element-wise where eager raised. The
    raise rewrite raises `RuntimeError` instead of `E` (on CUDA, at a later synchronisation),
    and a formatted message loses its values: `raise E(f"bad size {x.shape}")` becomes the
    literal text `"bad size {x.shape}"`, placeholders and all, and `"%d" % n` its template,
    because a message formatted from a shape stops tracing once shapes are dynamic
    (measured on torch 2.13). Anything else gets no fix, and the message points to
    `torch.cond`.
    """

    code = "CL103"
    name = "tensor-dependent-branch"
    message = "Python branch on tensor data breaks the graph (GB0170); use `torch.where` or `torch.cond`"
    gb_ids = ("GB0170",)
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.If, ast.While, ast.IfExp, ast.BoolOp, ast.UnaryOp, ast.comprehension)
    fix_applicability = Applicability.UNSAFE

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, ast.If):
            self._check_test(node.test, WHAT[ast.If], ctx, plan_if(node, ctx))
        elif isinstance(node, ast.IfExp):
            self._check_test(node.test, WHAT[ast.IfExp], ctx, plan_ternary(node, ctx))
        elif isinstance(node, ast.While):
            self._check_test(node.test, WHAT[ast.While], ctx)
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

    def _check_test(self, test: ast.expr, what: str, ctx: RuleContext, plan: object = None) -> None:
        if ctx.static_value(test) is not None:
            return
        fix = (CHECK_FIX if isinstance(plan, RaisePlan) else WHERE_FIX) if plan is not None else None
        for part, guards in ctx.guarded_parts(test):
            kind = ctx.kind(part)
            only_when, when = ctx.conditions(guards)
            if is_data(kind) and _membership(part):
                ctx.report(
                    part,
                    f"`in` on a list or tuple of tensors in {what} compares by `==` and takes the truth of the tensor "
                    f"it gives (GB0170){when}: Python finds the same tensor by identity first, compiled code does not, "
                    "and a tensor of more than one element then raises; keep positions or a dict keyed by `id()`",
                    only_when=only_when,
                )
            elif is_data(kind):
                advice = "`torch.where`" if fix is not None else "`torch.cond(pred, true_fn, false_fn, operands)`"
                ctx.report(
                    part,
                    f"{what} on tensor data breaks the graph (GB0170){when}; use {advice}",
                    fix=fix,
                    fix_data=plan,
                    only_when=only_when,
                )
            elif is_data_scalar(kind):
                ctx.report(
                    part,
                    f"{what} on a Python number taken from tensor data{when}: `fullgraph=True` cannot guard on it, "
                    "and the default mode recompiles for each new value; keep it a tensor",
                    breaks=(Mode.FULLGRAPH,),
                    gb_ids=(),
                    only_when=only_when,
                )

    def build_fix(self, finding: Finding, fix: FixContext) -> FixEdit | None:
        import libcst as cst

        from compilelint.fix import builders as b
        from compilelint.fix.edits import FixEdit, ReplaceNode, ReplaceStatement

        plan = finding.fix_data
        new = _NewCode(fix)
        if isinstance(plan, TernaryPlan):
            target = cst.ensure_type(fix.node(plan.node), cst.IfExp)
            where = b.where(new.condition(plan), new.use(target.body), new.use(target.orelse))
            return FixEdit((ReplaceNode(target, where),))
        assert isinstance(plan, (WherePlan, ReturnPlan, RaisePlan))
        statement = fix.if_statement(plan.statement)
        absorbed = [fix.line(plan.following)] if isinstance(plan, ReturnPlan) and plan.following else []
        statements = new.branch_free(plan)
        # Comments of the `if` itself and of the lines it absorbs go above the new code.
        leading = b.comments_outside([statement.with_changes(leading_lines=[]), *absorbed], new.used)
        removals = tuple(ReplaceStatement(line, (), comments_moved=True) for line in absorbed)
        return FixEdit((ReplaceStatement(statement, statements, leading), *removals))


class _NewCode:
    """Builds the branch-free code from the user's own expression nodes.

    A node may appear once in the new tree; a second use (the test of several
    ``torch.where``) gets a copy, so that positions in the next pass stay unambiguous.
    """

    def __init__(self, fix: FixContext) -> None:
        self.fix = fix
        self.used: list[cst.CSTNode] = []

    def use(self, node: cst.BaseExpression) -> cst.BaseExpression:
        if any(node is seen for seen in self.used):
            return node.deep_clone()
        self.used.append(node)
        return node

    def expression(self, node: ast.expr) -> cst.BaseExpression:
        return self.use(self.fix.expression(node))

    def condition(self, plan: WherePlan | ReturnPlan | RaisePlan | TernaryPlan) -> cst.BaseExpression:
        from compilelint.fix import builders as b

        return b.condition(plan.condition, lambda keep: self.expression(keep.expr))

    def branch_free(self, plan: WherePlan | ReturnPlan | RaisePlan) -> tuple[cst.BaseSmallStatement, ...]:
        import libcst as cst

        from compilelint.fix import builders as b

        if isinstance(plan, RaisePlan):
            message = plan.message
            args = [self.condition(plan)]
            if message is not None:
                args.append(b.string(message.text or "") if message.expr is None else self.expression(message.expr))
            return (b.statement(b.call("torch._assert_async", *args)),)
        if isinstance(plan, ReturnPlan):
            when_true, when_false = self.expression(plan.true_value), self.expression(plan.false_value)
            return (cst.Return(value=b.where(self.condition(plan), when_true, when_false)),)
        assignments = []
        for name, true_value, false_value in plan.arms:
            other = self.expression(false_value) if false_value is not None else cst.Name(name)
            where = b.where(self.condition(plan), self.expression(true_value), other)
            assignments.append(b.assignment(name, where))
        return tuple(assignments)


def _membership(test: ast.expr) -> bool:
    """``t in xs`` / ``t not in xs``: Python's membership test, not a tensor comparison."""
    return isinstance(test, ast.Compare) and all(isinstance(op, (ast.In, ast.NotIn)) for op in test.ops)
