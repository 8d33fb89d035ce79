"""Flow-sensitive interpretation of one function body: kinds per statement, call discovery.

Branches are interpreted separately and their environments joined; loops run twice so
kinds carried around the loop reach a fixed point; branches that Dynamo never enters
(``if not torch.compiler.is_compiling():``) are skipped. When a ``visitor`` is given, each
statement is handed to it after its expressions were evaluated, once, in source order.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from typing import Any, Protocol

from compilelint.analysis import kinds as K
from compilelint.analysis import objects as _objects
from compilelint.analysis.expressions import Env, Evaluator, bind_loop_target, narrowed_name
from compilelint.analysis.kinds import Kind
from compilelint.analysis.module_index import MODULE_BASES


class StatementVisitor(Protocol):
    def statement(self, stmt: ast.stmt, evaluator: Evaluator) -> None: ...


class NestedDefinitions(Protocol):
    def define(self, node: ast.FunctionDef | ast.AsyncFunctionDef, env: Env) -> None: ...

    def define_lambda(self, node: ast.Lambda, name: str, at: ast.stmt, env: Env) -> None: ...


def bound_lambda(stmt: ast.stmt) -> ast.Lambda | None:
    """``name = lambda ...: body``: a local function of ``name`` (FunctionScope.define_lambda),
    whose body runs, and is checked, as that function's own."""
    if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name):
        return stmt.value if isinstance(stmt.value, ast.Lambda) else None
    return None


def header_expressions(stmt: ast.stmt) -> Iterator[ast.expr]:
    """The expressions a statement evaluates itself (not those of its nested blocks)."""
    lambda_ = bound_lambda(stmt)
    if lambda_ is not None:
        yield from getattr(stmt, "targets")
        yield from lambda_.args.defaults
        yield from (d for d in lambda_.args.kw_defaults if d is not None)
    elif isinstance(stmt, (ast.If, ast.While)):
        yield stmt.test
    elif isinstance(stmt, (ast.For, ast.AsyncFor)):
        yield stmt.iter
        yield stmt.target
    elif isinstance(stmt, (ast.With, ast.AsyncWith)):
        for item in stmt.items:
            yield item.context_expr
            if item.optional_vars is not None:
                yield item.optional_vars
    elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        yield from stmt.decorator_list
    elif isinstance(stmt, ast.Try):
        yield from (h.type for h in stmt.handlers if h.type is not None)
    elif isinstance(stmt, ast.AnnAssign):
        yield stmt.target
        if stmt.value is not None:
            yield stmt.value
    elif not isinstance(stmt, (ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal)):
        for child in ast.iter_child_nodes(stmt):
            if isinstance(child, ast.expr):
                yield child


class FunctionInterpreter:
    MAX_LOOP_DEPTH_WITH_TWO_PASSES = 4

    def __init__(
        self,
        evaluator: Evaluator,
        nested: NestedDefinitions,
        visitor: StatementVisitor | None,
    ) -> None:
        self.ev = evaluator
        self.nested = nested
        self.visitor = visitor
        self.dispatching = visitor is not None
        self.returns = Kind.NONE
        # per-position kinds when every return is a tuple display of one length
        self.return_elements: list[Kind] | None = None
        self._tuple_returns_only = True
        # the classes (not instances) it returns: "@Name" for a class of this file, else the
        # name as imported here (``def select(m): return Euler`` with ``from .euler import Euler``)
        self.returned_classes: list[str] = []
        # the classes its result may be an instance of, whole or per tuple position
        self.return_objects: tuple[str, ...] = ()
        self.return_element_objects: list[tuple[str, ...]] | None = None
        self.loop_depth = 0

    # --- environment helpers -------------------------------------------------------------
    @property
    def env(self) -> Env:
        return self.ev.env

    def _replace_env(self, new: Env) -> None:
        self.env.clear()
        self.env.update(new)

    @staticmethod
    def _join(*envs: Env | None) -> Env | None:
        live = [env for env in envs if env is not None]
        if not live:
            return None
        joined: Env = {}
        for env in live:
            for name, kind in env.items():
                joined[name] = K.join(joined[name], kind) if name in joined else kind
        return joined

    def _branch(self, body: list[ast.stmt], start: Env) -> Env | None:
        """Run ``body`` from ``start``; the resulting env, or None if it always exits."""
        self._replace_env(dict(start))
        terminated = self.block(body)
        return None if terminated else dict(self.env)

    # --- statements ----------------------------------------------------------------------
    def run(self, body: list[ast.stmt]) -> Kind:
        terminated = self.block(body)
        if not terminated:
            self.returns |= Kind.STATIC  # falls off the end: returns None
            self._tuple_returns_only, self.return_elements, self.return_element_objects = False, None, None
        return self.returns

    def block(self, body: list[ast.stmt]) -> bool:
        """Interpret statements in order; True if control never reaches the end."""
        for stmt in body:
            if self.statement(stmt):
                return True
        return False

    def _visit(self, stmt: ast.stmt) -> None:
        if self.dispatching and self.visitor is not None:
            self.visitor.statement(stmt, self.ev)

    def statement(self, stmt: ast.stmt) -> bool:
        handler = _STATEMENTS.get(type(stmt))
        if handler is not None:
            return handler(self, stmt)
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            self.ev.local_imports.add(stmt)
        for expr in header_expressions(stmt):
            self.ev.kind(expr)
        self._visit(stmt)
        return isinstance(stmt, (ast.Raise, ast.Continue, ast.Break))

    def assign(self, stmt: ast.Assign) -> bool:
        kind = self.ev.kind(stmt.value)
        for target in stmt.targets:
            self._evaluate_store_target(target)
        self._visit(stmt)
        static = self.ev.static_value(stmt.value)
        for target in stmt.targets:
            self.ev.bind(target, kind, stmt.value)
            self._store_objects(target, stmt.value)
            if isinstance(target, ast.Name):
                if static is None:
                    self.ev.constants.pop(target.id, None)
                else:
                    self.ev.constants[target.id] = static
        lambda_ = bound_lambda(stmt)
        if lambda_ is not None:  # `sample_fn = lambda m: draw(p, m)`: a call of the name runs it
            self.nested.define_lambda(lambda_, getattr(stmt.targets[0], "id"), stmt, dict(self.env))
        return False

    def _store_objects(self, target: ast.expr, value: ast.expr) -> None:
        """``self.bm = bm`` (or ``self.f, self.bm = f, bm``): the attribute holds that instance."""
        if isinstance(target, ast.Attribute):
            self.ev.sink.stored(target, value, self.ev)
        elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)):
            if len(target.elts) == len(value.elts):
                for sub_target, sub_value in zip(target.elts, value.elts):
                    self._store_objects(sub_target, sub_value)

    def _evaluate_store_target(self, target: ast.expr) -> None:
        """Evaluate ``obj.attr`` / ``x[i]`` targets before rules see the statement."""
        if isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._evaluate_store_target(element)
        elif isinstance(target, ast.Starred):
            self._evaluate_store_target(target.value)
        elif not isinstance(target, ast.Name):
            self.ev.kind(target)

    def ann_assign(self, stmt: ast.AnnAssign) -> bool:
        if stmt.value is None:
            return False
        kind = self.ev.kind(stmt.value)
        self._evaluate_store_target(stmt.target)
        self._visit(stmt)
        self.ev.bind(stmt.target, kind, stmt.value)
        return False

    def aug_assign(self, stmt: ast.AugAssign) -> bool:
        current = self.ev.kind(stmt.target) if not isinstance(stmt.target, ast.Name) else self.env.get(
            stmt.target.id, Kind.UNKNOWN
        )
        self.ev.cache[id(stmt.target)] = current
        kind = K.arithmetic(current, self.ev.kind(stmt.value))
        self._visit(stmt)
        if isinstance(stmt.target, ast.Name):
            self.ev.bind(stmt.target, kind)
        return False

    def return_(self, stmt: ast.Return) -> bool:
        self.returns = K.join(self.returns, self.ev.kind(stmt.value) if stmt.value is not None else Kind.STATIC)
        self._record_tuple_return(stmt.value)
        returned = self.ev.class_named(stmt.value) if stmt.value is not None else None
        if returned is not None and returned not in self.returned_classes:
            self.returned_classes.append(returned)
        self.return_objects = _objects.join(self.return_objects, _objects.of_value(self.ev, stmt.value))
        self._visit(stmt)
        return True

    def _record_tuple_return(self, value: ast.expr | None) -> None:
        """``return a, b`` everywhere: callers unpacking the result get each kind."""
        if not self._tuple_returns_only:
            return
        if not isinstance(value, ast.Tuple) or any(isinstance(e, ast.Starred) for e in value.elts):
            self._tuple_returns_only, self.return_elements, self.return_element_objects = False, None, None
            return
        kinds = [self.ev.cache.get(id(element), Kind.UNKNOWN) for element in value.elts]
        held = [_objects.of_value(self.ev, element) for element in value.elts]
        if self.return_elements is None:
            self.return_elements = kinds
            self.return_element_objects = held
        elif len(self.return_elements) == len(kinds):
            self.return_elements = [K.join(a, b) for a, b in zip(self.return_elements, kinds)]
            before = self.return_element_objects or [() for _ in kinds]
            self.return_element_objects = [_objects.join(a, b) for a, b in zip(before, held)]
        else:
            self._tuple_returns_only, self.return_elements, self.return_element_objects = False, None, None

    def if_(self, stmt: ast.If) -> bool:
        static = self.ev.static_value(stmt.test)
        test = self.ev.kind(stmt.test)
        self._visit(stmt)
        if static is not None:
            self.ev.decided_ifs.add(stmt.lineno)
            return self.block(stmt.body if static else stmt.orelse)
        start = dict(self.env)
        guards = dict(self.ev.value_guards)
        instances = dict(self.ev.imported_instances)
        after_body = self._branch(stmt.body, _narrowed(start, stmt.test, True, self.ev.mixed_parameters))
        body_instances = dict(self.ev.imported_instances)
        self.ev.imported_instances.clear()
        self.ev.imported_instances.update(instances)
        after_else = self._branch(stmt.orelse, _narrowed(start, stmt.test, False, self.ev.mixed_parameters))
        self._join_instances([held for after, held in ((after_body, body_instances), (after_else, dict(self.ev.imported_instances))) if after is not None], instances)
        joined = self._join(after_body, after_else)
        if joined is None:
            self._replace_env(start)
            return True
        self._replace_env(joined)
        if K.is_data(test) and after_body is not None and after_else is not None:
            self._tensor_unless_taken(stmt.test, after_body, after_else, guards)
        checked = _refused_non_module(stmt.test, self.ev.qualname) if after_body is None else None
        if checked is not None:  # `if not isinstance(net, nn.Module): raise ...`: a module from here on
            self.env[checked] = Kind.MODULE
        return False

    def _join_instances(self, paths: list[dict[str, tuple[str, ...]]], start: dict[str, tuple[str, ...]]) -> None:
        """The imported classes a name may hold after an ``if``: those of every path that goes on
        (``X = torchcde.LinearInterpolation(c)`` or ``X = torchcde.CubicSpline(c)``)."""
        merged: dict[str, tuple[str, ...]] = {}
        for held in paths or [start]:
            for name, classes in held.items():
                merged[name] = tuple(dict.fromkeys(merged.get(name, ()) + classes))
        self.ev.imported_instances.clear()
        self.ev.imported_instances.update(merged)

    def _tensor_unless_taken(self, test: ast.expr, after_body: Env, after_else: Env, guards: dict[str, tuple[ast.expr, ...]]) -> None:
        """``accept = ratio <= 1; if dt > max_step: accept = False``: the ``if`` on tensor
        data breaks the graph, and Dynamo resumes with the value that path left, the tensor
        whenever the test was false (measured on torch 2.13: torchdiffeq's ``if
        accept_step:`` breaks again, GB0170). The name stays the tensor, held under that
        condition, where the other path gives it a Python constant."""
        for name, body_kind in after_body.items():
            else_kind = after_else.get(name)
            if else_kind is None or body_kind == else_kind:
                continue
            if K.is_data(body_kind) and else_kind == Kind.STATIC:
                kind, held = body_kind, test
            elif K.is_data(else_kind) and body_kind == Kind.STATIC:
                kind, held = else_kind, ast.UnaryOp(op=ast.Not(), operand=test)
            else:
                continue
            self.env[name] = kind
            earlier = guards.get(name, ())
            if all(ast.dump(guard) != ast.dump(held) for guard in earlier):  # a loop's second pass
                earlier += (ast.copy_location(held, test),)
            self.ev.value_guards[name] = earlier

    def _loop(self, run_once: Callable[[], None], orelse: list[ast.stmt]) -> bool:
        start = dict(self.env)
        dispatching = self.dispatching
        self.loop_depth += 1
        if self.loop_depth <= self.MAX_LOOP_DEPTH_WITH_TWO_PASSES:
            self.dispatching = False  # first pass only carries kinds around the loop
            run_once()
            self._replace_env(self._join(start, dict(self.env)) or start)
            self.dispatching = dispatching
        run_once()
        self.loop_depth -= 1
        self._replace_env(self._join(start, dict(self.env)) or start)
        return self.block(orelse)

    def for_(self, stmt: ast.For | ast.AsyncFor) -> bool:
        def once() -> None:
            bind_loop_target(self.ev, stmt.target, stmt.iter, self.ev.kind(stmt.iter))
            self._visit(stmt)
            self.block(stmt.body)

        return self._loop(once, stmt.orelse)

    def while_(self, stmt: ast.While) -> bool:
        if self.ev.static_value(stmt.test) is False:
            self._visit(stmt)
            return self.block(stmt.orelse)

        def once() -> None:
            self.ev.kind(stmt.test)
            self._visit(stmt)
            self.block(stmt.body)

        return self._loop(once, stmt.orelse)

    def with_(self, stmt: ast.With | ast.AsyncWith) -> bool:
        for item in stmt.items:
            self.ev.kind(item.context_expr)
        self._visit(stmt)
        for item in stmt.items:
            if item.optional_vars is not None:
                self.ev.bind(item.optional_vars, Kind.UNKNOWN)
        return self.block(stmt.body)

    def try_(self, stmt: ast.Try | ast.TryStar) -> bool:
        self._visit(stmt)
        start = dict(self.env)
        after_body = self._branch(stmt.body + stmt.orelse, start)
        outcomes = [after_body]
        for handler in stmt.handlers:
            handler_start = self._join(start, after_body) or start
            if handler.name:
                handler_start[handler.name] = Kind.UNKNOWN
            outcomes.append(self._branch(handler.body, handler_start))
        joined = self._join(*outcomes)
        self._replace_env(joined if joined is not None else start)
        terminated = self.block(stmt.finalbody)
        return terminated or joined is None

    def function_def(self, stmt: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        for decorator in stmt.decorator_list:
            self.ev.kind(decorator)
        for default in stmt.args.defaults + [d for d in stmt.args.kw_defaults if d is not None]:
            self.ev.kind(default)
        self._visit(stmt)
        self.ev.bind(ast.Name(id=stmt.name, ctx=ast.Store()), Kind.STATIC)
        self.nested.define(stmt, dict(self.env))
        return False

    def class_def(self, stmt: ast.ClassDef) -> bool:
        self._visit(stmt)
        self.ev.bind(ast.Name(id=stmt.name, ctx=ast.Store()), Kind.UNKNOWN)
        return False

    def match(self, stmt: ast.Match) -> bool:
        self.ev.kind(stmt.subject)
        self._visit(stmt)
        start = dict(self.env)
        outcomes = [self._branch(case.body, start) for case in stmt.cases]
        joined = self._join(start, *outcomes)
        self._replace_env(joined or start)
        return False


_STATEMENTS: dict[type[ast.stmt], Callable[[FunctionInterpreter, Any], bool]] = {
    ast.Assign: FunctionInterpreter.assign,
    ast.AnnAssign: FunctionInterpreter.ann_assign,
    ast.AugAssign: FunctionInterpreter.aug_assign,
    ast.Return: FunctionInterpreter.return_,
    ast.If: FunctionInterpreter.if_,
    ast.For: FunctionInterpreter.for_,
    ast.AsyncFor: FunctionInterpreter.for_,
    ast.While: FunctionInterpreter.while_,
    ast.With: FunctionInterpreter.with_,
    ast.AsyncWith: FunctionInterpreter.with_,
    ast.Try: FunctionInterpreter.try_,
    ast.TryStar: FunctionInterpreter.try_,
    ast.FunctionDef: FunctionInterpreter.function_def,
    ast.AsyncFunctionDef: FunctionInterpreter.function_def,
    ast.ClassDef: FunctionInterpreter.class_def,
    ast.Match: FunctionInterpreter.match,
}


def _narrowed(env: Env, test: ast.expr, holds: bool, mixed: frozenset[str]) -> Env:
    """``env`` on the arm where ``test`` is ``holds``: a name the test says is not None
    (``if mask is not None:``, the ``else`` of ``if mask is None:``) is a tensor there when
    it was a tensor or None, unless its annotation admits a Python number too (``mixed``)."""
    name = narrowed_name(test, holds, env, mixed)
    return env if name is None else {**env, name: K.not_none(env[name])}


def _refused_non_module(test: ast.expr, qualname: Callable[[ast.expr], str | None]) -> str | None:
    """``net`` for ``not isinstance(net, nn.Module)``: a test whose body leaves the function
    (raises, returns) lets only modules past it."""
    if not (isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not)):
        return None
    call = test.operand
    if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "isinstance"):
        return None
    if len(call.args) != 2 or not isinstance(call.args[0], ast.Name):
        return None
    return call.args[0].id if qualname(call.args[1]) in MODULE_BASES else None
