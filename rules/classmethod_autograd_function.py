"""CL139: a `torch.autograd.Function` whose `forward` or `backward` is a `@classmethod`."""

from __future__ import annotations

import ast

from compilelint.analysis.module_index import ClassInfo, FunctionInfo, is_autograd_function
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

BOTH = (Mode.DEFAULT, Mode.FULLGRAPH)
GRAD_CONDITION = "an argument of the call requires grad"


class ClassmethodAutogradFunction(Rule):
    """Checks for `apply` of autograd.Functions whose `forward` or `backward` is a classmethod.

    ## What it does
    Flags, inside a compiled region, `Fn.apply(...)` where `Fn` is a
    `torch.autograd.Function` of this file whose `forward` or `backward`, defined on that
    class itself, is a `@classmethod` rather than a `@staticmethod`, reported as breaking only
    when an argument requires grad; and, inside such a classmethod `forward`, a call of
    `super().forward(...)`, where the compile fails whatever the arguments. A subclass that
    only inherits the classmethods is not flagged at `apply`: there Dynamo binds the
    arguments one place off and breaks wherever the body first uses them.

    ## Why is this bad?
    Dynamo traces an autograd.Function's `forward` and `backward` as static functions: it
    binds `(ctx, *args)` to them, and a classmethod's bound `cls` does not fit. Measured on
    torch 2.13 (backend eager): when an argument requires grad, the `apply` call breaks the
    graph ("failed to bind arguments when attempting to inline", GB7312, or Dynamo skips
    the function), in the default mode and with `dynamic=True`, and `fullgraph=True` fails;
    when none does (inference, inputs without gradients) Dynamo runs `forward` inline and
    compiles. `super().forward(...)` inside a classmethod `forward` is worse: the compile
    raises `InternalTorchDynamoError` ("AutogradFunctionVariable() is not a constant") in
    the default mode and with `dynamic=True`, with or without gradients, so `torch.compile`
    fails instead of falling back (under `fullgraph=True` too, unless the `apply` failed
    first).
    Found in entmax 1.3, whose `Entmax15Function`, `EntmaxBisectFunction` and loss
    functions are classmethods (the losses and `SparsemaxBisectFunction` call `super()`).

    ## Example
    ```python
    class Scale(torch.autograd.Function):
        @classmethod
        def forward(cls, ctx, x):
            return x * 2

        @classmethod
        def backward(cls, ctx, grad):
            return grad * 2


    class Net(nn.Module):
        def forward(self, x):
            return Scale.apply(self.proj(x))
    ```

    ## Use instead
    ```python
    class Scale(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2
    ```
    Make both static; where the class hierarchy needs `cls` (shared helpers), call them
    through the class by name (`Scale._helper(x)`) or move them to module functions, and
    call the parent's `forward` as `Parent.forward(ctx, ...)` instead of through `super()`.

    ## Fix safety
    No automatic fix: making the methods static changes how subclasses reach their helpers.
    """

    code = "CL139"
    name = "classmethod-autograd-function"
    message = "an autograd.Function with a classmethod `forward`/`backward` breaks the graph at `apply`"
    gb_ids = ("GB7312",)
    breaks = BOTH
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        if not isinstance(func, ast.Attribute):
            return
        if func.attr == "apply":
            self._check_apply(node, func, ctx)
        elif func.attr == "forward" and _is_super_call(func.value):
            self._check_super_forward(node, ctx)

    def _check_apply(self, node: ast.Call, func: ast.Attribute, ctx: RuleContext) -> None:
        forward = ctx.callee(node)
        if forward is None or forward.name != "forward" or forward.owner is None:
            return
        applied = _applied_class(func.value, ctx) or forward.owner
        if not is_autograd_function(applied):
            return
        # Only the class's own: through a subclass that inherits a classmethod `forward`,
        # Dynamo binds the arguments one place off and breaks wherever the body first uses
        # them (measured: `ctx.dim = dim` broke with "setattr() on unsupported type").
        methods = [m for m in (applied.methods.get("forward"), applied.methods.get("backward")) if m is not None]
        classmethods = [m.name for m in methods if _is_classmethod(m, ctx)]
        if not classmethods:
            return
        which = " and ".join(f"`{name}`" for name in classmethods)
        one = len(classmethods) == 1
        ctx.report(
            node,
            f"`{applied.name}`'s {which} {'is a' if one else 'are'} `@classmethod`: Dynamo binds `(ctx, *args)` "
            f"to {'it as a static function' if one else 'them as static functions'}, so this `apply` breaks the "
            "graph when an argument requires grad (GB7312; under fullgraph=True an error); make "
            f"{'it a `@staticmethod`' if one else 'them `@staticmethod`s'}",
            only_when=(GRAD_CONDITION,),
        )

    def _check_super_forward(self, node: ast.Call, ctx: RuleContext) -> None:
        function = ctx.function
        if function is None or function.name != "forward" or function.owner is None:
            return
        if not is_autograd_function(function.owner) or not _is_classmethod(function, ctx):
            return
        ctx.report(
            node,
            f"`super().forward(...)` in `{function.owner.name}`'s classmethod `forward`: compiling it fails "
            "(InternalTorchDynamoError: AutogradFunctionVariable() is not a constant), with or without "
            "gradients; make `forward` a `@staticmethod` and call the parent's as `Parent.forward(ctx, ...)`",
            breaks=(Mode.DEFAULT,),  # under fullgraph=True the `apply` fails first when gradients flow
            gb_ids=(),
        )


def _is_super_call(value: ast.expr) -> bool:
    return isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "super"


def _is_classmethod(method: FunctionInfo, ctx: RuleContext) -> bool:
    return "classmethod" in set(ctx.index.decorator_names(method.node))


def _applied_class(receiver: ast.expr, ctx: RuleContext) -> ClassInfo | None:
    """The class ``apply`` is called on when the receiver names one of this file
    (``SparsemaxLoss.apply``: a subclass inheriting ``forward``), else None."""
    if isinstance(receiver, ast.Name):
        return ctx.index.classes.get(receiver.id)
    return None
