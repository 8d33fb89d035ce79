"""CL111: requires_grad switched on inside compiled code."""

from __future__ import annotations

import ast

from compilelint.analysis.class_attributes import PARAMETER_CALLS
from compilelint.analysis.constructors import attribute_constructors, self_name
from compilelint.analysis.kinds import Kind, is_data
from compilelint.analysis.parameters import parameter_names, rebinds
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

BOTH = (Mode.DEFAULT, Mode.FULLGRAPH)
# Factories Dynamo refuses to call with requires_grad=True (GB0225), measured on 2.13.
FACTORIES = frozenset(
    f"torch.{name}"
    for name in (
        "tensor", "as_tensor", "zeros", "ones", "empty", "full", "rand", "randn", "randint", "arange",
        "linspace", "eye", "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like",
    )
)  # fmt: skip


class RequiresGradChange(Rule):
    """Checks for tensors made to require gradients inside compiled code.

    ## What it does
    Flags, inside a compiled region: assignments to `t.requires_grad`, calls of
    `t.requires_grad_()` / `t.requires_grad_(True)`, calls copying another tensor's flag
    (`t.detach().requires_grad_(t.requires_grad)`, reported as holding only when that tensor
    requires grad) or given any other flag that is not a constant (`requires_grad_(do_r1)`,
    holding only when it is true), and tensor factories called with
    `requires_grad=True` (`torch.tensor(..., requires_grad=True)`, `torch.zeros(...,
    requires_grad=True)`); a factory given a flag that is not a constant
    (`requires_grad=self.training`, `requires_grad=x.requires_grad`, a `bool` argument) is
    reported as breaking only when that flag is true.

    ## Why is this bad?
    A new autograd leaf created in the middle of a graph is something Dynamo cannot express.
    Measured on torch 2.13: `t.requires_grad = ...` breaks the graph (GB0206 "setattr() on
    Tensor.requires_grad"), and so does a factory with `requires_grad=True` (GB0225), in the
    default mode and with `dynamic=True`; both fail under `fullgraph=True`. `requires_grad_()`
    on an intermediate breaks in the default mode (GB8985) and fails under `fullgraph=True`
    when the result is returned (GB7324, reported without a line); `requires_grad_(False)`
    and `requires_grad=False` compile. On a graph input, `requires_grad_()` that changes the
    flag breaks in both modes (GB0125 "Unsupported Tensor.requires_grad_() call"): switched
    on for an input of the compiled function, off for an `nn.Parameter` of the module;
    setting the flag a tensor already has compiles (measured). `t.detach().requires_grad_(t.requires_grad)` returned
    breaks the same way (GB8985) when `t` was computed from a parameter with grad mode on,
    and compiles under `torch.no_grad()`; `real.detach().requires_grad_(do_r1)` breaks
    (GB8985) when `do_r1` is true and compiles when it is false. A factory's flag is specialised to its value:
    `torch.tensor([0.0], requires_grad=self.training)` breaks (GB0225) in training mode,
    `torch.ones(n, requires_grad=y.requires_grad)` when `y` was computed from a parameter
    with grad mode on, `requires_grad=flag` when the argument is True, in the default mode
    and with `dynamic=True` (an error under `fullgraph=True`), and each compiles when its
    flag is false (found in encodec 0.1.1's vector quantizer and mambapy 1.2.0's Jamba).

    ## Example
    ```python
    class Probe(nn.Module):
        def forward(self, x):
            scale = torch.ones(x.shape[-1], requires_grad=True)
            return x * scale
    ```

    ## Use instead
    ```python
    class Probe(nn.Module):
        def __init__(self, features):
            super().__init__()
            self.scale = nn.Parameter(torch.ones(features))

        def forward(self, x):
            return x * self.scale
    ```
    Create leaves (parameters, inputs that need gradients) before calling the compiled code.

    ## Fix safety
    No automatic fix: moving a leaf out of the compiled code changes the program's structure.
    """

    code = "CL111"
    name = "requires-grad-change"
    message = "switching on requires_grad inside compiled code breaks the graph"
    gb_ids = ("GB0206", "GB0225", "GB8985", "GB7324", "GB0125")
    breaks = BOTH
    nodes = (ast.Assign, ast.Call)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr == "requires_grad":
                    ctx.report(
                        target,
                        "setting `.requires_grad` inside compiled code breaks the graph (GB0206); "
                        "make the tensor require grad before calling the compiled code",
                        gb_ids=("GB0206",),
                    )
            return
        if not isinstance(node, ast.Call):
            return
        if isinstance(node.func, ast.Attribute) and node.func.attr == "requires_grad_":
            flag = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "requires_grad"), None)
            held = _input_or_parameter(node.func.value, ctx)
            if held is not None:
                parameter = held.startswith("the parameter")
                if _switches_off(flag) if parameter else _switches_on(flag):
                    ctx.report(
                        node,
                        f"`.requires_grad_({ast.unparse(flag) if flag is not None else ''})` on {held} inside compiled "
                        "code changes a graph input's flag: breaks the graph in both modes (GB0125); set it before "
                        "calling the compiled code",
                        gb_ids=("GB0125",),
                    )
                return
            if not ctx.kind(node.func.value) & Kind.TENSOR:
                return
            if _switches_on(flag):
                ctx.report(
                    node,
                    "`.requires_grad_()` inside compiled code breaks the graph (GB8985; under fullgraph=True "
                    "the returned result fails, GB7324); call it before the compiled code",
                    breaks=(Mode.DEFAULT,),
                    gb_ids=("GB8985", "GB7324"),
                )
            elif flag is not None and (_copied_flag(flag, ctx) or not (isinstance(flag, ast.Constant) or _names_a_flag(flag))):
                spelled = ast.unparse(flag)
                when, remedy = (
                    ("when that tensor requires grad", "return the tensor itself, or detach outside the compiled code")
                    if _copied_flag(flag, ctx)
                    else (f"whenever `{spelled}` is true", "call it before the compiled code, or compute what needs "
                          "the gradient outside")
                )  # fmt: skip
                ctx.report(
                    node,
                    f"`.requires_grad_({spelled})` inside compiled code breaks the graph {when} (GB8985; under "
                    f"fullgraph=True the returned result fails, GB7324); {remedy}",
                    breaks=(Mode.DEFAULT,),
                    gb_ids=("GB8985", "GB7324"),
                    only_when=(spelled,),
                )
            return
        if ctx.qualname(node.func) in FACTORIES:
            flag = next((k.value for k in node.keywords if k.arg == "requires_grad"), None)
            if flag is not None and _switches_on(flag):
                ctx.report(
                    node,
                    "a tensor factory with `requires_grad=True` inside compiled code breaks the graph (GB0225); "
                    "create the leaf outside (an `nn.Parameter`, or an input)",
                    gb_ids=("GB0225",),
                )
            elif flag is not None and not isinstance(flag, ast.Constant):
                spelled = ast.unparse(flag)
                ctx.report(
                    node,
                    f"a tensor factory with `requires_grad={spelled}` inside compiled code breaks the graph "
                    f"whenever `{spelled}` is true (GB0225); create the leaf outside, or build the tensor "
                    "without requires_grad (a result computed from tensors that need gradients gets them anyway)",
                    gb_ids=("GB0225",),
                    only_when=(spelled,),
                )


def _input_or_parameter(tensor: ast.expr, ctx: RuleContext) -> str | None:
    """What the tensor is, when Dynamo sees it as a graph input: a tensor parameter of the
    function it compiles (never rebound there), or an ``nn.Parameter`` attribute of ``self``."""
    function = ctx.function
    if function is None:
        return None
    if isinstance(tensor, ast.Name) and len(ctx.region) == 1 and is_data(ctx.kind(tensor)):
        if tensor.id in parameter_names(function.node) and not rebinds(function.node, tensor.id):
            return f"the input `{tensor.id}`"
    if isinstance(tensor, ast.Attribute) and function.owner is not None and isinstance(tensor.value, ast.Name):
        if tensor.value.id == self_name(function) and attribute_constructors(ctx.index, function.owner, tensor.attr) & PARAMETER_CALLS:
            return f"the parameter `self.{tensor.attr}`"
    return None


def _copied_flag(flag: ast.expr | None, ctx: RuleContext) -> bool:
    """``t.requires_grad``: another tensor's flag, True whenever that tensor takes part in
    autograd (``t.detach().requires_grad_(t.requires_grad)``, measured on 2.13: GB8985
    when ``t`` is computed from a parameter with grad mode on, nothing under no_grad)."""
    return isinstance(flag, ast.Attribute) and flag.attr == "requires_grad" and bool(ctx.kind(flag.value) & Kind.TENSOR)


def _names_a_flag(flag: ast.expr) -> bool:
    """``v.requires_grad``: a tensor's flag when ``v`` is one (``_copied_flag``), else unknown."""
    return isinstance(flag, ast.Attribute) and flag.attr == "requires_grad"


def _switches_off(flag: ast.expr | None) -> bool:
    return isinstance(flag, ast.Constant) and flag.value is False


def _switches_on(flag: ast.expr | None) -> bool:
    """``requires_grad_()``, ``requires_grad_(True)``; not ``False``, nor a variable."""
    return flag is None or (isinstance(flag, ast.Constant) and flag.value is True)
