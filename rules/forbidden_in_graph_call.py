"""CL118: Dynamo's own input markers called inside compiled code: the compile fails."""

from __future__ import annotations

import ast

from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

# The functions torch/_dynamo/decorators.py wraps with ``@forbid_in_graph`` (torch 2.13),
# under the names users call them by.
FORBIDDEN = frozenset(
    {
        "torch._dynamo.mark_dynamic",
        "torch._dynamo.maybe_mark_dynamic",
        "torch._dynamo.mark_static_address",
        "torch._dynamo.decorators.mark_dynamic",
        "torch._dynamo.decorators.maybe_mark_dynamic",
        "torch._dynamo.decorators.mark_static_address",
        "torch._dynamo.decorators.mark_unbacked",
    }
)


class ForbiddenInGraphCall(Rule):
    """Checks for `torch._dynamo.mark_dynamic()` and its relatives called in compiled code.

    ## What it does
    Flags, inside a compiled region, calls of `torch._dynamo.mark_dynamic`,
    `maybe_mark_dynamic`, `mark_static_address` and `torch._dynamo.decorators.mark_unbacked`,
    including calls in constructors that compiled code runs (a cache whose `__init__`
    marks its buffers static).

    ## Why is this bad?
    These functions tell Dynamo about the inputs of the *next* compile, so Dynamo forbids
    tracing them (`@forbid_in_graph`). Reached while tracing, the compile does not break
    the graph, it fails: `AssertionError: Attempt to trace forbidden callable`. Measured on
    torch 2.13 (backend eager) in the default mode, with `fullgraph=True` and with
    `dynamic=True`: all three raise; `mark_static` does not. Code Dynamo already gave back
    to Python (after a graph break in a loop of the same function) is not traced, and is
    not flagged.

    ## Example
    ```python
    class Cache:
        def __init__(self, n):
            self.keys = torch.zeros(n, 64)
            torch._dynamo.mark_static_address(self.keys)

    class Net(nn.Module):
        def forward(self, x):
            cache = Cache(x.shape[0])
            return x + cache.keys
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x, cache):
            return x + cache.keys

    cache = Cache(8)
    compiled = torch.compile(Net())
    compiled(x, cache)
    ```
    Build what needs marking outside the compiled code and pass it in, or guard the call
    with `if not torch.compiler.is_compiling():`.

    ## Fix safety
    No automatic fix: where the object should be built is a design choice.
    """

    code = "CL118"
    name = "forbidden-in-graph-call"
    message = "Dynamo forbids tracing this call: the compile fails with AssertionError, in every mode"
    gb_ids = ()
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        name = ctx.qualname(node.func)
        if name not in FORBIDDEN:
            return
        short = name.rsplit(".", 1)[-1]
        ctx.report(
            node,
            f"`{short}()` is forbidden in traced code: reached by Dynamo, `torch.compile` fails with "
            "`AssertionError: Attempt to trace forbidden callable` in every mode; call it on the inputs "
            "before the compiled call, or guard it with `if not torch.compiler.is_compiling():`",
        )
