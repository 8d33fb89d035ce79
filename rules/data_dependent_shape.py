"""CL106: operations whose output shape depends on tensor data."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from compilelint.analysis.kinds import Kind, is_data, is_data_sized, is_mask, is_shape
from compilelint.context import RuleContext
from compilelint.findings import Applicability, Fix, Mode
from compilelint.fix.eligibility import elementwise_mask_of
from compilelint.fix.plans import MaskedSumPlan
from compilelint.registry import Rule

if TYPE_CHECKING:
    from compilelint.findings import Finding
    from compilelint.fix.edits import FixContext, FixEdit

WHERE_FIX = Fix(Applicability.UNSAFE, "Sum `torch.where(mask, x, 0)` instead (same values, float rounding may differ)")
# What to write instead, where no rewrite is equivalent.
ALTERNATIVES = {
    "nonzero": "`torch.nonzero_static(x, size=n)` with a known bound `n`",
    "argwhere": "`torch.nonzero_static(x, size=n)` with a known bound `n`",
    "where": "`torch.nonzero_static(cond, size=n)` with a known bound `n`, or a three-argument `torch.where`",
    "repeat_interleave": "pass `output_size=` (the exact total length, when it is known)",
    "masked_select": "`torch.where(mask, x, 0)` (same shape as `x`), then reduce",
}
OTHERWISE = "compile with `fullgraph=True` (unbacked sizes), or compute it outside the compiled region"

# Padding a list of tensors to their longest compares their lengths (measured on 2.13).
PADDING = frozenset({"torch.nn.utils.rnn.pad_sequence"})
# Functions (torch.<name>) and methods (x.<name>()) whose result size is data-dependent.
ALWAYS_DYNAMIC = frozenset(
    {"nonzero", "argwhere", "unique", "unique_consecutive", "masked_select", "bincount"}
)


class DataDependentShape(Rule):
    """Checks for operations whose output shape depends on the values in a tensor.

    ## What it does
    Flags boolean-mask indexing (`x[x > 0]`, `x[mask]`), `nonzero`, `argwhere`, `unique`,
    `unique_consecutive`, `masked_select`, `bincount`, one-argument `torch.where(cond)`
    and `repeat_interleave` with tensor repeats, inside a compiled region; and Python
    control flow over the length such a result has: `for i in x.nonzero()`,
    `for j in range(len(hits))`, `if hits.numel() == 0:`; and `pad_sequence` of such
    results (`pad_sequence([t.unique() for t in x])`).

    ## Why is this bad?
    The size of the result is only known once the data is, so Dynamo cannot give it a
    static shape. Measured on torch 2.13: the default mode breaks the graph (GB0036
    "Dynamic shape operator"); `fullgraph=True` compiles them with unbacked symbolic sizes,
    which later shape-dependent code may still fail on: a loop over such a result, or a
    branch on its length, or `pad_sequence` of several (it compares their lengths), fails
    there ("Could not extract specialized integer" / "Could not guard on data-dependent
    expression"), and in the default mode the code
    after the break is unrolled for, and recompiles on, every new length. Assigning
    through a mask (`x[mask] = 0`) is fine and is not flagged. Under Inductor, the default
    backend, measured on CPU (bench/backend_hazards.py): with `fullgraph=True` every one of
    these ops compiles, as a call of its ATen kernel inside the compiled code (a fallback:
    no fusion across it). On a literal tensor of at most one element (`torch.tensor([])`,
    `torch.tensor(3)`, `torch.cat` of empty literals, as torchdiffeq builds its step lists)
    Dynamo computes the op while tracing and the default mode does not break; Inductor
    then cannot lower it, and `torch.compile` fails (`InductorError:
    DynamicOutputShapeException` on `aten._unique2`, `aten.nonzero`): claimed as mode
    `inductor`.

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            return x[x > 0].sum()
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            return torch.where(x > 0, x, 0).sum()
    ```
    Keep the shape: select with `torch.where(mask, x, 0)` or `x.masked_fill(~mask, 0)` and
    reduce, or use `torch.nonzero_static(x, size=...)` when an upper bound is known.

    ## Fix safety
    Unsafe (`--unsafe-fixes`). `x[mask].sum()` (also `torch.sum(x[mask])` and
    `torch.masked_select(x, mask).sum()`) becomes `torch.where(mask, x, 0).sum()` only where
    `mask` is element-wise on `x` itself (comparisons with numbers, `isfinite`, `isnan` ...,
    combined with `~`, `&`, `|`), so it has exactly `x`'s shape. The values summed and the
    gradients are the same, but a floating-point sum then adds in another order: measured on
    torch 2.13 (CPU), 81 of 320 random float cases differed in the last bits. Every other case
    gets a message naming the alternative (`torch.nonzero_static`, `output_size=` ...).
    """

    code = "CL106"
    name = "data-dependent-shape"
    message = "output shape depends on tensor data: breaks the graph unless `fullgraph=True` (GB0036)"
    gb_ids = ("GB0036",)
    breaks = (Mode.DEFAULT,)
    nodes = (ast.Call, ast.Subscript, ast.For, ast.comprehension, ast.If, ast.IfExp, ast.While)
    fix_applicability = Applicability.UNSAFE

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, (ast.For, ast.comprehension)):
            if _loops_over_data_size(node.iter, ctx):
                ctx.report(
                    node.iter,
                    "loop over a tensor whose length comes from the data (`nonzero`, `unique`, `x[mask]`): "
                    "`fullgraph=True` fails (it cannot unroll an unbacked length, GB0033), and in the default mode "
                    "the code after the earlier break is unrolled and recompiles for every new length; "
                    "loop over a fixed bound (every expert, with a mask) or use tensor ops",
                    breaks=(Mode.FULLGRAPH,),
                    gb_ids=("GB0033",),
                )
            return
        if isinstance(node, (ast.If, ast.IfExp, ast.While)):
            if ctx.static_value(node.test) is None:
                for part, guards in ctx.guarded_parts(node.test):
                    if _unbacked_size(ctx.kind(part)) or _tests_data_size(part, ctx):
                        only_when, when = ctx.conditions(guards)
                        ctx.report(
                            part,
                            f"branch on a length that comes from the data{when} (`nonzero`, `unique`, `x[mask]`): "
                            "`fullgraph=True` fails (it cannot guard on an unbacked size, GB0170), and in the default "
                            "mode the code after the earlier break recompiles for each outcome; keep the shape static "
                            "(`torch.nonzero_static`, masks) or `torch._check` the size",
                            breaks=(Mode.FULLGRAPH,),
                            gb_ids=("GB0170",),
                            only_when=only_when,
                        )
                        break
            return
        if isinstance(node, ast.Subscript):
            if isinstance(node.ctx, ast.Load) and is_data(ctx.kind(node.value)) and self._has_mask(node, ctx):
                plan = _masked_sum(node, node.value, node.slice, ctx)
                ctx.report(
                    node,
                    "boolean-mask indexing has a data-dependent shape: breaks the graph unless `fullgraph=True` "
                    f"(GB0036); {_mask_advice(node.value, node.slice, plan)}",
                    fix=WHERE_FIX if plan else None,
                    fix_data=plan,
                )
            return
        assert isinstance(node, ast.Call)
        if ctx.qualname(node.func) in PADDING and node.args and _of_data_sized(ctx.kind(node.args[0])):
            ctx.report(
                node,
                "padding tensors whose lengths come from the data (`unique`, `nonzero`, `x[mask]`): `fullgraph=True` "
                "fails (it compares their unbacked lengths, GB0170); pad to a bound the model knows",
                breaks=(Mode.FULLGRAPH,),
                gb_ids=("GB0170",),
            )
            return
        what = self._classify(node, ctx)
        if what is None:
            return
        if _on_literals(node, ctx):
            ctx.report(
                node,
                f"{what} of a literal tensor of at most one element: Dynamo computes it while tracing, so the graph "
                "does not break, but Inductor (the default backend) cannot lower its data-dependent output shape and "
                "`torch.compile` fails (DynamicOutputShapeException) unless `fullgraph=True` or "
                "`capture_dynamic_output_shape_ops`; compute it outside the compiled region, or drop it when it is a check",
                breaks=(Mode.INDUCTOR,),
                gb_ids=(),
            )
            return
        plan = None
        if what == "`torch.masked_select()`" and len(node.args) == 2 and not node.keywords:
            plan = _masked_sum(node, node.args[0], node.args[1], ctx)
        function = re.search(r"(\w+)\(\)`", what)
        advice = ALTERNATIVES.get(function.group(1) if function else "", OTHERWISE)
        ctx.report(
            node,
            f"{what} has a data-dependent output shape: breaks the graph unless `fullgraph=True` (GB0036); "
            f"instead: {advice}",
            fix=WHERE_FIX if plan else None,
            fix_data=plan,
        )

    def build_fix(self, finding: Finding, fix: FixContext) -> FixEdit | None:
        from compilelint.fix import builders as b
        from compilelint.fix.edits import FixEdit, ReplaceNode

        plan = finding.fix_data
        assert isinstance(plan, MaskedSumPlan)
        new = b.where(fix.expression(plan.mask), fix.expression(plan.value), b.integer(0))
        return FixEdit((ReplaceNode(fix.expression(plan.node), new),))

    @staticmethod
    def _has_mask(node: ast.Subscript, ctx: RuleContext) -> bool:
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        return any(not isinstance(p, ast.Slice) and is_mask(ctx.kind(p)) for p in parts)

    @staticmethod
    def _classify(node: ast.Call, ctx: RuleContext) -> str | None:
        func = node.func
        name = ctx.qualname(func) or ""
        if name.startswith("torch.") and name.count(".") == 1:
            function = name.split(".", 1)[1]
            if function in ALWAYS_DYNAMIC:
                return f"`torch.{function}()`"
            if function == "where" and len(node.args) == 1 and not node.keywords:
                return "one-argument `torch.where()`"
            if function == "repeat_interleave" and len(node.args) >= 2 and is_data(ctx.kind(node.args[1])) and not _has_output_size(node):
                return "`torch.repeat_interleave()` with tensor repeats"
            return None
        if not isinstance(func, ast.Attribute) or not is_data(ctx.kind(func.value)):
            return None
        if func.attr in ALWAYS_DYNAMIC:
            return f"`.{func.attr}()`"
        if func.attr == "repeat_interleave" and node.args and is_data(ctx.kind(node.args[0])) and not _has_output_size(node):
            return "`.repeat_interleave()` with tensor repeats"
        return None


def _on_literals(node: ast.Call, ctx: RuleContext) -> bool:
    """Every tensor the op reads is a literal of at most one element (``torch.tensor([])``)."""
    inputs = [node.func.value] if isinstance(node.func, ast.Attribute) and ctx.qualname(node.func) is None else []
    tensors = [kind for kind in map(ctx.kind, [*inputs, *node.args]) if kind & Kind.TENSOR]
    return bool(tensors) and all(kind & Kind.LITERAL for kind in tensors)


def _loops_over_data_size(iterable: ast.expr, ctx: RuleContext) -> bool:
    """``for i in x.nonzero()``, ``for j in range(len(hits))``."""
    for walked, is_bound in ctx.iterated(iterable):
        kind = ctx.kind(walked)
        if is_data_sized(kind) and (is_bound or is_data(kind)):
            return True
    return False


def _tests_data_size(test: ast.expr, ctx: RuleContext) -> bool:
    """``len(hit) > 2``, ``hit.numel() == 0``: a comparison whose operand is an unbacked size."""
    if not isinstance(test, ast.Compare) or any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in test.ops):
        return False
    return any(_unbacked_size(ctx.kind(operand)) for operand in (test.left, *test.comparators))


def _of_data_sized(kind: Kind) -> bool:
    """A list or tuple of tensors whose lengths come from the data."""
    return bool(kind & Kind.CONTAINER and kind & Kind.DATA_SIZED and kind & Kind.TENSOR) and not kind & Kind.UNKNOWN


def _unbacked_size(kind: Kind) -> bool:
    return is_shape(kind) and is_data_sized(kind)


def _masked_sum(node: ast.expr, value: ast.expr, mask: ast.expr, ctx: RuleContext) -> MaskedSumPlan | None:
    """``x[mask].sum()``: the same sum as ``torch.where(mask, x, 0).sum()`` when ``mask`` has
    exactly ``x``'s shape (no broadcasting) and the sum reduces everything."""
    if not isinstance(value, ast.Name) or not elementwise_mask_of(mask, value, ctx):
        return None
    parent = ctx.parent(node)
    if isinstance(parent, ast.Attribute) and parent.attr == "sum" and parent.value is node:
        call = ctx.parent(parent)
        if isinstance(call, ast.Call) and call.func is parent and not call.args and not call.keywords:
            return MaskedSumPlan(node, value, mask)
    if isinstance(parent, ast.Call) and ctx.qualname(parent.func) == "torch.sum" and parent.args == [node]:
        return MaskedSumPlan(node, value, mask) if not parent.keywords else None
    return None


def _mask_advice(value: ast.expr, mask: ast.expr, plan: MaskedSumPlan | None) -> str:
    if plan is not None:
        return "sum `torch.where(mask, x, 0)` instead"
    x, m = ast.unparse(value), ast.unparse(mask)
    if len(x) + len(m) > 60 or isinstance(mask, ast.Tuple):  # `x[mask, :]` has no one-name mask
        x, m = "x", "mask"
    counted = m if isinstance(mask, (ast.Name, ast.Attribute)) else f"({m})"
    return f"keep the shape: `torch.where({m}, {x}, 0)`, then reduce (a mean: `.sum() / {counted}.sum()`)"


def _has_output_size(node: ast.Call) -> bool:
    """``repeat_interleave(..., output_size=n)`` states the size: no break."""
    return any(keyword.arg == "output_size" for keyword in node.keywords)
