"""Kinds of ``self.<attr>``: read off the assignments in a class's methods, by syntax alone."""

from __future__ import annotations

import ast
from collections.abc import Callable

from compilelint.analysis.kinds import Kind, join
from compilelint.analysis.ranks import VECTOR_FACTORIES
from compilelint.analysis.module_index import ClassInfo, ModuleIndex
from compilelint.analysis.parameters import annotation_kind

PARAMETER_CALLS = frozenset(
    {"torch.nn.Parameter", "torch.nn.parameter.Parameter", "torch.nn.parameter.Buffer", "torch.nn.Buffer"}
)
REGISTER_METHODS = frozenset({"register_buffer", "register_parameter"})
ALWAYS_STATIC = frozenset({"training", "__class__", "config"})


def attribute_kind(index: ModuleIndex, cls: ClassInfo, name: str) -> Kind:
    """The kind of ``self.name`` inside methods of ``cls``."""
    if name in ALWAYS_STATIC:
        return Kind.STATIC
    kind = cls.first_in_mro("kind:" + name, lambda klass: _attributes(index, klass).get(name))
    return Kind.UNKNOWN if kind is None else kind


def matching_attribute_kind(index: ModuleIndex, cls: ClassInfo, prefix: str, suffix: str) -> Kind | None:
    """The kinds of the attributes ``getattr(self, f"{prefix}{...}{suffix}")`` may read
    (``f'capacity_factor_{suffix}'``: ``capacity_factor_train`` or ``capacity_factor_eval``),
    joined; None when no attribute of the class's local MRO has such a name."""
    names = {name for klass in cls.mro() for name in _attributes(index, klass)}
    matching = [n for n in names if n.startswith(prefix) and n.endswith(suffix) and len(n) > len(prefix) + len(suffix)]
    if not prefix or not matching:
        return None
    return _joined([attribute_kind(index, cls, name) for name in matching])


def declares(index: ModuleIndex, cls: ClassInfo, name: str) -> bool:
    """Whether ``cls`` or a local base declares ``name`` at class level or stores it in a method."""
    return any(name in _attributes(index, klass) for klass in cls.mro())


def attribute_class(index: ModuleIndex, cls: ClassInfo, name: str) -> ClassInfo | None:
    """The local class whose instance was stored in ``self.name``, if any."""
    return _first_in_mro(index, cls, "class:" + name, lambda klass: klass.attribute_classes.get(name))


def _first_in_mro(
    index: ModuleIndex, cls: ClassInfo, key: str, find: Callable[[ClassInfo], ClassInfo | None]
) -> ClassInfo | None:
    def filled_then_found(klass: ClassInfo) -> ClassInfo | None:
        _attributes(index, klass)  # fills the tables ``find`` reads
        return find(klass)

    return cls.first_in_mro(key, filled_then_found)


def _attributes(index: ModuleIndex, cls: ClassInfo) -> dict[str, Kind]:
    if cls.attributes is not None:
        return cls.attributes
    table: dict[str, Kind] = {}
    elements: dict[str, Kind] = {}
    filled_only: set[str] = set()  # attributes whose every assignment is an empty display
    assigned: set[str] = set()
    cls.attributes = table
    for stmt in cls.node.body:  # class-level constants
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    table[target.id] = table.get(target.id, Kind.NONE) | Kind.STATIC
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            # a dataclass field (``top_k: int = 0``) or a declared attribute: its annotation
            declared = annotation_kind(stmt.annotation)
            if declared == Kind.UNKNOWN and isinstance(stmt.value, ast.Constant):
                declared = Kind.STATIC
            table[stmt.target.id] = table.get(stmt.target.id, Kind.NONE) | declared
    for method in cls.methods.values():
        args = method.node.args.posonlyargs + method.node.args.args
        if method.is_static or not args:
            continue
        self_name = args[0].arg
        in_init = method.name == "__init__"
        for node in ast.walk(method.node):
            _record(index, cls, table, node, self_name, in_init, method.node)
            _record_element(index, cls, elements, node, method.node, self_name)
            _note_empty_display(node, self_name, filled_only, assigned)
    for name, kind in elements.items():
        # ``self.key_cache = []`` then ``self.key_cache.append(torch.zeros(...))``: the
        # list holds what was put in it, not the constant its empty display reads as. A
        # container built another way (``nn.ModuleList()``) keeps the kind of its builder.
        if name in filled_only and table.get(name, Kind.NONE) in (Kind.NONE, Kind.STATIC):
            table[name] = kind
    return table


def _record(
    index: ModuleIndex,
    cls: ClassInfo,
    table: dict[str, Kind],
    node: ast.AST,
    self_name: str,
    in_init: bool,
    method: ast.FunctionDef | ast.AsyncFunctionDef,
) -> None:
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        if node.func.attr in REGISTER_METHODS and _is_self(node.func.value, self_name):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                name = node.args[0].value
                kind = Kind.TENSOR | (_buffer_rank(index, method, node.args[1]) if len(node.args) > 1 else Kind.NONE)
                table[name] = join(table[name], kind) if name in table else kind
        return
    assignment = _assignment(node)
    if assignment is None:
        return
    for target, value in _pairs(*assignment):
        if isinstance(target, ast.Attribute) and _is_self(target.value, self_name):
            kind = _value_kind(index, cls, target.attr, value, in_init)
            table[target.attr] = table.get(target.attr, Kind.NONE) | kind
            if not in_init and isinstance(value, ast.Constant):
                cls.reset_attributes.add(target.attr)  # set afresh while running


FILLING_METHODS = frozenset({"append", "extend", "insert"})


def _record_element(
    index: ModuleIndex,
    cls: ClassInfo,
    elements: dict[str, Kind],
    node: ast.AST,
    method: ast.FunctionDef | ast.AsyncFunctionDef,
    self_name: str,
) -> None:
    """``self.attr.append(value)``: the kind of what goes into the container ``self.attr``."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
        return
    holder = node.func.value
    if node.func.attr not in FILLING_METHODS or not isinstance(holder, ast.Attribute):
        return
    if not _is_self(holder.value, self_name):
        return
    value = node.args[-1]
    if isinstance(value, ast.Name):
        kinds = [_value_kind(index, cls, holder.attr, v, False) for v in _local_values(method, value.id)]
        kind = Kind.UNKNOWN if not kinds else _joined(kinds)
    else:
        kind = _value_kind(index, cls, holder.attr, value, False)
    elements[holder.attr] = elements.get(holder.attr, Kind.NONE) | kind


def _buffer_rank(index: ModuleIndex, method: ast.FunctionDef | ast.AsyncFunctionDef, value: ast.expr) -> Kind:
    """The rank of a registered buffer, where the source builds it: ``torch.linspace(...)``,
    or a local assigned only such values. A parameter that defaults to ``None`` and is built
    when missing (torchcde's ``if t is None: t = torch.linspace(...)``) counts as what is
    built: callers that pass it pass the same kind of value."""
    if isinstance(value, ast.Call):
        return Kind.ONE_DIM if index.qualname(value.func) in VECTOR_FACTORIES else Kind.NONE
    if not isinstance(value, ast.Name):
        return Kind.NONE
    if value.id in _parameters(method) and not _defaults_to_none(method, value.id):
        return Kind.NONE
    assigned = _local_values(method, value.id)
    ranks = {_buffer_rank(index, method, v) if isinstance(v, ast.Call) else Kind.NONE for v in assigned}
    return ranks.pop() if len(ranks) == 1 else Kind.NONE


def _parameters(method: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    args = method.args
    return {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg) if a is not None}


def _defaults_to_none(method: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> bool:
    args = method.args
    positional = [*args.posonlyargs, *args.args]
    pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    return any(a.arg == name and isinstance(d, ast.Constant) and d.value is None for a, d in pairs)


def _local_values(method: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> list[ast.expr]:
    """The values a plain ``name = value`` in ``method`` assigns; empty when the name is
    also bound another way (a loop target, an unpacking), which is not read here."""
    assigns = [n for n in ast.walk(method) if isinstance(n, ast.Assign)]
    plain = {id(t) for n in assigns for t in n.targets if isinstance(t, ast.Name) and t.id == name}
    for node in ast.walk(method):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store) and id(node) not in plain:
            return []
    return [n.value for n in assigns if any(id(t) in plain for t in n.targets)]


def _joined(kinds: list[Kind]) -> Kind:
    kind = Kind.NONE
    for one in kinds:
        kind |= one
    return kind


def _assignment(node: ast.AST) -> tuple[list[ast.expr], ast.expr] | None:
    """The targets and value of ``a = b = v`` or ``a: T = v``."""
    if isinstance(node, ast.Assign):
        return node.targets, node.value
    if isinstance(node, ast.AnnAssign) and node.value is not None:
        return [node.target], node.value
    return None


def _pairs(targets: list[ast.expr], value: ast.expr) -> list[tuple[ast.expr, ast.expr]]:
    """Each target with the value it gets: ``self.a, self.b = a, b`` pairs them up
    element by element; a tuple target given anything else gets nothing known."""
    pairs: list[tuple[ast.expr, ast.expr]] = []
    for target in targets:
        if not isinstance(target, (ast.Tuple, ast.List)):
            pairs.append((target, value))
        elif isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
            if not any(isinstance(e, ast.Starred) for e in (*target.elts, *value.elts)):
                pairs.extend(pair for t, v in zip(target.elts, value.elts) for pair in _pairs([t], v))
    return pairs


def _note_empty_display(node: ast.AST, self_name: str, filled_only: set[str], assigned: set[str]) -> None:
    assignment = _assignment(node)
    if assignment is None:
        return
    targets, value = assignment
    empty = isinstance(value, (ast.List, ast.Dict)) and not (value.elts if isinstance(value, ast.List) else value.keys)
    for target in targets:
        if isinstance(target, ast.Attribute) and _is_self(target.value, self_name):
            if target.attr not in assigned and empty:
                filled_only.add(target.attr)
            elif not empty:
                filled_only.discard(target.attr)
            assigned.add(target.attr)


def _is_self(node: ast.expr, self_name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == self_name


def _value_kind(index: ModuleIndex, cls: ClassInfo, attr: str, value: ast.expr, in_init: bool) -> Kind:
    if isinstance(value, ast.Constant):
        return Kind.STATIC
    if in_init and _python_value(index, value):
        # __init__ arguments and config fields, and math of them: Python values fixed at construction
        return Kind.STATIC
    if isinstance(value, ast.Call):
        return _call_kind(index, cls, attr, value)
    if isinstance(value, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Constant) for e in value.elts):
        return Kind.STATIC
    return Kind.UNKNOWN


def _python_value(index: ModuleIndex, value: ast.expr) -> bool:
    """Names, attributes, operators and comparisons of them, ``math`` functions of those, and
    displays of the latter (``(math.log(ratio[0]), math.log(ratio[1]))``): no call that could
    make a tensor."""
    if isinstance(value, (ast.Tuple, ast.List)):  # a display of arguments may hold modules: only of math here
        return all(isinstance(e, (ast.Constant, ast.BinOp, ast.UnaryOp, ast.Call)) and _python_value(index, e) for e in value.elts)
    if not isinstance(value, (ast.Name, ast.Attribute, ast.BinOp, ast.UnaryOp, ast.Compare, ast.BoolOp, ast.Constant, ast.Call)):
        return False
    calls = [n for n in ast.walk(value) if isinstance(n, ast.Call)]
    return all((index.qualname(call.func) or "").startswith("math.") for call in calls)


def _call_kind(index: ModuleIndex, cls: ClassInfo, attr: str, value: ast.Call) -> Kind:
    name = index.qualname(value.func)
    if name is None:
        return Kind.UNKNOWN
    if name in index.classes:
        local = index.classes[name]
        cls.attribute_classes[attr] = local  # self.attr.method(...) resolves into it
        return Kind.MODULE if local.is_module else Kind.UNKNOWN
    if name in CONTAINER_CALLS:
        element = _element_class(index, value)
        if element is not None:
            cls.element_classes[attr] = element  # for layer in self.layers: layer(...)
        return Kind.MODULE
    if name in PARAMETER_CALLS:
        return Kind.TENSOR
    last = name.rsplit(".", 1)[-1]
    if name.startswith("torch.nn.") and last[:1].isupper():
        return Kind.MODULE
    if name.startswith("torch.") and last[:1].islower() and not name.startswith("torch.nn.init"):
        return Kind.TENSOR if not name.startswith(("torch.cuda.", "torch.backends.")) else Kind.STATIC
    if last[:1].isupper() and (not last.isupper() or len(last) > 1):  # CRF, MLP, GRU; not F
        if not name.startswith("torch."):
            cls.external_attribute_classes[attr] = name  # its forward is another file's
        return Kind.MODULE  # an imported class: a submodule built from config
    return Kind.UNKNOWN


CONTAINER_CALLS = frozenset({"torch.nn.ModuleList", "torch.nn.Sequential", "torch.nn.modules.container.ModuleList"})


def _element_class(index: ModuleIndex, value: ast.Call) -> ClassInfo | None:
    """The local class of ``nn.ModuleList([Layer(c) for _ in ...])`` / ``[Layer(c), ...]``."""
    if not value.args:
        return None
    items = value.args[0]
    if isinstance(items, (ast.ListComp, ast.GeneratorExp)):
        candidates = [items.elt]
    elif isinstance(items, (ast.List, ast.Tuple)):
        candidates = list(items.elts)
    else:
        return None
    classes = {index.qualname(c.func) for c in candidates if isinstance(c, ast.Call)}
    if len(classes) == 1 and len(candidates) > 0 and all(isinstance(c, ast.Call) for c in candidates):
        name = classes.pop()
        return index.classes.get(name) if name else None
    return None


def external_attribute_class(index: ModuleIndex, cls: ClassInfo, name: str) -> str | None:
    """The qualified name of the imported class whose instance ``self.name`` holds."""
    for klass in cls.mro():
        _attributes(index, klass)
        if name in klass.external_attribute_classes:
            return klass.external_attribute_classes[name]
    return None


def element_class(index: ModuleIndex, cls: ClassInfo, name: str) -> ClassInfo | None:
    """The local class of the modules held in the container ``self.name``."""
    return _first_in_mro(index, cls, "element:" + name, lambda klass: klass.element_classes.get(name))


def is_reset_while_running(index: ModuleIndex, cls: ClassInfo, name: str) -> bool:
    """``self.mult = 1`` in a method other than ``__init__``: the value is set afresh each
    call (Funnel's ``pooling_mult``), so ``self.mult *= 2`` later does not leak into the
    next call's guards."""
    found = _first_in_mro(index, cls, "reset:" + name, lambda klass: klass if name in klass.reset_attributes else None)
    return found is not None
