"""CL205: `id()` of a tensor the compiled function receives: a guard on the object itself."""

from __future__ import annotations

import ast

from compilelint.analysis.frames import first_in_source
from compilelint.analysis.kinds import is_data
from compilelint.analysis.parameters import parameter_names, rebinds
from compilelint.context import RuleContext
from compilelint.registry import Rule


class IdOfInput(Rule):
    """Checks for `id()` of a tensor argument of a compiled function.

    ## What it does
    Flags `id(x)` in a `forward` or `@torch.compile` function that Dynamo starts at, where
    `x` is one of its tensor parameters and the function never rebinds it, at the first
    such call (where Dynamo installs the guard). (The same
    through a helper that receives the argument unchanged recompiles too, but is not seen.)

    ## Why is this bad?
    Dynamo evaluates `id(x)` while tracing, so the compiled code is only valid for that
    very object: it guards on the object's identity (`___check_obj_id(x, ...)`). Every call
    with a new tensor fails the guard and compiles again, until the recompile limit (8)
    sends the function to eager for good. Measured on torch 2.13 (backend eager): 6 calls
    with new tensors, 5 recompiles, in the default mode and with `fullgraph=True`; `id()` of
    a tensor computed inside the compiled code, or of a parameter (`id(self.weight)`),
    compiles once.

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            cache = {id(x): x * 2}
            return cache[id(x)]
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            doubled = x * 2
            return doubled
    ```
    Key caches by something the graph knows (a name, a layer index, a shape), or keep
    identity-keyed caches outside the compiled code.

    ## Fix safety
    No automatic fix: what the identity keyed decides how to replace it.
    """

    code = "CL205"
    name = "id-of-input"
    message = "`id()` of an input tensor: Dynamo guards on the object and recompiles for every new tensor"
    breaks = ()
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if ctx.function is None or len(ctx.region) != 1 or ctx.builtin(node.func) != "id" or len(node.args) != 1:
            return
        argument = node.args[0]
        if not isinstance(argument, ast.Name) or not is_data(ctx.kind(argument)):
            return
        function = ctx.function.node
        if argument.id not in parameter_names(function) or rebinds(function, argument.id):
            return
        if _first_id_call(function, argument.id) is not node:
            return  # the guard is installed where Dynamo first evaluates it
        ctx.report(
            node,
            f"`id({argument.id})` of a tensor the compiled function receives: Dynamo guards on that very object "
            "and recompiles for every new tensor, until the recompile limit sends it to eager; key by something "
            "the graph knows, or keep the lookup outside the compiled code",
        )


def _first_id_call(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> ast.Call | None:
    calls = [
        n for n in ast.walk(function)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "id"
        and len(n.args) == 1 and isinstance(n.args[0], ast.Name) and n.args[0].id == name
    ]  # fmt: skip
    return first_in_source(calls)
