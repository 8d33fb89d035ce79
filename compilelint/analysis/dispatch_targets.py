"""Calls that reach a function of the file through a value: tables, partials, wrappers.

Measured on torch 2.13 (backend eager; default, ``fullgraph=True``, ``dynamic=True``): Dynamo
traces into each of these, so what the target does breaks the graph as if called directly:

- ``SOLVERS[method](f)`` with ``SOLVERS = {"euler": Euler, ...}`` (a dict, list or tuple
  of classes or functions at module level, or filled by ``SOLVERS["x"] = X`` there):
  each entry may be the one called, so each is analysed;
- ``functools.partial(helper, scale=2)(x)``, or a name bound to such a partial;
- ``getattr(obj, "name")(...)`` with a constant name: ``obj.name(...)``;
- a function under a decorator of the file whose wrapper calls through
  (``def deco(fn): def inner(*a, **k): ...; return fn(*a, **k)``): the wrapper runs, then
  the function;
- ``self.fn(x)`` where the class body says ``fn = helper`` or ``fn = staticmethod(helper)``,
  or ``__init__`` stores ``self.fn = helper``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from compilelint.analysis.kinds import Kind
from compilelint.analysis.module_index import ClassInfo, FunctionInfo, FunctionNode, ModuleIndex, function_info

PARTIALS = frozenset({"functools.partial", "partial"})


def table_entries(index: ModuleIndex, table: ast.expr) -> Iterator[ast.expr]:
    """The values a module-level dict/list/tuple (or registry filled at module level) holds."""
    if not isinstance(table, ast.Name) or table.id not in index.module_names:
        return
    value = index.assignments.get(table.id)
    if isinstance(value, ast.Dict):
        yield from value.values
    elif isinstance(value, (ast.List, ast.Tuple)):
        yield from value.elts
    yield from index.table_stores.get(table.id, ())


def entry_classes_and_functions(index: ModuleIndex, table: ast.expr) -> Iterator[ClassInfo | FunctionInfo]:
    for entry in table_entries(index, table):
        if isinstance(entry, ast.Name):
            if entry.id in index.classes:
                yield index.classes[entry.id]
            elif entry.id in index.functions:
                yield index.functions[entry.id]


def imported_table_entries(index: ModuleIndex, table: ast.expr) -> tuple[str, ...]:
    """The qualified names of the imported classes and functions a module-level table holds
    (``SOLVERS = {"dopri5": Dopri5Solver, ...}`` with ``from .dopri5 import Dopri5Solver``)."""
    found = []
    for entry in table_entries(index, table):
        if isinstance(entry, ast.Name) and entry.id in index.imports and entry.id not in index.classes:
            name = index.imports.get(entry.id)
            if name and not name.startswith("torch."):
                found.append(name)
    return tuple(dict.fromkeys(found))


def partial_of(node: ast.expr, index: ModuleIndex, qualname: object) -> ast.Call | None:
    """The ``functools.partial(f, ...)`` call ``node`` is or names at module level."""
    if isinstance(node, ast.Name) and node.id in index.assignments:
        node = index.assignments[node.id]
    if isinstance(node, ast.Call) and node.args and callable(qualname) and qualname(node.func) in PARTIALS:
        return node
    return None


def through_partial(partial: ast.Call, call: ast.Call, cache: dict[int, Kind]) -> ast.Call:
    """The call the partial's function receives: the partial's arguments, then the call's.
    Literal arguments of a partial built outside compiled code are Python constants."""
    for value in [*partial.args[1:], *(k.value for k in partial.keywords)]:
        if id(value) not in cache and isinstance(value, ast.Constant):
            cache[id(value)] = Kind.STATIC
    merged = ast.Call(func=partial.args[0], args=[*partial.args[1:], *call.args], keywords=[*partial.keywords, *call.keywords])
    return ast.copy_location(merged, call)


def constant_getattr(call: ast.expr) -> ast.Attribute | None:
    """``getattr(obj, "name")`` -> ``obj.name``."""
    if not isinstance(call, ast.Call) or not (isinstance(call.func, ast.Name) and call.func.id == "getattr"):
        return None
    if len(call.args) < 2:
        return None
    name = call.args[1]
    if not (isinstance(name, ast.Constant) and isinstance(name.value, str) and name.value.isidentifier()):
        return None
    return ast.copy_location(ast.Attribute(value=call.args[0], attr=name.value, ctx=ast.Load()), call)


def wrappers(index: ModuleIndex, info: FunctionInfo) -> list[FunctionInfo]:
    """The inner functions that decorators of this file put around ``info`` and that call
    through to it (``@deco`` and ``@deco(...)`` forms); analysed as compiled code too."""
    if info.wrappers is None:
        info.wrappers = []
        for decorator in info.node.decorator_list:
            factory = decorator.func if isinstance(decorator, ast.Call) else decorator
            if isinstance(factory, ast.Name) and factory.id in index.functions:
                inner = _calling_through(index.functions[factory.id].node, depth=2 if isinstance(decorator, ast.Call) else 1)
                if inner is not None:
                    qualname = f"{factory.id}.<locals>.{inner.name}"
                    info.wrappers.append(function_info(index, inner, qualname, owner=None))
    return info.wrappers


def _calling_through(decorator: FunctionNode, depth: int) -> FunctionNode | None:
    """The nested def ``decorator`` returns, when it calls the decorated function."""
    inner = _returned_def(decorator)
    if inner is None:
        return None
    if depth == 2:
        return _calling_through(inner, 1)
    wrapped = [a.arg for a in decorator.args.posonlyargs + decorator.args.args][:1]
    for node in ast.walk(inner):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in wrapped:
            return inner
    return None


def _returned_def(function: FunctionNode) -> FunctionNode | None:
    defs = {s.name: s for s in function.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for stmt in function.body:
        if isinstance(stmt, ast.Return) and isinstance(stmt.value, ast.Name) and stmt.value.id in defs:
            return defs[stmt.value.id]
    return None


def attribute_function(index: ModuleIndex, cls: ClassInfo, attr: str) -> tuple[FunctionInfo, bool] | None:
    """The module-level function ``self.attr`` holds: ``attr = helper`` in the class body
    (a method then: bound), ``attr = staticmethod(helper)``, or ``self.attr = helper`` in
    ``__init__`` (an instance attribute: not bound)."""
    for klass in cls.mro():
        if klass.function_attributes is None:
            klass.function_attributes = _function_attributes(index, klass)
        if attr in klass.function_attributes:
            return klass.function_attributes[attr]
    return None


def _function_attributes(index: ModuleIndex, cls: ClassInfo) -> dict[str, tuple[FunctionInfo, bool]]:
    found: dict[str, tuple[FunctionInfo, bool]] = {}
    for stmt in cls.node.body:
        if not isinstance(stmt, ast.Assign):
            continue
        value, bound = stmt.value, True
        if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "staticmethod" and value.args:
            value, bound = value.args[0], False
        if isinstance(value, ast.Name) and value.id in index.functions:
            for target in stmt.targets:
                if isinstance(target, ast.Name):
                    found[target.id] = (index.functions[value.id], bound)
    init = cls.methods.get("__init__")
    for node in ast.walk(init.node) if init is not None else ():
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id in index.functions:
            for target in node.targets:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                    found.setdefault(target.attr, (index.functions[node.value.id], False))
    return found
