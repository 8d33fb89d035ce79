"""CL201: Python control flow on tensor sizes, which Dynamo guards on."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import is_shape
from compilelint.context import RuleContext
from compilelint.registry import Rule

# Comparing a size with 0 or 1 adds nothing: Dynamo specialises sizes 0 and 1 anyway.
ALREADY_SPECIALISED = (0, 1)
ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
UNROLLED = (
    "loop over a tensor size is unrolled: Dynamo recompiles for every new size "
    "(a guard on the exact size); pad to a few bucket sizes or loop with tensor ops"
)


class ShapeDependentControlFlow(Rule):
    """Checks for Python loops and branches on tensor sizes inside compiled code.

    ## What it does
    Flags, inside a compiled region, `for` loops whose trip count is a tensor size
    (`for i in range(x.size(1))`, `for row in x.unbind(0)`), `while` loops that test a
    size, and `if`/ternaries that compare a size with something other than 0 or 1
    (`if x.shape[0] > 128:`).

    ## Why is this bad?
    Dynamo runs Python control flow at trace time and installs a guard on what it
    depended on. Measured on torch 2.13 with five input shapes: a loop over
    `range(x.size(0))` is unrolled and recompiles for every new size (5 graphs for 5
    sizes) until the recompile limit (8) sends the function to eager; a `while` on a size
    recompiles for each new trip count; an `if` on a size first recompiles when the size
    changes (automatic dynamic shapes, as any model does once), then once more each time
    an input lands on the other side of the threshold (3 graphs instead of 2).

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            out = x
            for i in range(x.size(0)):
                out = out + x[i]
            return out
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            return x + x.sum(0)
    ```
    Express loops over sizes as tensor operations. When sizes really vary, mark the
    dimension dynamic (`torch._dynamo.mark_dynamic(x, 0)`) and keep Python branches off
    it, or pad inputs to a few bucket sizes so each bucket compiles once.

    ## Fix safety
    No automatic fix: the remedy changes the computation or the input pipeline.
    """

    code = "CL201"
    name = "shape-dependent-control-flow"
    message = "Python control flow on a tensor size: Dynamo guards on it and recompiles"
    breaks = ()
    nodes = (ast.For, ast.comprehension, ast.While, ast.If, ast.IfExp)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, (ast.For, ast.comprehension)):
            if _loops_over_a_size(node.iter, ctx):
                ctx.report(node.iter, f"{UNROLLED}")
        elif isinstance(node, ast.While):
            if is_shape(ctx.kind(node.test)):
                ctx.report(node.test, "`while` on a tensor size: Dynamo unrolls it and recompiles for each new trip count")
        elif isinstance(node, (ast.If, ast.IfExp)) and ctx.static_value(node.test) is None:
            for part, guards in ctx.guarded_parts(node.test):
                if _guards_a_size(part, ctx):
                    only_when, when = ctx.conditions(guards)
                    ctx.report(
                        part,
                        f"branch on a tensor size{when}: Dynamo guards on it, and each input on the other side "
                        "of the test recompiles; use `torch._dynamo.mark_dynamic` or bucket the sizes",
                        only_when=only_when,
                    )


def _loops_over_a_size(iterable: ast.expr, ctx: RuleContext) -> bool:
    if isinstance(iterable, ast.Call):
        name = ctx.builtin(iterable.func)
        if name == "range":
            return any(is_shape(ctx.kind(arg)) for arg in iterable.args)
        if name in ("enumerate", "reversed", "zip"):
            return any(_loops_over_a_size(arg, ctx) for arg in iterable.args)
        if isinstance(iterable.func, ast.Attribute) and iterable.func.attr == "unbind":
            return True
    return False


def _guards_a_size(test: ast.expr, ctx: RuleContext) -> bool:
    """An ordering test of a size against a threshold (``x.shape[0] > 128``).

    Equality tests (``if h != self.image_size``) are left alone: they validate sizes that
    never change in practice, so their guards never fail; and ``len(seq)`` is skipped,
    since model code takes it of tuples far more often than of tensors.
    """
    if not isinstance(test, ast.Compare) or not is_shape(ctx.kind(test)):
        return False
    if not all(isinstance(op, ORDERING) for op in test.ops):
        return False
    operands = [test.left, *test.comparators]
    if any(isinstance(o, ast.Call) and ctx.builtin(o.func) == "len" for o in operands):
        return False
    constants = [o.value for o in operands if isinstance(o, ast.Constant)]
    return not (constants and all(c in ALREADY_SPECIALISED for c in constants))
