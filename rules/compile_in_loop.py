"""CL203: Dynamo's cache reset, or a changing torch.compile configuration, inside a loop."""

from __future__ import annotations

import ast

from compilelint.context import RuleContext
from compilelint.registry import Rule

RESETS = frozenset({"torch._dynamo.reset", "torch.compiler.reset"})
LOOPS = (ast.For, ast.AsyncFor, ast.While)


class CompileInLoop(Rule):
    """Checks for loops that make `torch.compile` start over: resets and changing options.

    ## What it does
    Flags `torch._dynamo.reset()` / `torch.compiler.reset()` inside a loop or inside
    compiled code, and `torch.compile(...)` inside a loop when its options depend on the
    loop (`torch.compile(model, mode=modes[i])`).

    ## Why is this bad?
    A reset throws away every compiled graph, so the next call compiles from scratch:
    in a training loop that is a full compilation per step (seconds to minutes with
    Inductor). Options that change per iteration compile once per distinct configuration.
    Inside compiled code a reset is also a graph break (GB0007). Measured on torch 2.13:
    re-wrapping the same function or module with the same options inside a loop does
    *not* recompile (the compiled code is cached on the code object), so plain
    `torch.compile(f)` in a loop is not flagged.

    ## Example
    ```python
    def train(model, batches):
        for batch in batches:
            torch._dynamo.reset()
            compiled = torch.compile(model)
            compiled(batch).sum().backward()
    ```

    ## Use instead
    ```python
    def train(model, batches):
        compiled = torch.compile(model)
        for batch in batches:
            compiled(batch).sum().backward()
    ```
    Compile once, outside the loop, and never reset Dynamo between steps.

    ## Fix safety
    No automatic fix: hoisting changes when compilation happens.
    """

    code = "CL203"
    name = "compile-in-loop"
    message = "Dynamo starts over inside a loop: every iteration compiles again"
    gb_ids = ()
    breaks = ()
    nodes = (ast.Call,)
    scope = "module"

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        name = ctx.qualname(node.func)
        loop = _enclosing_loop(node, ctx)
        if name in RESETS and (loop is not None or ctx.in_region(node)):
            ctx.report(node, f"`{name}()` in a loop or compiled code discards every compiled graph: the next call compiles from scratch")
        elif name == "torch.compile" and loop is not None and _varies_with(node, loop):
            ctx.report(node, "`torch.compile` options change with the loop: one compilation per configuration; compile once outside")


def _enclosing_loop(node: ast.AST, ctx: RuleContext) -> ast.For | ast.AsyncFor | ast.While | None:
    parent = ctx.parent(node)
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        if isinstance(parent, LOOPS):
            return parent
        parent = ctx.parent(parent)
    return None


def _varies_with(call: ast.Call, loop: ast.For | ast.AsyncFor | ast.While) -> bool:
    """Options built from names the loop binds (its target or assignments in its body)."""
    bound = {n.id for n in ast.walk(loop.target) if isinstance(n, ast.Name)} if isinstance(loop, (ast.For, ast.AsyncFor)) else set()
    for stmt in loop.body:
        for sub in ast.walk(stmt):
            if isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
                bound.add(sub.id)
    options = list(call.args[1:]) + [k.value for k in call.keywords]
    return any(isinstance(n, ast.Name) and n.id in bound for option in options for n in ast.walk(option))
