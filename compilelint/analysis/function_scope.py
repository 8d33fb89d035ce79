"""Call resolution for one function of a region: the interpreter's CallSink.

Resolves what a call runs (methods through ``self`` and ``super()``, submodules, helpers,
constructors, and the dispatch forms of ``dispatch_targets``), tells the region builder
about each callee with the argument kinds it receives, and records calls into other files.
"""

from __future__ import annotations

import ast
from itertools import islice
from typing import TYPE_CHECKING

from compilelint.analysis import duck_calls, objects
from compilelint.analysis.class_attributes import (
    attribute_class,
    attribute_kind,
    declares,
    element_class,
    external_attribute_class,
    matching_attribute_kind,
)
from compilelint.analysis.constructors import CONTAINERS, attribute_constructors, imported_elements, imported_instances
from compilelint.analysis.dispatch_targets import (
    attribute_function,
    constant_getattr,
    entry_classes_and_functions,
    imported_table_entries,
    partial_of,
    through_partial,
    wrappers,
)
from compilelint.analysis.comprehension_frames import stored_in_mro
from compilelint.analysis.expressions import Env, Evaluator, Target, is_hashed_display
from compilelint.analysis.injected import NOTHING, Injected, injected
from compilelint.analysis.kinds import Kind, join_all, join_passed
from compilelint.analysis.method_attributes import held_methods, private_method_owners
from compilelint.analysis.module_index import ClassInfo, FunctionInfo, FunctionNode, function_info, lambda_function
from compilelint.analysis.parameters import bind_arguments, parameter_names, passed_names
from compilelint.project import ExternalCall, join_receivers

if TYPE_CHECKING:
    from compilelint.analysis.regions import FunctionState, RegionAnalysis


class FunctionScope:
    """Resolves calls and ``self.<attr>`` for one function; the interpreter's CallSink."""

    def __init__(self, analysis: RegionAnalysis, state: FunctionState) -> None:
        self.analysis = analysis
        self.state = state
        self._partial_depth = 0  # partials of partials being followed
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
        # one function per def, whichever pass runs it: two defs of a name in the arms of an
        # `if` take turns in local_defs, and each must keep its state between passes
        info = self.analysis.local_infos.get(id(node))
        if info is None:
            qualname = f"{self.state.info.qualname}.<locals>.{node.name}"
            info = self.analysis.local_infos[id(node)] = function_info(self.analysis.index, node, qualname, owner=None)
            info.parent = self.state.info
        self.state.local_defs[node.name] = info
        if info.disabled:
            return
        child = self.analysis._add(info, self.state.chain + (info.qualname,), root=False)
        child.closure = {k: v for k, v in env.items() if k not in parameter_names(node)}
        child.self_name, child.owner = self.state.self_name, self.state.owner
        child.local_defs.update({k: v for k, v in self.state.local_defs.items() if k not in child.local_defs})

    def define_lambda(self, node: ast.Lambda, name: str, at: ast.stmt, env: Env) -> None:
        """``name = lambda ...: body`` in a compiled function: a local def of ``name``, one
        function per lambda whichever pass or branch runs it."""
        function = self.analysis.lambda_defs.get(id(node))
        if function is None:
            function = self.analysis.lambda_defs[id(node)] = lambda_function(node, name, at)
        self.define(function, env)

    # --- CallSink ------------------------------------------------------------------------
    def resolve(self, call: ast.Call, evaluator: Evaluator) -> list[Target]:
        index = self.analysis.index
        attribute = constant_getattr(call.func)
        if attribute is not None:  # getattr(self, "proj")(x) is self.proj(x)
            synthetic = ast.copy_location(ast.Call(func=attribute, args=call.args, keywords=call.keywords), call)
            return self._resolve_through(synthetic, evaluator)
        partial = self._partial(call.func, evaluator)
        if partial is not None:  # functools.partial(helper, scale=2)(x)
            if self._partial_depth >= MAX_PARTIAL_DEPTH or _rebinds_itself(partial, call):
                return []  # fn = partial(fn, ...): the earlier fn is not the one a name lookup gives
            arguments = through_partial(partial, call, evaluator.cache)
            self._partial_depth += 1
            try:
                inner = self.resolve(arguments, evaluator)
            finally:
                self._partial_depth -= 1
            return [Target(t.function, t.bound, arguments, t.gives_result) for t in inner]
        imported = objects.imported_method(evaluator, call.func)
        if imported is not None:  # solver = SOLVERS[m](...) of imported classes; solver.integrate(t)
            qualnames, method = imported
            returned = []
            for qualname in qualnames:
                returned.append(self.external(call, evaluator, f"{qualname}.{method}"))
                if method == "forward":  # calling the instance: a plain class's __call__
                    returned[-1] = _either(returned[-1], self.external(call, evaluator, f"{qualname}.__call__"))
            _note_method_kind(call, returned, evaluator)
            return []
        held_by_attribute = self._attribute_object_targets(call, evaluator)
        if held_by_attribute is not None:  # self.bm(t0, t1) with self.bm = bm from a caller
            return held_by_attribute
        handed_in = self._injected(call.func).callables
        if handed_in:  # self.make(x) of __init__'s self.make = make: the classes and functions passed
            return self._class_value_targets(call, handed_in, evaluator)
        if isinstance(call.func, ast.Name) and call.func.id in evaluator.class_aliases:
            return self._class_value_targets(call, evaluator.class_aliases[call.func.id], evaluator)
        held = self._held_instances(call.func, evaluator)
        if held is not None:  # solver.integrate(t), block(x); rule.apply(x) of self.apply = self._zero
            classes, name = held
            found = [Target(m, not m.is_static) for cls in classes if (m := cls.find_method(name)) is not None]
            return found + [Target(m, True) for cls in classes for m in held_methods(cls, name)]
        own = self._own_attribute(call.func)
        if own is not None and held_methods(*own):  # self.prod(g, v) of self.prod = {...}.get(k, self.prod_default)
            return [Target(method, True) for method in held_methods(*own)]
        if isinstance(call.func, ast.Subscript) and not self._own_attribute(call.func.value):
            return self._table_targets(call, evaluator)
        single = self._resolve_one(call, evaluator)
        if single is None:  # intervals[0]._increment_and_levy_area(): the one class defining it
            owned = [Target(method, True) for method in private_method_owners(self.analysis.index, call.func, evaluator.kind)]
            index = self.analysis.index
            built = self._module_instance(call.func, evaluator)
            if not owned and built is not None:  # ALL_ATTENTION_FUNCTIONS.get_interface(...) of X = Interface()
                if isinstance(built, str):
                    self.external(call, evaluator, built)
                    return []
                defined = built.find_method(call.func.attr) if isinstance(call.func, ast.Attribute) else None
                return [Target(defined, not defined.is_static)] if defined is not None else []
            if not owned and isinstance(call.func, ast.Attribute) and not self._holds_torch_objects(call.func.value) and duck_calls.is_duck_call(
                call.func, evaluator.kind(call.func.value), self._plain_names(), self.state.self_name, index.text
            ):  # self.transform.call_and_ladj(x): any class defining it, here or elsewhere (duck_calls)
                self.analysis.duck_methods[id(call)] = call.func.attr
                self.external(call, evaluator, duck_calls.target(call.func.attr))
                return [Target(method, not method.is_static) for method in duck_calls.own_owners(self.analysis.index, call.func.attr)]
            return owned
        targets = [Target(*single)]
        if single[0].owner is None and single[0].parent is None:
            targets += [Target(wrapper, False, gives_result=False) for wrapper in wrappers(index, single[0])]
        return targets

    def _holds_torch_objects(self, receiver: ast.expr) -> bool:
        """``self.attr`` built only by torch classes (``self._gaussian = distributions.MultivariateNormal(...)``):
        its methods are torch's, never a method some class of the package defines."""
        own = self._own_attribute(receiver)
        if own is None:
            return False
        built = [name for name in attribute_constructors(self.analysis.index, *own) if name not in CONTAINERS]
        return bool(built) and all(name.startswith("torch.") for name in built)

    def _module_instance(self, func: ast.expr, evaluator: Evaluator) -> ClassInfo | str | None:
        """``NAME.method`` where the file's top level says ``NAME = Class(...)``: the class of
        this file, or the method's dotted name when the class is imported."""
        if not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
            return None
        if func.value.id in evaluator.locals or func.value.id in evaluator.env:
            return None  # a local of the same name
        index = self.analysis.index
        value = index.assignments.get(func.value.id)
        if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
            return None
        if isinstance(value.func, ast.Name) and value.func.id in index.classes:
            return index.classes[value.func.id]
        qualname = index.imports.qualname(value.func)
        root = qualname.split(".", 1)[0] if qualname else ""
        if qualname is None or not (root in index.imports or qualname.startswith(".")) or root == "torch":
            return None
        return f"{qualname}.{func.attr}"

    def _plain_names(self) -> frozenset[str]:
        """Names a receiver can be that are not objects: imports, classes, functions."""
        analysis = self.analysis
        if analysis.plain_names is None:
            index = analysis.index
            analysis.plain_names = frozenset({name for name, _ in index.imports.items()} | set(index.classes) | set(index.functions))
        return analysis.plain_names

    def _resolve_through(self, synthetic: ast.Call, evaluator: Evaluator) -> list[Target]:
        return [Target(t.function, t.bound, t.arguments or synthetic, t.gives_result) for t in self.resolve(synthetic, evaluator)]

    def _partial(self, func: ast.expr, evaluator: Evaluator) -> ast.Call | None:
        if isinstance(func, ast.Name) and func.id in evaluator.partials:
            return evaluator.partials[func.id]
        if isinstance(func, ast.Name) and (func.id in evaluator.locals or func.id in evaluator.env):
            return None
        return partial_of(func, self.analysis.index, evaluator.qualname)

    def _held_instances(self, func: ast.expr, evaluator: Evaluator) -> tuple[tuple[ClassInfo, ...], str] | None:
        """The classes a local name may hold, and the method a call on it runs."""
        if isinstance(func, ast.Name) and func.id in evaluator.instances:
            return evaluator.instances[func.id], "forward"
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in evaluator.instances:
            if func.value.id != self.state.self_name:
                return evaluator.instances[func.value.id], func.attr
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):  # make(c).apply(x)
            classes = objects.local_classes(evaluator, func.value)
            return (classes, func.attr) if classes else None
        return None

    def _attribute_object_targets(self, call: ast.Call, evaluator: Evaluator) -> list[Target] | None:
        """``self.bm(t)`` / ``self.bm.sample(t)`` where ``self.bm`` holds an instance that
        compiled code passed in (not a method or a submodule ``__init__`` builds)."""
        func = call.func
        if not isinstance(func, ast.Attribute):
            return None
        holder, method = (func, "__call__") if self._own_attribute(func) else (func.value, func.attr)
        own = self._own_attribute(holder)
        if own is None or not isinstance(holder, ast.Attribute):
            return None
        owner, attr = own
        if owner.find_method(attr) is not None or attribute_class(self.analysis.index, owner, attr) is not None:
            return None
        held = self.attribute_objects(holder, evaluator)
        if not held:
            return None
        targets: list[Target] = []
        returned: list[Kind | None] = []
        for name in held:
            cls = objects.local_class(self.analysis.index, self.analysis.module, name)
            if cls is not None:
                wanted = ("forward" if cls.is_module else "__call__") if method == "__call__" else method
                found = _method(cls, wanted)
                if found is not None:
                    targets.append(Target(*found))
            elif not name.startswith("@"):
                kind: Kind | None = None
                for wanted in ("__call__", "forward") if method == "__call__" else (method,):
                    kind = _either(kind, self.external(call, evaluator, f"{name}.{wanted}"))
                returned.append(kind)
        if not targets:
            _note_method_kind(call, returned, evaluator)
        return targets

    def _injected(self, node: ast.expr) -> Injected:
        """What ``self.attr`` holds because the constructor stored a parameter in it, when no
        method or submodule of the class goes by that name."""
        own = self._own_attribute(node)
        if own is None or own[0].find_method(own[1]) is not None or attribute_class(self.analysis.index, *own) is not None:
            return NOTHING
        return injected(self.analysis.index, *own)

    def attribute_objects(self, node: ast.Attribute, evaluator: Evaluator) -> tuple[str, ...]:
        """The instances ``self.attr`` may hold: stored in this file's compiled code, or in
        another file's (``BaseSolver.__init__``'s ``self.bm = bm``, for this class), or handed
        to the constructor (analysis.injected)."""
        own = self._own_attribute(node)
        if own is None:
            return ()
        owner, attr = own
        keys = [f"@{klass.name}" for klass in owner.mro()] + list(self.state.receivers)
        found = [self.analysis.attribute_objects.get((key, attr), ()) for key in keys]
        found.append(self._injected(node).instances)
        module = self.analysis.module
        absolute = [f"{module}.{key[1:]}" if key.startswith("@") and module else key for key in keys]
        found += [self.analysis.known_attributes.get((key, attr), ()) for key in absolute]
        return objects.join(*found)

    def hashed_attribute(self, node: ast.Attribute) -> bool:
        """``self.cache`` where every store to it in the class is a dict or set display or call."""
        own = self._own_attribute(node)
        if own is None:
            return False
        values = stored_in_mro(*own)
        return bool(values) and all(is_hashed_display(v, self.analysis.index.qualname) for v in values)

    def attribute_values(self, node: ast.Attribute, evaluator: Evaluator) -> tuple[str, ...]:
        """``attribute_objects``, and the imported classes any method of the class stores in
        ``self.attr``: what compiled code passes on when it hands the attribute to a function
        of another file (kornia's generators pass the ``Beta`` that ``make_samplers`` built).
        Calls on the attribute itself keep to ``attribute_objects``, so submodules built in
        ``__init__`` resolve as before."""
        held = self.attribute_objects(node, evaluator)
        own = self._own_attribute(node)
        return held if own is None else objects.join(held, imported_instances(self.analysis.index, *own))

    def matching_attributes(self, receiver: ast.expr, prefix: str, suffix: str) -> Kind | None:
        """``getattr(self, f"{prefix}{x}{suffix}")``: the kinds of the attributes so named."""
        if not (isinstance(receiver, ast.Name) and receiver.id == self.state.self_name and self.state.owner):
            return None
        return matching_attribute_kind(self.analysis.index, self.state.owner, prefix, suffix)

    def self_objects(self, name: str) -> tuple[str, ...]:
        """``self`` as an object: its class, or the subclasses in other files it may be."""
        if name != self.state.self_name or self.state.owner is None:
            return ()
        return self.state.receivers or (f"@{self.state.owner.name}",)

    def stored(self, target: ast.Attribute, value: ast.expr, evaluator: Evaluator) -> None:
        own = self._own_attribute(target)
        if own is None:
            return
        held = objects.of_value(evaluator, value)
        if not held:
            return
        owner, attr = own
        for key in (f"@{owner.name}", *self.state.receivers):
            facts = self.analysis.attribute_objects
            facts[(key, attr)] = objects.join(facts.get((key, attr), ()), held)

    def _class_value_targets(self, call: ast.Call, names: tuple[str, ...], evaluator: Evaluator) -> list[Target]:
        """``solver_fn(f)`` where ``solver_fn = methods.select(m)`` returned classes (or
        functions): each may be the one called; a class builds an instance the result holds."""
        index = self.analysis.index
        local: list[ClassInfo | FunctionInfo] = []
        bound: list[Target] = []
        for name in names:
            if name.startswith("@") and name[1:] in index.classes:
                local.append(index.classes[name[1:]])
            elif name.startswith("@") and name[1:] in index.functions:
                local.append(index.functions[name[1:]])
            elif name.startswith("@") and "." in name:  # a bound method handed on (analysis.injected)
                owner, _, method = name[1:].partition(".")
                found = index.classes[owner].find_method(method) if owner in index.classes else None
                if found is not None:
                    bound.append(Target(found, True))
        imported = tuple(name for name in names if not name.startswith("@"))
        return bound + self._one_of(call, local, imported, evaluator)

    def _table_targets(self, call: ast.Call, evaluator: Evaluator) -> list[Target]:
        """``SOLVERS[method](f)``: every class (its constructor) or function the table holds."""
        assert isinstance(call.func, ast.Subscript)
        local = list(entry_classes_and_functions(self.analysis.index, call.func.value))
        imported = imported_table_entries(self.analysis.index, call.func.value)
        return self._one_of(call, local, imported, evaluator)

    def _one_of(
        self, call: ast.Call, local: list[ClassInfo | FunctionInfo], imported: tuple[str, ...], evaluator: Evaluator
    ) -> list[Target]:
        """A call that runs one of these: a class of this file (its constructor, and the
        result is its instance), a function of this file, or an imported class or function
        (its file analyses it; the result may be its instance)."""
        targets: list[Target] = []
        classes: list[ClassInfo] = []
        for entry in local:
            if isinstance(entry, ClassInfo):
                classes.append(entry)
                init = entry.find_method("__init__")
                if init is not None:
                    targets.append(Target(init, True))
            else:
                targets.append(Target(entry, False))
        if classes:
            evaluator.built[id(call)] = tuple(classes)
        for qualname in imported:  # each class's constructor runs in its own file
            self.external(call, evaluator, qualname)
        if imported:
            evaluator.imported_built[id(call)] = imported
        return targets

    def _resolve_one(self, call: ast.Call, evaluator: Evaluator) -> tuple[FunctionInfo, bool] | None:
        func = call.func
        if isinstance(func, ast.Name):
            return self._resolve_name(func.id, evaluator)
        if isinstance(func, ast.Subscript):  # self.layers[i](x)
            cls = self.element_instance(func.value)
            return _method(cls, "forward") if cls is not None else None
        if not isinstance(func, ast.Attribute):
            return None
        receiver = func.value
        if isinstance(receiver, ast.Name) and receiver.id == self.state.self_name and self.state.owner:
            return self._resolve_self(func.attr, call, evaluator)
        held = self._self_attribute_class(receiver)
        if held is not None:  # self.structure.init_inputs(...)
            return _method(held, func.attr)
        self._external_submodule_call(receiver, func.attr, call, evaluator)
        if _is_super_call(receiver) and self.state.owner is not None:
            for base in islice(self.state.owner.mro(), 1, None):
                if func.attr in base.methods:
                    return base.methods[func.attr], True
            owner = self.state.owner  # a base in another file: the call goes on there, self kept
            for target in self.analysis._inherited_targets(owner, func.attr):
                self.external(call, evaluator, target, receivers=self.state.receivers or (f"@{owner.name}",))
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

    def imported_instance(self, node: ast.expr) -> str | None:
        """``self.conv`` built from an imported class in ``__init__``: that class's name."""
        own = self._own_attribute(node)
        return external_attribute_class(self.analysis.index, *own) if own else None

    def imported_elements(self, iterable: ast.expr) -> tuple[str, ...]:
        """``self.convs`` built as a container of an imported class's modules: their class."""
        own = self._own_attribute(iterable)
        return imported_elements(self.analysis.index, *own) if own else ()

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
        for receiver in self.state.receivers:  # self is a subclass from another file: its override runs
            self.external(call, evaluator, f"{receiver}.{attr}", receivers=(receiver,))
        method = owner.find_method(attr)
        if method is not None:
            return method, not method.is_static
        submodule = attribute_class(self.analysis.index, owner, attr)
        if submodule is not None:
            forward = submodule.find_method("forward")
            if forward is not None:
                return forward, True
        self._external_submodule_call(call.func, "forward", call, evaluator)
        return attribute_function(self.analysis.index, owner, attr)  # fn = staticmethod(helper)

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

    def called(self, target: Target, call: ast.Call, evaluator: Evaluator) -> Kind:
        analysis = self.analysis
        callee, bound = target.function, target.bound
        analysis.resolved_calls.setdefault(id(call), callee)
        if callee.disabled or callee.opaque:
            return Kind.UNKNOWN
        state = analysis.states.get(id(callee))
        if state is None:
            state = analysis._add(callee, self.state.chain + (callee.qualname,), root=False)
        state.callers.add(id(self.state.info))
        if bound and self.state.receivers and callee.owner is not None and _on_self(call, self.state.self_name):
            if not set(self.state.receivers) <= set(state.receivers):
                state.receivers = join_receivers(state.receivers, self.state.receivers)
                analysis._enqueue(state)
        state.call_sites[id(call)] = (id(self.state.info), analysis.conditions_around(call, self.state.info.node))
        state.passed[id(call)] = passed_names(callee.node, target.arguments or call, bound, evaluator.none_names)
        # Each call site's latest contribution replaces its earlier one, so kinds guessed
        # before a caller was analysed (a root's heuristics) do not stick.
        state.incoming[id(call)] = bind_arguments(callee.node, target.arguments or call, bound, evaluator.cache)
        state.params_from_calls = True  # a root's guessed kinds give way to its callers'
        passed = objects.to_parameters(callee.node, objects.of_arguments(evaluator, target.arguments or call), bound)
        if passed or id(call) in state.incoming_objects:
            state.incoming_objects[id(call)] = passed
            joined = objects.merged(state.incoming_objects.values())
            if joined != state.param_objects:
                state.param_objects = joined
                analysis._enqueue(state)
        merged: dict[str, Kind] = {}
        for contribution in state.incoming.values():
            for name, kind in contribution.items():
                merged[name] = join_passed(merged.get(name, Kind.NONE), kind)
        if merged != state.params:
            state.params = merged
            analysis._enqueue(state)
        if callee.name == "__init__" and not isinstance(call.func, ast.Attribute):  # Class(...): an instance
            if callee.owner is not None and callee.owner not in evaluator.built.get(id(call), ()):
                # cache = Cache(); cache.update(...) resolves; SOLVERS[m](f) may build several
                evaluator.built[id(call)] = evaluator.built.get(id(call), ()) + (callee.owner,)
            return Kind.MODULE if callee.owner is not None and callee.owner.is_module else Kind.UNKNOWN
        if state.return_elements is not None:
            evaluator.tuple_kinds[id(call)] = state.return_elements
        if state.returned_classes:
            evaluator.class_values[id(call)] = state.returned_classes
        if state.return_objects:
            evaluator.value_objects[id(call)] = state.return_objects
        if state.return_element_objects is not None:
            evaluator.tuple_objects[id(call)] = state.return_element_objects
        return state.returns if state.returns != Kind.NONE else Kind.UNKNOWN

    def external(self, call: ast.Call, evaluator: Evaluator, qualname: str, receivers: tuple[str, ...] = ()) -> Kind | None:
        """Records a call into another file; what it returns, when that file was analysed."""
        if any(isinstance(a, ast.Starred) for a in call.args):
            positional: tuple[Kind, ...] = ()
        else:
            positional = tuple(evaluator.cache.get(id(a), Kind.UNKNOWN) for a in call.args)
        keywords = tuple((k.arg, evaluator.cache.get(id(k.value), Kind.UNKNOWN)) for k in call.keywords if k.arg)
        passed = objects.of_arguments(evaluator, call)
        forwards = self._forwards_kwargs(call)
        if forwards:  # super().__init__(sde=sde, **kwargs): the entry's extras go on
            keywords += tuple(self.state.forwarded_keywords.items())
            passed.update(self.state.forwarded_objects)
        spread = any(isinstance(a, ast.Starred) for a in call.args) or any(
            k.arg is None and not (forwards and not self.state.entry_spread) for k in call.keywords
        )
        sites = self.analysis.external_sites.setdefault((qualname, self.state.chain), {})
        sites[id(call)] = ExternalCall(qualname, positional, keywords, self.state.chain, receivers=receivers,
                                       objects=tuple(sorted(passed.items())), spread=spread)  # fmt: skip
        known = self.analysis.known_return(qualname)
        if known is None:
            return None
        if known.elements is not None:
            evaluator.tuple_kinds[id(call)] = list(known.elements)
        if known.classes:
            evaluator.class_values[id(call)] = known.classes
        return known.kind

    def _forwards_kwargs(self, call: ast.Call) -> bool:
        kwarg = self.state.info.node.args.kwarg
        if kwarg is None:
            return False
        return any(k.arg is None and isinstance(k.value, ast.Name) and k.value.id == kwarg.arg for k in call.keywords)

    def attribute(self, node: ast.Attribute, evaluator: Evaluator) -> Kind | None:
        receiver = node.value
        if isinstance(receiver, ast.Name) and receiver.id == self.state.self_name and self.state.owner:
            evaluator.cache[id(receiver)] = Kind.MODULE
            getter = self.state.owner.find_property(node.attr)
            if getter is not None and isinstance(node.ctx, ast.Load) and id(node) not in evaluator.called:
                return self.called(Target(getter, True), self._property_read(node), evaluator)
            return attribute_kind(self.analysis.index, self.state.owner, node.attr)
        if (
            isinstance(receiver, ast.Name)
            and receiver.id in evaluator.imported_instances
            and isinstance(node.ctx, ast.Load)
            and id(node) not in evaluator.called
        ):
            return self._imported_property(node, evaluator.imported_instances[receiver.id], evaluator)
        if isinstance(receiver, ast.Name) and receiver.id in evaluator.instances and isinstance(node.ctx, ast.Load):
            return self._instance_attribute(node.attr, evaluator.instances[receiver.id])
        return None

    def _instance_attribute(self, attr: str, classes: tuple[ClassInfo, ...]) -> Kind | None:
        """``params.top_k`` of ``params = params or SamplingParams()``: what the class
        declares (a dataclass field's annotation) or its methods store, as ``self.top_k``
        reads it inside the class. Modules, properties and methods are left to the calls."""
        kinds: list[Kind] = []
        for cls in classes:
            if cls.is_module or cls.find_property(attr) is not None or cls.find_method(attr) is not None:
                return None
            if not declares(self.analysis.index, cls, attr):
                return None
            kinds.append(attribute_kind(self.analysis.index, cls, attr))
        return join_all(kinds) if kinds else None

    def _imported_property(self, node: ast.Attribute, classes: tuple[str, ...], evaluator: Evaluator) -> Kind | None:
        """``X.interval`` of ``X = torchcde.CubicSpline(coeffs)``: if the class's file says
        ``interval`` is a property, reading it runs the getter there, and gives what it returns.
        The read is recorded as a call of the getter (an attribute that turns out to be data
        or a method is analysed there once, and its answer is not used)."""
        getter = self._property_read(node)
        kinds: list[Kind] = []
        for qualname in classes:
            target = f"{qualname}.{node.attr}"
            self.external(getter, evaluator, target)
            known = self.analysis.known_return(target)
            kind = known.kind if known is not None and known.is_property else self.analysis.installed_property(target)
            if kind is None:
                return None
            kinds.append(kind)
        return join_all(kinds) if kinds else None

    def _property_read(self, node: ast.Attribute) -> ast.Call:
        """The call of the getter that reading ``node`` makes: one node per read, kept alive
        in the analysis, since call sites are keyed by id."""
        reads = self.analysis.property_reads
        if id(node) not in reads:
            reads[id(node)] = ast.copy_location(ast.Call(func=node, args=[], keywords=[]), node)
        return reads[id(node)]


def _either(first: Kind | None, second: Kind | None) -> Kind | None:
    """What one of two methods returns: the known one, or both joined."""
    return second if first is None else first if second is None else first | second


def _note_method_kind(call: ast.Call, returned: list[Kind | None], evaluator: Evaluator) -> None:
    """The call's kind, when the files of every method it may run said what they return."""
    if returned and all(kind is not None for kind in returned):
        joined = Kind.NONE
        for kind in returned:
            joined |= kind or Kind.NONE
        evaluator.method_kinds[id(call)] = joined
    else:
        evaluator.method_kinds.pop(id(call), None)


def _method(cls: ClassInfo, name: str) -> tuple[FunctionInfo, bool] | None:
    method = cls.find_method(name)
    return (method, not method.is_static) if method is not None else None


MAX_PARTIAL_DEPTH = 8  # partial(partial(f, a), b)(x): deeper chains are not followed


def _rebinds_itself(partial: ast.Call, call: ast.Call) -> bool:
    """``norm = partial(norm, dim)`` then ``norm(x)``: the partial wraps the name it is bound to."""
    inner, outer = partial.args[0], call.func
    return isinstance(inner, ast.Name) and isinstance(outer, ast.Name) and inner.id == outer.id


def _on_self(call: ast.Call, self_name: str | None) -> bool:
    func = call.func
    return isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == self_name


def _is_super_call(node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
