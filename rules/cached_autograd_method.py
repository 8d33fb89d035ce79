"""CL138: a `functools.cache`d method of a `torch.autograd.Function` called in compiled code."""

from __future__ import annotations

import ast

from compilelint.analysis.module_index import FunctionInfo, ModuleIndex, is_autograd_function
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

CACHE_DECORATORS = frozenset({"functools.cache", "functools.lru_cache"})


class CachedAutogradMethod(Rule):
    """Checks for calls of `functools.cache`d methods of a `torch.autograd.Function` in compiled code.

    ## What it does
    Flags a call, inside a compiled region, of a method of a `torch.autograd.Function`
    subclass of the same file that is decorated with `functools.cache` or
    `functools.lru_cache` (`@staticmethod @cache def nodes(n)`, also `@classmethod` and
    the decorators in the other order), whether the call goes through the class
    (`Quadrature.nodes(n)`), a subclass, or an instance.

    ## Why is this bad?
    Dynamo reads an attribute of an autograd.Function class through its own path, which
    does not unwrap the cache wrapper (a C object) as it does for a cached function of a
    module or of a plain class. Measured on torch 2.13, in the default mode, with
    `dynamic=True` and as an error under `fullgraph=True`, whatever the method's body does:
    a `@staticmethod` over the cache is "Attempted to call function marked as skipped"
    (GB0007), a `@classmethod` over it GB0177, and the cache over the `staticmethod`
    "Unsupported autograd.Function method" (GB0140). The break comes at the call; the
    skipped wrapper then runs the method's body as a frame of its own, which Dynamo
    compiles separately (and where any break in the body is reported again). The same
    cached function defined at module level, or on an `nn.Module` or plain class, is traced.

    ## Example
    ```python
    class Quadrature(torch.autograd.Function):
        @staticmethod
        @functools.cache
        def nodes(n):
            return torch.linspace(0, 1, n)

        @staticmethod
        def forward(ctx, x, n):
            return x * Quadrature.nodes(n).sum()

    class Integral(nn.Module):
        def forward(self, x):
            return Quadrature.apply(x, 16)
    ```

    ## Use instead
    ```python
    @functools.cache
    def quadrature_nodes(n):
        return torch.linspace(0, 1, n)

    class Quadrature(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, n):
            return x * quadrature_nodes(n).sum()

    class Integral(nn.Module):
        def forward(self, x):
            return Quadrature.apply(x, 16)
    ```
    Move the cached helper to module level (Dynamo traces through its cache there, with a
    warning), or compute the value once outside the compiled code and pass it in.

    ## Fix safety
    No automatic fix: moving the function changes the class's interface.
    """

    code = "CL138"
    name = "cached-autograd-method"
    message = "a `functools.cache`d method of a `torch.autograd.Function` breaks the graph when called"
    gb_ids = ("GB0007", "GB0177", "GB0140")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        callee = ctx.callee(node)
        if callee is None or callee.owner is None or not is_autograd_function(callee.owner):
            return
        decorators = _decorator_names(callee, ctx.index)
        if not decorators & CACHE_DECORATORS:
            return
        gb_id = _gb_id(callee)
        ctx.report(
            node,
            f"`{callee.qualname}` is a `functools.cache`d method of a `torch.autograd.Function`: Dynamo "
            f"cannot trace the cache wrapper there and breaks at the call ({gb_id}); move the cached helper "
            "to module level",
            gb_ids=(gb_id,),
        )


def _decorator_names(function: FunctionInfo, index: ModuleIndex) -> frozenset[str]:
    """Qualified names of the function's decorators, ``lru_cache(maxsize=None)`` as ``lru_cache``."""
    names: set[str] = set()
    for decorator in function.node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = index.qualname(target)
        if name is not None:
            names.add(name)
    return frozenset(names)


def _gb_id(function: FunctionInfo) -> str:
    """Which break: the outermost decorator decides what the class attribute holds."""
    outermost = function.node.decorator_list[0]
    if isinstance(outermost, ast.Name) and outermost.id == "staticmethod":
        return "GB0007"  # a staticmethod whose function is the C cache wrapper: skipped
    if isinstance(outermost, ast.Name) and outermost.id == "classmethod":
        return "GB0177"
    return "GB0140"  # the cache wrapper itself: neither a staticmethod nor a classmethod
