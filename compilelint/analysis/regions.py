"""Compiled regions: the functions Dynamo traces, found from their roots, with value kinds.

Roots are ``forward``/``__call__`` of nn.Module subclasses, ``@torch.compile`` functions and
what the file passes to ``torch.compile(...)``. From them, every call the interpreter can
resolve inside the file (``self.method``, ``super().forward``, module-level helpers, nested
functions, local submodules) adds a function to the region, with the kinds of the arguments
it receives. Kinds flow until nothing changes (a worklist, bounded per function).
"""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field

from compilelint.analysis.call_conditions import Condition, enclosing_conditions, parent_map, shared
from compilelint.analysis.class_attributes import (
    attribute_class,
    attribute_kind,
    element_class,
    external_attribute_class,
)
from compilelint.analysis.expressions import Env, Evaluator
from compilelint.analysis.interpreter import FunctionInterpreter, StatementVisitor
from compilelint.analysis.kinds import Kind
from compilelint.analysis.module_index import ClassInfo, FunctionInfo, FunctionNode, ModuleIndex, function_info
from compilelint.analysis.roots import calls_of_compiled, compile_call_roots, literal_kind
from compilelint.project import EntryPoint, ExternalCall
from compilelint.analysis.parameters import (
    annotation_kind,
    bind_arguments,
    bind_kinds,
    root_parameter_kinds,
    unbound_parameter_kind,
)

MAX_PASSES_PER_FUNCTION = 8
ENTRY = -1  # key of the arguments another file's call passes, among a function's call sites


@dataclass(eq=False)
class FunctionState:
    """What the analysis knows about one function of the region."""

    info: FunctionInfo
    chain: tuple[str, ...]  # compiled functions from a root to this one
    root: bool
    params: dict[str, Kind] = field(default_factory=dict)
    returns: Kind = Kind.NONE
    return_elements: list[Kind] | None = None  # when it returns tuples: each position's kind
    closure: Env = field(default_factory=dict)
    self_name: str | None = None
    owner: ClassInfo | None = None
    local_defs: dict[str, FunctionInfo] = field(default_factory=dict)
    callers: set[int] = field(default_factory=set)
    incoming: dict[int, dict[str, Kind]] = field(default_factory=dict)  # id(call) -> kinds passed
    params_from_calls: bool = False
    passes: int = 0
    # id(call) -> (id of the caller's FunctionInfo, the tests around the call in the caller)
    call_sites: dict[int, tuple[int, tuple[Condition, ...]]] = field(default_factory=dict)
    entry_conditions: tuple[Condition, ...] = ()  # what every way into the function shares


class RegionAnalysis:
    """All compiled regions of one module, their kinds and their resolved calls."""

    def __init__(self, index: ModuleIndex) -> None:
        self.index = index
        self.states: dict[int, FunctionState] = {}  # id(FunctionInfo) -> state
        self.order: list[FunctionState] = []  # discovery order (roots first)
        self.resolved_calls: dict[int, FunctionInfo] = {}  # id(ast.Call) -> callee
        # calls into other files: re-exports passed on and roots compiled here, then the calls
        # compiled code makes, one per call site (its latest pass replaces earlier ones)
        self.forwarded: dict[tuple[str, tuple[str, ...]], ExternalCall] = {}
        self.external_sites: dict[tuple[str, tuple[str, ...]], dict[int, ExternalCall]] = {}
        self._worklist: deque[FunctionState] = deque()
        self._root_ids: set[int] | None = None
        self._parents: dict[int, dict[int, ast.AST]] = {}  # id(function node) -> parent map

    def add_entry(self, entry: EntryPoint) -> None:
        """A function another file's compiled region calls, or another file compiles."""
        info, skip_self = self._entry_function(entry.name, entry.root)
        if info is None:
            self._pass_on(entry)
            return
        if info.disabled or info.opaque:
            return
        if entry.root:
            self._add(info, (info.qualname,), root=True)
            if not entry.positional and not entry.keywords:
                return
        state = self._add(info, entry.chain, root=False)
        passed = bind_kinds(info.node, entry.positional, entry.keywords, skip_self=skip_self)
        if self._is_root(info):  # what no caller shows stays what a root's inputs are taken for
            guessed = root_parameter_kinds(info)
            passed = {name: guessed.get(name, kind) if kind == Kind.UNKNOWN else kind for name, kind in passed.items()}
        state.incoming[ENTRY] = passed
        state.params.update(passed)
        state.params_from_calls = True

    def _is_root(self, info: FunctionInfo) -> bool:
        if self._root_ids is None:
            self._root_ids = {id(root) for root in find_roots(self.index)}
        return id(info) in self._root_ids

    def _entry_function(self, name: str, root: bool) -> tuple[FunctionInfo | None, bool]:
        """The function an entry names: ``helper``, ``Class.method``, or ``Class`` (another
        file builds it in compiled code: its ``__init__``; compiles it: its ``forward``)."""
        cls_name, _, method_name = name.rpartition(".")
        if cls_name:
            cls = self.index.classes.get(cls_name)
            method = cls.find_method(method_name) if cls is not None else None
            return method, method is not None and not method.is_static
        info = self.index.functions.get(name)
        if info is not None:
            return info, False
        cls = self.index.classes.get(name)
        if cls is None:
            return None, False
        return cls.find_method("forward" if root else "__init__"), True

    def _pass_on(self, entry: EntryPoint) -> None:
        """A name this file imports (a re-export through ``__init__.py``): the call goes on."""
        head, dot, rest = entry.name.partition(".")
        if head in self.index.classes or head in self.index.functions:
            return
        imported = self.index.imports.get(head)
        targets = [imported + dot + rest] if imported is not None else [f"{star}.{entry.name}" for star in self.index.imports.stars]
        for target in targets:
            self.forwarded[(target, entry.chain)] = ExternalCall(
                target, tuple(entry.positional), tuple(entry.keywords.items()), entry.chain[:-1], root=entry.root
            )

    # --- building ------------------------------------------------------------------------
    def run(self) -> None:
        for info in find_roots(self.index):
            state = self._add(info, (info.qualname,), root=True)
            if state.root:
                state.params.update(self._literal_arguments(info))
        for target in compile_call_roots(self.index).external:  # compiled here, defined there
            self.forwarded[(target, ())] = ExternalCall(target, (), (), (), root=True)
        while self._worklist:
            state = self._worklist.popleft()
            if state.passes >= MAX_PASSES_PER_FUNCTION:
                continue
            state.passes += 1
            before = (state.returns, state.return_elements)
            self.interpret(state, visitor=None)
            if (state.returns, state.return_elements) != before:
                for caller in state.callers:
                    self._enqueue(self.states[caller])
        self._settle_entry_conditions()

    def _literal_arguments(self, info: FunctionInfo) -> dict[str, Kind]:
        """Parameters every call of the compiled function in this file passes a literal to
        (``opt_f(x, True)``): Python constants, not the tensors a root's guess assumes."""
        found: dict[str, Kind] = {}
        unknown: set[str] = set()
        bound = info.owner is not None and not info.is_static
        for call in calls_of_compiled(self.index, info):
            literals: dict[int, Kind] = {}
            for value in [*call.args, *(keyword.value for keyword in call.keywords)]:
                kind = literal_kind(value, self.index)
                if kind is not None:
                    literals[id(value)] = kind
            for name, kind in bind_arguments(info.node, call, bound, literals).items():
                if kind == Kind.STATIC:
                    found[name] = kind
                else:
                    unknown.add(name)
        return {name: kind for name, kind in found.items() if name not in unknown}

    def _settle_entry_conditions(self) -> None:
        """Conditions shared by every call site, the caller's own added; roots and
        functions another file calls have none. Iterated to a fixed point (they shrink)."""
        for _ in range(len(self.order) + 1):
            changed = False
            for state in self.order:
                if state.root or ENTRY in state.incoming or not state.call_sites:
                    continue
                sites = []
                for caller_id, conditions in state.call_sites.values():
                    caller = self.states.get(caller_id)
                    inherited = caller.entry_conditions if caller is not None and caller is not state else ()
                    sites.append(inherited + conditions)
                settled = shared(sites)
                if [c.key for c in settled] != [c.key for c in state.entry_conditions]:
                    state.entry_conditions = settled
                    changed = True
            if not changed:
                return

    def conditions_around(self, call: ast.Call, function: FunctionNode) -> tuple[Condition, ...]:
        return enclosing_conditions(call, self.parents_of(function))

    def parents_of(self, function: FunctionNode) -> dict[int, ast.AST]:
        parents = self._parents.get(id(function))
        if parents is None:
            parents = self._parents[id(function)] = parent_map(function)
        return parents

    def _add(self, info: FunctionInfo, chain: tuple[str, ...], root: bool) -> FunctionState:
        state = self.states.get(id(info))
        if state is not None:
            return state
        state = FunctionState(info=info, chain=chain, root=root)
        if root:
            state.params = root_parameter_kinds(info)
        self.states[id(info)] = state
        self.order.append(state)
        self._enqueue(state)
        return state

    def _enqueue(self, state: FunctionState) -> None:
        if state not in self._worklist:
            self._worklist.append(state)

    def interpret(self, state: FunctionState, visitor: StatementVisitor | None) -> Kind:
        scope = FunctionScope(self, state)
        env = dict(state.closure)
        for arg in _all_parameters(state.info.node):
            env[arg.arg] = _parameter_kind(state, arg)
        cache: dict[int, Kind] = {}
        evaluator = Evaluator(self.index, env, scope, cache)
        evaluator.locals.update(env)
        interpreter = FunctionInterpreter(evaluator, scope, visitor)
        returns = interpreter.run(state.info.node.body)
        state.returns |= returns
        elements, previous = interpreter.return_elements, state.return_elements
        if elements is not None and previous is not None and len(previous) == len(elements):
            elements = [a | b for a, b in zip(elements, previous)]
        state.return_elements = elements
        return returns

    def external_calls(self) -> list[ExternalCall]:
        """What other files must analyse: each callee once per chain, with the kinds its
        call sites pass joined."""
        calls = list(self.forwarded.values())
        for sites in self.external_sites.values():
            calls.append(_joined(list(sites.values())))
        return calls

    # --- facts for rules -----------------------------------------------------------------
    def regions(self) -> Iterator[FunctionState]:
        return iter(self.order)

    def callee(self, call: ast.Call) -> FunctionInfo | None:
        return self.resolved_calls.get(id(call))


class FunctionScope:
    """Resolves calls and ``self.<attr>`` for one function; the interpreter's CallSink."""

    def __init__(self, analysis: RegionAnalysis, state: FunctionState) -> None:
        self.analysis = analysis
        self.state = state
        self._setup_self()

    def _setup_self(self) -> None:
        info, state = self.state.info, self.state
        if info.owner is not None:
            state.owner = info.owner
            args = info.node.args.posonlyargs + info.node.args.args
            if args and not info.is_static:
                state.self_name = args[0].arg

    # --- NestedDefinitions ---------------------------------------------------------------
    def define(self, node: FunctionNode, env: Env) -> None:
        info = self.state.local_defs.get(node.name)
        if info is None or info.node is not node:
            qualname = f"{self.state.info.qualname}.<locals>.{node.name}"
            info = function_info(self.analysis.index, node, qualname, owner=None)
            info.parent = self.state.info
        self.state.local_defs[node.name] = info
        if info.disabled:
            return
        child = self.analysis._add(info, self.state.chain + (info.qualname,), root=False)
        child.closure = {k: v for k, v in env.items() if k not in _parameter_names(node)}
        child.self_name, child.owner = self.state.self_name, self.state.owner
        child.local_defs.update({k: v for k, v in self.state.local_defs.items() if k not in child.local_defs})

    # --- CallSink ------------------------------------------------------------------------
    def resolve(self, call: ast.Call, evaluator: Evaluator) -> tuple[FunctionInfo, bool] | None:
        func = call.func
        if isinstance(func, ast.Name):
            if func.id in evaluator.instances:
                return _method(evaluator.instances[func.id], "forward")
            return self._resolve_name(func.id, evaluator)
        if isinstance(func, ast.Subscript):  # self.layers[i](x)
            cls = self.element_instance(func.value)
            return _method(cls, "forward") if cls is not None else None
        if not isinstance(func, ast.Attribute):
            return None
        receiver = func.value
        if isinstance(receiver, ast.Name) and receiver.id == self.state.self_name and self.state.owner:
            return self._resolve_self(func.attr, call, evaluator)
        if isinstance(receiver, ast.Name) and receiver.id in evaluator.instances:
            return _method(evaluator.instances[receiver.id], func.attr)
        held = self._self_attribute_class(receiver)
        if held is not None:  # self.structure.init_inputs(...)
            return _method(held, func.attr)
        self._external_submodule_call(receiver, func.attr, call, evaluator)
        if _is_super_call(receiver) and self.state.owner is not None:
            for base in list(self.state.owner.mro())[1:]:
                if func.attr in base.methods:
                    return base.methods[func.attr], True
            return None
        if isinstance(receiver, ast.Name) and receiver.id in self.analysis.index.classes:
            return self._resolve_class_attribute(self.analysis.index.classes[receiver.id], func.attr)
        return None

    def _own_attribute(self, node: ast.expr) -> tuple[ClassInfo, str] | None:
        """(owner class, attr) for ``self.attr`` in a method."""
        owner = self.state.owner
        if owner is None or not isinstance(node, ast.Attribute):
            return None
        if not (isinstance(node.value, ast.Name) and node.value.id == self.state.self_name):
            return None
        return owner, node.attr

    def _self_attribute_class(self, node: ast.expr) -> ClassInfo | None:
        own = self._own_attribute(node)
        return attribute_class(self.analysis.index, *own) if own else None

    def element_instance(self, iterable: ast.expr) -> ClassInfo | None:
        own = self._own_attribute(iterable)
        return element_class(self.analysis.index, *own) if own else None

    def _resolve_name(self, name: str, evaluator: Evaluator) -> tuple[FunctionInfo, bool] | None:
        if name in self.state.local_defs:
            return self.state.local_defs[name], False
        if name in evaluator.locals or name in evaluator.env:
            return None
        function = self.analysis.index.functions.get(name)
        if function is not None:
            return function, False
        cls = self.analysis.index.classes.get(name)
        if cls is not None:  # Dynamo traces the constructor of a class built in compiled code
            init = cls.find_method("__init__")
            return (init, True) if init is not None else None
        return None

    def _resolve_self(self, attr: str, call: ast.Call, evaluator: Evaluator) -> tuple[FunctionInfo, bool] | None:
        owner = self.state.owner
        assert owner is not None
        method = owner.find_method(attr)
        if method is not None:
            return method, not method.is_static
        submodule = attribute_class(self.analysis.index, owner, attr)
        if submodule is not None:
            forward = submodule.find_method("forward")
            if forward is not None:
                return forward, True
        self._external_submodule_call(call.func, "forward", call, evaluator)
        return None

    def _external_submodule_call(self, receiver: ast.expr, method: str, call: ast.Call, evaluator: Evaluator) -> None:
        """``self.rel(0, n)`` / ``self.rel.decode(x)`` where ``self.rel`` holds an imported
        class: the other file's method gets the kinds passed here, sizes and flags as such."""
        own = self._own_attribute(receiver)
        imported = external_attribute_class(self.analysis.index, *own) if own else None
        if imported is not None:
            self.external(call, evaluator, f"{imported}.{method}")

    def _resolve_class_attribute(self, cls: ClassInfo, attr: str) -> tuple[FunctionInfo, bool] | None:
        if attr == "apply":  # autograd.Function: apply(*args) runs forward(ctx, *args)
            forward = cls.find_method("forward")
            return (forward, True) if forward is not None else None
        method = cls.find_method(attr)
        return (method, False) if method is not None else None

    def called(self, callee: FunctionInfo, bound: bool, call: ast.Call, evaluator: Evaluator) -> Kind:
        analysis = self.analysis
        analysis.resolved_calls[id(call)] = callee
        if callee.disabled or callee.opaque:
            return Kind.UNKNOWN
        state = analysis.states.get(id(callee))
        if state is None:
            state = analysis._add(callee, self.state.chain + (callee.qualname,), root=False)
        state.callers.add(id(self.state.info))
        state.call_sites[id(call)] = (id(self.state.info), analysis.conditions_around(call, self.state.info.node))
        # Each call site's latest contribution replaces its earlier one, so kinds guessed
        # before a caller was analysed (a root's heuristics) do not stick.
        state.incoming[id(call)] = bind_arguments(callee.node, call, bound, evaluator.cache)
        state.params_from_calls = True  # a root's guessed kinds give way to its callers'
        merged: dict[str, Kind] = {}
        for contribution in state.incoming.values():
            for name, kind in contribution.items():
                merged[name] = merged.get(name, Kind.NONE) | kind
        if merged != state.params:
            state.params = merged
            analysis._enqueue(state)
        if callee.name == "__init__" and isinstance(call.func, ast.Name):  # Class(...): an instance
            if callee.owner is not None:
                evaluator.built[id(call)] = callee.owner  # cache = Cache(); cache.update(...) resolves
            return Kind.MODULE if callee.owner is not None and callee.owner.is_module else Kind.UNKNOWN
        if state.return_elements is not None:
            evaluator.tuple_kinds[id(call)] = state.return_elements
        return state.returns if state.returns != Kind.NONE else Kind.UNKNOWN

    def external(self, call: ast.Call, evaluator: Evaluator, qualname: str) -> None:
        if any(isinstance(a, ast.Starred) for a in call.args):
            positional: tuple[Kind, ...] = ()
        else:
            positional = tuple(evaluator.cache.get(id(a), Kind.UNKNOWN) for a in call.args)
        keywords = tuple((k.arg, evaluator.cache.get(id(k.value), Kind.UNKNOWN)) for k in call.keywords if k.arg)
        sites = self.analysis.external_sites.setdefault((qualname, self.state.chain), {})
        sites[id(call)] = ExternalCall(qualname, positional, keywords, self.state.chain)

    def attribute(self, node: ast.Attribute, evaluator: Evaluator) -> Kind | None:
        receiver = node.value
        if isinstance(receiver, ast.Name) and receiver.id == self.state.self_name and self.state.owner:
            evaluator.cache[id(receiver)] = Kind.MODULE
            return attribute_kind(self.analysis.index, self.state.owner, node.attr)
        return None


def _joined(calls: list[ExternalCall]) -> ExternalCall:
    """One call with the kinds of all: position by position, keyword by keyword."""
    positional: list[Kind] = []
    keywords: dict[str, Kind] = {}
    for call in calls:
        for position, kind in enumerate(call.positional):
            if position < len(positional):
                positional[position] |= kind
            else:
                positional.append(kind)
        for name, kind in call.keywords:
            keywords[name] = keywords.get(name, Kind.NONE) | kind
    first = calls[0]
    return ExternalCall(first.target, tuple(positional), tuple(keywords.items()), first.chain)


def _method(cls: ClassInfo, name: str) -> tuple[FunctionInfo, bool] | None:
    method = cls.find_method(name)
    return (method, not method.is_static) if method is not None else None


def _parameter_kind(state: FunctionState, arg: ast.arg) -> Kind:
    """An annotation says more than the callers' join, except that ``bool``/``int`` cannot
    say whether the value came from tensor data (``is_global_attn: bool`` from ``.item()``),
    nor hide the tensors callers pass (``paddings: tuple[int, int]`` given a buffer: Dynamo
    sees the tensor)."""
    passed = state.params.get(arg.arg)
    declared = annotation_kind(arg.annotation) if arg.annotation is not None else Kind.UNKNOWN
    if declared == Kind.UNKNOWN:
        return passed if passed is not None else unbound_parameter_kind(state.info.node, arg)
    if passed is not None and declared & Kind.STATIC and not declared & Kind.TENSOR:
        if passed & (Kind.DATA_SCALAR | Kind.SHAPE | Kind.TENSOR) and not passed & Kind.UNKNOWN:
            return passed
    return declared


def _is_super_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def _all_parameters(node: FunctionNode) -> list[ast.arg]:
    args = node.args
    params = args.posonlyargs + args.args + args.kwonlyargs
    if args.vararg:
        params.append(args.vararg)
    if args.kwarg:
        params.append(args.kwarg)
    return params


def _parameter_names(node: FunctionNode) -> set[str]:
    return {arg.arg for arg in _all_parameters(node)}


def find_roots(index: ModuleIndex) -> Iterator[FunctionInfo]:
    """Functions Dynamo starts tracing at, as far as this file shows."""
    for cls in index.classes.values():
        if cls.is_module:
            for name in ("forward", "__call__"):
                method = cls.methods.get(name)
                if method is not None and not method.disabled and not method.opaque:
                    yield method
        for method in cls.methods.values():
            if method.compiled:
                yield method
    for function in index.functions.values():
        if function.compiled and not function.disabled:
            yield function
    for info in compile_call_roots(index).local:
        if not info.disabled and not info.opaque:
            yield info
