"""Compile roots: the functions a file hands to ``torch.compile``, in every spelling.

Measured on torch 2.13 (backend eager; default, ``fullgraph=True``, ``dynamic=True``): a
``print`` breaks the graph in ``fn`` under each of ``torch.compile(fn)``,
``torch.compile(backend="eager")(fn)``, ``opt = torch.compile(...); opt(fn)``, ``@opt``,
``torch._dynamo.optimize("eager")(fn)`` and ``model.compile()`` (which compiles the
model's ``forward``); ``torch.compile(crf.decode)`` traces ``decode``, which is no
``forward``. So a root is whatever such a call receives: a function, a class or instance
(its ``forward``), or a bound method ``obj.method`` whose object's class the file shows.
Targets imported from another file become roots there (``external``).

One walk over the file, only for files that mention ``compile`` or ``optimize``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from compilelint.analysis.imports import ImportTable
from compilelint.analysis.kinds import Kind

if TYPE_CHECKING:
    from compilelint.analysis.module_index import ClassInfo, FunctionInfo, ModuleIndex

# take the compiled function as their first argument (or ``model=``)
COMPILE_FUNCTIONS = frozenset({"torch.compile", "torch.compiler.compile"})
# return a compiler, called on the function next (or used as a decorator)
COMPILER_FACTORIES = frozenset(
    {"torch._dynamo.optimize", "torch._dynamo.optimize_assert", "torch._dynamo.eval_frame.optimize"}
)
COMPILING_DECORATORS = COMPILE_FUNCTIONS | COMPILER_FACTORIES


@dataclass
class CompileSites:
    """What one walk of the file found about compiling."""

    calls: list[ast.Call] = field(default_factory=list)  # every compile / factory call
    # what is compiled, with the class whose method holds the compile call (for ``self.x``)
    targets: list[tuple[ast.expr, str | None]] = field(default_factory=list)
    compilers: set[str] = field(default_factory=set)  # names bound to a compiler: opt = torch.compile()
    compiled_names: dict[str, list[ast.expr]] = field(default_factory=dict)  # opt_f = torch.compile(f)
    instances: dict[str, set[str]] = field(default_factory=dict)  # crf = CRF() -> {"CRF"}
    calls_by_name: dict[str, list[ast.Call]] = field(default_factory=dict)  # name(...) anywhere
    model_compiles: list[tuple[ast.expr, str | None]] = field(default_factory=list)  # model.compile()


def collect_compile_sites(tree: ast.Module, imports: ImportTable) -> CompileSites:
    sites = CompileSites()
    assigned: list[tuple[str, ast.expr]] = []
    factory_calls: list[tuple[ast.Call, str | None]] = []
    stack: list[tuple[ast.AST, str | None]] = [(tree, None)]
    while stack:
        node, owner = stack.pop()
        if isinstance(node, ast.ClassDef):
            owner = node.name
        elif isinstance(node, ast.Call):
            name = imports.qualname(node.func)
            if name in COMPILE_FUNCTIONS or name in COMPILER_FACTORIES:
                sites.calls.append(node)
                target = _compile_target(node) if name in COMPILE_FUNCTIONS else None
                if target is not None:
                    sites.targets.append((target, owner))
            if isinstance(node.func, ast.Call):  # torch.compile(backend="eager")(fn)
                factory_calls.append((node, owner))
            elif isinstance(node.func, ast.Name):
                sites.calls_by_name.setdefault(node.func.id, []).append(node)
            elif isinstance(node.func, ast.Attribute) and node.func.attr == "compile" and not node.args:
                sites.model_compiles.append((node.func.value, owner))
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned.append((node.targets[0].id, node.value))
        stack.extend((child, owner) for child in ast.iter_child_nodes(node))
    for call, owner in factory_calls:
        if _is_compiler(call.func, imports, sites.compilers) and call.args:
            sites.targets.append((call.args[0], owner))
    for name, value in assigned:
        _record_assignment(sites, imports, name, value)
    for name in sites.compilers:  # opt(fn)
        for call in sites.calls_by_name.get(name, ()):
            if call.args:
                sites.targets.append((call.args[0], None))
                sites.calls.append(call)
    return sites


def _record_assignment(sites: CompileSites, imports: ImportTable, name: str, value: ast.expr) -> None:
    if not isinstance(value, ast.Call):
        return
    if _is_compiler(value, imports, set()):
        sites.compilers.add(name)
        return
    target = _compiled_by(value, imports, sites.compilers)
    if target is not None:
        sites.compiled_names.setdefault(name, []).append(target)
        return
    constructed = imports.qualname(value.func)
    if constructed is not None and constructed.rsplit(".", 1)[-1][:1].isupper():
        sites.instances.setdefault(name, set()).add(constructed)


def _compile_target(call: ast.Call) -> ast.expr | None:
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg == "model"), None)


PARTIAL = frozenset({"functools.partial"})


def unpartial(node: ast.Call, imports: ImportTable) -> ast.Call:
    """``functools.partial(torch.compile, backend="eager")`` as the call it stands for,
    ``torch.compile(backend="eager")``; any other call as it is."""
    if imports.qualname(node.func) not in PARTIAL or not node.args or isinstance(node.args[0], ast.Starred):
        return node
    return ast.copy_location(ast.Call(func=node.args[0], args=node.args[1:], keywords=node.keywords), node)


def _is_compiler(node: ast.expr, imports: ImportTable, compilers: set[str]) -> bool:
    """``torch.compile(mode=...)``, ``torch._dynamo.optimize("eager")``, a name bound to one,
    either of them through ``functools.partial``."""
    if isinstance(node, ast.Name) and node.id in compilers:
        return True
    if not isinstance(node, ast.Call):
        return False
    node = unpartial(node, imports)
    name = imports.qualname(node.func)
    return name in COMPILER_FACTORIES or (name in COMPILE_FUNCTIONS and _compile_target(node) is None)


def _compiled_by(value: ast.Call, imports: ImportTable, compilers: set[str]) -> ast.expr | None:
    """What ``value`` compiles: ``torch.compile(f)``, ``torch.compile(mode=...)(f)``, ``opt(f)``."""
    if imports.qualname(value.func) in COMPILE_FUNCTIONS:
        return _compile_target(value)
    if _is_compiler(value.func, imports, compilers) and value.args:
        return value.args[0]
    return None


def mark_compiler_decorators(index: ModuleIndex) -> None:
    """``@opt`` where ``opt = torch.compile(...)``: the decorated function is compiled."""
    compilers = index.compile_sites.compilers
    if not compilers:
        return
    functions = list(index.functions.values())
    functions += [m for cls in index.classes.values() for m in cls.methods.values()]
    for info in functions:
        for decorator in info.node.decorator_list:
            if isinstance(decorator, ast.Name) and decorator.id in compilers:
                info.compiled = True


# --- resolving targets ----------------------------------------------------------------------
@dataclass
class Roots:
    local: list[FunctionInfo]
    external: list[str]  # qualified names in other modules: "..model.CRF.decode"
    # target -> calls of what compiled it (fast = torch.compile(step); fast(x, True))
    external_calls: dict[str, list[ast.Call]] = field(default_factory=dict)


def compile_call_roots(index: ModuleIndex) -> Roots:
    from compilelint.analysis.nested_roots import nested_compiles  # it reads this module's helpers

    roots = Roots([], [])
    sites = index.compile_sites
    names_of = {id(t): n for n, targets in sites.compiled_names.items() for t in targets}
    local_targets = nested_compiles(index).local_targets
    for target, owner in sites.targets:
        if id(target) in local_targets:  # a function's own name: nested_roots resolves it
            continue
        known = len(roots.external)
        _resolve_target(index, target, owner, roots)
        name = names_of.get(id(target))
        for qualname in roots.external[known:]:
            if name is not None:
                roots.external_calls.setdefault(qualname, []).extend(sites.calls_by_name.get(name, ()))
    for receiver, owner in index.compile_sites.model_compiles:  # model.compile(): its forward
        for cls in _receiver_classes(index, receiver, owner, instances_only=True):
            roots.local.extend(_forwards(cls))
        for qualname in _external_receivers(index, receiver, instances_only=True):
            roots.external.append(f"{qualname}.forward")
    for info in roots.local:
        info.compiled = True
    return roots


def external_targets_of(index: ModuleIndex, call: ast.Call) -> list[str]:
    """What one compile call (or compiler call) compiles from other modules:
    ``torch.compile(crf.decode)`` with ``crf = CRF(...)`` -> ``["torchcrf.CRF.decode"]``."""
    roots = Roots([], [])
    for target, owner in index.compile_sites.targets:
        if any(target is argument for argument in call.args):
            _resolve_target(index, target, owner, roots)
    return roots.external


def _resolve_target(index: ModuleIndex, target: ast.expr, owner: str | None, roots: Roots) -> None:
    if isinstance(target, ast.Call):  # torch.compile(Net()): a class built; not make_model()
        name = index.qualname(target.func) or ""
        if name in index.classes:
            roots.local.extend(_forwards(index.classes[name]))
        elif isinstance(target.func, ast.Name) and target.func.id in index.imports and name.rsplit(".", 1)[-1][:1].isupper():
            roots.external.append(f"{name}.forward")
    elif isinstance(target, ast.Name):
        _resolve_name(index, target.id, roots)
    elif isinstance(target, ast.Attribute):
        for cls in _receiver_classes(index, target.value, owner):
            method = cls.find_method(target.attr)
            if method is not None:
                roots.local.append(method)
        for qualname in _external_receivers(index, target.value):
            roots.external.append(f"{qualname}.{target.attr}")


def _resolve_name(index: ModuleIndex, name: str, roots: Roots) -> None:
    if name in index.functions:
        roots.local.append(index.functions[name])
    elif name in index.classes:
        roots.local.extend(_forwards(index.classes[name]))
    elif name in index.imports:
        roots.external.append(index.imports.get(name) or name)
    for constructed in index.compile_sites.instances.get(name, ()):
        if constructed in index.classes:
            roots.local.extend(_forwards(index.classes[constructed]))
        elif "." in constructed or constructed in index.imports:
            roots.external.append(f"{constructed}.forward")


def _forwards(cls: ClassInfo) -> Iterator[FunctionInfo]:
    for name in ("forward", "__call__"):
        method = cls.find_method(name)
        if method is not None:
            yield method
            return


def _receiver_classes(
    index: ModuleIndex, receiver: ast.expr, owner: str | None, instances_only: bool = False
) -> Iterator[ClassInfo]:
    """Local classes whose instance (or the class itself) ``receiver`` names."""
    from compilelint.analysis.class_attributes import attribute_class

    if isinstance(receiver, ast.Call):  # Net().decode
        receiver = receiver.func
    if isinstance(receiver, ast.Name):
        if receiver.id in index.classes and not instances_only:
            yield index.classes[receiver.id]
        for constructed in index.compile_sites.instances.get(receiver.id, ()):
            if constructed in index.classes:
                yield index.classes[constructed]
        if receiver.id == "self" and owner in index.classes and not instances_only:
            yield index.classes[owner]
    elif isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name):
        if receiver.value.id == "self" and owner in index.classes:  # self.crf.decode
            held = attribute_class(index, index.classes[owner], receiver.attr)
            if held is not None:
                yield held


def _external_receivers(index: ModuleIndex, receiver: ast.expr, instances_only: bool = False) -> Iterator[str]:
    """Qualified names of imported classes (or modules) ``receiver`` names."""
    if isinstance(receiver, ast.Call):
        receiver = receiver.func
    if not isinstance(receiver, ast.Name):
        return
    if receiver.id in index.imports and not instances_only:
        yield index.imports.get(receiver.id) or receiver.id
    for constructed in index.compile_sites.instances.get(receiver.id, ()):
        if constructed not in index.classes and ("." in constructed or constructed in index.imports):
            yield constructed


# --- argument kinds from the calls of compiled functions -------------------------------------
MATH_CONSTANTS = frozenset({"math.pi", "math.e", "math.tau", "math.inf", "math.nan"})
# builtins that hand the eager caller a Python number or string whatever they are given
# (``id(m)``, ``len(xs)``, ``int(t)``): the compiled function receives no tensor
PYTHON_VALUE_BUILTINS = frozenset({"id", "len", "hash", "int", "float", "bool", "str"})


def literal_kind(
    node: ast.expr, index: ModuleIndex, local_literals: frozenset[str] = frozenset(), local_names: frozenset[str] = frozenset()
) -> Kind | None:
    """STATIC for a literal (``True``, ``2``, ``"mean"``, ``(1, 2)``, ``-1``, ``math.pi``, a
    module-level constant the calling scope does not rebind (``local_names``: every name it
    binds), or a name the calling scope binds once to a literal: ``local_literals``), for a Python number the caller computes (``id(m)``, ``len(xs) + 1``)
    and for an object of torch's namespace (``torch.add``, ``torch.float16``); None when the
    call site says nothing we can read without running it."""
    if isinstance(node, ast.Constant):
        return Kind.STATIC
    if isinstance(node, ast.UnaryOp) and literal_kind(node.operand, index, local_literals, local_names):
        return Kind.STATIC
    if isinstance(node, ast.BinOp) and literal_kind(node.left, index, local_literals, local_names) and literal_kind(node.right, index, local_literals, local_names):
        return Kind.STATIC
    if isinstance(node, ast.Call) and _python_value_builtin(node, index, local_names):
        return Kind.STATIC
    if isinstance(node, ast.Attribute) and (index.qualname(node) or "").startswith("torch."):
        return Kind.STATIC  # a function, class, dtype or module: torch keeps no tensors there
    if isinstance(node, (ast.Tuple, ast.List)) and node.elts and all(literal_kind(e, index, local_literals, local_names) for e in node.elts):
        return Kind.STATIC
    if isinstance(node, ast.Name) and node.id in local_literals:
        return Kind.STATIC
    if isinstance(node, ast.Name) and node.id not in local_names and isinstance(index.assignments.get(node.id), ast.Constant):
        return Kind.STATIC
    if isinstance(node, ast.Attribute) and index.qualname(node) in MATH_CONSTANTS:
        return Kind.STATIC
    return None


def _python_value_builtin(call: ast.Call, index: ModuleIndex, local_names: frozenset[str]) -> bool:
    func = call.func
    if not isinstance(func, ast.Name) or func.id not in PYTHON_VALUE_BUILTINS:
        return False
    return func.id not in index.module_names and func.id not in index.imports and func.id not in local_names


def calls_of_compiled(index: ModuleIndex, info: FunctionInfo) -> Iterator[ast.Call]:
    """Calls of a compiled function from anywhere in the file: ``opt_f(x, True)``,
    ``f(x, True)`` for a decorated ``f``, ``model(x, True)`` for a module's forward."""
    sites = index.compile_sites
    names: list[str] = []
    if info.owner is None:
        names.append(info.name)
        names += [n for n, targets in sites.compiled_names.items() if any(_names(t, info.name) for t in targets)]
    elif info.name in ("forward", "__call__"):
        owner = info.owner.name
        instances = {n for n, classes in sites.instances.items() if owner in classes}
        names += sorted(instances)
        # opt = torch.compile(M) or opt = torch.compile(m) for an m = M()
        names += [n for n, targets in sites.compiled_names.items()
                  if any(isinstance(t, ast.Name) and (t.id == owner or t.id in instances) for t in targets)]
    around = _enclosing_function(index, info.owner.node if info.owner is not None else info.node)
    for name in names:
        for call in sites.calls_by_name.get(name, ()):
            # a class or function local to a test is called in that test, not under the
            # same names in the others (each test of a file may define its own ``M``)
            if around is None or around.lineno <= call.lineno <= (around.end_lineno or around.lineno):
                yield call


def scope_literals(index: ModuleIndex, call: ast.Call) -> tuple[frozenset[str], frozenset[str]]:
    """Names the function around ``call`` binds once, to a literal (``ref = id(m)``,
    ``shape = [2, 3]``), and every name it binds: ``literal_kind``'s scope at that call."""
    around = _enclosing_function(index, call)
    if around is None:
        return frozenset(), frozenset()
    stores: dict[str, int] = {}
    values: dict[str, ast.expr] = {}
    for node in _own_scope(around):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if literal_kind(node.value, index, frozenset(values)) is not None:
                values[node.targets[0].id] = node.value
    signature = getattr(around, "args", None)
    parameters = {a.arg for a in ast.walk(signature) if isinstance(a, ast.arg)} if signature is not None else set()
    return frozenset(name for name in values if stores.get(name) == 1), frozenset(stores) | parameters


def _enclosing_function(index: ModuleIndex, node: ast.stmt | ast.expr) -> ast.stmt | ast.expr | None:
    """The innermost top-level function or method whose lines hold ``node`` (not itself)."""
    functions = [*index.functions.values(), *(m for cls in index.all_classes for m in cls.methods.values())]
    holding = [f.node for f in functions if f.node is not node and f.node.lineno <= node.lineno <= (f.node.end_lineno or f.node.lineno)]
    return min(holding, key=lambda n: (n.end_lineno or n.lineno) - n.lineno, default=None)


def _own_scope(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of ``function``'s body in source order, not those of its nested scopes."""
    stack = list(reversed(getattr(function, "body", [])))
    while stack:
        node = stack.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _names(target: ast.expr, name: str) -> bool:
    return isinstance(target, ast.Name) and target.id == name


def literal_arguments(calls: list[ast.Call], index: ModuleIndex) -> tuple[tuple[Kind, ...], tuple[tuple[str, Kind], ...]]:
    """Per position and keyword: STATIC where every call passes a literal, else UNKNOWN
    (the callee's file then keeps its own reading of that parameter)."""
    if not calls or any(isinstance(a, ast.Starred) for call in calls for a in call.args):
        return (), ()
    width = max(len(call.args) for call in calls)
    positional = []
    for position in range(width):
        values = [call.args[position] if position < len(call.args) else None for call in calls]
        literal = all(v is not None and literal_kind(v, index) for v in values)
        positional.append(Kind.STATIC if literal else Kind.UNKNOWN)
    names = {k.arg for call in calls for k in call.keywords if k.arg}
    keywords = []
    for name in sorted(names):
        values = [next((k.value for k in call.keywords if k.arg == name), None) for call in calls]
        literal = all(v is not None and literal_kind(v, index) for v in values)
        keywords.append((name, Kind.STATIC if literal else Kind.UNKNOWN))
    return tuple(positional), tuple(keywords)
