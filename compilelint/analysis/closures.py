"""What the free variables of a compiled closure hold: the enclosing function's bindings.

A test or a training script compiles a function it defines, and that function reads what
the enclosing function computed (``mod = nn.LSTM(4, 4); def fn(x): return mod(x)``).
Measured on torch 2.13 (backend eager; default, ``fullgraph=True`` and ``dynamic=True``):
Dynamo sees such a tensor as an input of the graph, so ``if w.sum() > 0`` breaks (GB0170),
``w.sum().item()`` breaks (GB0124) and ``x[mask]`` breaks (GB0036) as they would on a
parameter; an ``nn.LSTM`` breaks where it is first used (GB0014); a ``Beta`` sampled with a
tensor size breaks once the size is dynamic (GB0090); an instance of a class of the file
runs its methods traced. Python numbers do not break, even where the enclosing
function read them from tensors (``n = y.shape[0]``, ``s = y.sum().item()``): that
function runs in Python, so they are plain numbers by the time Dynamo reads them.

The enclosing function is interpreted as Python code (nothing it calls joins a region).
A closure reads a name when it runs, not when it is defined: its kind is the one the name
has where the ``def`` stands, joined with every binding after it (one the closure may
also see). A lambda, which has no ``def`` to stand at, gets every binding joined.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from compilelint.analysis import objects
from compilelint.analysis.expressions import Env, Evaluator, Target
from compilelint.analysis.interpreter import FunctionInterpreter
from compilelint.analysis.kinds import Kind
from compilelint.analysis.module_index import ClassInfo, FunctionInfo, FunctionNode
from compilelint.analysis.parameters import all_parameters, annotation_kind

if TYPE_CHECKING:
    from compilelint.analysis.regions import RegionAnalysis

# What stays of a kind when Python computed the value: a tensor (and whether it is a mask,
# or a list of tensors) is an input of the graph; sizes and numbers read from tensors are
# Python numbers; refinements about how traced code built a tensor no longer apply.
# Module methods that return the module: ``nn.LSTM(4, 4).to(device)`` is still the LSTM.
RETURNS_SELF = frozenset({"to", "cuda", "cpu", "float", "double", "half", "bfloat16", "eval", "train", "requires_grad_"})
KEPT = Kind.TENSOR | Kind.BOOL | Kind.CONTAINER | Kind.MODULE | Kind.STATIC | Kind.UNKNOWN


@dataclass
class Closure:
    """The kinds of the names a function reads from its enclosing functions, and the
    classes of the objects they hold (``objects`` spells them)."""

    kinds: Env = field(default_factory=dict)
    objects: dict[str, objects.Objects] = field(default_factory=dict)


@dataclass
class _Binding:
    line: int
    kind: Kind
    objects: objects.Objects


@dataclass
class EagerScope:
    """One enclosing function interpreted as Python: every binding, and what each name
    holds where each of its nested ``def`` statements stands."""

    names: set[str] = field(default_factory=set)  # the function's own locals, and what it reads from outside
    classes: set[int] = field(default_factory=set)  # ids of the class statements in its body
    bindings: dict[str, list[_Binding]] = field(default_factory=dict)
    at_def: dict[int, Closure] = field(default_factory=dict)  # id(def node) -> names there


def closure_of(analysis: RegionAnalysis, info: FunctionInfo) -> Closure:
    """What ``info``'s free variables hold, from the functions enclosing it (run in Python)."""
    parent = info.parent
    if parent is None:
        return Closure()
    scope = _eager_scope(analysis, parent)
    at_def = scope.at_def.get(id(info.node))
    own = _own_bindings(info.node)
    found = Closure()
    for name in scope.names - own - parent.declared_globals:
        kind, held = _seen_by_closure(name, scope, at_def, info.node.lineno)
        if kind != Kind.NONE:
            found.kinds[name] = kind
        if held:
            found.objects[name] = held
    return found


def _seen_by_closure(name: str, scope: EagerScope, at_def: Closure | None, line: int) -> tuple[Kind, objects.Objects]:
    """The name where the def stands, and every binding the def may be run after; the
    objects it holds where each of them holds one."""
    seen = [(b.kind, b.objects) for b in scope.bindings.get(name, ()) if at_def is None or b.line > line]
    if at_def is not None and name in at_def.kinds:
        seen.append((at_def.kinds[name], at_def.objects.get(name, ())))
    kind = Kind.NONE
    for each, _ in seen:
        kind |= each
    held = objects.join(*(h for _, h in seen)) if all(h for _, h in seen) else ()
    # a value we cannot see may be what the closure reads
    return (Kind.UNKNOWN if kind & Kind.UNKNOWN else kind), held


def _eager_scope(analysis: RegionAnalysis, function: FunctionInfo) -> EagerScope:
    """Memoised on the analysis, per enclosing function."""
    memo = analysis.eager_scopes
    if id(function) not in memo:
        memo[id(function)] = EagerScope()  # a cycle (none in Python's scoping) ends here
        memo[id(function)] = _interpret(analysis, function)
    return memo[id(function)]


def _interpret(analysis: RegionAnalysis, function: FunctionInfo) -> EagerScope:
    outer = closure_of(analysis, function)
    env: Env = dict(outer.kinds)
    for arg in all_parameters(function.node):
        env[arg.arg] = annotation_kind(arg.annotation) if arg.annotation is not None else Kind.UNKNOWN
    scope = EagerScope(names=_own_bindings(function.node) | set(outer.kinds) | set(outer.objects))
    scope.classes = {id(node) for node in ast.walk(function.node) if isinstance(node, ast.ClassDef)}
    sink = _PythonCalls(analysis, scope)
    evaluator = _RecordingEvaluator(analysis, env, sink, scope)
    evaluator.locals.update(env)
    for name, held in outer.objects.items():
        objects.set_name(evaluator, name, held)
    sink.evaluator = evaluator
    FunctionInterpreter(evaluator, sink, visitor=None).run(function.node.body)
    return scope


class _RecordingEvaluator(Evaluator):
    """Records each binding of a name, with what it holds, as the interpreter makes it."""

    def __init__(self, analysis: RegionAnalysis, env: Env, sink: _PythonCalls, scope: EagerScope) -> None:
        super().__init__(analysis.index, env, sink, {})
        self.module = analysis.module
        self.scope = scope

    def bind(self, target: ast.expr, kind: Kind, value: ast.expr | None = None) -> None:
        super().bind(target, kind, value)
        if isinstance(target, ast.Name):
            binding = _Binding(getattr(target, "lineno", 0), _as_python_value(self.env.get(target.id, kind)), objects.of_name(self, target.id))
            self.scope.bindings.setdefault(target.id, []).append(binding)


class _PythonCalls:
    """The CallSink of a function that runs in Python: what it calls is not traced, so
    nothing joins a region; constructors of this file's classes still build instances."""

    def __init__(self, analysis: RegionAnalysis, scope: EagerScope) -> None:
        self.analysis = analysis
        self.scope = scope
        self.evaluator: Evaluator | None = None

    def define(self, node: FunctionNode, env: Env) -> None:
        assert self.evaluator is not None
        evaluator = self.evaluator
        here = Closure({k: _as_python_value(v) for k, v in env.items()})
        here.objects = {name: held for name in env if (held := objects.of_name(evaluator, name))}
        previous = self.scope.at_def.get(id(node))
        if previous is not None:  # a def in a loop: each pass's names
            for name, kind in previous.kinds.items():
                here.kinds[name] = here.kinds.get(name, Kind.NONE) | kind
            for name, held in previous.objects.items():
                here.objects[name] = objects.join(here.objects.get(name, ()), held)
        self.scope.at_def[id(node)] = here

    def define_lambda(self, node: ast.Lambda, name: str, at: ast.stmt, env: Env) -> None:
        """A lambda that Python runs here is no region; one compiled later is a nested root."""

    def resolve(self, call: ast.Call, evaluator: Evaluator) -> list[Target]:
        func = call.func
        name = evaluator.qualname(func)
        if isinstance(func, ast.Attribute) and func.attr in RETURNS_SELF and isinstance(func.value, ast.Call):
            evaluator.kind(func.value)
            held = objects.of_value(evaluator, func.value)
            if held:
                evaluator.value_objects[id(call)] = held
        elif isinstance(func, ast.Name) and (cls := self._class_named(func.id, name)) is not None:
            evaluator.built[id(call)] = (cls,)
        elif name is not None and name.startswith("torch.") and name.rsplit(".", 1)[-1][:1].isupper():
            evaluator.imported_built[id(call)] = (name,)  # nn.LSTM(4, 4): rules ask which class
        return []

    def _class_named(self, name: str, qualname: str | None) -> ClassInfo | None:
        """The file's class a called name means here: the module's, or the one the
        function's own ``class`` statement defines (``index.classes`` keeps it by name)."""
        cls = self.analysis.index.classes.get(name)
        if cls is None or (qualname != name and id(cls.node) not in self.scope.classes):
            return None
        return cls

    def called(self, target: Target, call: ast.Call, evaluator: Evaluator) -> Kind:
        return Kind.UNKNOWN

    def attribute(self, node: ast.Attribute, evaluator: Evaluator) -> Kind | None:
        return None

    def external(self, call: ast.Call, evaluator: Evaluator, qualname: str) -> Kind | None:
        return None

    def element_instance(self, iterable: ast.expr) -> ClassInfo | None:
        return None

    def imported_instance(self, node: ast.expr) -> str | None:
        return None

    def imported_elements(self, iterable: ast.expr) -> tuple[str, ...]:
        return ()

    def attribute_objects(self, node: ast.Attribute, evaluator: Evaluator) -> tuple[str, ...]:
        return ()

    def attribute_values(self, node: ast.Attribute, evaluator: Evaluator) -> tuple[str, ...]:
        return ()

    def hashed_attribute(self, node: ast.Attribute) -> bool:
        return False

    def stored(self, target: ast.Attribute, value: ast.expr, evaluator: Evaluator) -> None:
        return None

    def self_objects(self, name: str) -> tuple[str, ...]:
        return ()

    def matching_attributes(self, receiver: ast.expr, prefix: str, suffix: str) -> Kind | None:
        return None


def _as_python_value(kind: Kind) -> Kind:
    if kind & (Kind.DATA_SCALAR | Kind.SHAPE):
        kind = (kind & ~(Kind.DATA_SCALAR | Kind.SHAPE)) | Kind.STATIC
    if kind & Kind.NUMPY:  # an array Dynamo would trace as a tensor: not followed here
        return Kind.UNKNOWN
    return kind & KEPT


def _own_bindings(function: FunctionNode) -> set[str]:
    """Names the function binds itself (Python makes them its locals), less ``nonlocal`` ones."""
    bound = {arg.arg for arg in all_parameters(function)}
    declared: set[str] = set()
    stack: list[ast.AST] = list(function.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
            continue
        if isinstance(node, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue  # scopes of their own
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            bound.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Nonlocal):
            declared.update(node.names)
        stack.extend(ast.iter_child_nodes(node))
    return bound - declared
