"""CL122: Python builtins that Dynamo cannot apply to tensors: any/all, sorted/sort, pow, max/min."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import Kind, is_data, is_data_scalar, is_shape, is_tensor_container
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

BOTH = (Mode.DEFAULT, Mode.FULLGRAPH)
# list methods that find an element by `==` (``count`` is traced: measured, no break)
SEARCHING_METHODS = frozenset({"index", "remove"})
DYNAMIC_SIZES = "the sizes change between calls, or `dynamic=True`"


class BuiltinOnTensor(Rule):
    """Checks for `any`/`all`, `sorted`, `pow` and `max`/`min` applied to tensor values.

    ## What it does
    Flags, inside a compiled region: `any()`/`all()` of a tensor or of tensors (a list or
    generator of comparisons); `sorted()` of a tensor or of a list of tensors; the builtin
    `pow()` with a tensor; `max()`/`min()` mixing a tensor with a tensor size
    (`max(t.max() + 1, x.shape[0])`); and orderings by tensor values: `sorted(xs, key=...)`,
    `xs.sort(key=...)` and `max`/`min(xs, key=...)` whose key lambda returns a tensor, and
    `xs.sort()` of a list of tensors; `xs.index(t)` and `xs.remove(t)` of a tensor in a list
    of tensors.

    ## Why is this bad?
    These builtins take the truth or the order of tensor values in Python. Measured on
    torch 2.13: `any(x > 0)` and `all(t > 0 for t in xs)` are data-dependent branches
    (GB0170) in both modes, also outside an `if` (a generator also fails to be rebuilt for
    the resumed code, GB8335); `sorted(t)` fails (GB0059) and `sorted`
    of a list of tensors compares them (GB0207) in both modes; `pow(x, 2)` and `pow(2, x)`
    are not traced (GB0059), where `x ** 2` is; `max`/`min` of a tensor and a constant are
    traced (a clamp), but with a size they compare a tensor with a symbolic number once that
    size is dynamic (the second size, or `dynamic=True`): a data-dependent operator in the
    default mode (GB0033) and an error under `fullgraph=True`. A key lambda that returns a
    tensor orders by tensor values in Python too: `sorted`/`list.sort` break with GB0207 and
    `max`/`min` with GB0193 "invalid call to builtin op handler", in both modes; a key read
    back with `.item()` breaks at the `.item()` (CL105) and then fails to order the
    symbolic keys under `fullgraph=True` (GB0207). Keys from Python values are traced, and
    so are keys from sizes (`t.shape[0]`) and `sorted()` of sizes while the sizes are
    static; once they are dynamic (from the first call with other sizes, automatic dynamic
    shapes, and with `dynamic=True`) ordering them breaks (GB0207), reported as holding
    then. `xs.index(t)` and `xs.remove(t)` compare `t == e` and take the
    truth of the result (GB0170, both modes), where Python matches the same tensor by
    identity first: the compiled code raises "Boolean value of Tensor with more than one
    value is ambiguous" where eager found it; `xs.count(t)` is traced.

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            hit = any(x.flatten() > 0)
            return x * max(x.max() + 1, x.shape[0]), hit
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            hit = (x > 0).any()
            return x * torch.clamp(x.max() + 1, min=x.shape[0]), hit
    ```
    Use the tensor methods: `t.any()`, `t.all()`, `torch.sort`, `x ** n`, `torch.maximum`,
    `torch.clamp`; to order by tensor keys, `torch.argsort(torch.stack(keys))`.

    ## Fix safety
    No automatic fix: the tensor forms return tensors where the builtins return Python
    values, and code after them may rely on that.
    """

    code = "CL122"
    name = "builtin-on-tensor"
    message = "Python builtin applied to tensor values breaks the graph"
    gb_ids = ("GB0170", "GB8335", "GB0059", "GB0207", "GB0033", "GB0193")
    breaks = BOTH
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if self._searched_by_value(node, ctx):
            return
        if _ordering_keywords_only(node):
            if self._ordered_by_tensors(node, ctx):
                return
        builtin = ctx.builtin(node.func)
        if builtin is None or node.keywords or not node.args:
            return
        if builtin == "sorted" and len(node.args) == 1 and _sizes(node.args[0], ctx):
            ctx.report(
                node,
                "`sorted()` of tensor sizes orders symbolic sizes once they are dynamic (from the first call with "
                "other sizes, and with `dynamic=True`): breaks the graph (GB0207); use `min`/`max` of the sizes",
                gb_ids=("GB0207",),
                only_when=(DYNAMIC_SIZES,),
            )
            return
        kinds = [ctx.kind(argument) for argument in node.args]
        found = _classify(builtin, node, kinds, ctx)
        if found is not None:
            gb_id, reason, instead = found
            ctx.report(
                node,
                f"`{builtin}()` {reason}: breaks the graph in both modes ({gb_id.replace('/', ', ')}); use {instead}",
                gb_ids=tuple(gb_id.split("/")),
                claim="CL122:pow" if builtin == "pow" else None,  # traced from torch 2.14 on (rules/claims)
            )

    def _searched_by_value(self, node: ast.Call, ctx: RuleContext) -> bool:
        """``xs.index(t)`` / ``xs.remove(t)`` of a tensor in a list of tensors."""
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr in SEARCHING_METHODS and len(node.args) == 1 and not node.keywords):
            return False
        held = ctx.kind(func.value)
        if not (_python_list(held) and is_tensor_container(held) and is_data(ctx.kind(node.args[0]))):
            return False
        ctx.report(
            node,
            f"`list.{func.attr}()` of a tensor compares it with each element by `==` and takes the truth of the tensor "
            "that gives: breaks the graph in both modes (GB0170); Python finds the same tensor by identity first, "
            "compiled code does not and raises for a tensor of more than one element; keep positions instead",
            gb_ids=("GB0170",),
        )
        return True

    def _ordered_by_tensors(self, node: ast.Call, ctx: RuleContext) -> bool:
        """``sorted(xs, key=lambda t: t.sum())``, ``xs.sort(...)``, ``max(xs, key=...)``."""
        func = node.func
        receiver = func.value if isinstance(func, ast.Attribute) and func.attr == "sort" and not node.args else None
        sort_method = receiver is not None
        builtin = None if sort_method else ctx.builtin(func)
        if not sort_method and builtin not in ("sorted", "max", "min"):
            return False
        if receiver is not None and not _python_list(ctx.kind(receiver)):  # t.sort() is torch.sort
            return False
        key = next((k.value for k in node.keywords if k.arg == "key"), None)
        if key is None:
            if receiver is None or not is_tensor_container(ctx.kind(receiver)):
                return False
            message = "`list.sort()` compares tensors in Python to order them: breaks the graph in both modes (GB0207)"
            ctx.report(node, f"{message}; use `torch.sort` on a stacked tensor", gb_ids=("GB0207",))
            return True
        if not isinstance(key, ast.Lambda):
            return False
        keyed = ctx.kind(key.body)
        spelled = "`list.sort()`" if sort_method else f"`{builtin}()`"
        argsort = "use `torch.argsort` over the stacked keys"
        if builtin in ("max", "min") and is_data(keyed):
            message = f"{spelled} with a key that returns a tensor compares tensors in Python: breaks the graph in both modes (GB0193)"
            ctx.report(node, f"{message}; use `torch.argmax`/`torch.argmin` over the stacked keys", gb_ids=("GB0193",))
        elif builtin not in ("max", "min") and is_data(keyed):
            message = f"{spelled} with a key that returns a tensor orders by tensor values in Python: breaks the graph in both modes (GB0207)"
            ctx.report(node, f"{message}; {argsort}", gb_ids=("GB0207",))
        elif builtin not in ("max", "min") and is_shape(keyed):
            ctx.report(
                node,
                f"{spelled} with a key that returns a tensor size orders symbolic sizes once they are dynamic (from "
                f"the first call with other sizes, and with `dynamic=True`): breaks the graph (GB0207); {argsort}",
                gb_ids=("GB0207",),
                only_when=(DYNAMIC_SIZES,),
            )
        elif builtin not in ("max", "min") and is_data_scalar(keyed):
            message = (
                f"{spelled} with a key read back from tensor data (`.item()`): under `fullgraph=True` the keys are symbolic "
                "and cannot be ordered (GB0207)"
            )
            ctx.report(node, f"{message}; {argsort}", breaks=(Mode.FULLGRAPH,), gb_ids=("GB0207",))
        else:
            return False
        return True


def _sizes(node: ast.expr, ctx: RuleContext) -> bool:
    """``x.shape`` or a list or tuple display of sizes (and Python numbers), one a size."""
    if isinstance(node, (ast.List, ast.Tuple)):
        kinds = [ctx.kind(e) for e in node.elts]
        return any(is_shape(k) for k in kinds) and all(is_shape(k) or k == Kind.STATIC for k in kinds)
    return isinstance(node, ast.Attribute) and node.attr == "shape" and is_data(ctx.kind(node.value))


def _ordering_keywords_only(node: ast.Call) -> bool:
    return bool(node.keywords) and all(k.arg in ("key", "reverse") for k in node.keywords) or (
        not node.keywords and isinstance(node.func, ast.Attribute) and node.func.attr == "sort"
    )


def _python_list(kind: Kind) -> bool:
    """A Python container (of tensors or values), not a tensor: ``xs.sort()`` is ``list.sort``."""
    return bool(kind & Kind.CONTAINER) and not kind & (Kind.UNKNOWN | Kind.MODULE)


def _classify(builtin: str, node: ast.Call, kinds: list[Kind], ctx: RuleContext) -> tuple[str, str, str] | None:
    if builtin in ("any", "all") and len(kinds) == 1:
        if is_data(kinds[0]) and not ctx.in_test_position(node):  # `if any(t):` is CL103's
            return "GB0170", "takes the truth of each tensor element in Python", f"`t.{builtin}()`"
        if is_tensor_container(kinds[0]):
            # a generator also fails to be rebuilt for the resumed code (GB8335, measured)
            gb_id = "GB0170/GB8335" if isinstance(node.args[0], ast.GeneratorExp) else "GB0170"
            return gb_id, "takes the truth of tensors in Python", f"`torch.stack(...).{builtin}()`"
    if builtin == "sorted" and len(kinds) == 1:
        if is_data(kinds[0]):
            return "GB0059", "is not traced on a tensor", "`torch.sort(t).values`"
        if is_tensor_container(kinds[0]):
            return "GB0207", "compares tensors in Python to order them", "`torch.sort` on a stacked tensor"
    if builtin == "pow" and any(is_data(kind) for kind in kinds):
        return "GB0059", "is not traced with a tensor", "`x ** n` or `torch.pow`"
    if builtin in ("max", "min") and len(kinds) >= 2 and any(is_data(k) for k in kinds) and any(is_shape(k) for k in kinds):
        clamp = "min" if builtin == "max" else "max"
        return (
            "GB0033",
            "compares a tensor with a size, which is data-dependent once the size is dynamic (the second size, "
            "or `dynamic=True`)",
            f"`torch.clamp(t, {clamp}=size)`",
        )
    return None
