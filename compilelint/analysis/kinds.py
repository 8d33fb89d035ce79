"""Value kinds: what an expression inside a compiled region evaluates to, as Dynamo sees it.

A kind is a set of flags: a name that is a tensor on one path and ``None`` on another is
``TENSOR | STATIC``. Rules ask for the kind of an expression and report only on what is
known; anything we cannot see through is ``UNKNOWN`` and stays quiet.
"""

from __future__ import annotations

import ast
import enum
import functools
import json
from collections.abc import Iterable, Sequence
from importlib import resources


class Kind(enum.IntFlag):
    NONE = 0
    TENSOR = enum.auto()  # a torch.Tensor (or a container of them, e.g. a module's tuple)
    BOOL = enum.auto()  # refines TENSOR: a boolean mask (comparisons, isnan, ~mask)
    DATA_SCALAR = enum.auto()  # a Python value computed from tensor data (.item(), int(t))
    SHAPE = enum.auto()  # a size: symbolic under dynamic shapes (x.shape[0], x.numel())
    STATIC = enum.auto()  # a Python constant for Dynamo: literals, config, None, dtype
    MODULE = enum.auto()  # an nn.Module instance (calling it yields tensors)
    UNKNOWN = enum.auto()
    # refines TENSOR: computed by torch from Python numbers and sizes only
    # (``torch.div(seq_len, w)``): a constant while shapes are static
    FROM_NUMBERS = enum.auto()
    # refines FROM_NUMBERS: a tensor size took part (``torch.div(x.size(1), w)``), so once
    # that size is dynamic the tensor holds a symbolic value and reading it back is data-dependent
    FROM_SHAPES = enum.auto()
    # refines TENSOR: a Python list/tuple/dict of tensors; its truth is its length
    CONTAINER = enum.auto()
    # refines TENSOR: its first dimension's length depends on data (``nonzero``, ``unique``,
    # ``x[mask]``); refines SHAPE: that length (``len(t)``, ``t.size(0)``), an unbacked size
    DATA_SIZED = enum.auto()
    # refines UNKNOWN: an array returned by a NumPy function (``np.sum(lens)``). Dynamo
    # traces NumPy through torch._numpy, so the array is a tensor in the graph and reading
    # it back as a Python number is data-dependent; other rules see only UNKNOWN
    NUMPY = enum.auto()
    # refines FROM_NUMBERS: a literal tensor of at most one element (``torch.tensor([])``,
    # ``torch.tensor(3)``), which Dynamo's fake tensors carry as a constant, so ops on it
    # are computed while tracing, data-dependent output shapes included
    LITERAL = enum.auto()
    # refine TENSOR: its rank where the source shows it (compilelint/analysis/ranks.py).
    # A 0-d integer tensor used as an index is read back as a Python int (GB0033)
    ZERO_DIM = enum.auto()  # no dimensions: ``x.argmax()``, ``x.sum()``, ``v[0]`` of a vector
    ONE_DIM = enum.auto()  # one dimension: ``torch.arange(n)``, ``torch.stack([a, b])`` of 0-d ones


RANKS = Kind.ZERO_DIM | Kind.ONE_DIM
# Refinements of TENSOR that say what it is on every path (a constant while shapes are static)
ALL_PATHS = Kind.FROM_NUMBERS | Kind.FROM_SHAPES


def is_data(kind: Kind) -> bool:
    """A tensor on every path we can see.

    ``TENSOR | STATIC`` (``mask`` or ``None``; ``self.training and t < p``) is not, nor
    ``TENSOR | SHAPE`` (a cache length that is an int or a tensor): the Python value may
    be what reaches the test, and then nothing breaks.
    """
    return bool(kind & Kind.TENSOR) and not kind & (
        Kind.UNKNOWN | Kind.MODULE | Kind.STATIC | Kind.SHAPE | Kind.CONTAINER
    )


def none_test(test: ast.expr) -> tuple[str, bool] | None:
    """``name is None`` -> (name, True), ``name is not None`` -> (name, False): the name a
    test compares with None, and whether the test holds when it is None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = none_test(test.operand)
        return (inner[0], not inner[1]) if inner is not None else None
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot))):
        return None
    left, right = test.left, test.comparators[0]
    if isinstance(left, ast.Name) and isinstance(right, ast.Constant) and right.value is None:
        return left.id, isinstance(test.ops[0], ast.Is)
    return None


def not_none(kind: Kind) -> Kind:
    """A tensor-or-None (``Optional[Tensor]``, ``t if c else None``) where a test said it is
    not None: the tensor. Anything less certain stays as it is."""
    if kind & Kind.TENSOR and kind & Kind.STATIC and not kind & (Kind.UNKNOWN | Kind.SHAPE | Kind.DATA_SCALAR | Kind.MODULE):
        return kind & ~Kind.STATIC
    return kind


def join_passed(passed: Kind, other: Kind) -> Kind:
    """The kind of a parameter two call sites pass ``passed`` and ``other`` to.

    A tensor from one caller and a value we cannot see from another stays a tensor: the
    function runs with the tensor at least once, and each of its tests that the tensor
    reaches breaks there (measured on torch 2.13: GB0170 in ``_linear_interp(t0, t)``
    whatever a lambda elsewhere passes). A Python value from the other caller (``None``)
    is a different path of the same test, and the join stays a "maybe".
    """
    if other == Kind.UNKNOWN and is_data(passed):
        return passed
    if passed == Kind.UNKNOWN and is_data(other):
        return other
    return join(passed, other)


def join(left: Kind, right: Kind) -> Kind:
    """The kind of a value that is ``left`` on one path and ``right`` on another.

    The union, except for what a tensor must be on every path: its rank (a tensor of no
    known rank on one path and a 0-d one on the other is of no known rank) and being
    computed from Python numbers and sizes only (``ALL_PATHS``: a mask given by the caller
    on one path and ``torch.ones(shape)`` on the other is data). A literal on one path
    stays one: ops on it fold while tracing on that path (torchdiffeq's
    ``torch.tensor([])`` unless ``step_t`` is given), and a claim on the other path alone
    would be a guess. A path with no tensor (``None``) says nothing of it.
    """
    mine, theirs = left & (RANKS | ALL_PATHS), right & (RANKS | ALL_PATHS)
    if left & Kind.TENSOR and right & Kind.TENSOR:
        kept = mine & theirs  # a rank, or "computed from numbers", holds only if both paths say so
    else:
        kept = mine if left & Kind.TENSOR else theirs
    return (left | right) & ~(RANKS | ALL_PATHS) | kept


def join_all(kinds: Iterable[Kind]) -> Kind:
    result = Kind.NONE
    for kind in kinds:
        result = join(result, kind) if result else kind
    return result


def is_data_scalar(kind: Kind) -> bool:
    return bool(kind & Kind.DATA_SCALAR) and not kind & (Kind.UNKNOWN | Kind.TENSOR)


def is_shape(kind: Kind) -> bool:
    return bool(kind & Kind.SHAPE) and not kind & (Kind.UNKNOWN | Kind.TENSOR | Kind.DATA_SCALAR)


def is_numpy_array(kind: Kind) -> bool:
    """A NumPy array on every path we can see (a tensor on another path is neither)."""
    return bool(kind & Kind.NUMPY) and not kind & Kind.TENSOR


def is_mask(kind: Kind) -> bool:
    return bool(kind & Kind.BOOL) and not kind & Kind.UNKNOWN


BASE_KINDS = (Kind.TENSOR, Kind.DATA_SCALAR, Kind.SHAPE, Kind.STATIC, Kind.MODULE, Kind.UNKNOWN)


def _pair(x: Kind, y: Kind) -> Kind:
    """``x op y`` for two single kinds: a tensor wins, then anything unknown, then data."""
    both = x | y
    if both & Kind.TENSOR:
        return Kind.TENSOR
    if both & (Kind.UNKNOWN | Kind.MODULE):
        return Kind.UNKNOWN
    if both & Kind.DATA_SCALAR:
        return Kind.DATA_SCALAR
    if both & Kind.SHAPE:
        return Kind.SHAPE
    return Kind.STATIC


def _bases(kind: Kind) -> list[Kind]:
    return [base for base in BASE_KINDS if kind & base] or [Kind.UNKNOWN]


def arithmetic(*kinds: Kind) -> Kind:
    """The kind of ``a + b``, path by path: ``(t or None) > 1`` may be a tensor or a bool."""
    if not kinds:
        return Kind.STATIC
    result = Kind.NONE
    for base in _bases(kinds[0]):
        result |= _pair(base, base)
    for kind in kinds[1:]:
        result = _combine(result, kind)
    tensors = [kind for kind in kinds if kind & Kind.TENSOR]
    for refinement in (Kind.FROM_NUMBERS, Kind.CONTAINER, Kind.LITERAL):  # kept when every tensor operand has it
        if tensors and all(kind & refinement for kind in tensors):
            result |= refinement
    ranks = {kind & RANKS for kind in tensors}
    if len(ranks) == 1:  # `index + 1`: broadcasting a rank with itself keeps it
        result |= ranks.pop()
    if result & Kind.FROM_NUMBERS and any(kind & (Kind.FROM_SHAPES | Kind.SHAPE) for kind in kinds):
        result |= Kind.FROM_SHAPES
    if is_shape(result) and any(is_shape(kind) and kind & Kind.DATA_SIZED for kind in kinds):
        result |= Kind.DATA_SIZED  # n + 1 of an unbacked n is unbacked
    if not tensors and any(kind & Kind.NUMPY for kind in kinds):
        # an array and Python numbers give an array (measured on 2.13: `max(a) + 2`,
        # `np.sum(a) // 2` reach `range()` as NumpyNdarrayVariable)
        result |= Kind.NUMPY
    return result


def is_tensor_container(kind: Kind) -> bool:
    """A list, tuple or generator whose elements are all tensors we can see."""
    return bool(kind & Kind.CONTAINER and kind & Kind.TENSOR) and not kind & (
        Kind.UNKNOWN | Kind.MODULE | Kind.STATIC | Kind.SHAPE | Kind.DATA_SCALAR
    )


def is_data_sized(kind: Kind) -> bool:
    """A tensor whose length, or a size whose value, comes from the data (unbacked)."""
    return bool(kind & Kind.DATA_SIZED) and (is_data(kind) or is_shape(kind))


def container_of(kind: Kind) -> Kind:
    """A Python container holding values of ``kind``."""
    return kind | Kind.CONTAINER if kind & Kind.TENSOR else kind


def element_of(kind: Kind) -> Kind:
    """One value taken out of a container (indexing, iterating, unpacking)."""
    return kind & ~Kind.CONTAINER if kind & Kind.CONTAINER else kind


def _combine(left: Kind, right: Kind) -> Kind:
    result = Kind.NONE
    for x in _bases(left):
        for y in _bases(right):
            result |= _pair(x, y)
    return result


def comparison(*kinds: Kind) -> Kind:
    """The kind of ``a < b``: a boolean tensor when a tensor takes part."""
    result = arithmetic(*kinds)
    return result | Kind.BOOL if result & Kind.TENSOR else result


# --- torch API tables (qualified names) --------------------------------------------------
# torch.* calls return tensors unless listed here. Kept as data, like TorchFix's API lists.

TORCH_STATIC_FUNCTIONS = frozenset(
    {
        "torch.is_tensor",
        "torch.is_storage",
        "torch.is_floating_point",
        "torch.is_complex",
        "torch.is_grad_enabled",
        "torch.is_inference_mode_enabled",
        "torch.is_autocast_enabled",
        "torch.is_autocast_cpu_enabled",
        "torch.get_autocast_gpu_dtype",
        "torch.get_autocast_dtype",
        "torch.get_default_dtype",
        "torch.get_default_device",
        "torch.finfo",
        "torch.iinfo",
        "torch.device",
        "torch.dtype",
        "torch.promote_types",
        "torch.result_type",
        "torch.can_cast",
        "torch.no_grad",
        "torch.enable_grad",
        "torch.set_grad_enabled",
        "torch.inference_mode",
        "torch.autocast",
        "torch.get_rng_state",
        "torch.Generator",
        "torch.typename",
        "torch.are_deterministic_algorithms_enabled",
        "torch.compiler.is_compiling",
        "torch.compiler.is_dynamo_compiling",
        "torch.compiler.is_exporting",
        "torch._dynamo.is_compiling",
        "torch.jit.is_scripting",
        "torch.jit.is_tracing",
        "torch.distributed.is_initialized",
        "torch.distributed.is_available",
        "torch.distributed.get_rank",
        "torch.distributed.get_world_size",
        "torch.nn.functional.has_torch_function",
        "torch.overrides.has_torch_function",
        "torch.overrides.has_torch_function_variadic",
        "torch.overrides.has_torch_function_unary",
    }
)
TORCH_STATIC_PREFIXES = (
    "torch.cuda.",
    "torch.backends.",
    "torch.version.",
    "torch.amp.",
    "torch.cpu.",
    "torch.mps.",
    "torch.xpu.",
    "torch.utils.",
    "torch._C.",
    "torch.fx.",
    "torch.jit.",
    "torch.compiler.",
    "torch._dynamo.",
    "torch.distributed.",
    "torch.onnx.",
    "torch.library.",
    "torch.overrides.",
    "torch.testing.",
)
# Exceptions to the prefixes above that do return tensors.
TORCH_TENSOR_UNDER_STATIC_PREFIX = frozenset(
    {
        "torch.utils.checkpoint.checkpoint",
        "torch.utils.checkpoint.checkpoint_sequential",
        "torch.cuda.FloatTensor",
        "torch.cuda.LongTensor",
    }
)
TORCH_SHAPE_FUNCTIONS = frozenset({"torch.numel", "torch.Size", "torch.sym_int", "torch.sym_float"})
TORCH_BOOL_FUNCTIONS = frozenset(
    {
        "isnan",
        "isinf",
        "isfinite",
        "isposinf",
        "isneginf",
        "isreal",
        "isclose",
        "eq",
        "ne",
        "lt",
        "le",
        "gt",
        "ge",
        "greater",
        "less",
        "greater_equal",
        "less_equal",
        "not_equal",
        "logical_and",
        "logical_or",
        "logical_not",
        "logical_xor",
        "isin",
        "signbit",
        "bool",
        "any",
        "all",
    }
)

# Methods of dicts, lists and strings that tensors do not have: a receiver we took for a
# tensor (an unannotated argument) that calls one is not a tensor.
NOT_TENSOR_METHODS = frozenset(
    {"items", "keys", "values", "get", "append", "extend", "update", "setdefault", "insert", "remove",
     "index", "count", "popitem", "startswith", "endswith", "join", "format", "lower", "upper", "strip"}
)

@functools.cache
def tensor_attribute_names() -> frozenset[str]:
    """``dir(torch.Tensor)`` and ``dir(torch.distributions.Distribution)`` without dunders,
    over the releases in the shipped table (compilelint/data/tensor_methods.json, written by
    bench/tensor_methods.py)."""
    text = (resources.files("compilelint") / "data" / "tensor_methods.json").read_text(encoding="utf-8")
    return frozenset(json.loads(text)["names"])


def is_tensor_method(name: str) -> bool:
    """A name ``torch.Tensor`` (or a distribution, which we also kind as a tensor) has;
    dunders are left to Python's own rules."""
    return name.startswith("__") or name in tensor_attribute_names()


# Methods only tensors have: not NumPy arrays, Python numbers, containers or strings, nor
# nn.Modules (which share .cpu/.float/.to with tensors). A value we know nothing about
# that calls one is a tensor (``d0 = norm(y0 / scale).abs()`` with ``norm`` a parameter).
TENSOR_ONLY_METHODS = frozenset(
    {"abs", "sqrt", "exp", "unsqueeze", "masked_fill", "softmax", "log_softmax", "sigmoid", "type_as", "detach",
     "contiguous", "view_as", "expand_as", "clamp", "clamp_min", "clamp_max", "norm", "relu", "new_zeros",
     "new_ones", "new_full", "new_empty", "new_tensor", "isnan", "isinf", "isfinite", "masked_select", "nonzero"}
)

# Tensor methods whose results are not tensors.
TENSOR_DATA_METHODS = frozenset({"item", "tolist"})
TENSOR_SHAPE_METHODS = frozenset({"size", "numel", "nelement", "stride", "storage_offset"})
# output length depends on the data (the first dimension is an unbacked size)
DATA_SIZED_FUNCTIONS = frozenset({"nonzero", "argwhere", "unique", "unique_consecutive", "masked_select", "bincount"})
# keep the first dimension of their receiver
LENGTH_PRESERVING_METHODS = frozenset(
    {"squeeze", "flatten", "long", "int", "float", "half", "bool", "to", "clone", "contiguous", "detach", "cpu", "cuda", "type_as", "abs", "neg"}
)
# keep their receiver's dtype: a boolean mask stays a boolean mask
DTYPE_PRESERVING_METHODS = frozenset(
    {"masked_fill", "masked_fill_", "clone", "detach", "contiguous", "view", "reshape", "expand", "expand_as",
     "flatten", "squeeze", "unsqueeze", "permute", "transpose", "repeat", "cpu", "cuda", "logical_not"}
)
TENSOR_STATIC_METHODS = frozenset(
    {
        "dim",
        "ndimension",
        "is_floating_point",
        "is_complex",
        "is_contiguous",
        "is_signed",
        "is_pinned",
        "is_shared",
        "is_set_to",
        "get_device",
        "element_size",
        "data_ptr",
        "untyped_storage",
        "type",
        "is_nonzero",
        "equal",
        "allclose",
        "has_names",
        "is_inference",
        "requires_grad_",
        "register_hook",
        "retain_grad",
        "numpy",
    }
)
TENSOR_STATIC_ATTRIBUTES = frozenset(
    {
        "dtype",
        "device",
        "layout",
        "ndim",
        "is_cuda",
        "is_cpu",
        "is_meta",
        "is_mps",
        "is_xpu",
        "is_sparse",
        "is_quantized",
        "is_leaf",
        "is_nested",
        "requires_grad",
        "names",
        "grad_fn",
        "itemsize",
        "nbytes",
    }
)
# `values`/`indices`: the named tuples of max, min, topk, sort, mode, median
TENSOR_TENSOR_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag", "data", "grad", "values", "indices"})

# NumPy functions whose results stay Python values for Dynamo, or that NUMPY does not
# describe: dtype and type queries, and elementwise ufuncs (measured on 2.13:
# `int(np.ceil(n / 4))`, `x / np.sqrt(d)` do not break; `np.lcm`/`np.gcd` used as a number
# fail differently, GB0208). numpy.random is CL107's.
NUMPY_NOT_ARRAYS = frozenset(
    {"dtype", "finfo", "iinfo", "issubdtype", "result_type", "promote_types", "can_cast", "isscalar", "ndim", "shape",
     "ceil", "floor", "trunc", "rint", "round", "around", "sqrt", "cbrt", "exp", "exp2", "expm1", "log", "log2", "log10",
     "log1p", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "arctan2", "sinh", "cosh", "tanh", "abs", "absolute",
     "fabs", "sign", "power", "float_power", "square", "reciprocal", "negative", "add", "subtract", "multiply", "divide",
     "true_divide", "floor_divide", "mod", "remainder", "fmod", "hypot", "maximum", "minimum", "fmax", "fmin", "clip",
     "isnan", "isinf", "isfinite", "lcm", "gcd", "deg2rad", "rad2deg", "degrees", "radians", "pi", "e", "inf", "nan"}
)


# Submodules torch._numpy traces like numpy's own functions (measured: float() of
# np.linalg.norm(x.numpy()) breaks with GB0033, as float() of np.sum(...) does).
NUMPY_ARRAY_SUBMODULES = frozenset({"linalg", "fft"})


# numpy.random draws -> the position of their `size` argument (None: every positional
# argument is a size; -1: the result is an array whatever the arguments). Given a size they
# return an array: traced into torch ops, or, for the draws torch._numpy lacks (GB0294), a
# real ndarray that the code resumed after that break receives as an array input. Without
# one they return a Python number. Measured on 2.13: `max(np.random.geometric(p, n)) + 2`
# reaches `range()` as an array (GB0059), `np.random.geometric(p) + 2` does not.
NUMPY_RANDOM_SIZE_ARGUMENT: dict[str, int | None] = {
    "rand": None, "randn": None,
    "random": 0, "random_sample": 0, "sample": 0, "ranf": 0, "standard_normal": 0, "standard_exponential": 0,
    "standard_cauchy": 0,
    "geometric": 1, "poisson": 1, "exponential": 1, "choice": 1, "standard_gamma": 1, "chisquare": 1,
    "rayleigh": 1, "pareto": 1, "weibull": 1, "power": 1, "zipf": 1, "logseries": 1, "standard_t": 1,
    "uniform": 2, "normal": 2, "randint": 2, "binomial": 2, "beta": 2, "gamma": 2, "laplace": 2, "logistic": 2,
    "lognormal": 2, "gumbel": 2, "negative_binomial": 2, "vonmises": 2, "wald": 2, "f": 2, "noncentral_chisquare": 2,
    "hypergeometric": 3, "triangular": 3, "noncentral_f": 3,
    "permutation": -1, "multinomial": -1, "dirichlet": -1,
}  # fmt: skip


# Of NUMPY_NOT_ARRAYS, what no argument makes an array: type queries and constants.
NUMPY_QUERIES = frozenset(
    {"dtype", "finfo", "iinfo", "issubdtype", "result_type", "promote_types", "can_cast", "isscalar", "ndim", "shape",
     "pi", "e", "inf", "nan"}
)  # fmt: skip


def numpy_function_kind(name: str, arguments: Sequence[Kind] = ()) -> Kind:
    """``numpy.sum`` -> an array Dynamo traces as a tensor; an elementwise ufunc is one when
    an argument is (``np.floor(np.linspace(0, n, 5))``: measured on 2.13, ``range()`` of its
    elements breaks with GB0059 in both modes); anything else stays UNKNOWN."""
    parts = name.split(".")
    if len(parts) == 3 and parts[1] in NUMPY_ARRAY_SUBMODULES:  # numpy.linalg.norm, numpy.fft.rfft
        parts = [parts[0], parts[2]]
    if len(parts) != 2 or not parts[1][:1].islower():
        return Kind.UNKNOWN
    if parts[1] in NUMPY_NOT_ARRAYS:
        array_in = parts[1] not in NUMPY_QUERIES and any(is_numpy_array(k) for k in arguments)
        return Kind.UNKNOWN | Kind.NUMPY if array_in else Kind.UNKNOWN
    return Kind.UNKNOWN | Kind.NUMPY


def numpy_draw_kind(name: str, positional: int, keywords: frozenset[str | None]) -> Kind:
    """``numpy.random.geometric(p, n)`` -> an array; a draw without a size -> UNKNOWN."""
    module, _, function = name.rpartition(".")
    if module != "numpy.random" or function not in NUMPY_RANDOM_SIZE_ARGUMENT:
        return Kind.UNKNOWN
    size = NUMPY_RANDOM_SIZE_ARGUMENT[function]
    if size == -1 or None in keywords:  # permutation(x); f(*args, **sizes): not told apart
        return Kind.UNKNOWN | Kind.NUMPY if size == -1 else Kind.UNKNOWN
    given = positional > 0 if size is None else positional > size or "size" in keywords
    return Kind.UNKNOWN | Kind.NUMPY if given else Kind.UNKNOWN
