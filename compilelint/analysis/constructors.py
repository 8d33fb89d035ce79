"""Which classes build a value: the constructors behind ``self.<attr>``, read by syntax.

``self.rnn = nn.LSTM(...)``, ``self.rnn = rnn_cls(...)`` with ``rnn_cls = nn.LSTM if lstm
else nn.GRU`` earlier in the method, ``self.body = nn.Sequential(nn.Linear(...), nn.GRU(...))``:
rules that care what a submodule *is* (an RNN Dynamo refuses to wrap) ask here, once per
class and attribute.
"""

from __future__ import annotations

import ast

from compilelint.analysis.frames import own_nodes
from compilelint.analysis.module_index import ClassInfo, FunctionInfo, ModuleIndex

# Calls whose arguments are the modules they hold.
CONTAINERS = frozenset(
    {"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict", "torch.nn.modules.container.Sequential"}
)


def attribute_constructors(index: ModuleIndex, cls: ClassInfo, name: str) -> frozenset[str]:
    """Qualified names of the classes whose instances ``self.name`` may hold (in containers
    too), from the assignments to it in the methods of ``cls``, its local bases and its local
    subclasses (timm's ``RNN2dBase.forward`` calls the ``nn.LSTM`` that ``LSTM2d`` builds)."""
    key = (id(cls), name)
    if key not in index.constructor_memo:
        found: set[str] = set()
        for klass in _related(index, cls):
            if klass.constructors is None:
                klass.constructors = _class_constructors(index, klass)
            found |= klass.constructors.get(name, frozenset())
        index.constructor_memo[key] = frozenset(found)
    return index.constructor_memo[key]


def imported_instances(index: ModuleIndex, cls: ClassInfo, name: str) -> tuple[str, ...]:
    """The imported classes ``self.name`` may hold an instance of, from the assignments in
    any method of ``cls`` (``self.beta_sampler = Beta(a, b)`` in a ``make_samplers`` that
    runs before compiled code): called names spelled as classes (CapWords), since a call of
    ``torch.tensor`` or ``F.pad`` builds no instance that has methods of its own."""
    found = attribute_constructors(index, cls, name)
    return tuple(
        sorted(n for n in found if n not in index.classes and n not in CONTAINERS and n.rsplit(".", 1)[-1][:1].isupper())
    )


def _related(index: ModuleIndex, cls: ClassInfo) -> list[ClassInfo]:
    """``cls``, its local subclasses, and every class in their mros: one walk with one
    ``seen`` set (a chain of N subclasses costs O(N), not O(N) per subclass)."""
    if index.subclass_map is None:
        index.subclass_map = {}
        for klass in index.classes.values():
            for base in klass.local_bases:
                index.subclass_map.setdefault(id(base), []).append(klass)
    subclasses = index.subclass_map
    owners, seen, stack = [], {id(cls)}, [cls]
    while stack:  # cls and its descendants, that the file still binds by name
        klass = stack.pop()
        owners.append(klass)
        for sub in subclasses.get(id(klass), []):
            if id(sub) not in seen:
                seen.add(id(sub))
                stack.append(sub)
    related: list[ClassInfo] = []
    seen, stack = set(), owners
    while stack:  # and their ancestors
        klass = stack.pop()
        if id(klass) in seen:
            continue
        seen.add(id(klass))
        related.append(klass)
        stack.extend(klass.local_bases)
    return related


def local_bases(index: ModuleIndex, name: str) -> frozenset[str]:
    """``name`` and the qualified names of its bases, through the classes of this file."""
    seen: set[str] = set()
    pending = [name]
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        if current in index.classes:
            pending.extend(index.classes[current].bases)
    return frozenset(seen)


def _class_constructors(index: ModuleIndex, cls: ClassInfo) -> dict[str, frozenset[str]]:
    table: dict[str, set[str]] = {}
    for method in cls.methods.values():
        receiver = self_name(method)
        if receiver is None:
            continue
        builders = _Builders(index, cls, receiver)
        local: dict[str, ast.expr] = {}
        for node in ast.walk(method.node):
            filled = _filled_container(node, receiver)
            if filled is not None:  # self.convs.append(GCNConv(d, d)): what the container holds
                attr, items = filled
                for item in items:
                    table.setdefault(attr, set()).update(_built(index, item, local, 0, builders))
            if not isinstance(node, ast.Assign):
                continue
            for target in node.targets:
                if isinstance(target, ast.Name):
                    local[target.id] = node.value
                elif isinstance(target, ast.Attribute) and _is_name(target.value, receiver):
                    table.setdefault(target.attr, set()).update(_built(index, node.value, local, 0, builders))
    return {name: frozenset(names) for name, names in table.items()}


class _Builders:
    """The functions of this file a constructor calls to build a value: a top-level
    ``_encoder(d)`` or a method ``self._make_rnn(d)`` of the class (or a local base), whose
    ``return`` statements say what they build (``return nn.TransformerEncoder(layer, n)``)."""

    def __init__(self, index: ModuleIndex, cls: ClassInfo, receiver: str) -> None:
        self.index, self.cls, self.receiver = index, cls, receiver

    def function(self, func: ast.expr) -> FunctionInfo | None:
        if isinstance(func, ast.Name) and func.id in self.index.functions:
            found = self.index.functions[func.id]
            return found if found.owner is None and found.parent is None else None
        if isinstance(func, ast.Attribute) and _is_name(func.value, self.receiver):
            for klass in [self.cls, *self.cls.local_bases]:
                method = klass.methods.get(func.attr)
                if method is not None:
                    return None if method.is_property else method
        return None

    def returned(self, function: FunctionInfo, depth: int) -> set[str]:
        """What the function's own ``return`` statements build, through its local names."""
        local: dict[str, ast.expr] = {}
        returns: list[ast.expr] = []
        for node in own_nodes(function.node):
            if isinstance(node, ast.Assign):
                local.update((t.id, node.value) for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.Return) and node.value is not None:
                returns.append(node.value)
        inner = _Builders(self.index, self.cls, self_name(function) or "") if function.owner is not None else self
        return {name for value in returns for name in _built(self.index, value, local, depth + 1, inner)}


FILLING_METHODS = frozenset({"append", "extend", "insert", "add_module"})


def _filled_container(node: ast.AST, receiver: str) -> tuple[str, list[ast.expr]] | None:
    """``self.attr.append(v)`` / ``.extend([...])`` / ``.add_module(name, v)``: the attribute
    and the values put in it."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.args):
        return None
    holder = node.func.value
    if node.func.attr not in FILLING_METHODS or not isinstance(holder, ast.Attribute) or not _is_name(holder.value, receiver):
        return None
    return holder.attr, [node.args[-1]]


def imported_elements(index: ModuleIndex, cls: ClassInfo, name: str) -> tuple[str, ...]:
    """The imported classes of the modules a container ``self.name`` holds (``nn.ModuleList(
    [GCNConv(d, d) for _ in range(n)])``, or filled by ``append``): iterating it gives their
    instances. Empty unless an ``nn.ModuleList``/``nn.Sequential``/``nn.ModuleDict`` is built
    into the attribute; torch's own classes are left to the rules that know them."""
    found = attribute_constructors(index, cls, name)
    if not found & CONTAINERS:
        return ()
    return tuple(n for n in imported_instances(index, cls, name) if not n.startswith("torch."))


def _built(index: ModuleIndex, value: ast.expr, local: dict[str, ast.expr], depth: int, builders: _Builders | None = None) -> set[str]:
    """Classes instantiated by ``value``, looking through containers, local names and the
    returns of this file's functions that build them (``builders``)."""
    if depth > 4:
        return set()
    found: set[str] = set()
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Call):
        # nn.LSTM(...).to(device), torch.Generator().manual_seed(0): methods that return self
        found |= _built(index, value.func.value, local, depth + 1, builders)
    elif isinstance(value, ast.Call):
        builder = builders.function(value.func) if builders is not None else None
        if builders is not None and builder is not None:
            return builders.returned(builder, depth)
        classes = _referenced(index, value.func, local, depth + 1)
        found |= classes
        if classes & CONTAINERS:
            for argument in [*value.args, *(k.value for k in value.keywords)]:
                found |= _built(index, argument, local, depth + 1, builders)
    elif isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        for element in value.elts:
            found |= _built(index, _unstarred(element), local, depth + 1, builders)
    elif isinstance(value, ast.Dict):
        for element in value.values:
            found |= _built(index, element, local, depth + 1, builders)
    elif isinstance(value, (ast.ListComp, ast.GeneratorExp)):
        found |= _built(index, value.elt, local, depth + 1, builders)
    elif isinstance(value, ast.IfExp):
        found |= _built(index, value.body, local, depth + 1, builders) | _built(index, value.orelse, local, depth + 1, builders)
    elif isinstance(value, ast.Name) and value.id in local:
        found |= _built(index, local[value.id], local, depth + 1, builders)
    return found


def _referenced(index: ModuleIndex, func: ast.expr, local: dict[str, ast.expr], depth: int) -> set[str]:
    """The classes a called expression may name: ``nn.LSTM``, ``cls`` bound to
    ``nn.LSTM if lstm else nn.GRU``, ``{"lstm": nn.LSTM, "gru": nn.GRU}[kind]``."""
    if depth > 4:
        return set()
    if isinstance(func, ast.Name) and func.id in local:
        return _referenced(index, local[func.id], local, depth + 1)
    if isinstance(func, (ast.Name, ast.Attribute)):
        name = index.qualname(func)
        return {name} if name else set()
    if isinstance(func, ast.IfExp):
        return _referenced(index, func.body, local, depth + 1) | _referenced(index, func.orelse, local, depth + 1)
    if isinstance(func, ast.Subscript) and isinstance(func.value, ast.Dict):
        return {n for v in func.value.values for n in _referenced(index, v, local, depth + 1)}
    return set()


def _unstarred(node: ast.expr) -> ast.expr:
    return node.value if isinstance(node, ast.Starred) else node


def self_name(method: FunctionInfo) -> str | None:
    args = method.node.args.posonlyargs + method.node.args.args
    return None if method.is_static or not args else args[0].arg


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name
