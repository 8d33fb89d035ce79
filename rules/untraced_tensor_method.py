"""CL141: tensor methods and attributes Dynamo does not trace: Python callbacks, storages, data pointers."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import Kind, is_data
from compilelint.analysis.parameters import parameter_names
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

BOTH = (Mode.DEFAULT, Mode.FULLGRAPH)
# method -> (GB id, why), each measured on torch 2.13 (backend eager): breaks in the default
# mode and with dynamic=True, fails under fullgraph=True.
METHODS = {
    "apply_": ("GB0055", "runs a Python function on each element"),
    "map_": ("GB0055", "runs a Python function on each element"),
    "map2_": ("GB0055", "runs a Python function on each element"),
    "random_": ("GB0107", "is not traced (the out-of-place `torch.randint` is)"),
    "retain_grad": ("GB0108", "cannot keep a `.grad` for a tensor that lives inside the graph"),
    "storage": ("GB0208", "returns a storage object, not a tensor"),
}


class UntracedTensorMethod(Rule):
    """Checks for tensor methods and attributes that Dynamo does not trace.

    ## What it does
    Flags, inside a compiled region: `t.apply_(fn)`, `t.map_(other, fn)` and
    `t.map2_(a, b, fn)`; `t.random_(...)`; `t.retain_grad()`; `t.storage()`; a method
    called on `t.untyped_storage()` (`.nbytes()`, `.data_ptr()`); a data pointer compared
    with anything but the pointer of the same tensor (`a.data_ptr() == b.data_ptr()`,
    `t.data_ptr() == 0`), ordered or used in arithmetic (`t.data_ptr() % 16`); and a read
    of `t.grad_fn`, which breaks only when the tensor has one (it requires grad).

    ## Why is this bad?
    Each needs the real tensor, not the fake one Dynamo traces with. Measured on torch
    2.13 (backend eager), each breaks the graph in the default mode (and with
    `dynamic=True`) and makes `fullgraph=True` fail: the Python-callback methods
    (GB0055 "Failed to convert args/kwargs to proxy"), `random_` (GB0107), `retain_grad`
    (GB0108), `storage()` (GB0208), methods of an untyped storage (GB0156), data pointer
    comparisons (GB5976: traced only when both sides are the same tensor; a view of it
    already breaks), ordering and arithmetic on a data pointer (GB0088: Dynamo raises
    inside), and `grad_fn` of a tensor that has one (GB0104). Taking
    `t.untyped_storage()` or `t.data_ptr()` without using it further is traced.

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, q, k):
            shared = q.data_ptr() == k.data_ptr()
            return q @ k.T if shared else q + k
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, q, k):
            shared = q is k
            return q @ k.T if shared else q + k
    ```
    Test identity with `is`, use tensor ops instead of Python callbacks (`torch.where`,
    elementwise math), the out-of-place random functions (`torch.randint_like`), and keep
    gradients of intermediates with hooks outside the compiled code.

    ## Fix safety
    No automatic fix: each replacement changes what the code means in some case.
    """

    code = "CL141"
    name = "untraced-tensor-method"
    message = "Dynamo does not trace this tensor method: breaks the graph in both modes"
    gb_ids = ("GB0055", "GB0107", "GB0108", "GB0208", "GB0156", "GB5976", "GB0088", "GB0104")
    breaks = BOTH
    nodes = (ast.Call, ast.Compare, ast.BinOp, ast.Attribute)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if ctx.function is None:
            return
        if isinstance(node, ast.Call):
            self._method(node, ctx)
        elif isinstance(node, ast.Compare):
            self._pointers(node, ctx)
        elif isinstance(node, ast.BinOp) and any(_pointer_of(operand, ctx) is not None for operand in (node.left, node.right)):
            _report_pointer_arithmetic(node, ctx)
        elif isinstance(node, ast.Attribute) and node.attr == "grad_fn" and isinstance(node.ctx, ast.Load):
            if is_data(ctx.kind(node.value)):
                ctx.report(
                    node,
                    "reading `.grad_fn` of a tensor that has one (it requires grad) breaks the graph in both modes "
                    "(GB0104); test `t.requires_grad` instead",
                    gb_ids=("GB0104",),
                    only_when=("the tensor requires grad",),
                )

    def _method(self, node: ast.Call, ctx: RuleContext) -> None:
        func = node.func
        if not isinstance(func, ast.Attribute):
            return
        receiver = func.value
        if _storage_of_tensor(receiver, ctx):
            ctx.report(
                node,
                f"`.{func.attr}()` of a tensor's untyped storage is not traced: breaks the graph in both modes "
                "(GB0156); compare tensors with `is`, or read sizes from the tensor",
                gb_ids=("GB0156",),
            )
        elif func.attr in METHODS and _is_tensor(ctx.kind(receiver)):
            gb_id, why = METHODS[func.attr]
            ctx.report(node, f"`.{func.attr}()` {why}: breaks the graph in both modes ({gb_id})", gb_ids=(gb_id,))

    def _pointers(self, node: ast.Compare, ctx: RuleContext) -> None:
        if len(node.ops) != 1:
            return
        left, right = node.left, node.comparators[0]
        pointers = [_pointer_of(e, ctx) for e in (left, right)]
        if pointers == [None, None]:
            return
        if not isinstance(node.ops[0], (ast.Eq, ast.NotEq)):
            _report_pointer_arithmetic(node, ctx)
            return
        first, second = pointers
        if first is not None and second is not None and ast.dump(first) == ast.dump(second):
            return  # the same tensor on both sides is traced
        both_inputs = first is not None and second is not None and all(
            isinstance(e, ast.Name) and _is_parameter(e, ctx) for e in (first, second)
        )
        ctx.report(
            node,
            "comparing a tensor's data pointer breaks the graph in both modes unless both sides are the pointer "
            "of the same tensor (GB5976; a view of it already breaks); compare the tensors with `is`",
            gb_ids=("GB5976",),
            only_when=("the two inputs are different tensors",) if both_inputs else (),
        )


def _report_pointer_arithmetic(node: ast.AST, ctx: RuleContext) -> None:
    ctx.report(
        node,
        "ordering or arithmetic on a tensor's data pointer (an alignment check, `ptr % 16`) raises inside "
        "Dynamo: breaks the graph in both modes (GB0088); check alignment outside the compiled code",
        gb_ids=("GB0088",),
    )


def _is_tensor(kind: Kind) -> bool:
    return is_data(kind) and not kind & Kind.NUMPY


def _pointer_of(expr: ast.expr, ctx: RuleContext) -> ast.expr | None:
    """``t`` of ``t.data_ptr()`` (a tensor)."""
    if isinstance(expr, ast.Call) and not expr.args and isinstance(expr.func, ast.Attribute) and expr.func.attr == "data_ptr":
        tensor = expr.func.value
        return tensor if _is_tensor(ctx.kind(tensor)) else None
    return None


def _storage_of_tensor(expr: ast.expr, ctx: RuleContext) -> bool:
    """``t.untyped_storage()`` of a tensor (a method called on it is the storage's)."""
    return (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr == "untyped_storage"
        and _is_tensor(ctx.kind(expr.func.value))
    )


def _is_parameter(name: ast.Name, ctx: RuleContext) -> bool:
    assert ctx.function is not None
    return name.id in parameter_names(ctx.function.node)
