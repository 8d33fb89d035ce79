"""CL126: a `torch._check` message Dynamo cannot convert: a closure over a tensor, or no function at all."""

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
    """Checks for `torch._check` messages Dynamo cannot turn into a constant.

    ## What it does
    Flags, inside a compiled region, a call of `torch._check` (or `_check_value`,
    `_check_index`, `_check_type`, `_check_not_implemented`) whose message is a `lambda`
    reading a name that holds a tensor there (`lambda: f"{x.shape[0]} is too small"` with
    `x` a tensor), or whose message is not a function defined in the compiled code
    (`torch._check(ok, "too small")`).

    ## Why is this bad?
    Dynamo turns the check into a graph assertion and must turn the message into a
    constant; a closure over a tensor it cannot convert. Measured on torch 2.13 (backend
    eager): the call breaks the graph in the default mode and with `dynamic=True`
    (GB9158, "Can't convert torch._check*() message closure") and fails under
    `fullgraph=True`, even when the condition holds. A message lambda that reads only
    Python values (a literal, a local int, a global) compiles. A message that is no
    function defined in the compiled code (a string, an f-string, `message=...`, a
    module-level function) cannot be extracted at all: the call breaks in the default mode
    (GB9840 "Can't extract message from torch._check*()") and fails under
    `fullgraph=True`, whether or not the check holds (measured for `_check` and
    `_check_value`; torch 2.14 and 2.15 extract such a message, and the finding is dropped
    when they are the torch in use).

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
    message = "a `torch._check` message Dynamo cannot turn into a constant breaks the graph (GB9158, GB9840)"
    gb_ids = ("GB9158", "GB9840")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        name = ctx.qualname(node.func)
        if name not in CHECKS or ctx.evaluator is None:
            return
        message = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "message"), None)
        if message is None or isinstance(message, ast.Constant) and message.value is None:
            return
        if not isinstance(message, ast.Lambda):
            if not _defined_here(message, ctx):
                ctx.report(
                    node,
                    f"the message of `{name}()` is `{ast.unparse(message)[:40]}`, not a function defined in the compiled "
                    "code: Dynamo cannot extract it and breaks the graph in both modes (GB9840), even when the check "
                    f'holds; pass `lambda: ...` (`{name}(cond, lambda: "...")`)',
                    gb_ids=("GB9840",),
                    claim="CL126:message-not-a-function",  # extracted from torch 2.14 on (rules/claims)
                )
            return
        env = ctx.evaluator.env
        tensors = sorted({n for n in _free_names(message) if n in env and is_data(env[n])})
        if tensors:
            ctx.report(
                node,
                f"the message of `{name}()` closes over the tensor `{tensors[0]}`: Dynamo cannot convert it and "
                "breaks the graph (GB9158); build the message from Python values only",
            )


def _defined_here(message: ast.expr, ctx: RuleContext) -> bool:
    """A name the compiled function binds to a function of its own (``def message(): ...``,
    ``message = lambda: ...``)."""
    function = ctx.function
    if not isinstance(message, ast.Name) or function is None:
        return False
    for node in ast.walk(function.node):
        if isinstance(node, ast.FunctionDef) and node.name == message.id and node is not function.node:
            return True
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
            if any(isinstance(t, ast.Name) and t.id == message.id for t in node.targets):
                return True
    return False


def _free_names(function: ast.Lambda) -> set[str]:
    """Names the lambda reads that its own parameters do not bind."""
    arguments = function.args
    bound = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
    bound |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    return {n.id for n in ast.walk(function.body) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)} - bound
