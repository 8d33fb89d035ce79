"""Kinds of calls, attribute reads and subscripts: where torch's API knowledge lives."""

from __future__ import annotations

import ast
import builtins
from typing import TYPE_CHECKING

from compilelint.analysis import function_aliases, ranks
from compilelint.analysis import kinds as K
from compilelint.analysis.kinds import Kind

if TYPE_CHECKING:
    from compilelint.analysis.expressions import Evaluator

BUILTIN_NAMES = frozenset(dir(builtins))


def builtin_name(evaluator: Evaluator, func: ast.expr) -> str | None:
    """The builtin a call refers to, unless the module or function rebinds that name."""
    if not isinstance(func, ast.Name) or func.id not in BUILTIN_NAMES:
        return None
    if func.id in evaluator.locals or func.id in evaluator.env or func.id in evaluator.index.module_names:
        return None
    return func.id


def call(evaluator: Evaluator, node: ast.Call) -> Kind:
    evaluator.called.add(id(node.func))
    arg_kinds = [evaluator.kind(arg) for arg in node.args]
    _bind_ordering_key(evaluator, node, arg_kinds)
    for keyword in node.keywords:
        evaluator.kind(keyword.value)
    aliased = function_aliases.held_functions(evaluator, node.func)
    if aliased:  # spline_fn = splines.a if c else splines.b; spline_fn(x)
        return function_aliases.call_each(evaluator, node, aliased, call)
    # make(c).apply(x): what the inner call returns decides which method runs, so it goes first
    chained = isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Call)
    if chained:
        evaluator.kind(getattr(node.func, "value"))  # once: a.f().g().h() would grow exponentially
    targets = evaluator.sink.resolve(node, evaluator)
    evaluator.note_method_call(node)
    if targets:
        if isinstance(node.func, ast.Attribute) and not chained:
            evaluator.kind(node.func.value)
        results = [(target, evaluator.sink.called(target, node, evaluator)) for target in targets]
        return K.join_all(kind for target, kind in results if target.gives_result) or Kind.UNKNOWN
    if id(node) in evaluator.method_kinds:
        return evaluator.method_kinds[id(node)]
    builtin = builtin_name(evaluator, node.func)
    if builtin is not None:
        return _builtin_kind(evaluator, builtin, node, arg_kinds)
    name = evaluator.qualname(node.func)
    if name is not None and name in evaluator.index.classes:
        return Kind.MODULE if evaluator.index.classes[name].is_module else Kind.UNKNOWN
    if name is not None and name.startswith("torch."):
        kind = torch_function_kind(name, node)
        if name == "torch.split" and len(arg_kinds) > 1 and _split_by_data(arg_kinds[1]):
            kind = Kind.TENSOR | Kind.CONTAINER | Kind.DATA_SIZED  # pieces as long as the data says
        values = arg_kinds + [evaluator.cache.get(id(k.value), Kind.UNKNOWN) for k in node.keywords if k.arg != "device"]
        if kind & Kind.TENSOR and values and all(not v & ~(Kind.SHAPE | Kind.STATIC) for v in values):
            kind |= Kind.FROM_NUMBERS | (Kind.FROM_SHAPES if any(v & Kind.SHAPE for v in values) else Kind.NONE)
        if kind & Kind.TENSOR:
            kind |= ranks.function_rank(name, node, arg_kinds, lambda e: evaluator.cache.get(id(e), Kind.NONE))
        return kind | _literal(evaluator, name, node)
    if name is not None and name.startswith("math."):
        # a NumPy value is read back as a Python number here (GB0033, measured on 2.13)
        return K.arithmetic(*arg_kinds) & ~Kind.NUMPY if arg_kinds else Kind.STATIC
    if name is not None and name.startswith("numpy.") and imported_root(evaluator, node.func):
        evaluator.sink.external(node, evaluator, name)
        if isinstance(node.func, ast.Attribute):
            _receiver_kind(evaluator, node.func)
        if name.startswith("numpy.random."):
            # `size=None` draws one number
            keywords = frozenset(k.arg for k in node.keywords if not (isinstance(k.value, ast.Constant) and k.value.value is None))
            return K.numpy_draw_kind(name, len(node.args), keywords)
        return K.numpy_function_kind(name, [*arg_kinds, *(evaluator.cache.get(id(k.value), Kind.UNKNOWN) for k in node.keywords)])
    if name is not None and imported_root(evaluator, node.func):
        known = evaluator.sink.external(node, evaluator, name)  # maybe a helper in another file of the run
        if name.rsplit(".", 1)[-1][:1].isupper():  # CamelCase: a class; the result is its instance
            evaluator.imported_built[id(node)] = (name,)
        if known is not None:
            return known
    elif isinstance(node.func, ast.Name) and _from_star_import(evaluator, node.func.id):
        for module in evaluator.index.imports.stars:  # from .utils import *: one of them defines it
            evaluator.sink.external(node, evaluator, f"{module}.{node.func.id}")
    if isinstance(node.func, ast.Attribute):
        own = evaluator.sink.attribute(node.func, evaluator)  # self.<submodule>(...)
        if own is not None:
            evaluator.cache[id(node.func)] = own
            return _module_output(evaluator, node) if own == Kind.MODULE else Kind.UNKNOWN
        return _method_kind(evaluator, node, _receiver_kind(evaluator, node.func))
    callee = evaluator.kind(node.func)
    if callee & Kind.MODULE and not callee & Kind.UNKNOWN:
        return _module_output(evaluator, node)
    return Kind.UNKNOWN


ORDERING_BUILTINS = frozenset({"sorted", "max", "min"})


def _bind_ordering_key(evaluator: Evaluator, node: ast.Call, arg_kinds: list[Kind]) -> None:
    """``sorted(xs, key=lambda t: ...)``, ``xs.sort(key=...)``, ``max(a, b, key=...)``: the
    lambda's parameter is an element of what is ordered, so its body's kind is the key's."""
    from compilelint.analysis.expressions import element_kind  # expressions imports this module

    key = next((k.value for k in node.keywords if k.arg == "key"), None)
    if not isinstance(key, ast.Lambda) or len(key.args.args) != 1 or not (node.args or isinstance(node.func, ast.Attribute)):
        return
    if isinstance(node.func, ast.Attribute) and node.func.attr == "sort" and not node.args:
        element = element_kind(evaluator.kind(node.func.value), node.func.value, evaluator)
    elif builtin_name(evaluator, node.func) in ORDERING_BUILTINS and node.args:
        one = len(node.args) == 1
        element = element_kind(arg_kinds[0], node.args[0], evaluator) if one else K.join_all(arg_kinds)
    else:
        return
    evaluator.lambda_params[id(key)] = element


def _receiver_kind(evaluator: Evaluator, func: ast.Attribute) -> Kind:
    """The kind of ``func``'s receiver; a call receiver was evaluated before resolving."""
    if isinstance(func.value, ast.Call) and id(func.value) in evaluator.cache:
        return evaluator.cache[id(func.value)]
    return evaluator.kind(func.value)


def _module_output(evaluator: Evaluator, node: ast.Call) -> Kind:
    """A module we cannot see into returns a tensor, or a tuple led by one: unpacking it
    (``h, height, width = layer(h)``) gives a tensor first and unknown values after."""
    evaluator.tuple_kinds.setdefault(id(node), [Kind.TENSOR])
    return Kind.TENSOR


def torch_function_kind(name: str, node: ast.Call) -> Kind:
    last = name.rsplit(".", 1)[-1]
    if name in K.TORCH_STATIC_FUNCTIONS or last in ("equal", "allclose", "is_nonzero"):
        return Kind.STATIC
    if name in K.TORCH_SHAPE_FUNCTIONS:
        return Kind.SHAPE
    if name.startswith(K.TORCH_STATIC_PREFIXES) and name not in K.TORCH_TENSOR_UNDER_STATIC_PREFIX:
        return Kind.STATIC
    if name.startswith("torch.nn.") and not name.startswith("torch.nn.functional.") and last[:1].isupper():
        return Kind.MODULE
    if last in K.TORCH_BOOL_FUNCTIONS:
        return Kind.TENSOR | Kind.BOOL
    if name == f"torch.{last}" and last in K.DATA_SIZED_FUNCTIONS:
        return _data_sized_result(node)
    if name == "torch.autograd.grad":
        return Kind.TENSOR | Kind.CONTAINER  # a tuple: one gradient per input
    if name == "torch.where" and len(node.args) == 1 and not node.keywords:
        return Kind.TENSOR | Kind.CONTAINER | Kind.DATA_SIZED  # a tuple of index tensors, one per dimension
    return Kind.TENSOR


# A literal of at most one element: what Dynamo's fake tensors keep as a constant
LITERAL_FACTORIES = frozenset({"torch.tensor", "torch.as_tensor"})
JOINING_FUNCTIONS = frozenset({"torch.cat", "torch.concat", "torch.concatenate"})


def _literal(evaluator: Evaluator, name: str, node: ast.Call) -> Kind:
    """``torch.tensor([])``, ``torch.tensor(3)``, and ``torch.cat`` of such literals."""
    if name in LITERAL_FACTORIES and node.args:
        data = node.args[0]
        if isinstance(data, ast.Constant) and isinstance(data.value, (int, float, bool)):
            return Kind.FROM_NUMBERS | Kind.LITERAL
        if isinstance(data, (ast.List, ast.Tuple)) and len(data.elts) <= 1 and all(isinstance(e, ast.Constant) for e in data.elts):
            return Kind.FROM_NUMBERS | Kind.LITERAL
    # joining literals: empty ones stay empty (torchdiffeq's `torch.cat([step_t, jump_t])`);
    # two one-element literals would make two elements, which this does not tell apart
    parts = node.args[0] if name in JOINING_FUNCTIONS and node.args else None
    if isinstance(parts, (ast.List, ast.Tuple)) and parts.elts:
        if all(evaluator.cache.get(id(e), Kind.NONE) & Kind.LITERAL for e in parts.elts):
            return Kind.FROM_NUMBERS | Kind.LITERAL
    return Kind.NONE


def _builtin_kind(evaluator: Evaluator, name: str, node: ast.Call, args: list[Kind]) -> Kind:
    first = args[0] if args else Kind.STATIC
    if name == "len":
        if first & Kind.UNKNOWN:
            return Kind.UNKNOWN
        if first & Kind.TENSOR and not first & Kind.CONTAINER:
            return Kind.SHAPE | (first & Kind.DATA_SIZED)
        return Kind.STATIC
    if name in ("int", "float", "bool", "complex"):
        # int() of a NumPy value reads it back (GB0033): a Python number from then on
        return Kind.DATA_SCALAR if first & Kind.TENSOR and not first & Kind.UNKNOWN else K.arithmetic(first) & ~Kind.NUMPY
    bounds = [a for a in args if not K.is_shape(a)]
    if name == "min" and len(args) > 1 and len(bounds) < len(args) and bounds and not any(a & (Kind.SHAPE | Kind.TENSOR | Kind.DATA_SCALAR) for a in bounds):
        # a size clamped by a bound (`min(x.shape[2], overlap)`): Dynamo guards `size >= bound`
        # and the value is the bound from then on, the same for every larger size
        return Kind.STATIC if any(a & Kind.STATIC for a in args) else Kind.UNKNOWN
    if name in ("min", "max", "sum", "range", "abs", "round", "pow", "divmod", "any", "all"):
        # min/max/sum/abs of an array stay arrays for Dynamo (measured on 2.13); the rest
        # do not describe one
        kind = K.arithmetic(*args) if args else Kind.STATIC
        return kind if name in ("min", "max", "sum", "abs") else kind & ~Kind.NUMPY
    if name in ("tuple", "list", "reversed", "sorted", "iter", "zip", "enumerate", "dict", "set"):
        union = Kind.NONE
        for kind in args:
            union |= kind
        return K.container_of(union) if union else Kind.STATIC
    if name == "next":
        return K.element_of(first)
    if name == "getattr":
        return _getattr_kind(evaluator, node, first)
    if name in ("map", "filter", "eval", "exec", "globals", "locals", "__import__"):
        return Kind.UNKNOWN
    return Kind.STATIC


def _getattr_kind(evaluator: Evaluator, node: ast.Call, obj: Kind) -> Kind:
    if len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str):
        synthetic = ast.Attribute(value=node.args[0], attr=node.args[1].value, ctx=ast.Load())
        ast.copy_location(synthetic, node)
        return attribute(evaluator, synthetic)
    if len(node.args) == 2 and isinstance(node.args[1], ast.JoinedStr):  # getattr(self, f"factor_{mode}")
        parts = node.args[1].values
        prefix = parts[0].value if parts and isinstance(parts[0], ast.Constant) and isinstance(parts[0].value, str) else ""
        suffix = parts[-1].value if len(parts) > 1 and isinstance(parts[-1], ast.Constant) and isinstance(parts[-1].value, str) else ""
        kind = evaluator.sink.matching_attributes(node.args[0], prefix, suffix)
        if kind is not None:
            return kind
    return Kind.STATIC if obj == Kind.STATIC else Kind.UNKNOWN


def _method_kind(evaluator: Evaluator, node: ast.Call, receiver: Kind) -> Kind:
    assert isinstance(node.func, ast.Attribute)
    method = node.func.attr
    if method in K.TENSOR_DATA_METHODS and receiver & (Kind.TENSOR | Kind.UNKNOWN):
        return Kind.DATA_SCALAR  # only tensors (and rare NumPy arrays) have .item()/.tolist()
    if K.is_numpy_array(receiver):
        # arr.astype(int), arr.sum(): still an array; a value that is a tensor on another
        # path (a helper returning either) is neither, as far as we can see
        return Kind.UNKNOWN | Kind.NUMPY
    if receiver & Kind.UNKNOWN or receiver == Kind.NONE:
        return _tensor_method_kind(evaluator, method, node) if method in K.TENSOR_ONLY_METHODS else Kind.UNKNOWN
    if receiver & Kind.CONTAINER:
        return K.element_of(receiver) if method in ("pop", "get", "__getitem__") else Kind.UNKNOWN
    if receiver & Kind.TENSOR:
        kind = _tensor_method_kind(evaluator, method, node)
        if receiver & Kind.BOOL and method in K.DTYPE_PRESERVING_METHODS:
            kind |= Kind.BOOL
        if receiver & Kind.DATA_SIZED and (method in K.LENGTH_PRESERVING_METHODS or _first_size(method, node)):
            kind |= Kind.DATA_SIZED
        if receiver & Kind.LITERAL and method in K.LENGTH_PRESERVING_METHODS:
            kind |= Kind.LITERAL  # `.to(dtype)` of a literal keeps its one element
        if kind & Kind.TENSOR:
            arguments = [evaluator.cache.get(id(a), Kind.UNKNOWN) for a in node.args]
            kind |= ranks.method_rank(method, node, receiver, arguments)
        return kind | receiver & (Kind.FROM_NUMBERS | Kind.FROM_SHAPES) if kind & Kind.TENSOR else kind
    if receiver & Kind.MODULE:
        return Kind.UNKNOWN
    if receiver & Kind.DATA_SCALAR:
        return Kind.DATA_SCALAR
    if receiver & Kind.SHAPE:
        return Kind.SHAPE
    return Kind.STATIC


def _tensor_method_kind(evaluator: Evaluator, method: str, node: ast.Call) -> Kind:
    if method in K.NOT_TENSOR_METHODS:  # the "tensor" was a dict, list or string after all
        return Kind.UNKNOWN
    if not K.is_tensor_method(method):  # `cache.get_seq_length()` of a `cache: torch.Tensor` annotation
        return Kind.UNKNOWN
    if method in K.TENSOR_DATA_METHODS:
        return Kind.DATA_SCALAR
    if method == "numpy":  # Dynamo traces the array as a tensor (torch._numpy): reading it back is data-dependent
        return Kind.UNKNOWN | Kind.NUMPY
    if method in K.TENSOR_SHAPE_METHODS:
        return Kind.SHAPE
    if method in K.TENSOR_STATIC_METHODS:
        return Kind.STATIC
    if method in K.TORCH_BOOL_FUNCTIONS:
        return Kind.TENSOR | Kind.BOOL
    if method in K.DATA_SIZED_FUNCTIONS:
        return _data_sized_result(node)
    if method == "split" and node.args and _split_by_data(evaluator.kind(node.args[0])):
        return Kind.TENSOR | Kind.CONTAINER | Kind.DATA_SIZED
    if method in ("to", "type") and any(evaluator.qualname(a) == "torch.bool" for a in node.args):
        return Kind.TENSOR | Kind.BOOL
    return Kind.TENSOR


def _first_size(method: str, node: ast.Call) -> bool:
    """``t.size(0)``, ``t.numel()``: sizes that include the first dimension."""
    if method in ("numel", "nelement"):
        return True
    return method == "size" and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and node.args[0].value == 0


def attribute(evaluator: Evaluator, node: ast.Attribute) -> Kind:
    special = evaluator.sink.attribute(node, evaluator)
    if special is not None:
        return special
    name = evaluator.qualname(node)
    if name is not None and name.startswith("torch.") and name.split(".", 2)[1] not in evaluator.locals:
        return Kind.STATIC  # torch.float16, torch.bool, torch.Tensor, torch.cuda ...
    receiver = evaluator.kind(node.value)
    attr = node.attr
    if attr == "shape":
        return Kind.SHAPE | (receiver & Kind.DATA_SIZED if receiver & Kind.TENSOR else Kind.NONE)
    if attr in K.TENSOR_STATIC_ATTRIBUTES:
        return Kind.STATIC
    if receiver & Kind.UNKNOWN:
        return Kind.UNKNOWN
    if receiver & Kind.TENSOR:
        return Kind.TENSOR if attr in K.TENSOR_TENSOR_ATTRIBUTES else Kind.UNKNOWN
    if receiver & Kind.MODULE:
        return Kind.TENSOR if attr in ("weight", "bias") else Kind.UNKNOWN
    return receiver if receiver != Kind.NONE else Kind.UNKNOWN


def subscript(evaluator: Evaluator, node: ast.Subscript) -> Kind:
    kind = _subscript(evaluator, node)
    value = evaluator.cache.get(id(node.value), Kind.NONE)
    if kind & Kind.TENSOR and value & Kind.TENSOR and not value & Kind.CONTAINER:  # an element of a list keeps its rank
        kind = kind & ~K.RANKS | ranks.subscript_rank(value, node.slice, evaluator.cache.get(id(node.slice), Kind.NONE))
    return kind


def _data_sized_result(node: ast.Call) -> Kind:
    """``nonzero(as_tuple=True)`` gives a tuple of index tensors, one per dimension, each as
    long as the data says (measured on torch 2.13: ``src, dst = m.nonzero(as_tuple=True)``,
    then ``if src.numel() > 0:`` fails under ``fullgraph=True`` as ``m.nonzero()`` does)."""
    as_tuple = any(k.arg == "as_tuple" and isinstance(k.value, ast.Constant) and k.value.value is True for k in node.keywords)
    return Kind.TENSOR | Kind.DATA_SIZED | (Kind.CONTAINER if as_tuple else Kind.NONE)


def _split_by_data(sizes: Kind) -> bool:
    """Split sizes read from tensor data (``lengths.tolist()``): each piece's length is an
    unbacked size (measured on torch 2.13: ``pad_sequence`` of the pieces fails under
    ``fullgraph=True``, "Could not guard on data-dependent expression")."""
    return sizes == Kind.DATA_SCALAR


def _subscript(evaluator: Evaluator, node: ast.Subscript) -> Kind:
    value = evaluator.kind(node.value)
    evaluator.kind(node.slice)
    if K.is_numpy_array(value):
        return Kind.UNKNOWN | Kind.NUMPY  # an element of an array is a 0-d array
    if value & Kind.UNKNOWN:
        return Kind.UNKNOWN
    if isinstance(node.slice, ast.Slice):
        return value  # a slice of a container is a container
    if value & Kind.DATA_SIZED:
        if value & Kind.CONTAINER:  # torch.where(c)[0], uniques[i]: each element is data-sized
            return K.element_of(value)
        return K.element_of(value) if _keeps_first_dimension(node.slice, value) else K.element_of(value) & ~Kind.DATA_SIZED
    if K.is_data(value) and K.is_mask(evaluator.kind(node.slice)):
        return Kind.TENSOR | Kind.DATA_SIZED  # x[mask]
    return K.element_of(value)


def _keeps_first_dimension(index: ast.expr, value: Kind) -> bool:
    """``hit[:, 0]`` keeps a data-sized tensor's length; ``hit.shape[0]`` is that length."""
    if value & Kind.TENSOR:
        first = index.elts[0] if isinstance(index, ast.Tuple) and index.elts else index
        return isinstance(first, ast.Slice) and first.lower is None and first.upper is None
    return isinstance(index, ast.Constant) and index.value == 0


def imported_root(evaluator: Evaluator, func: ast.expr) -> bool:
    root = func
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return False
    if root.id in evaluator.local_imports:  # `from torch_geometric.utils import to_dense_batch` in forward
        return True
    return root.id in evaluator.index.imports and root.id not in evaluator.locals


def _from_star_import(evaluator: Evaluator, name: str) -> bool:
    """A free name in a file with ``from x import *`` that nothing else binds."""
    if not evaluator.index.imports.stars:
        return False
    return name not in evaluator.locals and name not in evaluator.env and name not in evaluator.index.module_names
