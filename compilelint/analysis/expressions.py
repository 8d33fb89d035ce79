"""Kind evaluation of expressions inside one function of a compiled region.

Evaluating an expression visits every sub-expression once, records each one's kind in a
cache (rules read it from there) and reports every resolved call to the region builder,
so that one pass gives kinds, call edges and the arguments' kinds for the callees.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from compilelint.analysis import kinds as K
from compilelint.analysis.guards import compile_time_value
from compilelint.analysis.imports import ImportTable
from compilelint.analysis.kinds import Kind
from compilelint.analysis.module_index import ClassInfo, FunctionInfo, ModuleIndex

Env = dict[str, Kind]

STATIC_BUILTINS = frozenset(
    {
        "isinstance",
        "issubclass",
        "hasattr",
        "callable",
        "type",
        "id",
        "repr",
        "str",
        "format",
        "print",
        "dict",
        "set",
        "frozenset",
        "object",
        "super",
        "vars",
        "hash",
        "chr",
        "ord",
        "open",
        "input",
        "breakpoint",
        "slice",
    }
)
PASS_THROUGH_BUILTINS = frozenset({"tuple", "list", "reversed", "sorted", "iter", "next"})
NUMBER_BUILTINS = frozenset({"int", "float", "bool", "complex", "round", "abs", "divmod", "pow", "math.floor", "math.ceil"})
COMBINING_BUILTINS = frozenset({"min", "max", "sum", "range", "any", "all"})


@dataclass(frozen=True)
class Target:
    """A function a call may run. A call may have several (``SOLVERS[method](f)``): each is
    analysed, and the region chain of what is found there names the one assumed."""

    function: FunctionInfo
    bound: bool  # the first parameter is the receiver
    arguments: ast.Call | None = None  # the call as the function receives it (through a partial)
    gives_result: bool = True  # False for a decorator's wrapper: the call's value is the function's


@dataclass(frozen=True)
class BuiltReceiverCall:
    """``obj.method(...)`` where ``obj`` holds an object the same function built: a bound
    method Dynamo cannot rebuild in bytecode if the graph breaks inside it (GB0092)."""

    call: ast.Call
    built: ast.Call  # the call that built the object
    method: str
    classes: tuple[ClassInfo, ...]  # the classes of this file it may be an instance of
    imported: tuple[str, ...]  # the imported classes it may be an instance of


class CallSink(Protocol):
    """Who learns about calls the evaluator resolves (the region builder)."""

    def resolve(self, call: ast.Call, evaluator: Evaluator) -> list[Target]: ...

    def called(self, target: Target, call: ast.Call, evaluator: Evaluator) -> Kind: ...

    def attribute(self, node: ast.Attribute, evaluator: Evaluator) -> Kind | None: ...

    def external(self, call: ast.Call, evaluator: Evaluator, qualname: str) -> Kind | None: ...

    def element_instance(self, iterable: ast.expr) -> ClassInfo | None: ...

    def imported_instance(self, node: ast.expr) -> str | None: ...

    def imported_elements(self, iterable: ast.expr) -> tuple[str, ...]: ...

    def attribute_objects(self, node: ast.Attribute, evaluator: Evaluator) -> tuple[str, ...]: ...

    def attribute_values(self, node: ast.Attribute, evaluator: Evaluator) -> tuple[str, ...]: ...

    def stored(self, target: ast.Attribute, value: ast.expr, evaluator: Evaluator) -> None: ...

    def hashed_attribute(self, node: ast.Attribute) -> bool: ...

    def self_objects(self, name: str) -> tuple[str, ...]: ...

    def matching_attributes(self, receiver: ast.expr, prefix: str, suffix: str) -> Kind | None: ...


def narrowed_name(test: ast.expr, holds: bool, env: Env, mixed: frozenset[str]) -> str | None:
    """The name ``test`` says is not None where it is ``holds`` (``if mask is not None:``,
    the ``else`` of ``if mask is None:``), when ``env`` has it and its annotation does not
    admit a Python number too (``mixed``); the arm then sees it as ``K.not_none``."""
    compared = K.none_test(test)
    if compared is None or compared[1] == holds or compared[0] not in env or compared[0] in mixed:
        return None
    return compared[0]


class Evaluator:
    """Evaluates expressions under an environment and caches every sub-expression's kind."""

    def __init__(self, index: ModuleIndex, env: Env, sink: CallSink, cache: dict[int, Kind]) -> None:
        self.index = index
        self.env = env
        self.sink = sink
        self.cache = cache
        self.locals: set[str] = set()  # names bound in this function (they shadow globals)
        self.constants: dict[str, bool] = {}  # names holding is_compiling()-style values
        self.tuple_kinds: dict[int, list[Kind]] = {}  # id(call) -> kinds of the tuple it returns
        self.instances: dict[str, tuple[ClassInfo, ...]] = {}  # local name -> local classes it may hold
        self.built: dict[int, tuple[ClassInfo, ...]] = {}  # id(call) -> local classes that call may construct
        self.partials: dict[str, ast.Call] = {}  # local name -> the functools.partial(...) it holds
        self.hashed_names: set[str] = set()  # local names bound to a dict or set (``hashed``)
        # id(lambda) -> the kind of its one parameter, where the call it is passed to says
        # (``sorted(xs, key=lambda t: t.sum())``: an element of ``xs``)
        self.lambda_params: dict[int, Kind] = {}
        # id(call) / local name -> imported classes that call may construct / the name may hold
        self.imported_built: dict[int, tuple[str, ...]] = {}
        self.called: set[int] = set()  # ids of the expressions calls call (``X.evaluate`` of ``X.evaluate(t)``)
        self.imported_instances: dict[str, tuple[str, ...]] = {}
        # local name -> the imported functions it may hold (solve = odeint_adjoint if a else odeint)
        self.aliases: dict[str, tuple[str, ...]] = {}
        # local name -> the functions (of this file or imported) it may hold, unless some
        # other value is bound to it too (analysis/function_aliases); the calls made of them
        self.function_aliases: dict[str, tuple[ast.expr, ...]] = {}
        self.not_only_functions: set[str] = set()
        self.alias_calls: dict[tuple[int, int], ast.Call] = {}
        # id(call) / local name -> the classes a call returns / a name holds, as
        # ``class_named`` spells them (solver_fn = methods.select(method); solver_fn(f))
        self.class_values: dict[int, tuple[str, ...]] = {}
        self.class_aliases: dict[str, tuple[str, ...]] = {}
        # id(call) -> the classes its result (or each element of the tuple it returns) may
        # be an instance of (compilelint.analysis.objects)
        self.value_objects: dict[int, tuple[str, ...]] = {}
        self.tuple_objects: dict[int, list[tuple[str, ...]]] = {}
        self.module: str | None = None  # the module this file is, when known
        self.none_names: set[str] = set()  # parameters that are None whenever this runs
        # parameters annotated to take a Python value besides None and tensors: a test that
        # rules out None leaves that value (``max_index: Optional[Union[int, Tensor]]``)
        self.mixed_parameters: frozenset[str] = frozenset()
        self.decided_ifs: set[int] = set()  # lines of `if` statements whose test is known
        self.local_imports = ImportTable()
        # id(BoolOp) / local name -> the Python operands that let its tensor operand through
        self.guarded_values: dict[int, tuple[ast.expr, ...]] = {}
        self.value_guards: dict[str, tuple[ast.expr, ...]] = {}
        # local name -> the call in this function that built the object it holds; and the
        # method calls on such objects (``solver = SOLVERS[m](f)``, then ``solver.integrate(t)``)
        self.built_here: dict[str, ast.Call] = {}
        self.built_receivers: dict[int, BuiltReceiverCall] = {}
        # id(call) -> what a method of an object of another file returns (``r.apply(x)`` on
        # ``r = rules.Rules(k)``, ``self.sde.prod(g, v)``), once every such method is known
        self.method_kinds: dict[int, Kind] = {}

    def qualname(self, node: ast.expr) -> str | None:
        root = node
        while isinstance(root, ast.Attribute):
            root = root.value
        if isinstance(root, ast.Name) and root.id in self.local_imports:
            return self.local_imports.qualname(node)  # `import numpy as np` inside the function
        if isinstance(root, ast.Name) and root.id in self.locals:
            return None
        return self.index.qualname(node)

    def imported_callables(self, value: ast.expr) -> tuple[str, ...]:
        """The imported names an expression may evaluate to: ``torchdiffeq.odeint``, either
        side of ``a if c else b`` or of ``a or b``, or a local alias of them."""
        if isinstance(value, ast.IfExp):
            return self.imported_callables(value.body) + self.imported_callables(value.orelse)
        if isinstance(value, ast.BoolOp):
            return tuple(name for operand in value.values for name in self.imported_callables(operand))
        if isinstance(value, ast.Name) and value.id in self.aliases:
            return self.aliases[value.id]
        if not _calls.imported_root(self, value):
            return ()
        name = self.qualname(value)
        return (name,) if name else ()

    def class_named(self, value: ast.expr) -> str | None:
        """``Euler`` or ``methods.Euler`` naming a class or function: "@Euler" when this
        file defines it, else its name as imported (relative names stay relative to this
        file). torch's, NumPy's and the standard library's callables are not followed."""
        if isinstance(value, ast.Name) and value.id in self.class_aliases and len(self.class_aliases[value.id]) == 1:
            return self.class_aliases[value.id][0]
        if isinstance(value, ast.Name) and value.id not in self.locals and value.id not in self.env:
            if value.id in self.index.classes or value.id in self.index.functions:
                return f"@{value.id}"
        if not _calls.imported_root(self, value):
            return None
        name = self.qualname(value)
        if not name or (not name.startswith(".") and name.split(".", 1)[0] in NOT_FOLLOWED_ROOTS):
            return None
        return name

    def note_method_call(self, call: ast.Call) -> None:
        """Remember ``name.method(...)`` when ``name`` holds an object this function built."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
            return
        built = self.built_here.get(func.value.id)
        if built is None:
            return
        name = func.value.id
        local = self._local_class(built)
        classes = self.instances.get(name) or ((local,) if local is not None else ())
        self.built_receivers[id(call)] = BuiltReceiverCall(call, built, func.attr, classes, self.imported_instances.get(name, ()))

    def _local_class(self, call: ast.Call) -> ClassInfo | None:
        """The class of this file that ``call`` instantiates by name (``Gate()``)."""
        name = self.qualname(call.func)
        return self.index.classes.get(name) if name is not None else None

    def static_value(self, test: ast.expr) -> bool | None:
        known = self._decided_none_test(test)
        if known is not None:
            return known
        return compile_time_value(test, self.qualname, self.constants.get)

    def _decided_none_test(self, test: ast.expr) -> bool | None:
        """``tb is None`` where every caller passes ``tb`` a tensor, a size or a module: False
        (``is not``: True). PyG's ``maybe_num_nodes(index, num_nodes)`` given ``x.size(0)``
        returns it before ``int(index.max())``. A name that may also be a Python value or
        None (a default), or that we cannot see, is not decided."""
        compared = K.none_test(test) if isinstance(test, ast.Compare) else None
        if compared is None:
            return None
        name, is_none = compared
        if name in self.none_names:  # a None default no call replaces
            return is_none
        # a comprehension's name is gone from env once it is evaluated: its kind there stays
        assert isinstance(test, ast.Compare)
        kind = self.env[name] if name in self.env else self.cache.get(id(test.left), Kind.NONE)
        if kind == Kind.NONE or kind & NOT_SURELY_A_VALUE:
            return None
        return not is_none

    def kind(self, node: ast.expr) -> Kind:
        result = self._evaluate(node)
        self.cache[id(node)] = result
        return result

    def _evaluate(self, node: ast.expr) -> Kind:
        handler = _HANDLERS.get(type(node))
        if handler is not None:
            return handler(self, node)
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.kind(child)
        return Kind.UNKNOWN

    # --- names and literals -------------------------------------------------------------
    def name(self, node: ast.Name) -> Kind:
        if node.id in self.local_imports:
            return Kind.UNKNOWN
        if node.id in self.env:
            return self.env[node.id]
        if node.id in self.index.functions or node.id in self.index.classes:
            return Kind.STATIC
        if node.id in ("True", "False", "None"):
            return Kind.STATIC
        return Kind.STATIC if node.id not in self.index.imports else Kind.UNKNOWN

    def container(self, node: ast.Tuple | ast.List | ast.Set) -> Kind:
        union = K.join_all([self.kind(element) for element in node.elts])
        return K.container_of(union) if union else Kind.STATIC

    def dict_display(self, node: ast.Dict) -> Kind:
        union = Kind.NONE
        for key in node.keys:
            if key is not None:
                self.kind(key)
        for value in node.values:
            union |= self.kind(value)
        return K.container_of(union) if union else Kind.STATIC

    # --- operators ----------------------------------------------------------------------
    def bin_op(self, node: ast.BinOp) -> Kind:
        left, right = self.kind(node.left), self.kind(node.right)
        if isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)) and (left | right) & Kind.BOOL:
            return K.arithmetic(left, right) | Kind.BOOL
        if isinstance(node.op, ast.Mod) and isinstance(node.left, ast.Constant) and isinstance(node.left.value, str):
            return Kind.STATIC  # "%s" % x formats
        return K.arithmetic(left, right)

    def unary_op(self, node: ast.UnaryOp) -> Kind:
        operand = self.kind(node.operand)
        if isinstance(node.op, ast.Not):
            static = self.static_value(node)
            return Kind.STATIC if static is not None else (K.comparison(operand) if operand & Kind.TENSOR else operand)
        return operand

    def bool_op(self, node: ast.BoolOp) -> Kind:
        live = self.live_operands(node)
        kinds = self._narrowing_kinds(live) if isinstance(node.op, ast.And) else [self.kind(value) for value in live]
        if len(kinds) > 1 and K.is_data(kinds[-1]) and all(kind == Kind.STATIC for kind in kinds[:-1]):
            # `not self.batch_first and mask[0].all()`: the Python operands decide whether the
            # value is the tensor; on that path a test of it is a tensor branch (measured:
            # GB0170 with batch_first=False), so the value is the tensor, under conditions
            held = [v if isinstance(node.op, ast.And) else ast.UnaryOp(op=ast.Not(), operand=v) for v in live[:-1]]
            self.guarded_values[id(node)] = tuple(held)
            return kinds[-1]
        return K.join_all(kinds)

    def _narrowing_kinds(self, operands: Sequence[ast.expr]) -> list[Kind]:
        """The operands' kinds, each after the ``isinstance(x, list)`` tests before it:
        ``isinstance(t, list) and all(0 <= v <= 1 for v in t)`` iterates a list of numbers,
        even where ``t`` may also be a tensor."""
        kinds: list[Kind] = []
        saved: dict[str, Kind] = {}
        for value in operands:
            kinds.append(self.kind(value))
            name = _python_isinstance(value, self.qualname)
            if name is not None and name in self.env and self.env[name] & Kind.TENSOR:
                saved.setdefault(name, self.env[name])
                self.env[name] = Kind.STATIC
        self.env.update(saved)
        return kinds

    def live_operands(self, node: ast.BoolOp) -> Sequence[ast.expr]:
        """Operands Dynamo evaluates: ``is_compiling() or x`` never evaluates ``x``."""
        live: list[ast.expr] = []
        for value in node.values:
            live.append(value)
            static = self.static_value(value)
            if static is not None and static == isinstance(node.op, ast.Or):
                break
        return live

    def compare(self, node: ast.Compare) -> Kind:
        operands = [self.kind(node.left)] + [self.kind(c) for c in node.comparators]
        if all(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
            return Kind.STATIC
        if any(_is_text(e) for e in [node.left, *node.comparators]):
            # `char == "("`, `c in "() "`: a string's characters; a tensor compared with a
            # str is Python's False (measured: no break), and `t in "ab"` a TypeError
            return Kind.STATIC
        if all(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
            if all(self.hashed(container) for container in node.comparators):
                # `t in cache` of a dict or set hashes the tensor (by identity): a Python bool
                return Kind.STATIC
            # `t in [1, 2]` compares element-wise and takes the truth of a tensor
            return K.comparison(*operands) if (operands[0] | operands[-1]) & Kind.TENSOR else Kind.STATIC
        return K.comparison(*operands)

    def hashed(self, node: ast.expr) -> bool:
        """A dict or a set, which finds a key by its hash (a tensor's is its identity): a
        display, a ``dict()``/``set()`` call, a local name bound only to one, or an attribute
        of ``self`` the class stores only such values in."""
        if is_hashed_display(node, self.qualname):
            return True
        if isinstance(node, ast.Name):
            return node.id in self.hashed_names
        return isinstance(node, ast.Attribute) and self.sink.hashed_attribute(node)

    def _narrowed_kind(self, arm: ast.expr, test: ast.expr, holds: bool) -> Kind:
        """``arm``'s kind where ``test`` is ``holds``: in ``T if lengths is None else
        int(lengths[b])`` the second arm sees ``lengths`` as a tensor (``K.not_none``)."""
        name = narrowed_name(test, holds, self.env, self.mixed_parameters)
        if name is None:
            return self.kind(arm)
        before = self.env[name]
        self.env[name] = K.not_none(before)
        try:
            return self.kind(arm)
        finally:
            self.env[name] = before

    def if_exp(self, node: ast.IfExp) -> Kind:
        static = self.static_value(node.test)
        test = self.kind(node.test)  # cached, so that the walk after sees the test decided too
        if static is not None:
            return self.kind(node.body if static else node.orelse)
        body, orelse = self._narrowed_kind(node.body, node.test, True), self._narrowed_kind(node.orelse, node.test, False)
        if test == Kind.STATIC:
            # `cache.seen() if cache is not None else 0`: a Python test picks the tensor or a
            # number; on the path Dynamo takes with the tensor, its uses break as a tensor's
            # (measured: GB0033 at `torch.arange(seen, ...)`), so the value is the tensor, under
            # the test. Not for None on the other side: `mask is None` must stay undecided.
            for kind, other, guard in (
                (body, node.orelse, node.test),
                (orelse, node.body, ast.UnaryOp(op=ast.Not(), operand=node.test)),
            ):
                if K.is_data(kind) and _is_number(other):
                    self.guarded_values[id(node)] = (guard,)
                    return kind
        return K.join(body, orelse)

    def joined_str(self, node: ast.JoinedStr) -> Kind:
        for value in node.values:
            self.kind(value)
        return Kind.STATIC

    def formatted_value(self, node: ast.FormattedValue) -> Kind:
        self.kind(node.value)
        if node.format_spec is not None:
            self.kind(node.format_spec)
        return Kind.STATIC

    def named_expr(self, node: ast.NamedExpr) -> Kind:
        value = self.kind(node.value)
        if isinstance(node.target, ast.Name):
            self.env[node.target.id] = value
            self.locals.add(node.target.id)
        return value

    def lambda_(self, node: ast.Lambda) -> Kind:
        saved = dict(self.env)
        for arg in ast.walk(node.args):
            if isinstance(arg, ast.arg):
                self.env[arg.arg] = self.lambda_params.get(id(node), Kind.UNKNOWN)
        self.kind(node.body)
        self.env.clear()
        self.env.update(saved)
        return Kind.STATIC

    def comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> Kind:
        saved = dict(self.env)
        for generator in node.generators:
            bind_loop_target(self, generator.target, generator.iter, self.kind(generator.iter))
            for condition in generator.ifs:
                self.kind(condition)
        if isinstance(node, ast.DictComp):
            self.kind(node.key)
            result = self.kind(node.value)
        else:
            result = self.kind(node.elt)
        self.env.clear()
        self.env.update(saved)
        return K.container_of(result)

    def starred(self, node: ast.Starred) -> Kind:
        return self.kind(node.value)

    def await_(self, node: ast.Await) -> Kind:
        self.kind(node.value)
        return Kind.UNKNOWN

    # --- binding ------------------------------------------------------------------------
    def bind(self, target: ast.expr, kind: Kind, value: ast.expr | None = None) -> None:
        """Assign ``kind`` to ``target``; tuples unpack element-wise when the value is a display."""
        if isinstance(target, ast.Name):
            self.none_names.discard(target.id)
            if value is not None and is_hashed_display(value, self.qualname):
                self.hashed_names.add(target.id)
            else:
                self.hashed_names.discard(target.id)
            flowing = _objects.of_value(self, value) if isinstance(value, (ast.Name, ast.Attribute, ast.IfExp, ast.BoolOp)) else ()
            if isinstance(value, ast.Call):
                flowing = self.value_objects.get(id(value), ())
            self.env[target.id] = kind
            self.locals.add(target.id)
            self.instances.pop(target.id, None)
            self.imported_instances.pop(target.id, None)
            if flowing:
                _objects.set_name(self, target.id, flowing)
            if value is not None and id(value) in self.imported_built:
                self.imported_instances[target.id] = self.imported_built[id(value)]
            guards = self.guarded_values.get(id(value)) if value is not None else None
            if guards is not None:
                self.value_guards[target.id] = guards
            else:
                self.value_guards.pop(target.id, None)
            self.built_here.pop(target.id, None)
            if isinstance(value, ast.Call) and (
                id(value) in self.built or id(value) in self.imported_built or self._local_class(value) is not None
            ):
                self.built_here[target.id] = value
            if value is not None and id(value) in self.built:
                self.instances[target.id] = self.built[id(value)]
            elif isinstance(value, ast.Call) and (plain := _objects.plain_class_built(self, value)) is not None:
                self.instances[target.id] = (plain,)  # params = SamplingParams()
            elif isinstance(value, ast.Subscript):  # layer = self.layers[i]
                held = self.sink.element_instance(value.value)
                imported = self.sink.imported_elements(value.value) if held is None else ()
                if held is not None:
                    self.instances[target.id] = (held,)
                elif imported:
                    self.imported_instances[target.id] = imported
            self.partials.pop(target.id, None)
            self.aliases.pop(target.id, None)
            self.class_aliases.pop(target.id, None)
            if value is not None and id(value) in self.class_values:
                self.class_aliases[target.id] = self.class_values[id(value)]
            _function_aliases.bind(self, target.id, value)
            held_functions = self.imported_callables(value) if value is not None else ()
            if held_functions:
                self.aliases[target.id] = held_functions
            if isinstance(value, ast.Call) and value.args and self.qualname(value.func) in ("functools.partial", "partial"):
                self.partials[target.id] = value
        elif isinstance(target, (ast.Tuple, ast.List)):
            values = value.elts if isinstance(value, (ast.Tuple, ast.List)) else None
            returned = self.tuple_kinds.get(id(value)) if value is not None else None
            if values is not None and _unpacking.bind_starred(self, target.elts, values, kind):
                pass  # *_, b, n, d = *x.shape, x.dtype
            elif values is not None and len(values) == len(target.elts):
                for sub_target, sub_value in zip(target.elts, values):
                    self.bind(sub_target, self.cache.get(id(sub_value), kind), sub_value)
            elif returned is not None and len(returned) == len(target.elts):
                for sub_target, element in zip(target.elts, returned):
                    self.bind(sub_target, element)
                element_objects = self.tuple_objects.get(id(value), []) if value is not None else []
                for sub_target, passed in zip(target.elts, element_objects):
                    if isinstance(sub_target, ast.Name) and passed:
                        _objects.set_name(self, sub_target.id, passed)
            elif returned is not None and len(returned) == 1:  # an unseen module's outputs
                for position, sub_target in enumerate(target.elts):
                    self.bind(sub_target, returned[0] if position == 0 else Kind.UNKNOWN)
            else:
                for sub_target in target.elts:
                    self.bind(sub_target, element_kind(kind, value, self))
        elif isinstance(target, ast.Starred):
            self.bind(target.value, kind)
        # attribute and subscript stores were evaluated before the statement was visited


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.JoinedStr) or (isinstance(node, ast.Constant) and isinstance(node.value, (str, bytes)))


def bind_loop_target(evaluator: Evaluator, target: ast.expr, iterable: ast.expr, kind: Kind) -> None:
    """``for i, x in enumerate(xs)`` / ``zip(a, b)``: give each name its own element kind."""
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(iterable, ast.Call):
        name = evaluator.qualname(iterable.func)
        args = iterable.args
        parts: list[Kind] | None = None
        if name == "enumerate" and len(args) == 1 and len(target.elts) == 2 and _only_keywords(iterable, "start"):
            parts = [Kind.STATIC, element_kind(evaluator.cache.get(id(args[0]), Kind.UNKNOWN), args[0], evaluator)]
            _bind_instance(evaluator, target.elts[1], args[0])
        elif name == "zip" and len(args) == len(target.elts) and _only_keywords(iterable, "strict"):
            parts = [element_kind(evaluator.cache.get(id(a), Kind.UNKNOWN), a, evaluator) for a in args]
        if parts is not None:
            for element, part in zip(target.elts, parts):
                if evaluator.instances.get(getattr(element, "id", "")) is None:
                    evaluator.bind(element, part)
            return
    evaluator.bind(target, element_kind(kind, iterable, evaluator))
    _bind_instance(evaluator, target, iterable)


def _only_keywords(call: ast.Call, allowed: str) -> bool:
    """``zip(a, b, strict=True)``, ``enumerate(xs, start=1)``: keywords that leave the
    elements as they are."""
    return all(keyword.arg == allowed for keyword in call.keywords)


def _bind_instance(evaluator: Evaluator, target: ast.expr, iterable: ast.expr) -> None:
    """``for layer in self.layers``: ``layer(...)`` then calls that class's forward."""
    if not isinstance(target, ast.Name):
        return
    cls = evaluator.sink.element_instance(iterable)
    imported = evaluator.sink.imported_elements(iterable) if cls is None else ()
    if cls is not None or imported:
        evaluator.env[target.id] = Kind.MODULE
        evaluator.locals.add(target.id)
    if cls is not None:
        evaluator.instances[target.id] = (cls,)
    elif imported:  # for conv in self.convs, of GCNConv layers: conv(x) runs GCNConv.forward
        evaluator.imported_instances[target.id] = imported


def element_kind(kind: Kind, iterable: ast.expr | None, evaluator: Evaluator) -> Kind:
    """The kind of one element when iterating/unpacking a value of ``kind``."""
    if kind & Kind.UNKNOWN:
        return Kind.UNKNOWN
    if kind & Kind.MODULE:
        return Kind.MODULE
    if kind & Kind.TENSOR:
        return K.element_of(kind) if kind & Kind.CONTAINER else Kind.TENSOR | (kind & Kind.BOOL)  # rows of a tensor
    if isinstance(iterable, ast.Call):
        name = evaluator.qualname(iterable.func)
        if name in ("enumerate", "zip"):
            return Kind.UNKNOWN if kind & Kind.UNKNOWN else kind | Kind.STATIC
    return kind


from compilelint.analysis import calls as _calls  # noqa: E402  (needs Evaluator defined)
from compilelint.analysis import function_aliases as _function_aliases  # noqa: E402
from compilelint.analysis import objects as _objects  # noqa: E402
from compilelint.analysis import unpacking as _unpacking  # noqa: E402

# A kind with any of these may hold None (STATIC: literals and None; what we cannot see)
NOT_SURELY_A_VALUE = Kind.STATIC | Kind.UNKNOWN | Kind.NUMPY

# Returned callables of these packages are not followed as class values
NOT_FOLLOWED_ROOTS = frozenset({"torch", "numpy", "typing", "builtins", "functools", "math", "operator", "collections"})

_HANDLERS: dict[type[ast.AST], Callable[[Evaluator, Any], Kind]] = {
    ast.Name: Evaluator.name,
    ast.Constant: lambda ev, node: Kind.STATIC,
    ast.Tuple: Evaluator.container,
    ast.List: Evaluator.container,
    ast.Set: Evaluator.container,
    ast.Dict: Evaluator.dict_display,
    ast.BinOp: Evaluator.bin_op,
    ast.UnaryOp: Evaluator.unary_op,
    ast.BoolOp: Evaluator.bool_op,
    ast.Compare: Evaluator.compare,
    ast.IfExp: Evaluator.if_exp,
    ast.JoinedStr: Evaluator.joined_str,
    ast.FormattedValue: Evaluator.formatted_value,
    ast.NamedExpr: Evaluator.named_expr,
    ast.Lambda: Evaluator.lambda_,
    ast.ListComp: Evaluator.comprehension,
    ast.SetComp: Evaluator.comprehension,
    ast.GeneratorExp: Evaluator.comprehension,
    ast.DictComp: Evaluator.comprehension,
    ast.Starred: Evaluator.starred,
    ast.Await: Evaluator.await_,
    ast.Call: _calls.call,
    ast.Attribute: _calls.attribute,
    ast.Subscript: _calls.subscript,
}


PYTHON_TYPES = frozenset({"list", "tuple", "dict", "set", "int", "float", "bool", "str", "bytes", "complex"})


def _python_isinstance(test: ast.expr, qualname: Callable[[ast.expr], str | None]) -> str | None:
    """``x`` for ``isinstance(x, list)`` / ``isinstance(x, (int, float))``: x is a plain
    Python value where the test held."""
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance"):
        return None
    if len(test.args) != 2 or not isinstance(test.args[0], ast.Name):
        return None
    classes = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
    if classes and all(qualname(c) in PYTHON_TYPES for c in classes):
        return test.args[0].id
    return None


def _is_number(node: ast.expr) -> bool:
    """A literal int or float (``0``, ``-1``, ``1.0``), not a bool or None."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


HASHED_CALLS = frozenset(
    {"dict", "set", "frozenset", "collections.defaultdict", "collections.OrderedDict", "collections.Counter"}
)


def is_hashed_display(node: ast.expr, qualname: Callable[[ast.expr], str | None]) -> bool:
    """A dict or set display or comprehension, or a call of ``dict()``/``set()`` and kin."""
    if isinstance(node, (ast.Dict, ast.DictComp, ast.Set, ast.SetComp)):
        return True
    if not isinstance(node, ast.Call):
        return False
    name = qualname(node.func) or (node.func.id if isinstance(node.func, ast.Name) else None)
    return name in HASHED_CALLS
