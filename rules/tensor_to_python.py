"""CL105: a tensor turned into a Python value inside a compiled region."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import Kind, is_data, is_mask
from compilelint.analysis.ranks import is_zero_dim
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.fix.alternatives import tensor_to_python
from compilelint.registry import Rule

DEFAULT_ONLY = (Mode.DEFAULT,)
# torch functions Dynamo refuses to call on Python sizes alone unless scalars are tensorified
# (torch/_dynamo/variables/torch.py `bin_ops`)
SIZE_ARITHMETIC = frozenset({"torch.add", "torch.sub", "torch.mul", "torch.div", "torch.sqrt"})
BOTH = (Mode.DEFAULT, Mode.FULLGRAPH)
# method -> (modes, GB ids, what), measured on torch 2.13
METHODS = {
    "item": (DEFAULT_ONLY, ("GB0124",), "`.item()`"),
    "tolist": (DEFAULT_ONLY, ("GB0033",), "`.tolist()`"),
    "equal": (BOTH, ("GB0033",), "`.equal()`"),
    "allclose": (BOTH, ("GB0033",), "`.allclose()`"),
    "is_nonzero": (BOTH, ("GB0033",), "`.is_nonzero()`"),
}
TORCH_FUNCTIONS = {
    "torch.equal": (BOTH, ("GB0033",), "`torch.equal()`"),
    "torch.allclose": (BOTH, ("GB0033",), "`torch.allclose()`"),
    "torch.is_nonzero": (BOTH, ("GB0033",), "`torch.is_nonzero()`"),
}
BUILTINS = {
    "int": (DEFAULT_ONLY, ("GB0124",), "`int()` of a tensor"),
    "float": (DEFAULT_ONLY, ("GB0124",), "`float()` of a tensor"),
    "bool": (DEFAULT_ONLY, ("GB0124",), "`bool()` of a tensor"),
    "str": (BOTH, ("GB0059",), "`str()` of a tensor"),
    "repr": (BOTH, ("GB0569",), "`repr()` of a tensor"),
    "range": (BOTH, ("GB0059",), "`range()` over a tensor"),
}
# np.random.rand(1).item(): Dynamo traces NumPy as tensors; the .item() is a data-dependent
# operator (measured GB0033, default mode only)
NUMPY_ITEM = (DEFAULT_ONLY, ("GB0033",), "`.item()` of a NumPy value")

# Sizes and bounds: a tensor here is read back as a Python int (measured on 2.13: GB0033 in
# the default mode; fullgraph=True compiles it with an unbacked size).
SIZE_FUNCTIONS = frozenset(
    {"arange", "linspace", "logspace", "zeros", "ones", "empty", "full", "rand", "randn", "randint", "eye", "tril_indices", "triu_indices"}
)
SIZE_METHODS = frozenset(
    {"view", "reshape", "expand", "repeat", "new_zeros", "new_ones", "new_empty", "new_full", "narrow", "unflatten", "tile", "as_strided"}
)
# .tolist() of an integer tensor compiles under fullgraph=True; of a float or boolean tensor
# it does not (GB0109, measured on 2.13). Model code calls it on ids, sizes and counts:
# integer unless recognisably floating or a mask.
FLOAT_TOLIST = (BOTH, ("GB0109",), "`.tolist()` of a non-integer tensor")
FLOAT_METHODS = frozenset(
    {"float", "half", "double", "bfloat16", "softmax", "log_softmax", "sigmoid", "tanh", "mean", "std", "var", "norm", "exp", "sqrt", "rsqrt"}
)
FLOAT_FUNCTIONS = frozenset({"rand", "randn", "rand_like", "randn_like", "linspace", "softmax", "sigmoid", "mean", "std", "var", "norm"})
MATH_FUNCTION = (BOTH, ("GB0033",), "a `math` function of a tensor")


class TensorToPython(Rule):
    """Checks for tensors converted to Python values: `.item()`, `.tolist()`, `int(t)` ...

    ## What it does
    Flags, inside a compiled region: `.item()`, `.tolist()`, `int()`, `float()`, `bool()`,
    `str()`, `repr()`, `range()` and `math.*` applied to a tensor; `torch.equal`,
    `torch.allclose`, `torch.is_nonzero` (which return Python bools); and the implicit
    `.item()` of a tensor used as a number: a slice bound (`x[:n]`), or a size or bound
    given to `torch.arange`, `torch.zeros`, `x.view`, `x.new_zeros` and the like, including
    a tensor computed from tensor sizes (`x.view(b, torch.div(x.size(1), w), w)`); and a
    0-d tensor computed in the graph used as an index (`x[x.argmax()]`, `grid[i + 1]`,
    `coeffs[..., torch.bucketize(t, knots), :]`), which Python reads back with `__index__`.

    ## Why is this bad?
    The Python value depends on tensor data, which Dynamo does not have while tracing.
    Measured on torch 2.13: `.item()`, `int/float/bool(t)` and tensor slice bounds break
    the graph in the default mode (GB0124), tensor sizes and bounds too (GB0033), but
    they compile under `fullgraph=True`, which turns on scalar capture; a size computed by
    torch from tensor sizes (`torch.div(x.size(1), w)`) is folded while shapes are static and
    breaks (GB0033) from the first size change on, once automatic dynamic shapes make it symbolic
    (`as_strided` with such a size fails under `fullgraph=True` as well); `.tolist()` breaks in the default mode (GB0033) and, for floating
    and boolean tensors, under `fullgraph=True` too (GB0109; claimed when the tensor is recognisably
    floating, `.float()`, `.softmax()`, or a mask, `x > 0`, since model code mostly lists ids and sizes); `torch.equal`/`allclose`, `str`, `repr`,
    `range` and `math.*` of a tensor break in both modes. The Python value handed to the
    resumed code also makes Dynamo recompile for every new value, until the recompile
    limit sends the code to eager. `.numpy()` is not flagged: Dynamo traces it into torch
    ops (torch 2.13 with NumPy installed).

    A 0-d index breaks in both modes (GB0033; `fullgraph=True` fails on the unbacked
    value). The rule knows a tensor is 0-d where the source shows it: a reduction over
    every element (`x.sum()`, `x.argmax()`), an element of a vector (`torch.stack([a, b])[0]`),
    `torch.bucketize`/`searchsorted` of a 0-d tensor, and
    elementwise arithmetic on those. Dynamo traces an index it receives as a graph input,
    so a name bound before a graph break in the same function and used after it is not
    flagged (the resumed graph takes it as an input); nor are 1-d indexes, literals
    (`torch.tensor(2)`) and tensors computed from Python numbers alone.

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            scale = x.abs().max().item()
            return x / scale
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            scale = x.abs().max()
            return x / scale
    ```
    Keep the value a tensor. Where a Python number is really needed, set
    `torch._dynamo.config.capture_scalar_outputs = True` (what `fullgraph=True` does).
    Index with a one-element tensor instead of a 0-d one: `x.index_select(0, i.reshape(1)).squeeze(0)`
    or `x[i.reshape(1)].squeeze(0)` stay in the graph.

    ## Fix safety
    No automatic fix: whether the value can stay a tensor depends on how it is used.
    """

    code = "CL105"
    name = "tensor-to-python"
    message = "tensor converted to a Python value breaks the graph"
    gb_ids = ("GB0124", "GB0033", "GB0109", "GB0059", "GB0569")
    breaks = DEFAULT_ONLY
    nodes = (ast.Call, ast.Subscript)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, ast.Subscript):
            self._check_slice(node, ctx)
            return
        assert isinstance(node, ast.Call)
        if self._check_size_arguments(node, ctx) or self._check_arithmetic_on_sizes(node, ctx):
            return
        found = self._classify(node, ctx)
        if found is not None:
            modes, gb_ids, what = found
            where = "in both modes" if Mode.FULLGRAPH in modes else "unless `fullgraph=True`/`capture_scalar_outputs`"
            advice = (
                "draw with torch (`torch.rand(...)`) and keep it a tensor"
                if found is NUMPY_ITEM
                else tensor_to_python(node, ctx.builtin(node.func), ctx.qualname(node.func))
            )
            ctx.report(
                node,
                f"{what} takes a Python value from tensor data: breaks the graph {where} ({', '.join(gb_ids)}); {advice}",
                breaks=modes,
                gb_ids=gb_ids,
            )

    def _check_arithmetic_on_sizes(self, node: ast.Call, ctx: RuleContext) -> bool:
        """``torch.div(x.size(1), w)``: Dynamo's in-graph arithmetic on sizes alone. Measured:
        torch 2.11 breaks on it once the size is dynamic, in every mode (GB0224); 2.13 traces
        it (scalars are tensorified). Reported with no modes: only releases whose claims
        file says it breaks keep it (compilelint/torch_versions.py)."""
        name = ctx.qualname(node.func) or ""
        if name not in SIZE_ARITHMETIC or not node.args:
            return False
        kinds = [ctx.kind(a) for a in node.args]
        if not any(k & Kind.SHAPE for k in kinds) or any(k & ~(Kind.SHAPE | Kind.STATIC) for k in kinds):
            return False
        ctx.report(
            node,
            f"`{name}()` of tensor sizes alone: once the size is dynamic, Dynamo cannot put it in the graph and "
            "breaks (GB0224 \"Attempted to call torch in-graph function on only torch.SymInt arguments\"); "
            "use Python arithmetic (`x.size(1) // w`)",
            breaks=(),
            gb_ids=("GB0224",),
            claim="CL105:torch-arithmetic-on-sizes",
        )
        return True

    def _check_size_arguments(self, node: ast.Call, ctx: RuleContext) -> bool:
        """``torch.arange(n)``, ``x.view(n, -1)`` with a tensor ``n``: an implicit ``.item()``."""
        func = node.func
        name = ctx.qualname(func) or ""
        if name.startswith("torch.") and name.count(".") == 1 and name[6:] in SIZE_FUNCTIONS:
            what = f"`{name}()`"
        elif isinstance(func, ast.Attribute) and func.attr in SIZE_METHODS and is_data(ctx.kind(func.value)):
            what = f"`.{func.attr}()`"
        else:
            return False
        # only the size-like arguments: linspace(start, end, steps) reads `steps` as an int,
        # full(size, fill) takes a tensor fill (measured: no break for tensor start/end/fill),
        # as_strided(size, stride) reads both
        if name in ("torch.linspace", "torch.logspace"):
            sized = node.args[2:3]
        elif name == "torch.full" or (isinstance(func, ast.Attribute) and func.attr == "as_strided"):
            sized = node.args[:1]
        else:
            sized = node.args
        sized = [*sized, *(k.value for k in node.keywords if k.arg == "size")]
        values = [e for a in sized for e in (a.elts if isinstance(a, (ast.Tuple, ast.List)) else [a])]
        found = (_size_tensor_kind(ctx.kind(v)) for v in values)
        tensors = [kind for kind in found if kind is not None]
        # as_strided checks the size against the storage: a guard on the unbacked value,
        # which fullgraph=True cannot make either (measured on 2.13)
        strided = isinstance(func, ast.Attribute) and func.attr == "as_strided"
        modes, where = (BOTH, "in both modes") if strided else (DEFAULT_ONLY, "unless `fullgraph=True`")
        if any(not kind & Kind.FROM_NUMBERS for kind in tensors):
            ctx.report(
                node,
                f"{what} is given a tensor where it needs a Python number: an implicit `.item()` that breaks the graph "
                f"{where} (GB0033); pass sizes from `.shape`, or build the result with a mask",
                breaks=modes,
                gb_ids=("GB0033",),
            )
        elif any(kind & Kind.FROM_SHAPES for kind in tensors):
            # torch.div(x.size(1), w) as a size: folded to a constant while the size is static,
            # data-dependent once it is dynamic (measured on 2.13: no break with one shape,
            # GB0033 from the first size change on, as automatic dynamic shapes kick in)
            ctx.report(
                node,
                f"{what} is given a tensor computed from a tensor size: once that size is dynamic (the first new "
                f"size, or `dynamic=True`) reading it back is an implicit `.item()` that breaks the graph {where} "
                "(GB0033); compute the size with Python arithmetic (`x.size(1) // w`)",
                breaks=modes,
                gb_ids=("GB0033",),
                claim="CL105:size-tensor-" + ("as-strided" if strided else "readback"),
            )
        else:  # torch.tensor(3) as a size: a constant whatever the shapes
            return False
        return True

    def _classify(self, node: ast.Call, ctx: RuleContext) -> tuple[tuple[Mode, ...], tuple[str, ...], str] | None:
        func = node.func
        name = ctx.qualname(func)
        if name in TORCH_FUNCTIONS:
            return TORCH_FUNCTIONS[name]
        builtin = ctx.builtin(func)
        if builtin in BUILTINS:
            if node.args and not node.keywords and is_data(ctx.kind(node.args[0])) and len(node.args) == 1:
                return BUILTINS[builtin]
            return None
        if name is not None and name.startswith("math.") and any(is_data(ctx.kind(a)) for a in node.args):
            return MATH_FUNCTION
        if isinstance(func, ast.Attribute) and func.attr == "item" and _is_numpy_value(func.value, ctx):
            return NUMPY_ITEM
        if isinstance(func, ast.Attribute) and func.attr in METHODS and _receiver_may_be_tensor(func, ctx):
            if func.attr == "tolist" and (_is_floating_tensor(func.value, ctx) or is_mask(ctx.kind(func.value))):
                return FLOAT_TOLIST
            return METHODS[func.attr]
        return None

    def _check_slice(self, node: ast.Subscript, ctx: RuleContext) -> None:
        if not is_data(ctx.kind(node.value)):
            return
        slices = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for part in slices:
            if _is_computed_zero_dim(ctx.kind(part)):
                ctx.report(
                    part,
                    "indexing with a 0-d tensor computed in compiled code reads it back as a Python int: a "
                    "data-dependent operator that breaks the graph in both modes (GB0033); index with a "
                    "one-element tensor and drop its dimension (`x.index_select(dim, i.reshape(1)).squeeze(dim)`)",
                    breaks=BOTH,
                    gb_ids=("GB0033",),
                    claim=ZERO_DIM_INDEX_CLAIM,
                )
                return
        for part in slices:
            if not isinstance(part, ast.Slice):
                continue
            for bound in (part.lower, part.upper, part.step):
                if bound is not None and is_data(ctx.kind(bound)) and not ctx.kind(bound) & Kind.BOOL:
                    ctx.report(
                        bound,
                        "slicing with a tensor bound calls `.item()` on it: breaks the graph unless "
                        "`fullgraph=True`/`capture_scalar_outputs` (GB0124); use a Python int (a size from `.shape`), "
                        "or keep every row and mask with `torch.where`",
                        breaks=DEFAULT_ONLY,
                        gb_ids=("GB0124",),
                    )
                    return


ZERO_DIM_INDEX_CLAIM = "CL105:zero-dim-index"


def _is_computed_zero_dim(kind: Kind) -> bool:
    """A 0-d integer tensor the graph computes: ``x.argmax()``, ``i + 1``, ``bucketize(t, grid)``.

    Measured on torch 2.13: ``x[i]`` reads ``i`` back with ``__index__`` (GB0033 in the
    default mode and with ``dynamic=True``; fullgraph=True fails on the unbacked value);
    a 1-d index is traced, and so are a 0-d graph input and a literal (``torch.tensor(2)``,
    which fake tensors keep as a constant). Tensors computed from Python numbers only are
    left alone: ``torch.tensor(x.shape[0] - 1)`` is a constant while shapes are static.
    A boolean 0-d index is a mask."""
    return is_data(kind) and is_zero_dim(kind) and not kind & (Kind.BOOL | Kind.LITERAL | Kind.FROM_NUMBERS)


def _size_tensor_kind(kind: Kind) -> Kind | None:
    """The kind of the tensor in a size argument, if one is there: the value itself, or an
    element of a size tuple built earlier (``size = (b, n + 1, w)``; ``x.new_zeros(size)``)."""
    if is_data(kind):
        return kind
    if kind & Kind.CONTAINER and kind & Kind.TENSOR and not kind & (Kind.UNKNOWN | Kind.MODULE):
        return kind & ~(Kind.CONTAINER | Kind.SHAPE | Kind.STATIC)
    return None


def _is_floating_tensor(node: ast.expr, ctx: RuleContext) -> bool:
    """Recognisably floating: ``t.float()``, ``t.softmax(-1)``, ``torch.randn(...)``, indexing one."""
    if isinstance(node, ast.Subscript):
        return _is_floating_tensor(node.value, ctx)
    if not isinstance(node, ast.Call):
        return False
    name = ctx.qualname(node.func) or ""
    if name.startswith("torch.") and name.rsplit(".", 1)[-1] in FLOAT_FUNCTIONS:
        return True
    if isinstance(node.func, ast.Attribute):
        if node.func.attr in FLOAT_METHODS:
            return True
        if node.func.attr == "to" and any((ctx.qualname(a) or "").startswith(("torch.float", "torch.half", "torch.bfloat")) for a in node.args):
            return True
    return False


# Only tensors (and NumPy arrays, rare in compiled code) have these: a receiver whose kind
# the analysis lost (an ``x=None`` argument) is taken for a tensor.
TENSOR_ONLY_METHODS = frozenset({"item", "tolist"})


def _receiver_may_be_tensor(func: ast.Attribute, ctx: RuleContext) -> bool:
    kind = ctx.kind(func.value)
    if func.attr in TENSOR_ONLY_METHODS:
        return bool(kind & (Kind.TENSOR | Kind.UNKNOWN)) and not kind & (Kind.SHAPE | Kind.DATA_SCALAR)
    return is_data(kind)


def _is_numpy_value(node: ast.expr, ctx: RuleContext) -> bool:
    return isinstance(node, ast.Call) and (ctx.qualname(node.func) or "").startswith("numpy.")
