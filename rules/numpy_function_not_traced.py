"""CL127: a NumPy function, ufunc method or array attribute that `torch._numpy` lacks, in compiled code."""

from __future__ import annotations

import ast
import functools
import json
from importlib import resources
from typing import Any

from compilelint.analysis.kinds import Kind
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

DATA = "numpy_untraced-torch-2.13.json"
UFUNC_METHODS = frozenset({"reduce", "accumulate", "reduceat", "outer", "at"})
# Attributes and methods of an array that Dynamo's NumpyNdarrayVariable refuses, measured on
# torch 2.13 (variables/tensor.py: var_getattr, call_method)
ARRAY_ATTRIBUTES = frozenset({"dtype", "flags", "base"})  # GB0157
ARRAY_METHODS = frozenset({"tobytes", "tostring"})  # GB0158
# what Dynamo reports at a call into a NumPy submodule torch._numpy does not mirror, measured
# on torch 2.13 (numpy.polynomial's classes give GB0008, its functions GB0007)
SUBMODULE_GB_IDS = {"polynomial": "GB0007", "ma": "GB0007", "emath": "GB0156", "lib": "GB0156"}
NOT_ONLY_AN_ARRAY = Kind.TENSOR | Kind.MODULE | Kind.STATIC | Kind.SHAPE | Kind.DATA_SCALAR


@functools.cache
def _table() -> tuple[frozenset[str], frozenset[str]]:
    """(functions torch._numpy lacks, numpy's ufuncs): computed from torch 2.13's
    NumPy map, shipped as data because the static path never imports torch. A function of
    a mirrored submodule is "linalg.cross"."""
    data = _data()
    nested = {f"{module}.{name}" for module, names in data["submodule_functions"].items() for name in names}
    return frozenset(data["functions"]) | frozenset(nested), frozenset(data["ufuncs"])


@functools.cache
def _untraced_submodules() -> frozenset[str]:
    return frozenset(_data()["untraced_submodules"])


@functools.cache
def _data() -> dict[str, Any]:
    text = (resources.files("compilelint") / "data" / DATA).read_text(encoding="utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


class NumpyFunctionNotTraced(Rule):
    """Checks for NumPy functions and array attributes Dynamo cannot trace, inside compiled code.

    ## What it does
    Flags, inside a compiled region, a call of a `numpy` function that `torch._numpy`
    (the NumPy that Dynamo traces) does not implement, such as `np.asanyarray`,
    `np.isin`, `np.nanmax`, `np.interp`, `np.digitize`, `np.partition` or
    `np.apply_along_axis`, and a method of a ufunc (`np.add.reduce`,
    `np.multiply.outer`, `np.maximum.accumulate`, ...). The list of functions is
    torch 2.13's, over numpy 2.4's namespace (compilelint/data/numpy_untraced-*.json),
    with those of `numpy.linalg` and `numpy.fft` it lacks (`np.linalg.cross`,
    `np.linalg.matrix_norm`; `numpy.random` is CL107's), and any call
    into a submodule `torch._numpy` does not mirror: `numpy.polynomial`
    (`np.polynomial.legendre.leggauss`, `Polynomial(...)`), `numpy.ma`, `numpy.emath`,
    `numpy.lib`.

    ## Why is this bad?
    Dynamo runs NumPy code by mapping each function to its `torch._numpy` twin. For a
    function without one it stops, whatever the arguments, even plain Python lists.
    Measured on torch 2.13 in the default mode, with `dynamic=True` and under
    `fullgraph=True` (an error there): `np.asanyarray(a)`, `np.nanmax([1.0, 2.0])` and
    `np.isin(a, b)` break the graph (GB0294, "attempted to trace numpy function
    unsupported by PyTorch"), and so does a ufunc method such as
    `np.add.reduce([1, 2, 3])` (GB0290). A call into a NumPy submodule `torch._numpy` does
    not mirror is not traced either: `np.polynomial.legendre.leggauss(n)`, `hermval`,
    `lagroots` and `chebval` break the graph as skipped functions (GB0007),
    `np.polynomial.Polynomial(...)` as a skipped class (GB0008), `np.ma.masked_invalid`
    (GB0007), `np.emath.sqrt` and `np.lib.stride_tricks.sliding_window_view` (GB0156), in
    every mode; zuko's Gauss-Legendre quadrature breaks at `leggauss`. pytorch-wavelets' `reflect` helper, reached
    from every symmetric-padding DWT's forward, breaks this way at `np.asanyarray`.
    Dynamo traces an array as a tensor in `torch._numpy`'s clothes, and some of what an
    array has is not modelled: `arr.dtype`, `arr.flags` and `arr.base` break the graph in
    every mode (GB0157, "Unsupported ndarray attribute access"), whether the array came
    from `np.arange(4)`, `np.sum([1, 2])`, a global or `x.numpy()`, and `arr.tobytes()`
    does too (GB0158); `arr.shape`, `arr.ndim`, `arr.size`, `arr.itemsize` and `arr.T` are
    traced. pytorch-wavelets' `reflect` breaks again at `np.array(out, dtype=x.dtype)`.
    An array of Python objects has no tensor to stand for it: `np.empty(n, dtype=object)`
    and `np.array([...], dtype=object)` break the graph (GB0055, "Failed to convert
    args/kwargs to proxy") in the default mode and fail under `fullgraph=True`, and with
    `dtype=np.object_`, `dtype="O"` or `dtype="object"` the compile itself fails
    (TorchRuntimeError, GB4315) in both; torchcde 0.2.5's `tridiagonal_solve` builds its
    work arrays with `np.empty(channels, dtype=object)`.

    ## Example
    ```python
    class Flip(nn.Module):
        def forward(self, x):
            idx = np.asanyarray(np.arange(x.shape[-1]))
            return x[..., np.flip(idx).copy()]
    ```

    ## Use instead
    ```python
    class Flip(nn.Module):
        def forward(self, x):
            idx = np.asarray(np.arange(x.shape[-1]))
            return x[..., np.flip(idx).copy()]
    ```
    Use the `torch._numpy` spelling (`np.asarray`, `np.max` with `np.isnan` masks,
    `np.sum` for `np.add.reduce`), a torch op, or compute index tables once in
    `__init__` and keep them as buffers. For an array's dtype, name it (`dtype=np.int64`)
    or let the operation keep it (`out.astype(np.int32)` rather than `dtype=x.dtype`).

    ## Fix safety
    No automatic fix: the supported spelling differs per function.
    """

    code = "CL127"
    name = "numpy-function-not-traced"
    message = "a NumPy function Dynamo cannot trace breaks the graph"
    gb_ids = ("GB0294", "GB0290", "GB0157", "GB0158", "GB0007", "GB0008", "GB0156", "GB0055", "GB4315")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call, ast.Attribute)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, ast.Attribute):
            self._check_array_attribute(node, ctx)
            return
        assert isinstance(node, ast.Call)
        name = ctx.qualname(node.func) or ""
        parts = name.split(".")
        if parts[0] != "numpy":
            return
        functions, ufuncs = _table()
        spelled = ast.unparse(node.func)
        dtype = next((k.value for k in node.keywords if k.arg == "dtype"), None)
        object_dtype = _object_dtype(dtype, ctx) if dtype is not None else None
        if object_dtype == "object":
            ctx.report(
                node,
                f"`{spelled}(..., dtype=object)`: Dynamo traces NumPy arrays as tensors, which hold no Python "
                "objects, and breaks the graph at the call (GB0055); keep the objects in a Python list",
                gb_ids=("GB0055",),
            )
        elif object_dtype == "numpy.object_" and dtype is not None:
            ctx.report(
                node,
                f"`{spelled}(..., dtype={ast.unparse(dtype)})`: Dynamo traces NumPy arrays as tensors, and compiling fails "
                "(TorchRuntimeError: the fake tensor call does not understand the dtype, GB4315) instead of "
                "breaking the graph; "
                "keep the objects in a Python list",
                gb_ids=("GB4315",),
            )
        elif len(parts) in (2, 3) and ".".join(parts[1:]) in functions:
            ctx.report(
                node,
                f"`{spelled}` has no `torch._numpy` equivalent: Dynamo breaks the graph at the call (GB0294)",
                gb_ids=("GB0294",),
            )
        elif len(parts) >= 3 and parts[1] in _untraced_submodules():
            gb_id = "GB0008" if parts[1] == "polynomial" and parts[-1][:1].isupper() else SUBMODULE_GB_IDS[parts[1]]
            ctx.report(
                node,
                f"`{spelled}`: `torch._numpy` has no `numpy.{parts[1]}`, so Dynamo does not trace the call and breaks "
                f"the graph ({gb_id}); compute it once outside compiled code (in `__init__`, as a buffer) or with "
                "torch ops",
                gb_ids=(gb_id,),
            )
        elif len(parts) == 3 and parts[1] in ufuncs and parts[2] in UFUNC_METHODS:
            ctx.report(
                node,
                f"`{spelled}` calls a ufunc method, which Dynamo does not trace: breaks the graph (GB0290)",
                gb_ids=("GB0290",),
            )

    def _check_array_attribute(self, node: ast.Attribute, ctx: RuleContext) -> None:
        kind = ctx.kind(node.value)
        if not kind & Kind.NUMPY or kind & NOT_ONLY_AN_ARRAY or not isinstance(node.ctx, ast.Load):
            return
        called = isinstance(parent := ctx.parent(node), ast.Call) and parent.func is node
        spelled = ast.unparse(node)
        if node.attr in ARRAY_ATTRIBUTES and not called:
            ctx.report(
                node,
                f"`{spelled}`: Dynamo traces the NumPy array as a tensor and does not model `ndarray.{node.attr}`: "
                "breaks the graph (GB0157)",
                gb_ids=("GB0157",),
            )
        elif node.attr in ARRAY_METHODS and called:
            ctx.report(
                node,
                f"`{spelled}()` is not modelled in `torch._numpy`: breaks the graph (GB0158)",
                gb_ids=("GB0158",),
            )


def _object_dtype(dtype: ast.expr, ctx: RuleContext) -> str | None:
    """``"object"`` for ``dtype=object`` (the builtin), ``"numpy.object_"`` for
    ``dtype=np.object_``, ``dtype="O"`` or ``dtype="object"``: the two fail differently
    (measured on torch 2.13)."""
    if isinstance(dtype, ast.Name) and ctx.builtin(dtype) == "object":
        return "object"
    if isinstance(dtype, ast.Constant) and dtype.value in ("O", "object") or ctx.qualname(dtype) == "numpy.object_":
        return "numpy.object_"
    return None
