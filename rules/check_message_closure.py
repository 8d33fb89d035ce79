"""CL126: a `torch._check` message lambda that closes over a tensor."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import is_data
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

# torch._check and the checks that share its signature (cond, message=None)
CHECKS = frozenset(
    {"torch._check", "torch._check_value", "torch._check_index", "torch._check_type", "torch._check_not_implemented"}
)


class CheckMessageClosure(Rule):
    """Checks for `torch._check(cond, lambda: ...)` whose message closes over a tensor.

    ## What it does
    Flags, inside a compiled region, a call of `torch._check` (or `_check_value`,
    `_check_index`, `_check_type`, `_check_not_implemented`) whose message is a `lambda`
    reading a name that holds a tensor there (`lambda: f"{x.shape[0]} is too small"` with
    `x` a tensor).

    ## Why is this bad?
    Dynamo turns the check into a graph assertion and must turn the message into a
    constant; a closure over a tensor it cannot convert. Measured on torch 2.13 (backend
    eager): the call breaks the graph in the default mode and with `dynamic=True`
    (GB9158, "Can't convert torch._check*() message closure") and fails under
    `fullgraph=True`, even when the condition holds. A message lambda that reads only
    Python values (a literal, a local int, a global) compiles.

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            torch._check(x.shape[0] > 3, lambda: f"{x.shape[0]} rows is too few")
            return self.proj(x)
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            torch._check(x.shape[0] > 3, lambda: "need more than 3 rows")
            return self.proj(x)
    ```
    Keep the message free of tensors: a constant string, or Python values only.

    ## Fix safety
    No automatic fix: the message would lose the values it reports.
    """

    code = "CL126"
    name = "check-message-closure"
    message = "a `torch._check` message closing over a tensor breaks the graph (GB9158)"
    gb_ids = ("GB9158",)
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        name = ctx.qualname(node.func)
        if name not in CHECKS or ctx.evaluator is None:
            return
        message = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "message"), None)
        if not isinstance(message, ast.Lambda):
            return
        env = ctx.evaluator.env
        tensors = sorted({n for n in _free_names(message) if n in env and is_data(env[n])})
        if tensors:
            ctx.report(
                node,
                f"the message of `{name}()` closes over the tensor `{tensors[0]}`: Dynamo cannot convert it and "
                "breaks the graph (GB9158); build the message from Python values only",
            )


def _free_names(function: ast.Lambda) -> set[str]:
    """Names the lambda reads that its own parameters do not bind."""
    arguments = function.args
    bound = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    bound |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    return {n.id for n in ast.walk(function.body) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - bound
