"""What Dynamo meets when a comprehension runs as a frame of its own (Python 3.11).

On Python 3.11 a list, set or dict comprehension is a function, called with the iterator
of its first ``for`` as its only argument. Dynamo compiles such a frame when Python calls
it with the frame hook on, if the frame "has tensors" (``has_tensor_in_frame``): its code
names a global that is ``torch``, a ``torch.*`` module or ``numpy``, or it closes over a
tensor, a module or a list/tuple/dict of them; the iterator itself is not looked at.
Dynamo then wraps the iterator as an input: a tuple or range iterator becomes a list of
its items, anything else an opaque object whose ``next()`` it cannot step (GB4347
"Missing tp_iternext"), and the comprehension runs in Python.

Measured on torch 2.13 (CPU, backend eager, default mode and ``dynamic=True``) with every
iterable below, in a comprehension that names ``torch`` or closes over a tensor:

- in a frame Dynamo runs eagerly (``eager_code``), GB4347 for lists (variables, ``list()``,
  ``sorted()``, ``reversed()``, ``iter()`` of a list, comprehensions, ``[*a]``), strings,
  dicts and their views, sets, ``zip``/``enumerate``/``map``/``filter``, module containers
  and ``.parameters()``-style generators; none for tuples, ``range``, tensors, ``x.shape``
  and list displays in the ``for`` (CPython turns ``[a, b]`` there into a tuple);
  the same for a list or dict bound once at the file's top level, for ``**kwargs`` (a
  dict) and a parameter annotated ``list[str]``; none for a top-level tuple, ``*args``
  or a parameter annotated ``tuple[str, ...]``;
- when the comprehension itself breaks in a traced frame, Dynamo calls it with an
  iterator it rebuilt: lists and strings come back as tuples (no GB4347), the rest as
  above (GB4347, and GB0092 "Reconstruction failure" for dicts, sets and ``ModuleList``);
  ``filter``, like ``reversed``, comes back steppable.
"""

from __future__ import annotations

import ast
import enum
from collections.abc import Callable

from compilelint.analysis.frames import own_nodes
from compilelint.analysis.kinds import Kind
from compilelint.analysis.module_index import ClassInfo, FunctionInfo, ModuleIndex

COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp)
QualnameOf = Callable[[ast.expr], "str | None"]


class Iterates(enum.Enum):
    """What Dynamo makes of a comprehension's iterator."""

    LIST = "a list"  # rebuilt as a tuple when Dynamo traced it: fails only when run eagerly
    OTHER = "an iterator"  # fails whenever the comprehension is a frame of its own


ALWAYS_BUILTINS = frozenset({"zip", "enumerate", "map", "set", "frozenset", "dict"})
# ``filter`` too: Dynamo steps it when the comprehension breaks inside (measured)
LIST_BUILTINS = frozenset({"list", "sorted", "reversed", "filter"})
VIEW_METHODS = frozenset({"items", "keys", "values"})
MODULE_GENERATORS = frozenset(
    {"parameters", "named_parameters", "buffers", "named_buffers", "children", "named_children", "modules", "named_modules"}
)
MODULE_CONTAINERS = frozenset({"ModuleList", "Sequential", "ModuleDict", "ParameterList"})
# ``from torch import X`` binds a module for these X (``co_names`` must name a module)
TORCH_MODULES = frozenset(
    {"nn", "functional", "F", "linalg", "fft", "special", "distributions", "autograd", "cuda", "jit", "sparse",
     "optim", "utils", "fx", "init", "random", "masked", "nested", "func", "amp", "backends", "distributed"}
)  # fmt: skip


def iterates(
    node: ast.expr, function: FunctionInfo, qualname: QualnameOf, depth: int = 0, module: ModuleIndex | None = None
) -> Iterates | None:
    """What iterating ``node`` (a comprehension's first iterable) hands the comprehension,
    when the source says; None for tuples, ranges, tensors and whatever is not known.
    ``module``: the file's index, for names bound at its top level (``KEYS = [...]``)."""
    if isinstance(node, (ast.Dict, ast.DictComp, ast.Set, ast.SetComp)):
        return Iterates.OTHER
    if isinstance(node, ast.ListComp) or (isinstance(node, ast.List) and any(isinstance(e, ast.Starred) for e in node.elts)):
        return Iterates.LIST
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return Iterates.LIST
    if isinstance(node, ast.Call):
        return _call_iterates(node, function, qualname, depth)
    if isinstance(node, ast.Name) and node.id in parameter_names(function.node):
        return _parameter_iterates(function.node, node.id)
    if depth < 2 and isinstance(node, ast.Name) and module is not None and node.id not in local_names(function.node):
        value = _module_value(module, node.id)
        return _stored_iterates(value, function, qualname, depth + 1) if value is not None else None
    if depth < 2 and isinstance(node, ast.Name):
        return _joined([_stored_iterates(v, function, qualname, depth + 1) for v in assigned_values(function.node, node.id)])
    if depth < 2 and isinstance(node, ast.Attribute) and is_self(node.value, function) and function.owner is not None:
        values = stored_in_mro(function.owner, node.attr)
        return _joined([_stored_iterates(v, function, qualname, depth + 1) for v in values])
    return None


def _call_iterates(node: ast.Call, function: FunctionInfo, qualname: QualnameOf, depth: int) -> Iterates | None:
    func = node.func
    if isinstance(func, ast.Name):
        if func.id in ALWAYS_BUILTINS:
            return Iterates.OTHER
        if func.id in LIST_BUILTINS:
            return Iterates.LIST
        if func.id == "iter" and len(node.args) == 1:
            return iterates(node.args[0], function, qualname, depth)
    if isinstance(func, ast.Attribute) and not node.args and not node.keywords:
        if func.attr in VIEW_METHODS:
            return Iterates.OTHER
        if func.attr in MODULE_GENERATORS and is_self(func.value, function) and function.owner and function.owner.is_module:
            return Iterates.OTHER
    return None


# Parameter annotations that say which built-in container arrives (``typing`` and the
# built-in spelling); ``Sequence``, ``Iterable`` and ``Mapping`` may be a tuple or anything.
_LIST_ANNOTATIONS = frozenset({"list", "List"})
_OTHER_ANNOTATIONS = frozenset({"dict", "Dict", "set", "Set", "frozenset", "FrozenSet", "OrderedDict"})


def _parameter_iterates(function: ast.AST, name: str) -> Iterates | None:
    """``**kwargs`` is a dict and ``*args`` a tuple whatever the caller passes; a parameter
    annotated ``list[...]`` or ``dict[...]`` is taken at its word."""
    if is_kwargs(function, name):
        return Iterates.OTHER
    args = getattr(function, "args", None)
    if not isinstance(args, ast.arguments):
        return None
    if args.vararg is not None and args.vararg.arg == name:
        return None
    for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
        if arg.arg == name and arg.annotation is not None:
            annotation = arg.annotation.value if isinstance(arg.annotation, ast.Subscript) else arg.annotation
            spelled = annotation.attr if isinstance(annotation, ast.Attribute) else getattr(annotation, "id", None)
            if spelled in _LIST_ANNOTATIONS:
                return Iterates.LIST
            if spelled in _OTHER_ANNOTATIONS:
                return Iterates.OTHER
    return None


def is_kwargs(function: ast.AST, name: str) -> bool:
    """Whether ``name`` is ``function``'s ``**kwargs`` parameter."""
    args = getattr(function, "args", None)
    return isinstance(args, ast.arguments) and args.kwarg is not None and args.kwarg.arg == name


def _module_value(module: ModuleIndex, name: str) -> ast.expr | None:
    """The value of ``name = value`` at the file's top level when that is its only binding
    there and no function rebinds it (``global name``)."""
    value = module.assignments.get(name)
    if value is None or module.top_level_stores[name] != 1 or name in module.top_level_imports:
        return None
    if name in module.functions or name in module.classes:
        return None
    every = [*module.functions.values(), *(m for cls in module.all_classes for m in cls.methods.values())]
    return None if any(name in f.declared_globals for f in every) else value


def _stored_iterates(value: ast.expr, function: FunctionInfo, qualname: QualnameOf, depth: int) -> Iterates | None:
    """What iterating a variable or ``self.attr`` gives when ``value`` was stored there."""
    if isinstance(value, ast.List):
        return Iterates.LIST  # a list display stored is a list (only a ``for`` folds it)
    if isinstance(value, ast.Call):
        name = qualname(value.func) or ""
        if name.startswith("torch.nn.") and name.rsplit(".", 1)[-1] in MODULE_CONTAINERS:
            return Iterates.OTHER
    return iterates(value, function, qualname, depth)


def _joined(found: list[Iterates | None]) -> Iterates | None:
    if not found or None in found:
        return None
    return Iterates.OTHER if all(f is Iterates.OTHER for f in found) else Iterates.LIST


def assigned_values(function: ast.AST, name: str) -> list[ast.expr]:
    """The values ``name = value`` binds in ``function``; none (unknown) when ``name`` is a
    parameter or is bound any other way (``for name in``, unpacking, ``with``, ``import``)."""
    if name in parameter_names(function):
        return []
    values: list[ast.expr] = []
    simple: set[int] = set()
    for node in own_nodes(function):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and target.id == name:
                values.append(node.value)
                simple.add(id(target))
        elif isinstance(node, ast.AnnAssign) and node.value is not None:  # `rows: List[int] = []`
            if isinstance(node.target, ast.Name) and node.target.id == name:
                values.append(node.value)
                simple.add(id(node.target))
    for node in own_nodes(function):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store) and id(node) not in simple:
            return []
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any((a.asname or a.name) == name for a in node.names):
            return []
    return values


def parameter_names(function: ast.AST) -> set[str]:
    args = getattr(function, "args", None)
    if not isinstance(args, ast.arguments):
        return set()
    named = [*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, (args.vararg, args.kwarg))]
    return {a.arg for a in named}


def local_names(function: ast.AST) -> set[str]:
    """Every name ``function`` binds: what a comprehension in it closes over."""
    names = parameter_names(function)
    for node in own_nodes(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
    return names


def stored_values(cls: ClassInfo, attr: str) -> list[ast.expr]:
    """The values ``self.attr = value`` stores in the methods of ``cls``."""
    if cls.stored is None:
        cls.stored = _stores_of(cls)
    return cls.stored.get(attr, [])


def _stores_of(cls: ClassInfo) -> dict[str, list[ast.expr]]:
    """Every ``self.attr = value`` of ``cls``'s methods, by ``attr``: one walk per class,
    where each lookup walked all its methods."""
    stores: dict[str, list[ast.expr]] = {}
    for method in cls.methods.values():
        for node in own_nodes(method.node):
            if not isinstance(node, ast.Assign):
                continue
            attrs = dict.fromkeys(t.attr for t in node.targets if isinstance(t, ast.Attribute) and is_self(t.value, method))
            for attr in attrs:
                stores.setdefault(attr, []).append(node.value)
    return stores


def stored_in_mro(cls: ClassInfo, attr: str) -> list[ast.expr]:
    """``stored_values`` over ``cls`` and its local bases: what ``self.attr`` may hold."""
    return [value for klass in cls.mro() for value in stored_values(klass, attr)]


def is_self(node: ast.expr, function: FunctionInfo) -> bool:
    args = function.node.args.posonlyargs + function.node.args.args
    return isinstance(node, ast.Name) and bool(args) and not function.is_static and node.id == args[0].arg


def free_names(comprehension: ast.expr) -> list[ast.Name]:
    """Names the comprehension's own code reads and does not bind: what it closes over or
    reads as globals. Its first iterable is evaluated by the caller and does not count."""
    first = comprehension.generators[0].iter  # type: ignore[attr-defined]
    skipped = {id(n) for n in ast.walk(first)}
    bound = {n.id for n in ast.walk(comprehension) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    bound |= {a.arg for n in ast.walk(comprehension) if isinstance(n, ast.Lambda) for a in ast.walk(n.args) if isinstance(a, ast.arg)}
    return [
        n for n in ast.walk(comprehension)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and id(n) not in skipped and n.id not in bound
    ]  # fmt: skip


def is_torch_module(qualified: str | None) -> bool:
    """A global bound to ``torch``, a ``torch.*`` module or ``numpy`` (``has_tensor_in_frame``)."""
    if qualified in ("torch", "numpy"):
        return True
    return qualified is not None and qualified.startswith("torch.") and qualified.rsplit(".", 1)[-1] in TORCH_MODULES


def holds_tensors(kind: Kind) -> bool:
    """A closed-over value Dynamo counts as tensors: a tensor, a module, or a container of
    them (on the paths the analysis follows; never a value that may be a Python constant)."""
    return bool(kind & (Kind.TENSOR | Kind.MODULE)) and not kind & (Kind.STATIC | Kind.DATA_SCALAR)
