"""What a class receives through its constructor: the values behind ``self.attr = param``.

Layers are often handed in rather than built in place (measured on torch 2.13, default
mode: Dynamo traces whatever the attribute holds, so a break in it breaks the caller)::

    class Block(nn.Module):
        def __init__(self, norm=LayerNorm2d, act=None):
            self.norm = norm(dim)             # an instance of the class passed (or the default)
            self.act = act                    # what a caller passed, as it is
            self.make = make                  # a class (or function) compiled code calls
    block = Block(act=Gate(dim))              # construction sites anywhere in the file

The values are the parameter's default and the argument every construction of the class
(or of a subclass that inherits or forwards to its ``__init__``) passes for it, anywhere in
the file; an argument that is itself a parameter of the constructor around it is followed
to that class's constructions in turn. Names are as ``analysis.objects`` spells them: "@Name"
for a class or function of this file, the dotted name (``torch.nn.GELU``) for an imported one.
A value the syntax does not name (a lambda, a subscript, an argument of an unknown call)
is not a value: the answer lists what it can name, which may be less than what runs.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass

from compilelint.analysis.comprehension_frames import is_self
from compilelint.analysis.dispatch_targets import PARTIALS
from compilelint.analysis.module_index import ClassInfo, FunctionInfo, ModuleIndex
from compilelint.analysis.objects import MAX_OBJECTS, Objects, join
from compilelint.analysis.parameters import parameter_names

MAX_DEPTH = 3  # constructors forwarding a parameter to another constructor, followed this deep


@dataclass(frozen=True)
class Injected:
    """What ``self.attr`` may hold: callables that build a value when called (classes and
    functions), and instances."""

    callables: Objects = ()
    instances: Objects = ()


NOTHING = Injected()


def injected(index: ModuleIndex, cls: ClassInfo, attr: str) -> Injected:
    """What ``self.attr`` holds in methods of ``cls`` when a constructor of its MRO stores a
    parameter there (``self.attr = param``) or what calling one builds (``self.attr = param(...)``)."""
    memo = index.injected_memo
    key = (id(cls), attr)
    if key not in memo:
        memo[key] = NOTHING  # a cycle through the same attribute adds nothing
        memo[key] = _injected(index, cls, attr, 0)
    found = memo[key]
    assert isinstance(found, Injected)
    return found


def _injected(index: ModuleIndex, cls: ClassInfo, attr: str, depth: int) -> Injected:
    for klass in cls.mro():
        init = klass.methods.get("__init__")
        if init is None:
            continue
        stored = _stored_parameter(init, attr)
        if stored is None:
            continue
        parameter, called = stored
        values = parameter_values(index, klass, init, parameter, depth)
        if called:  # self.norm = norm(dim): an instance of each class the parameter may be
            return Injected(instances=values.callables)
        return values
    return NOTHING


def _stored_parameter(init: FunctionInfo, attr: str) -> tuple[str, bool] | None:
    """(parameter, called): ``self.attr = parameter`` or ``self.attr = parameter(...)`` in
    ``__init__``, its only store to ``attr``."""
    args = init.node.args
    positional = args.posonlyargs + args.args
    if not positional:
        return None
    self_name = positional[0].arg
    parameters = {a.arg for a in positional[1:] + args.kwonlyargs}
    found: list[tuple[str, bool]] = []
    for node in ast.walk(init.node):
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            if isinstance(target, ast.Attribute) and target.attr == attr and isinstance(target.value, ast.Name) and target.value.id == self_name:
                value = node.value
                if isinstance(value, ast.Name) and value.id in parameters:
                    found.append((value.id, False))
                elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in parameters:
                    found.append((value.func.id, True))
                else:
                    return None
    return found[0] if len(found) == 1 else None


def parameter_values(index: ModuleIndex, owner: ClassInfo, init: FunctionInfo, parameter: str, depth: int) -> Injected:
    """The default of ``init``'s ``parameter`` and what each construction passes for it."""
    found: list[Injected] = []
    default = _default(init, parameter)
    if default is not None:
        found.append(value_of(index, default, init, depth))
    for call, around, bound in _calls_reaching(index, owner, init):
        value = _argument(call, bound, parameter)
        if value is not None:
            found.append(value_of(index, value, around, depth))
    found.extend(_passed_from_other_files(index, owner, init, parameter))
    return _joined(found)


def _passed_from_other_files(index: ModuleIndex, owner: ClassInfo, init: FunctionInfo, parameter: str) -> Iterator[Injected]:
    """What constructions in other files of the run pass for ``parameter``
    (``analysis.construction_facts``): of ``owner`` or a class of this file that runs
    ``init`` as its constructor, by position or by keyword."""
    incoming = index.incoming_constructions
    if not incoming:
        return
    args = init.node.args
    names = [a.arg for a in args.posonlyargs + args.args][1:]
    keys = ([str(names.index(parameter))] if parameter in names else []) + [parameter]
    for cls in index.all_classes:
        if index.classes.get(cls.name) is cls and owner in cls.mro() and cls.find_method("__init__") is init:
            for key in keys:
                held = incoming.get((cls.name, key))
                if held is not None:
                    yield Injected(callables=held[0], instances=held[1])


def _calls_reaching(index: ModuleIndex, owner: ClassInfo, init: FunctionInfo) -> Iterator[tuple[ast.Call, FunctionInfo | None, FunctionInfo]]:
    """(call, the function it is in, the ``__init__`` it binds to): constructions of ``owner``
    or a subclass whose ``__init__`` is ``init``, and ``super().__init__(...)`` calls in the
    ``__init__`` of a subclass, whose arguments go to ``init``."""
    sites = _sites(index)
    for cls in index.all_classes:
        if owner not in cls.mro():
            continue
        own_init = cls.find_method("__init__")
        if own_init is init:
            for call, around in sites.get(cls.name, ()):
                if index.classes.get(cls.name) is cls:
                    yield call, around, init
        elif own_init is not None and cls is not owner and own_init.owner is cls:
            for node in ast.walk(own_init.node):
                if isinstance(node, ast.Call) and _is_super_init(node, cls, owner):
                    yield _without_self(node), own_init, init


def _is_super_init(call: ast.Call, cls: ClassInfo, owner: ClassInfo) -> bool:
    """``super().__init__(...)`` (when ``owner`` is the next ``__init__``) or ``Owner.__init__(self, ...)``."""
    func = call.func
    if not (isinstance(func, ast.Attribute) and func.attr == "__init__"):
        return False
    if isinstance(func.value, ast.Call) and isinstance(func.value.func, ast.Name) and func.value.func.id == "super":
        nxt = next((k for k in list(cls.mro())[1:] if "__init__" in k.methods), None)
        return nxt is owner
    return isinstance(func.value, ast.Name) and func.value.id == owner.name


def _without_self(call: ast.Call) -> ast.Call:
    """``Owner.__init__(self, a)`` as the call ``__init__`` sees after ``self``: ``(a)``."""
    func = call.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and call.args:
        return ast.Call(func=func, args=call.args[1:], keywords=call.keywords)
    return call


def _argument(call: ast.Call, init: FunctionInfo, parameter: str) -> ast.expr | None:
    args = init.node.args
    names = [a.arg for a in args.posonlyargs + args.args][1:]
    for keyword in call.keywords:
        if keyword.arg == parameter:
            return keyword.value
    for position, value in enumerate(call.args):
        if isinstance(value, ast.Starred):
            return None
        if position < len(names) and names[position] == parameter:
            return value
    return None


def _default(init: FunctionInfo, parameter: str) -> ast.expr | None:
    args = init.node.args
    positional = args.posonlyargs + args.args
    pairs = list(zip(positional[len(positional) - len(args.defaults) :], args.defaults))
    pairs += [(a, d) for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
    for arg, default in pairs:
        if arg.arg == parameter and not (isinstance(default, ast.Constant) and default.value is None):
            return default
    return None


def value_of(index: ModuleIndex, value: ast.expr, around: FunctionInfo | None, depth: int) -> Injected:
    """What an argument expression is: a class or function (named, or through
    ``functools.partial``), an instance (a constructor's call), or a parameter of the
    constructor around it, followed to that constructor's callers."""
    if isinstance(value, ast.Call):
        if index.qualname(value.func) in PARTIALS:
            # keywords only: positional ones would shift what each parameter receives
            if len(value.args) != 1 or isinstance(value.args[0], ast.Starred):
                return NOTHING
            return Injected(callables=value_of(index, value.args[0], around, depth).callables)
        return Injected(instances=value_of(index, value.func, around, depth).callables)
    if isinstance(value, ast.Attribute) and around is not None and around.owner is not None and is_self(value.value, around):
        method = around.owner.find_method(value.attr)  # self.compute: a bound method of the class
        if method is not None and method.owner is not None and not method.is_static:
            return Injected(callables=(f"@{method.owner.name}.{method.name}",))
        return NOTHING
    if isinstance(value, ast.IfExp):
        return _joined([value_of(index, value.body, around, depth), value_of(index, value.orelse, around, depth)])
    if isinstance(value, ast.Name):
        if around is not None and value.id in parameter_names(around.node):
            if around.name != "__init__" or around.owner is None or depth >= MAX_DEPTH:
                return NOTHING
            return parameter_values(index, around.owner, around, value.id, depth + 1)
        if value.id in index.classes or value.id in index.functions:
            return Injected(callables=(f"@{value.id}",))
    if isinstance(value, (ast.Name, ast.Attribute)):
        qualname = index.qualname(value)
        if qualname is not None and value_id(value) not in index.module_names - index.top_level_imports:
            return Injected(callables=(qualname,))
    return NOTHING


def value_id(node: ast.expr) -> str:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else ""


def _joined(found: list[Injected]) -> Injected:
    return Injected(callables=join(*(f.callables for f in found))[:MAX_OBJECTS], instances=join(*(f.instances for f in found))[:MAX_OBJECTS])


def calls_with_functions(index: ModuleIndex) -> list[tuple[ast.Call, FunctionInfo | None]]:
    """Every call of the file, with the function (a method's FunctionInfo) it is in: one
    walk per file, for its construction sites and for ``construction_facts.outgoing``."""
    if index.calls is None:
        index.calls = list(_calls(index.tree.body, None, index)) if index.tree is not None else []
    return index.calls


def _sites(index: ModuleIndex) -> dict[str, list[tuple[ast.Call, FunctionInfo | None]]]:
    """Every call of a name that is a class of the file, with the function it is in."""
    if index.construction_sites is not None:
        return index.construction_sites
    found: dict[str, list[tuple[ast.Call, FunctionInfo | None]]] = {}
    for call, around in calls_with_functions(index):
        if isinstance(call.func, ast.Name) and call.func.id in index.classes:
            found.setdefault(call.func.id, []).append((call, around))
    index.construction_sites = found
    return found


def _calls(body: list[ast.stmt], around: FunctionInfo | None, index: ModuleIndex) -> Iterator[tuple[ast.Call, FunctionInfo | None]]:
    """The calls in ``body`` with the function they are in (a method's FunctionInfo, so a
    parameter of an ``__init__`` can be followed to the class's own constructions)."""
    stack: list[tuple[ast.AST, FunctionInfo | None, ClassInfo | None]] = [(stmt, around, None) for stmt in body]
    while stack:
        node, function, cls = stack.pop()
        if isinstance(node, ast.Call):
            yield node, function
        if isinstance(node, ast.ClassDef):
            inner = index.classes.get(node.name)
            owner = inner if inner is not None and inner.node is node else None
            stack.extend((statement, function, owner) for statement in node.body)
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            method = cls.methods.get(node.name) if cls is not None else index.functions.get(node.name) if function is None else None
            inner_function = method if method is not None and method.node is node else None
            for child in ast.iter_child_nodes(node):
                stack.append((child, inner_function, None))
            continue
        for child in ast.iter_child_nodes(node):
            stack.append((child, function, None))
