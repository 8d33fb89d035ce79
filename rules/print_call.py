"""CL101: print() inside a compiled region."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from compilelint.context import RuleContext
from compilelint.findings import Applicability, Fix, Mode
from compilelint.fix.plans import GuardPlan
from compilelint.registry import Rule

if TYPE_CHECKING:
    from compilelint.findings import Finding
    from compilelint.fix.edits import FixContext, FixEdit

GUARD_FIX = Fix(Applicability.SAFE, "Guard with `if not torch.compiler.is_compiling():`")


class PrintCall(Rule):
    """Checks for `print()` calls in code that `torch.compile` traces.

    ## What it does
    Flags calls of the builtin `print` inside a compiled region: `forward` of an
    `nn.Module`, a `@torch.compile` function, or anything they call in the same file.

    ## Why is this bad?
    Dynamo cannot put `print` into a graph. In the default mode it ends the graph before
    the call, runs the `print` in Python and starts a new graph after it (a graph break,
    GB0059 "Failed to trace builtin operator"); every break costs a round trip to Python
    and stops Inductor from fusing across it. With `fullgraph=True` compilation fails.
    Measured on torch 2.13: breaks in both modes, whatever is printed.

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            y = self.proj(x)
            print("activation norm", y.norm())
            return y
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            y = self.proj(x)
            if not torch.compiler.is_compiling():
                print("activation norm", y.norm())
            return y
    ```
    Dynamo skips the guarded block; eager runs still print. Alternatives: put the
    function in `torch._dynamo.config.reorderable_logging_functions` (the print runs
    after the graph, with the values of that moment), or log outside the model.

    ## Fix safety
    The fix wraps the statement in `if not torch.compiler.is_compiling():`. It is safe:
    eager behaviour is unchanged and the compiled program computes the same tensors; only
    the debugging output is skipped while compiled, which is what `--fix` asks for. No fix
    is offered when `print` sits inside an expression or a lambda.
    """

    code = "CL101"
    name = "print-call"
    message = "`print()` in a compiled region breaks the graph (GB0059); guard it with `torch.compiler.is_compiling()`"
    gb_ids = ("GB0059",)
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)
    fix_applicability = Applicability.SAFE

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if ctx.builtin(node.func) != "print":
            return
        statement = ctx.statement
        if isinstance(statement, ast.Expr) and statement.value is node:
            ctx.report(node, fix=GUARD_FIX, fix_data=GuardPlan(statement))
        else:  # inside an expression or a lambda: no statement to guard
            ctx.report(node)

    def build_fix(self, finding: Finding, fix: FixContext) -> FixEdit | None:
        from compilelint.fix.edits import guard_edit

        assert isinstance(finding.fix_data, GuardPlan)
        return guard_edit(finding.fix_data.statement, fix)
