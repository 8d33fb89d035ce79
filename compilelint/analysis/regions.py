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
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace

from compilelint.analysis import objects
from compilelint.analysis.call_conditions import Condition, enclosing_conditions, parent_map, shared
from compilelint.analysis.closures import EagerScope, closure_of
from compilelint.analysis.dispatch_targets import wrappers
from compilelint.analysis.expressions import BuiltReceiverCall, Env, Evaluator
from compilelint.analysis.function_scope import FunctionScope
from compilelint.analysis.interpreter import FunctionInterpreter, StatementVisitor
from compilelint.analysis.kinds import Kind, is_data, join_passed
from compilelint.analysis.method_attributes import held_methods
from compilelint.analysis.hook_roots import hook_parameter_kinds, hook_roots
from compilelint.analysis.nested_roots import NestedRoot, nested_root_of, nested_roots
from compilelint.analysis.module_index import ClassInfo, FunctionInfo, FunctionNode, ModuleIndex
from compilelint.analysis.roots import calls_of_compiled, compile_call_roots, literal_arguments, literal_kind, scope_literals
from compilelint.budget import NO_DEADLINE, Deadline
from compilelint.project import EntryPoint, ExternalCall, KnownReturn, join_receivers
from compilelint.analysis.parameters import (
    none_when_not_given,
    all_parameters,
    admits_python_values,
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
    returned_classes: tuple[str, ...] = ()  # FunctionInterpreter.returned_classes
    closure: Env = field(default_factory=dict)
    closure_objects: dict[str, tuple[str, ...]] = field(default_factory=dict)  # what its free variables hold
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
    # absolute names of subclasses in other files ``self`` may be (EntryPoint.receivers):
    # ``self.m()`` runs their override of m, if they have one
    receivers: tuple[str, ...] = ()
    # the classes each parameter may be an instance of (compilelint.analysis.objects), and
    # each call site's contribution to them
    param_objects: dict[str, tuple[str, ...]] = field(default_factory=dict)
    incoming_objects: dict[int, dict[str, tuple[str, ...]]] = field(default_factory=dict)
    return_objects: tuple[str, ...] = ()
    return_element_objects: list[tuple[str, ...]] | None = None
    # keywords an entry passed that only **kwargs receives: passed on by ``f(**kwargs)``
    forwarded_keywords: dict[str, Kind] = field(default_factory=dict)
    forwarded_objects: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # per call site (ENTRY for another file's calls), the parameters it gives a value;
    # None where it may give any (``f(*args)``)
    passed: dict[int, frozenset[str] | None] = field(default_factory=dict)
    entry_spread: bool = False  # another file's call spread arguments into this function


def is_entry_point(state: FunctionState, index: ModuleIndex) -> bool:
    """Dynamo starts tracing at this function and no compiled code of the file passes its
    arguments: a root whose parameters no call of the file gives, of a class the file does
    not build."""
    owner = state.info.owner
    return state.root and not (state.params_from_calls or (owner is not None and index.instantiated(owner)))


NOT_FOLLOWED_BASES = ("torch.", "typing.", "abc.", "builtins.", "enum.", "collections.")


class RegionAnalysis:
    """All compiled regions of one module, their kinds and their resolved calls."""

    def __init__(self, index: ModuleIndex, deadline: Deadline = NO_DEADLINE, isolate: bool = False) -> None:
        self.index = index
        self.deadline = deadline
        self.isolate = isolate  # a RecursionError stops one function, not the file
        self.states: dict[int, FunctionState] = {}  # id(FunctionInfo) -> state
        self.order: list[FunctionState] = []  # discovery order (roots first)
        self.resolved_calls: dict[int, FunctionInfo] = {}  # id(ast.Call) -> callee
        self.lambda_defs: dict[int, ast.FunctionDef] = {}  # id(ast.Lambda) bound to a name -> its def
        self.local_infos: dict[int, FunctionInfo] = {}  # id(def in a compiled function) -> its function
        # calls into other files: re-exports passed on and roots compiled here, then the calls
        # compiled code makes, one per call site (its latest pass replaces earlier ones)
        self.forwarded: dict[tuple[str, tuple[str, ...]], ExternalCall] = {}
        self.external_sites: dict[tuple[str, tuple[str, ...]], dict[int, ExternalCall]] = {}
        self._worklist: deque[FunctionState] = deque()
        self._root_ids: set[int] | None = None
        self._queued: set[int] = set()  # ids of the states in _worklist
        self._parents: dict[int, dict[int, ast.AST]] = {}  # id(function node) -> parent map
        self.entry_states: dict[str, FunctionState] = {}  # entry name -> its function's state
        # entry name -> the functions of other files it names (a re-export through
        # ``__init__.py``, a method inherited from a base there): what they return, it returns
        self.passed_on: dict[str, tuple[str, ...]] = {}
        # entry name -> the entries of the methods an attribute holds (``_enter_held_methods``)
        self.held_entries: dict[str, tuple[str, ...]] = {}
        # what a function of another file returns (qualname as imported here), when known
        self.known_return: Callable[[str], KnownReturn | None] = _nothing_known
        # what reading a property of an installed package's class gives (PackageCalls.property_kind)
        self.installed_property: Callable[[str], Kind | None] = lambda qualname: None
        self.module: str | None = None  # this file's dotted name, when known
        # (class, attribute) -> the classes its value may be an instance of: found here
        # ("@Owner" or an absolute receiver), and found in other files (absolute names)
        self.attribute_objects: dict[tuple[str, str], tuple[str, ...]] = {}
        self.known_attributes: Mapping[tuple[str, str], tuple[str, ...]] = {}
        self.decided_ifs: set[int] = set()  # `if` lines the reporting pass found decided
        # id(call) -> method calls on objects the calling function built (Evaluator.built_receivers)
        self.built_receiver_calls: dict[int, tuple[FunctionState, BuiltReceiverCall]] = {}
        # ids of the ``__init__`` functions another file's Python-run code builds their class
        # with: Dynamo compiles each as a frame of its own (compilelint.analysis.own_frames)
        self.constructor_frames: set[int] = set()
        # id(FunctionInfo) of a function that runs in Python -> its bindings, which the
        # compiled functions it defines read (compilelint.analysis.closures)
        self.eager_scopes: dict[int, EagerScope] = {}
        # id(call) -> the method of ``obj.name(...)`` on an object of no known class
        # (compilelint.analysis.duck_calls): recorded as a call to "*.name"
        self.duck_methods: dict[int, str] = {}
        # id of an attribute read -> the getter call it is recorded as (FunctionScope._property_read)
        self.property_reads: dict[int, ast.Call] = {}
        self.plain_names: frozenset[str] | None = None  # the file's imports, classes and functions, once

    def add_entry(self, entry: EntryPoint) -> None:
        """A function another file's compiled region calls, or another file compiles."""
        info, skip_self = self._entry_function(entry.name, entry.root)
        if info is None and self._enter_held_methods(entry):
            return
        if info is None:
            self._pass_on(entry)
            return
        if info.disabled or info.opaque:
            return
        if entry.root and info.name == "__init__":
            # a constructor run as a frame of its own: its arguments are what the call
            # passed, not a root's guessed tensors, and it is otherwise an ordinary entry
            self.constructor_frames.add(id(info))
            entry = replace(entry, root=False)
        passed = bind_kinds(info.node, entry.positional, entry.keywords, skip_self=skip_self)
        if entry.root or self._is_root(info):  # what no caller shows stays a root's reading
            guessed = root_parameter_kinds(info)
            passed = {name: guessed.get(name, kind) if kind == Kind.UNKNOWN else kind for name, kind in passed.items()}
        if entry.root:  # compiled by the other file, called there with these literals
            state = self._add(info, (info.qualname,), root=True)
            state.params.update(passed if entry.positional or entry.keywords else {})
            state.receivers = _joined_receivers(state, entry)
            return
        # a class's entry runs its constructor: the chain ends in the function's own name, the
        # one findings' regions and the always-breaking facts are keyed by
        chain = entry.chain[:-1] + (info.qualname,) if entry.chain and entry.chain[-1] != info.qualname else entry.chain
        state = self._add(info, chain, root=False)
        state.receivers = _joined_receivers(state, entry)
        self.entry_states[entry.name] = state
        state.incoming[ENTRY] = passed
        state.params.update(passed)
        state.params_from_calls = True
        positional = [a.arg for a in info.node.args.posonlyargs + info.node.args.args][1 if skip_self else 0 :]
        state.entry_spread = entry.spread
        state.passed[ENTRY] = None if entry.spread else (
            frozenset(positional[: len(entry.positional)]) | frozenset(entry.keywords) | frozenset(
                k for k in entry.objects if not k.isdigit()
            )
        )  # fmt: skip
        state.incoming_objects[ENTRY] = objects.to_parameters(info.node, entry.objects, skip_self)
        state.param_objects = objects.merged(state.incoming_objects.values())
        extra = objects.extra_keywords(info.node, {**entry.keywords, **entry.objects})
        state.forwarded_keywords = {k: entry.keywords[k] for k in extra if k in entry.keywords}
        state.forwarded_objects = {k: entry.objects[k] for k in extra if k in entry.objects}

    def _enter_held_methods(self, entry: EntryPoint) -> bool:
        """``Cls.attr`` where ``self.attr`` holds bound methods of the instance (``self.prod =
        {...}.get(kind, self.prod_default)``): each method it may hold is entered, and what
        they return is what ``Cls.attr`` returns (``held_entries``)."""
        cls_name, _, attr = entry.name.rpartition(".")
        cls = self.index.classes.get(cls_name)
        methods = held_methods(cls, attr) if cls is not None and not entry.root else ()
        if not methods:
            return False
        names = tuple(f"{cls_name}.{method.name}" for method in methods)
        self.held_entries[entry.name] = names
        for name in names:
            self.add_entry(replace(entry, name=name, chain=entry.chain[:-1] + (name,)))
        return True

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
            if cls is not None and method is None and method_name == "apply":
                method = cls.find_method("forward")  # autograd.Function: apply(*args) runs forward(ctx, *args)
                return method, method is not None
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
        receivers = entry.receivers
        if head in self.index.classes:
            # a method (or constructor) the class inherits from a base in another file: the
            # call goes on there, and ``self`` stays an instance of this class
            targets = self._inherited_targets(self.index.classes[head], rest or ("forward" if entry.root else "__init__"))
            receivers = receivers or (f"@{head}",)
        elif head in self.index.functions:
            return
        else:
            imported = self.index.imports.get(head)
            targets = [imported + dot + rest] if imported is not None else [f"{star}.{entry.name}" for star in self.index.imports.stars]
        if not entry.root:
            self.passed_on[entry.name] = tuple(targets)
        for target in targets:
            self.forwarded[(target, entry.chain)] = ExternalCall(
                target, tuple(entry.positional), tuple(entry.keywords.items()), entry.chain[:-1], root=entry.root,
                receivers=receivers, objects=tuple(sorted(entry.objects.items())), spread=entry.spread,
            )

    def _inherited_targets(self, cls: ClassInfo, method: str) -> list[str]:
        """``base.method`` for the imported bases along the class's local MRO."""
        found = []
        for klass in cls.mro():
            for base in klass.bases:  # qualified through the imports: ".rk_common.RKSolver"
                if base in self.index.classes or "." not in base or base.startswith(NOT_FOLLOWED_BASES):
                    continue
                found.append(f"{base}.{method}")
        return found

    # --- building ------------------------------------------------------------------------
    def run(self, roots: bool = True) -> None:
        """``roots=False``: only the entry points are compiled (a package file a call reaches)."""
        for info in find_roots(self.index) if roots else ():
            state = self._add(info, (info.qualname,), root=True)
            nested = nested_root_of(self.index, info)
            if nested is not None:  # its scope's other defs are what its calls of them reach
                state.local_defs.update(nested.siblings)
            if state.root:
                state.params.update(self._literal_arguments(info, nested))
            self._add_method_wrappers(info)
        compiled = compile_call_roots(self.index)
        for target in compiled.external if roots else ():  # compiled here, defined there; called with literals here
            positional, keywords = literal_arguments(compiled.external_calls.get(target, []), self.index)
            self.forwarded[(target, ())] = ExternalCall(target, positional, keywords, (), root=True)
        while self._worklist:
            state = self._worklist.popleft()
            self._queued.discard(id(state))
            if state.passes >= MAX_PASSES_PER_FUNCTION:
                continue
            state.passes += 1
            self.deadline.check()
            before = _returned(state)
            try:
                self.interpret(state, visitor=None)
            except RecursionError:
                if not self.isolate:
                    raise
                continue  # the reporting pass stops on it again, and reports the function
            if _returned(state) != before:
                for caller in state.callers:
                    self._enqueue(self.states[caller])
        self._settle_entry_conditions()

    def _literal_arguments(self, info: FunctionInfo, nested: NestedRoot | None = None) -> dict[str, Kind]:
        """Parameters every call of the compiled function in this file passes a literal to
        (``opt_f(x, True)``): Python constants, not the tensors a root's guess assumes."""
        found: dict[str, Kind] = {}
        unknown: set[str] = set()
        bound = info.owner is not None and not info.is_static
        # a nested root's calls are those of its own scope: ``fn`` names another def in each test
        for call in nested.calls if nested is not None else calls_of_compiled(self.index, info):
            literals: dict[int, Kind] = {}
            local, bound_there = (nested.literals, nested.bound) if nested is not None else scope_literals(self.index, call)
            for value in [*call.args, *(keyword.value for keyword in call.keywords)]:
                kind = literal_kind(value, self.index, local, bound_there)
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

    def _add_method_wrappers(self, info: FunctionInfo) -> None:
        """A module's ``forward`` under a decorator of this file is the decorator's inner
        function: Dynamo traces that wrapper first (measured: a ``print`` in it is GB0059),
        with the module as its first argument."""
        if info.owner is None or not info.owner.is_module or info.is_static:
            return
        for wrapper in wrappers(self.index, info):
            state = self._add(wrapper, (wrapper.qualname,), root=True)
            first = (wrapper.node.args.posonlyargs + wrapper.node.args.args)[:1]
            if first:
                state.params[first[0].arg] = Kind.MODULE

    def _add(self, info: FunctionInfo, chain: tuple[str, ...], root: bool) -> FunctionState:
        state = self.states.get(id(info))
        if state is not None:
            return state
        state = FunctionState(info=info, chain=chain, root=root)
        if root:
            hooked = any(hook is info for hook in hook_roots(self.index))
            state.params = hook_parameter_kinds(info) if hooked else root_parameter_kinds(info)
        if info.parent is not None and id(info.parent) not in self.states:
            # defined by a function that runs in Python (a test, a script's main); one that
            # is compiled gives its env where it runs the def (FunctionScope.define)
            closure = closure_of(self, info)
            state.closure, state.closure_objects = closure.kinds, closure.objects
        self.states[id(info)] = state
        self.order.append(state)
        self._enqueue(state)
        return state

    def _enqueue(self, state: FunctionState) -> None:
        if id(state) not in self._queued:
            self._queued.add(id(state))
            self._worklist.append(state)

    def interpret(self, state: FunctionState, visitor: StatementVisitor | None) -> Kind:
        scope = FunctionScope(self, state)
        env = dict(state.closure)
        for arg in all_parameters(state.info.node):
            env[arg.arg] = _parameter_kind(state, arg)
        cache: dict[int, Kind] = {}
        evaluator = Evaluator(self.index, env, scope, cache)
        evaluator.locals.update(env)
        evaluator.module = self.module
        evaluator.none_names = _surely_none(state)
        evaluator.mixed_parameters = frozenset(
            arg.arg for arg in all_parameters(state.info.node) if arg.annotation is not None and admits_python_values(arg.annotation)
        )
        for name, held in [*state.closure_objects.items(), *state.param_objects.items()]:
            objects.set_name(evaluator, name, held)
        interpreter = FunctionInterpreter(evaluator, scope, visitor)
        returns = interpreter.run(state.info.node.body)
        if visitor is not None:
            self.decided_ifs |= evaluator.decided_ifs
        for site in evaluator.built_receivers.values():
            self.built_receiver_calls[id(site.call)] = (state, site)
        # The latest pass ran on the latest argument kinds: it replaces what an earlier pass
        # found, so an UNKNOWN from before the callers settled does not hide a tensor.
        state.returns = returns
        state.return_elements = interpreter.return_elements
        state.returned_classes = tuple(interpreter.returned_classes)
        state.return_objects = interpreter.return_objects
        state.return_element_objects = interpreter.return_element_objects
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


def _surely_none(state: FunctionState) -> set[str]:
    """Parameters no call gives a value (defaulting to None, or given None by every call):
    None whenever it runs. A root's parameters are the caller's inputs, and a function
    nothing calls decides nothing."""
    if state.root or not state.passed or any(names is None for names in state.passed.values()):
        return set()
    given: set[str] = set()
    for names in state.passed.values():
        given |= names or frozenset()
    bound = state.info.owner is not None and not state.info.is_static
    return set(none_when_not_given(state.info.node, bound) - given)


def _returned(state: FunctionState) -> tuple[object, ...]:
    """What a function's callers see of its result: they are analysed again when it changes."""
    return (state.returns, state.return_elements, state.returned_classes, state.return_objects, state.return_element_objects)


def _nothing_known(qualname: str) -> KnownReturn | None:
    return None


def _joined_receivers(state: FunctionState, entry: EntryPoint) -> tuple[str, ...]:
    if not entry.receivers or state.info.owner is None:
        return state.receivers
    return join_receivers(state.receivers, entry.receivers)


def _joined(calls: list[ExternalCall]) -> ExternalCall:
    """One call with the kinds of all: position by position, keyword by keyword."""
    positional: list[Kind] = []
    keywords: dict[str, Kind] = {}
    for call in calls:
        for position, kind in enumerate(call.positional):
            if position < len(positional):
                positional[position] = join_passed(positional[position], kind)
            else:
                positional.append(kind)
        for name, kind in call.keywords:
            keywords[name] = join_passed(keywords.get(name, Kind.NONE), kind)
    first = calls[0]
    receivers = join_receivers(*(call.receivers for call in calls))
    held = objects.merged(dict(call.objects) for call in calls)
    return ExternalCall(first.target, tuple(positional), tuple(keywords.items()), first.chain, receivers=receivers,
                        objects=tuple(sorted(held.items())), spread=any(call.spread for call in calls))  # fmt: skip


def _parameter_kind(state: FunctionState, arg: ast.arg) -> Kind:
    """An annotation says more than the callers' join, except that ``bool``/``int`` cannot
    say whether the value came from tensor data (``is_global_attn: bool`` from ``.item()``),
    nor hide the tensors callers pass (``paddings: tuple[int, int]`` given a buffer: Dynamo
    sees the tensor)."""
    passed = state.params.get(arg.arg)
    declared = annotation_kind(arg.annotation) if arg.annotation is not None else Kind.UNKNOWN
    if declared == Kind.UNKNOWN:
        return passed if passed is not None else unbound_parameter_kind(state.info.node, arg)
    if passed is not None and declared & Kind.TENSOR and is_data(passed):
        return passed  # `mask: Optional[Tensor] = None` that every caller gives a tensor
    if passed is not None and declared & Kind.STATIC and not declared & Kind.TENSOR:
        if passed & (Kind.DATA_SCALAR | Kind.SHAPE | Kind.TENSOR) and not passed & Kind.UNKNOWN:
            return passed
    return declared


def find_roots(index: ModuleIndex) -> Iterator[FunctionInfo]:
    """Functions Dynamo starts tracing at, as far as this file shows."""
    for cls in index.all_classes:
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
    for nested in nested_roots(index):
        if not nested.info.disabled and not nested.info.opaque:
            yield nested.info
    yield from hook_roots(index)
