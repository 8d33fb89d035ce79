"""CL121: an attribute name or key formatted from a number read from tensor data."""

from __future__ import annotations

import ast

from compilelint.analysis.comprehension_frames import assigned_values
from compilelint.analysis.frames import own_nodes
from compilelint.analysis.kinds import Kind, is_data_scalar
from compilelint.analysis.python_containers import built_as_container
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

FULLGRAPH_ONLY = (Mode.FULLGRAPH,)


class DataDependentName(Rule):
    """Checks for `getattr(obj, f"expert_{i}")` and `d[f"k{i}"]` with `i` read from tensor data.

    ## What it does
    Flags, inside a compiled region, an attribute name given to `getattr()` or a subscript
    key that is a string formatted (f-string, `str.format`, `%`, `str()`) from a Python
    number that comes from tensor data: `.item()`, `.tolist()`, `int(t)`, or a loop over a
    `.tolist()`.

    ## Why is this bad?
    Once Dynamo captures that number (`fullgraph=True` turns on scalar capture) it is a
    symbol, not a value, and so is the string made from it: Dynamo cannot look the
    attribute or the key up. Measured on torch 2.13 (a mixture-of-experts loop,
    `for i in idx: getattr(self.experts, f"expert_{i}")` over `idx = counts.tolist()`):
    `fullgraph=True` fails at the `getattr` (GB0190) or at the key lookup (GB0088); in
    the default mode the read from tensor data breaks first (CL105) and the resumed code
    sees a concrete number, except where that number reaches it as a dynamic input: with
    `dynamic=True` formatting it fails (GB0021), and a `str.format` of it after a
    `nonzero` broke with GB0190 in the default mode too (transformers 4.46
    SwitchTransformers).

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            idx = (x > 0).sum(0).clamp(max=1).tolist()
            for i in idx:
                x = getattr(self, f"expert_{i}")(x)
            return x
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            for i, expert in enumerate(self.experts):
                x = torch.where(self.routed(x, i), expert(x), x)
            return x
    ```
    Keep experts in an `nn.ModuleList` and select with tensors (masks, `index_add`)
    rather than by names built from data.

    The same holds for such a number used as the key or index of a Python container
    (`table[k]`, `k in table`, `self.layers[k]`), and for a Python list holding such
    numbers used as a tensor's index (`pos[chosen]` after `chosen.append(int(d.argmax()))`,
    `x[t.topk(2).indices.tolist()]`): measured on torch 2.13, `fullgraph=True` fails there
    ("Could not extract specialized integer from data-dependent expression"), while
    `x[torch.tensor(chosen)]` and `x[k]` compile.

    ## Fix safety
    No automatic fix: routing by tensors changes how the code is written.
    """

    code = "CL121"
    name = "data-dependent-name"
    message = "attribute name or key built from tensor data cannot be looked up"
    gb_ids = ("GB0190", "GB0088", "GB0021")
    breaks = FULLGRAPH_ONLY
    nodes = (ast.Call, ast.Subscript, ast.Compare)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if self._number_lookup(node, ctx) or self._list_index(node, ctx):
            return
        if isinstance(node, ast.Subscript):
            name, what, gb_id = node.slice, "subscript key", "GB0088"
        elif isinstance(node, ast.Call) and ctx.builtin(node.func) == "getattr" and len(node.args) >= 2:
            name, what, gb_id = node.args[1], "`getattr()` name", "GB0190"
        else:
            return
        source = _data_part(name, ctx)
        if source is None:
            return
        ctx.report(
            name,
            f"{what} formatted from `{ast.unparse(source)}`, a number read from tensor data: once Dynamo captures it "
            f"(`fullgraph=True`, `dynamic=True`) the string is symbolic and the lookup fails ({gb_id}); "
            "select with tensors (masks over an `nn.ModuleList`) instead",
            gb_ids=(gb_id, "GB0021"),
        )


    def _number_lookup(self, node: ast.AST, ctx: RuleContext) -> bool:
        """``table[k]``, ``table.get(k)``, ``k in table`` of a Python container (or a module
        container) with ``k`` a number read from tensor data."""
        if isinstance(node, ast.Subscript):
            key, container, how = node.slice, node.value, "indexes"
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and node.args:
            key, container, how = node.args[0], node.func.value, "looks up"
        elif isinstance(node, ast.Compare) and len(node.ops) == 1 and isinstance(node.ops[0], (ast.In, ast.NotIn)):
            key, container, how = node.left, node.comparators[0], "looks up"
        else:
            return False
        if not is_data_scalar(ctx.kind(key)) or not _python_container(container, ctx):
            return False
        ctx.report(
            node,
            f"`{ast.unparse(key)}`, a number read from tensor data, {how} a Python container: once Dynamo captures "
            "it (`fullgraph=True`) it is a symbol, and the lookup needs a concrete value (\"Could not extract "
            "specialized integer from data-dependent expression\"); index a tensor instead "
            "(`torch.tensor(values)[k]`) or keep `k` a tensor",
            gb_ids=(),
        )
        return True


    def _list_index(self, node: ast.AST, ctx: RuleContext) -> bool:
        """``x[idx]`` of a tensor where ``idx`` is a Python list holding numbers read from
        tensor data (``[0, int(t.argmax())]``, a list such numbers are appended to, a
        ``.tolist()``)."""
        if not isinstance(node, ast.Subscript) or not isinstance(node.ctx, ast.Load):
            return False
        held = ctx.kind(node.value)
        if not held & Kind.TENSOR or held & (Kind.CONTAINER | Kind.UNKNOWN | Kind.MODULE):
            return False
        source = _data_in_list(node.slice, ctx)
        if source is None:
            return False
        holding = f"made by `{ast.unparse(source)}`" if _is_tolist(source) else f"holding `{ast.unparse(source)}`"
        ctx.report(
            node.slice,
            f"a Python list {holding}, numbers read from tensor data, indexes a tensor: once "
            "Dynamo captures the number (`fullgraph=True`) it is a symbol, and turning the list into an index needs "
            "a concrete value (\"Could not extract specialized integer from data-dependent expression\"); index with "
            "a tensor (`x[torch.tensor(idx)]`, `x.index_select(0, ...)`) or keep the numbers tensors",
            gb_ids=(),
        )
        return True


def _data_in_list(index: ast.expr, ctx: RuleContext) -> ast.expr | None:
    """The data-dependent number a list index holds: an element of a list display, what is
    appended to a local list, or the ``.tolist()`` call that built it."""
    if isinstance(index, ast.List):
        return next((e for e in index.elts if is_data_scalar(ctx.kind(e))), None)
    if _is_tolist(index):
        return index
    function = ctx.function
    if not isinstance(index, ast.Name) or function is None:
        return None
    kind = ctx.kind(index)
    if kind & Kind.TENSOR and not kind & Kind.CONTAINER:
        return None  # a tensor index (``x[idx]``, ``x[mask]``): no list; spares the walks below on every one
    values = assigned_values(function.node, index.id)
    if not values or not all(isinstance(v, ast.List) or _is_tolist(v) for v in values):
        return None
    for value in values:
        found = _data_in_list(value, ctx)
        if found is not None:
            return found
    for call in own_nodes(function.node):
        if (
            isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.attr == "append"
            and isinstance(call.func.value, ast.Name) and call.func.value.id == index.id and len(call.args) == 1
            and is_data_scalar(ctx.kind(call.args[0]))
        ):  # fmt: skip
            return call.args[0]
    return None


def _is_tolist(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "tolist" and not node.args


def _python_container(node: ast.expr, ctx: RuleContext) -> bool:
    """A dict, list or tuple the source builds (``analysis.python_containers``), or a module
    container (``nn.ModuleList``)."""
    kind = ctx.kind(node)
    if kind & Kind.MODULE and not kind & (Kind.TENSOR | Kind.UNKNOWN):
        return True
    return built_as_container(node, ctx.function, ctx.builtin)


def _data_part(name: ast.expr, ctx: RuleContext) -> ast.expr | None:
    """The data-dependent value a string expression is formatted from, if any."""
    if isinstance(name, ast.JoinedStr):
        parts = [v.value for v in name.values if isinstance(v, ast.FormattedValue)]
    elif isinstance(name, ast.Call) and isinstance(name.func, ast.Attribute) and name.func.attr == "format":
        parts = [*name.args, *(k.value for k in name.keywords)] if _is_string(name.func.value) else []
    elif isinstance(name, ast.BinOp) and isinstance(name.op, ast.Mod) and _is_string(name.left):
        parts = name.right.elts if isinstance(name.right, ast.Tuple) else [name.right]
    elif isinstance(name, ast.Call) and ctx.builtin(name.func) == "str" and len(name.args) == 1:
        parts = list(name.args)
    else:
        return None
    return next((part for part in parts if is_data_scalar(ctx.kind(part))), None)


def _is_string(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)
