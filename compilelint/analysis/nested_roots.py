"""Compile roots defined inside other functions: closures a test, a script's ``main`` or a
training loop compiles where it defines them.

Measured on torch 2.13 (backend eager and a ``CompileCounter``; default mode): a nested
``def f`` breaks the graph exactly as a module-level one does under
``torch.compile(f, backend=...)``, ``torch._dynamo.optimize(...)(f)``,
``@torch.compile(...)`` on the ``def`` and ``@opt`` with ``opt = torch._dynamo.optimize(...)``
bound in the same function. That is how PyTorch's own Dynamo tests and most training
scripts compile (``def test_x(self): def fn(x): ...; opt_fn = torch.compile(fn)``).

A name is looked up as Python does: the defs of the scope holding the compile call (its
blocks, not its nested functions), then the enclosing functions' scopes. Nothing is known
of the closure's variables here (what the enclosing function computed is not run), so they
stay unknown rather than guessed.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from compilelint.analysis.roots import COMPILE_FUNCTIONS, _compiled_by, _is_compiler, literal_kind, unpartial

if TYPE_CHECKING:
    from compilelint.analysis.module_index import FunctionInfo, FunctionNode, ModuleIndex

_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


@dataclass
class NestedRoot:
    """A compiled nested function, what its scope defines beside it, and the calls of it
    (or of the name its compiled version is bound to) in that scope."""

    info: FunctionInfo
    siblings: dict[str, FunctionInfo] = field(default_factory=dict)
    calls: list[ast.Call] = field(default_factory=list)
    # the compiler call behind each compile of it in its scope (its options), or None
    # where the scope does not show it (a compiler bound elsewhere)
    compiled_with: list[ast.Call | None] = field(default_factory=list)
    literals: frozenset[str] = frozenset()  # names its scope binds once, to a literal
    bound: frozenset[str] = frozenset()  # every name its scope binds (shadowing module constants)


@dataclass
class NestedCompiles:
    """The nested roots of a file, and the compile calls' targets that name a function's
    local (``torch.compile(fn)`` in a test whose own ``fn`` is not the module's ``fn``)."""

    roots: list[NestedRoot] = field(default_factory=list)
    local_targets: set[int] = field(default_factory=set)  # ids of the target expressions
    by_function: dict[int, NestedRoot] = field(default_factory=dict)  # id(FunctionInfo) -> its root


@dataclass
class _Scope:
    """One function's own statements: the defs, compilers and compile calls bound there."""

    info: FunctionInfo
    defs: dict[str, FunctionInfo] = field(default_factory=dict)
    compilers: set[str] = field(default_factory=set)  # opt = torch._dynamo.optimize(cnt)
    compiled: dict[str, str] = field(default_factory=dict)  # opt_fn = torch.compile(fn): opt_fn -> fn
    target_nodes: list[ast.Name] = field(default_factory=list)  # names handed to a compiler here
    compiled_with: dict[str, list[ast.Call | None]] = field(default_factory=dict)  # name -> its compilers
    compiler_calls: dict[str, ast.Call] = field(default_factory=dict)  # opt -> torch.compile(fullgraph=True)
    stores: dict[str, int] = field(default_factory=dict)  # name -> how many times this scope binds it
    literal_values: dict[str, ast.expr] = field(default_factory=dict)  # name -> a literal it is bound to
    bound: set[str] = field(default_factory=set)  # every name this scope binds
    calls: dict[str, list[ast.Call]] = field(default_factory=dict)  # name(...) here


def nested_roots(index: ModuleIndex) -> list[NestedRoot]:
    """Every nested function the file compiles."""
    return nested_compiles(index).roots


def nested_root_of(index: ModuleIndex, info: FunctionInfo) -> NestedRoot | None:
    return nested_compiles(index).by_function.get(id(info))


def nested_compiles(index: ModuleIndex) -> NestedCompiles:
    """Memoised on the index."""
    if index.nested_compiles is None:
        found = NestedCompiles()
        # the engine reads compile sites only in files that mention compiling (its text)
        if "compile" in index.text or "optimize" in index.text:
            found.roots = list(_find(index, found.local_targets))
            found.by_function = {id(root.info): root for root in found.roots}
        index.nested_compiles = found
    return index.nested_compiles


def _find(index: ModuleIndex, local_targets: set[int]) -> Iterator[NestedRoot]:
    outer: list[FunctionInfo] = list(index.functions.values())
    outer += [m for cls in index.all_classes for m in cls.methods.values()]
    lambda_scopes: dict[int, FunctionInfo] = {}  # id(lambda) -> the function it stands in
    for info in outer:
        yield from _walk(index, info, [], local_targets, lambda_scopes)
    for target, _ in index.compile_sites.targets:  # torch.compile(lambda x: ...), anywhere
        if isinstance(target, ast.Lambda):
            root = NestedRoot(_lambda_info(index, target, f"<lambda at line {target.lineno}>"))
            root.info.parent = lambda_scopes.get(id(target))  # what its free variables read
            yield root


def _lambda_info(index: ModuleIndex, node: ast.Lambda, qualname: str) -> FunctionInfo:
    from compilelint.analysis.module_index import function_info, lambda_function

    return function_info(index, lambda_function(node, qualname.rpartition(".")[2], node), qualname, owner=None)


def _walk(
    index: ModuleIndex, info: FunctionInfo, enclosing: list[_Scope], local_targets: set[int],
    lambda_scopes: dict[int, FunctionInfo],
) -> Iterator[NestedRoot]:  # fmt: skip
    from compilelint.analysis.module_index import function_info

    scope = _Scope(info)
    arguments = info.node.args
    scope.bound = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    for node in _scope_nodes(info.node):
        if isinstance(node, _DEFS):
            child = function_info(index, node, f"{info.qualname}.<locals>.{node.name}", owner=None)
            child.parent = info
            scope.defs[node.name] = child
            scope.bound.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            scope.bound.add(node.id)
            scope.stores[node.id] = scope.stores.get(node.id, 0) + 1
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if literal_kind(node.value, index, frozenset(scope.literal_values), frozenset(scope.bound)) is not None:
                scope.literal_values[name] = node.value
            if isinstance(node.value, ast.Lambda):  # f = lambda x: ...; torch.compile(f)
                scope.defs[name] = _lambda_info(index, node.value, f"{info.qualname}.<locals>.{name}")
                scope.defs[name].parent = info
            _record_assignment(index, scope, name, node.value)
        elif isinstance(node, ast.Call):
            _record_call(index, scope, node)
        elif isinstance(node, ast.Lambda):
            lambda_scopes[id(node)] = info
    chain = [*enclosing, scope]
    local_targets.update(id(t) for t in scope.target_nodes if any(t.id in s.bound for s in chain))
    compiled = {name for name, child in scope.defs.items() if child.compiled or _compiler_decorated(child, chain)}
    for name in (t.id for t in scope.target_nodes):
        if name in scope.defs:
            compiled.add(name)
        else:  # a def of an enclosing function, compiled here
            owner = next((s for s in reversed(enclosing) if name in s.defs), None)
            if owner is not None and not owner.defs[name].compiled:
                owner.defs[name].compiled = True
                yield _root(owner, name, scope)
    for name in compiled:
        scope.defs[name].compiled = True
        yield _root(scope, name, scope)
    for child in scope.defs.values():
        if not child.disabled:
            yield from _walk(index, child, chain, local_targets, lambda_scopes)


def _root(scope: _Scope, name: str, calling: _Scope) -> NestedRoot:
    aliases = {name} | {alias for alias, target in calling.compiled.items() if target == name}
    calls = [call for alias in sorted(aliases) for call in calling.calls.get(alias, ())]
    siblings = {k: v for k, v in scope.defs.items() if k != name}
    return NestedRoot(scope.defs[name], siblings, calls, list(calling.compiled_with.get(name, ())), _literals(calling),
                      frozenset(calling.bound))


def _literals(scope: _Scope) -> frozenset[str]:
    """Names bound once in the scope, to what ``literal_kind`` read as a literal there when
    recorded (``shape = [2, 3]``, ``eps = math.pi``, ``ref = id(m)``)."""
    return frozenset(name for name in scope.literal_values if scope.stores.get(name) == 1)


def _record_assignment(index: ModuleIndex, scope: _Scope, name: str, value: ast.expr) -> None:
    if not isinstance(value, ast.Call):
        return
    compilers = index.compile_sites.compilers | scope.compilers
    if _is_compiler(value, index.imports, compilers):
        scope.compilers.add(name)
        scope.compiler_calls[name] = unpartial(value, index.imports)
        return
    target = _compiled_by(value, index.imports, compilers)
    if isinstance(target, ast.Name):
        scope.compiled[name] = target.id


def _record_call(index: ModuleIndex, scope: _Scope, call: ast.Call) -> None:
    compilers = index.compile_sites.compilers | scope.compilers
    if isinstance(call.func, ast.Name):
        scope.calls.setdefault(call.func.id, []).append(call)
    elif isinstance(call.func, ast.Call):  # torch.compile(fn, ...)(x, 1.0): a call of fn
        compiled = _compiled_by(call.func, index.imports, compilers)
        if isinstance(compiled, ast.Name):
            scope.calls.setdefault(compiled.id, []).append(call)
    target = _compiled_by(call, index.imports, compilers)
    if not isinstance(target, ast.Name):
        return
    options: ast.Call | None = None  # the call holding the compile's options, where this scope shows it
    if index.qualname(call.func) in COMPILE_FUNCTIONS:
        options = call
    elif isinstance(call.func, ast.Call):
        options = unpartial(call.func, index.imports)
    elif isinstance(call.func, ast.Name):
        options = scope.compiler_calls.get(call.func.id)
    scope.target_nodes.append(target)
    scope.compiled_with.setdefault(target.id, []).append(options)


def _compiler_decorated(info: FunctionInfo, chain: list[_Scope]) -> bool:
    """``@opt`` with ``opt`` a compiler bound in this or an enclosing function."""
    names = set().union(*(s.compilers for s in chain))
    return any(isinstance(d, ast.Name) and d.id in names for d in info.node.decorator_list)


def _scope_nodes(function: FunctionNode) -> Iterator[ast.AST]:
    """The nodes of one function's own scope, in source order: into its blocks and
    expressions, not into nested functions, classes or lambdas (their defs are yielded,
    their bodies are the next scope)."""
    stack: list[ast.AST] = list(reversed(function.body))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (*_DEFS, ast.ClassDef, ast.Lambda)):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))
