"""Kinds of parameters: from annotations and defaults at roots, from arguments elsewhere."""

from __future__ import annotations

import ast
from collections.abc import Collection

from compilelint.analysis.imports import dotted_name
from compilelint.analysis.kinds import NOT_TENSOR_METHODS, Kind, container_of
from compilelint.analysis.module_index import FunctionInfo, FunctionNode

TENSOR_ANNOTATIONS = frozenset(
    {
        "Tensor",
        "FloatTensor",
        "LongTensor",
        "BoolTensor",
        "IntTensor",
        "HalfTensor",
        "BFloat16Tensor",
        "DoubleTensor",
        "ByteTensor",
        "Parameter",
    }
)
STATIC_ANNOTATIONS = frozenset({"bool", "int", "float", "str", "bytes", "complex", "dtype", "device"})
SEQUENCE_ANNOTATIONS = frozenset({"tuple", "Tuple", "list", "List", "Sequence", "Iterable"})
MAPPING_ANNOTATIONS = frozenset({"dict", "Dict", "Mapping", "MutableMapping"})


def admits_python_values(annotation: ast.expr) -> bool:
    """Whether the annotation lets a Python value other than None through (``int``,
    ``Optional[Union[int, Tensor]]``, ``float | Tensor``): a test that rules out None
    leaves that value possible. ``Optional[Tensor]`` and ``Tensor | None`` do not."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return True
    if isinstance(annotation, ast.Constant) and annotation.value is None:
        return False
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return admits_python_values(annotation.left) or admits_python_values(annotation.right)
    if isinstance(annotation, ast.Subscript) and (dotted_name(annotation.value) or "").rsplit(".", 1)[-1] in ("Optional", "Union"):
        elements = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
        return any(admits_python_values(element) for element in elements)
    return bool(annotation_kind(annotation) & Kind.STATIC)


def annotation_kind(annotation: ast.expr) -> Kind:
    """``torch.Tensor`` -> TENSOR, ``Optional[bool]`` -> STATIC, ``Tensor | None`` -> TENSOR|STATIC,
    ``Dict[str, Tensor]`` -> a container of tensors."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return Kind.UNKNOWN
    if isinstance(annotation, ast.Constant) and annotation.value is None:
        return Kind.STATIC
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return annotation_kind(annotation.left) | annotation_kind(annotation.right)
    if isinstance(annotation, ast.Subscript):
        outer = dotted_name(annotation.value) or ""
        if outer.rsplit(".", 1)[-1] == "Optional":
            return annotation_kind(annotation.slice) | Kind.STATIC
        if outer.rsplit(".", 1)[-1] == "Union" and isinstance(annotation.slice, ast.Tuple):
            union = Kind.NONE
            for element in annotation.slice.elts:
                union |= annotation_kind(element)
            return union
        if outer.rsplit(".", 1)[-1] in SEQUENCE_ANNOTATIONS:
            elements = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
            union = Kind.NONE
            for element in elements:
                if not (isinstance(element, ast.Constant) and element.value is Ellipsis):
                    union |= annotation_kind(element)
            return container_of(union) if union else Kind.UNKNOWN
        if outer.rsplit(".", 1)[-1] in MAPPING_ANNOTATIONS and isinstance(annotation.slice, ast.Tuple):
            values = annotation_kind(annotation.slice.elts[-1])
            # a dict of tensors (kornia's `params: Dict[str, Tensor]`); other values stay unknown
            return container_of(values) if values == Kind.TENSOR else Kind.UNKNOWN
        return Kind.UNKNOWN  # callables, generics we do not model
    name = dotted_name(annotation)
    if name is None:
        return Kind.UNKNOWN
    last = name.rsplit(".", 1)[-1]
    if last in TENSOR_ANNOTATIONS:
        return Kind.TENSOR
    if last in STATIC_ANNOTATIONS:
        return Kind.STATIC
    return Kind.UNKNOWN


def default_kind(default: ast.expr) -> Kind:
    """A literal default makes a Python value; ``=None`` alone says nothing about the type."""
    if isinstance(default, ast.Constant):
        return Kind.UNKNOWN if default.value is None else Kind.STATIC
    if isinstance(default, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Constant) for e in default.elts):
        return Kind.STATIC
    if isinstance(default, ast.UnaryOp) and isinstance(default.operand, ast.Constant):
        return Kind.STATIC
    return Kind.UNKNOWN


def _defaults(node: FunctionNode) -> dict[str, ast.expr]:
    args = node.args
    positional = args.posonlyargs + args.args
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults) :]], args.defaults))
    for arg, default in zip(args.kwonlyargs, args.kw_defaults):
        if default is not None:
            defaults[arg.arg] = default
    return defaults


def passed_names(
    node: FunctionNode, call: ast.Call, bound: bool, none_names: Collection[str] = ()
) -> frozenset[str] | None:
    """The parameters a call gives a value (None: it may give any, through ``*a``/``**k``).
    ``None``, or a name of the caller that is None wherever it runs (``none_names``), gives
    none: ``check_contract(sde, y0, ts, bm)`` with sdeint's ``bm=None`` leaves ``bm`` None."""
    positional = [a.arg for a in node.args.posonlyargs + node.args.args][1 if bound else 0 :]
    names: set[str] = set()
    for position, value in enumerate(call.args):
        if isinstance(value, ast.Starred):
            return None
        if position < len(positional) and not _passes_none(value, none_names):
            names.add(positional[position])
    for keyword in call.keywords:
        if keyword.arg is None:
            return None
        if not _passes_none(keyword.value, none_names):
            names.add(keyword.arg)
    return frozenset(names)


def _passes_none(value: ast.expr, none_names: Collection[str]) -> bool:
    if isinstance(value, ast.Constant):
        return value.value is None
    return isinstance(value, ast.Name) and value.id in none_names


def none_defaults(node: FunctionNode) -> frozenset[str]:
    """The parameters whose default is ``None``."""
    return frozenset(name for name, default in _defaults(node).items() if isinstance(default, ast.Constant) and default.value is None)


def none_when_not_given(node: FunctionNode, bound: bool) -> frozenset[str]:
    """The parameters that are None whenever a call gives them no value (``passed_names``):
    those defaulting to None, and those without a default, which a call that gives them
    nothing we count (no ``*a``/``**k``) must have passed None. ``self`` is bound."""
    args = node.args
    positional = [a.arg for a in args.posonlyargs + args.args][1 if bound else 0 :]
    defaults = _defaults(node)
    required = {name for name in positional + [a.arg for a in args.kwonlyargs] if name not in defaults}
    return none_defaults(node) | frozenset(required)


def unbound_parameter_kind(node: FunctionNode, arg: ast.arg) -> Kind:
    """Kind of a parameter no call site gave a value for."""
    if arg is node.args.vararg or arg is node.args.kwarg:
        return Kind.UNKNOWN
    if arg.annotation is not None:
        kind = annotation_kind(arg.annotation)
        if kind != Kind.UNKNOWN:
            return kind
    default = _defaults(node).get(arg.arg)
    return default_kind(default) if default is not None else Kind.UNKNOWN


def root_parameter_kinds(info: FunctionInfo) -> dict[str, Kind]:
    """Where tracing starts: un-annotated, un-defaulted parameters are the tensor inputs,
    unless the body calls a dict, list or string method on one (``inputs.keys()``): that
    one is a container, whatever it holds."""
    node = info.node
    positional = node.args.posonlyargs + node.args.args
    skip_first = info.owner is not None and not info.is_static
    defaults = _defaults(node)
    containers = _used_as_containers(node)
    optional = optional_tensor_inputs(node, defaults, containers)
    kinds: dict[str, Kind] = {}
    for position, arg in enumerate(positional + node.args.kwonlyargs):
        if skip_first and position == 0:
            continue
        if arg.annotation is not None:
            kinds[arg.arg] = annotation_kind(arg.annotation)
        elif arg.arg in defaults and arg.arg in optional:
            kinds[arg.arg] = Kind.TENSOR | Kind.STATIC  # what ``Optional[Tensor]`` says
        elif arg.arg in defaults:
            kinds[arg.arg] = default_kind(defaults[arg.arg])
        elif _names_a_flag(arg.arg):
            kinds[arg.arg] = Kind.STATIC
        elif _names_a_size(arg.arg) or arg.arg in containers:
            kinds[arg.arg] = Kind.UNKNOWN  # an int or a 0-d tensor, a dict: we cannot tell
        else:
            kinds[arg.arg] = Kind.TENSOR
    return kinds


# Attributes and methods of tensors that Python numbers, strings and containers lack: a
# parameter the body reads one of is a tensor whenever it is not None.
TENSOR_EVIDENCE = frozenset(
    {"shape", "dtype", "device", "ndim", "size", "dim", "numel", "float", "long", "bool", "half", "int", "to",
     "masked_fill", "masked_fill_", "unsqueeze", "squeeze", "view", "reshape", "expand", "expand_as", "sum",
     "mean", "any", "all", "ne", "eq", "gt", "lt", "ge", "le", "type_as", "permute", "transpose", "contiguous",
     "flatten", "repeat", "nonzero", "argmax", "cumsum", "logical_not", "masked_select", "new_zeros", "new_ones"}
)  # fmt: skip


def optional_tensor_inputs(node: FunctionNode, defaults: dict[str, ast.expr], containers: frozenset[str]) -> frozenset[str]:
    """Un-annotated parameters defaulting to None that the body treats as tensors
    (``gt_depth.shape``, ``attention_mask.sum(dim=1)``): optional inputs, a tensor when
    given, as ``Optional[Tensor]`` says. Flags, sizes and containers by name or use stay
    unknown (``max_len=None`` may be an int)."""
    candidates = {
        arg.arg for arg in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)
        if arg.annotation is None and _is_none(defaults.get(arg.arg))
        and not _names_a_flag(arg.arg) and not _names_a_size(arg.arg) and arg.arg not in containers
    }  # fmt: skip
    if not candidates:
        return frozenset()
    return frozenset(
        read.value.id
        for read in ast.walk(node)
        if isinstance(read, ast.Attribute) and isinstance(read.value, ast.Name)
        and read.value.id in candidates and read.attr in TENSOR_EVIDENCE
    )  # fmt: skip


def _is_none(default: ast.expr | None) -> bool:
    return isinstance(default, ast.Constant) and default.value is None


def _used_as_containers(node: FunctionNode) -> frozenset[str]:
    """Names the function calls a method of dicts, lists or strings on (``d.items()``)."""
    return frozenset(
        call.func.value.id
        for call in ast.walk(node)
        if isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and isinstance(call.func.value, ast.Name)
        and call.func.attr in NOT_TENSOR_METHODS
    )


def bind_arguments(node: FunctionNode, call: ast.Call, bound: bool, cache: dict[int, Kind]) -> dict[str, Kind]:
    """Kinds the call passes to each named parameter (evaluated arguments come from ``cache``)."""
    positional = [a.arg for a in node.args.posonlyargs + node.args.args]
    if bound and positional:
        positional = positional[1:]
    result: dict[str, Kind] = {}
    for position, value in enumerate(call.args):
        if isinstance(value, ast.Starred):
            for name in positional[position:]:
                result[name] = Kind.UNKNOWN
            break
        if position < len(positional):
            result[positional[position]] = cache.get(id(value), Kind.UNKNOWN)
    names = set(positional) | {a.arg for a in node.args.kwonlyargs}
    for keyword in call.keywords:
        if keyword.arg is None:  # **kwargs: anything may arrive
            for name in names - result.keys():
                result[name] = Kind.UNKNOWN
        elif keyword.arg in names:
            result[keyword.arg] = cache.get(id(keyword.value), Kind.UNKNOWN)
    defaults = _defaults(node)
    for name in names - result.keys():
        if name in defaults:
            result[name] = default_kind(defaults[name]) if default_kind(defaults[name]) != Kind.UNKNOWN else Kind.STATIC
    return result


FLAG_PREFIXES = ("use_", "output_", "return_", "is_", "has_", "do_", "enable_", "interpolate_", "apply_", "with_")
FLAG_NAMES = frozenset({"training", "deterministic", "causal", "verbose", "debug", "inplace", "inference"})


def _names_a_flag(name: str) -> bool:
    """``output_attentions``, ``use_cache``, ``interpolate_pos_encoding``: options, not inputs."""
    return name.startswith(FLAG_PREFIXES) or name in FLAG_NAMES or name.endswith("_flag")


def bind_kinds(
    node: FunctionNode, positional: list[Kind], keywords: dict[str, Kind], skip_self: bool = False
) -> dict[str, Kind]:
    """Like ``bind_arguments``, from the kinds another file's call passed."""
    names = [a.arg for a in node.args.posonlyargs + node.args.args][1 if skip_self else 0 :]
    result = {name: kind for name, kind in zip(names, positional)}
    known = set(names) | {a.arg for a in node.args.kwonlyargs}
    result.update({name: kind for name, kind in keywords.items() if name in known})
    defaults = _defaults(node)
    for name in known - result.keys():
        if name in defaults:
            kind = default_kind(defaults[name])
            result[name] = kind if kind != Kind.UNKNOWN else Kind.STATIC
    return result


SIZE_NAMES = frozenset(
    {"height", "width", "depth", "length", "size", "dim", "channels", "stride", "padding",
     "i", "j", "n", "h", "w"}  # single letters that name indices and sizes (q, k, v, x, t name tensors)
)
SIZE_PREFIXES = ("num_", "n_", "max_", "min_")
SIZE_SUFFIXES = (
    "_size",
    "_len",
    "_length",
    "_dim",
    "_height",
    "_width",
    "_idx",
    "_index",
    "_count",
    "_stride",
    "_dimensions",
    "_dims",
    "_shape",
    "_sizes",
)


def _names_a_size(name: str) -> bool:
    """``height``, ``seq_len``, ``num_frames``: sizes passed down, often Python ints."""
    return name in SIZE_NAMES or name.startswith(SIZE_PREFIXES) or name.endswith(SIZE_SUFFIXES)


def all_parameters(node: FunctionNode) -> list[ast.arg]:
    args = node.args
    params = args.posonlyargs + args.args + args.kwonlyargs
    if args.vararg:
        params.append(args.vararg)
    if args.kwarg:
        params.append(args.kwarg)
    return params


def parameter_names(node: FunctionNode) -> set[str]:
    return {arg.arg for arg in all_parameters(node)}


def rebinds(function: FunctionNode, name: str) -> bool:
    """Whether the function assigns ``name`` anywhere (then it may hold a computed tensor)."""
    for node in ast.walk(function):
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For, ast.NamedExpr)):
            targets = [node.target]
        else:
            continue
        if any(isinstance(n, ast.Name) and n.id == name for target in targets for n in ast.walk(target)):
            return True
    return False


NUMBER_ANNOTATIONS = frozenset({"int", "float"})


def number_parameters(function: ast.FunctionDef | ast.AsyncFunctionDef) -> dict[str, str | None]:
    """Number parameters and their type (``"int"``, ``"float"``, None when only a default says so):
    annotated ``int``/``float``, or un-annotated with a number default (not a bool)."""
    args = function.args
    positional = args.posonlyargs + args.args
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(args.defaults) :]], args.defaults))
    defaults.update({a.arg: d for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None})
    numbers: dict[str, str | None] = {}
    for arg in positional + args.kwonlyargs:
        annotation = arg.annotation
        if isinstance(annotation, ast.Name) and annotation.id in NUMBER_ANNOTATIONS:
            numbers[arg.arg] = annotation.id
        elif annotation is None:
            default = defaults.get(arg.arg)
            if isinstance(default, ast.Constant) and isinstance(default.value, (int, float)):
                if not isinstance(default.value, bool):
                    numbers[arg.arg] = type(default.value).__name__
    return numbers


# What a number may be combined with and stay only that number to Dynamo (``step + 1``, ``:n``)
_NUMBER_ARITHMETIC = (ast.BinOp, ast.UnaryOp, ast.Slice, ast.Constant, ast.operator, ast.unaryop, ast.expr_context)


def number_operands(expression: ast.expr, numbers: Collection[str]) -> list[str]:
    """The number arguments ``expression`` is computed from (``step``, ``step + 1``, ``:n``),
    when it is only those, constants and arithmetic; [] otherwise."""
    names: list[str] = []
    for node in ast.walk(expression):
        if isinstance(node, ast.Name) and node.id in numbers:
            names.append(node.id)
        elif not isinstance(node, _NUMBER_ARITHMETIC):
            return []
    return names
