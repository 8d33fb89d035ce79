"""What a rule sees: the questions it may ask about a node, and ``report``."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from compilelint.analysis import objects
from compilelint.analysis.call_conditions import Condition, describe, early_returns
from compilelint.analysis.calls import builtin_name, imported_root
from compilelint.analysis.expressions import Evaluator
from compilelint.analysis.kinds import Kind
from compilelint.analysis.module_index import ClassInfo, FunctionInfo, ModuleIndex
from compilelint.analysis.regions import RegionAnalysis
from compilelint.findings import Fix, Mode, ReachedSite
from compilelint.installed import PackageCalls, ReachedBreaks, merge_reached

# Holders whose ``test`` Python evaluates for truth.
TEST_HOLDERS = (ast.If, ast.While, ast.IfExp, ast.Assert)


@dataclass
class RawFinding:
    """A finding before positions are converted and suppressions applied."""

    code: str
    name: str
    message: str
    node: ast.AST
    statement: ast.stmt | None
    region: tuple[str, ...]
    breaks: tuple[Mode, ...]
    gb_ids: tuple[str, ...]
    fix: Fix | None
    fix_data: object = None
    only_when: tuple[str, ...] = ()
    claim: str = ""
    reaches: tuple[str, ...] = ()
    reached_sites: tuple[ReachedSite, ...] = ()
    entry_conditions: tuple[str, ...] = ()  # Finding.entry_conditions


@dataclass
class RuleContext:
    """Facts about the node being checked. Rules ask; the analysis answers."""

    index: ModuleIndex
    analysis: RegionAnalysis | None
    sink: Callable[[RawFinding], None]
    region: tuple[str, ...] = ()
    function: FunctionInfo | None = None
    is_entry_point: bool = False  # Dynamo starts tracing here, and no compiled code of this file calls it
    statement: ast.stmt | None = None
    evaluator: Evaluator | None = None
    parents: dict[int, ast.AST] = field(default_factory=dict)
    rule: object = None  # the Rule being run; set by the dispatcher
    packages: PackageCalls | None = None  # summaries of installed packages, when followed

    # --- questions -----------------------------------------------------------------------
    def kind(self, node: ast.expr) -> Kind:
        """The value kind of an expression evaluated in this region (UNKNOWN elsewhere)."""
        if self.evaluator is None:
            return Kind.UNKNOWN
        return self.evaluator.cache.get(id(node), Kind.UNKNOWN)

    def qualname(self, node: ast.expr) -> str | None:
        """Fully qualified dotted name (``F.relu`` -> ``torch.nn.functional.relu``)."""
        if self.evaluator is not None:
            return self.evaluator.qualname(node)
        return self.index.qualname(node)

    def builtin(self, func: ast.expr) -> str | None:
        """The builtin ``func`` names (``print``), unless the file rebinds it."""
        if self.evaluator is None:
            return None
        return builtin_name(self.evaluator, func)

    def iterated(self, iterable: ast.expr) -> Iterator[tuple[ast.expr, bool]]:
        """What a ``for`` walks: ``(bound, True)`` for each argument of ``range(...)``, else
        ``(iterable, False)``; through ``enumerate``, ``reversed`` and ``zip``."""
        name = self.builtin(iterable.func) if isinstance(iterable, ast.Call) else None
        if name == "range":
            assert isinstance(iterable, ast.Call)
            for bound in iterable.args:
                yield bound, True
        elif name in ("enumerate", "reversed", "zip"):
            assert isinstance(iterable, ast.Call)
            for argument in iterable.args:
                yield from self.iterated(argument)
        else:
            yield iterable, False

    def callee(self, call: ast.Call) -> FunctionInfo | None:
        """The function in this file that ``call`` runs, when the analysis resolved it."""
        return self.analysis.callee(call) if self.analysis is not None else None

    def package_breaks(self, call: ast.Call) -> ReachedBreaks | None:
        """What ``call`` breaks on inside an installed package, with the kinds it passes
        (None when it calls no installed package, or nothing there breaks)."""
        if self.packages is None or self.evaluator is None:
            return None
        targets = self.package_targets(call)
        if not targets:
            return None
        positional, keywords = self._passed_kinds(call)
        return merge_reached([self.packages.reached(target, positional, keywords) for target in targets])

    def _passed_kinds(self, call: ast.Call) -> tuple[tuple[Kind, ...], tuple[tuple[str, Kind], ...]]:
        positional = () if any(isinstance(a, ast.Starred) for a in call.args) else tuple(self.kind(a) for a in call.args)
        return positional, tuple((k.arg, self.kind(k.value)) for k in call.keywords if k.arg)

    def package_returns_stop_value(self, call: ast.Call) -> bool:
        """``call`` runs an installed package's function that may return a value it read off
        ``StopIteration.value`` (a generator driver such as ``trampoline``)."""
        if self.packages is None or self.evaluator is None:
            return False
        positional, keywords = self._passed_kinds(call)
        return any(self.packages.returns_stop_value(target, positional, keywords) for target in self.package_targets(call))

    def package_targets(self, call: ast.Call) -> tuple[str, ...]:
        """``package_target``, or every imported function a local name may hold."""
        assert self.evaluator is not None
        func = call.func
        if isinstance(func, ast.Name) and func.id in self.evaluator.aliases and self.callee(call) is None:
            return self.evaluator.aliases[func.id]
        held = objects.imported_method(self.evaluator, func) if self.callee(call) is None else None
        if held is not None:  # for conv in self.convs: conv(x), of an imported layer class
            classes, method = held
            return tuple(f"{name}.{method}" for name in classes)
        target = self.package_target(call)
        if target is None and self.analysis is not None and id(call) in self.analysis.duck_methods:
            return self.packages.duck_targets(self.analysis.duck_methods[id(call)], self.imported_packages()) if self.packages else ()
        return (target,) if target is not None else ()

    def imported_packages(self) -> tuple[str, ...]:
        """The top-level packages the file imports (absolute imports, anywhere in it)."""
        assert self.evaluator is not None
        names = (qualname.split(".", 1)[0] for _, qualname in self.evaluator.index.imports.items())
        return tuple(sorted({name for name in names if name}))

    def package_target(self, call: ast.Call) -> str | None:
        """The dotted name of what ``call`` runs, when it is imported: ``odeint(...)``,
        ``einops.rearrange(...)``, or a method of an imported class held in ``self``
        (``self.conv(x)`` runs ``GATConv.forward``, ``self.crf.decode(e)`` ``CRF.decode``)."""
        assert self.evaluator is not None
        func, sink = call.func, self.evaluator.sink
        if self.callee(call) is not None:
            return None
        if imported_root(self.evaluator, func):
            return self.qualname(func)
        held = sink.imported_instance(func)
        if held is not None:
            return f"{held}.forward"
        if isinstance(func, ast.Attribute):
            held = sink.imported_instance(func.value)
            if held is not None:
                return f"{held}.{func.attr}"
        return None

    def static_value(self, test: ast.expr) -> bool | None:
        """The value ``test`` has under Dynamo whatever the inputs (is_compiling() ...)."""
        if self.evaluator is None:
            return None
        return self.evaluator.static_value(test)

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(id(node))

    def enclosing(self, node: ast.AST) -> ast.AST | None:
        """``parent``, going on past the statement to the blocks around it (``parent``
        stops at the statement the dispatcher is in)."""
        found = self.parents.get(id(node))
        if found is None and self.analysis is not None and self.function is not None:
            found = self.analysis.parents_of(self.function.node).get(id(node))
        return found

    def built_in_compiled_code(self, cls: ClassInfo) -> bool:
        """Whether compiled code constructs ``cls`` (its ``__init__`` is in a region): its
        instances then live for one call, not across calls."""
        init = cls.find_method("__init__")
        return self.analysis is not None and init is not None and id(init) in self.analysis.states

    def in_region(self, node: ast.AST) -> bool:
        """Whether ``node`` lies in a function Dynamo traces (for rules of scope "module")."""
        if self.analysis is None:
            return False
        compiled = {id(state.info.node) for state in self.analysis.regions()}
        current: ast.AST | None = node
        while current is not None:
            if id(current) in compiled:
                return True
            current = self.parent(current)
        return False

    def truth_tested(self, expr: ast.expr) -> Iterator[ast.expr]:
        """The sub-expressions whose truth Python evaluates when ``expr`` is a test."""
        for part, _ in self.guarded_parts(expr):
            yield part

    def guarded_parts(self, expr: ast.expr) -> Iterator[tuple[ast.expr, tuple[ast.expr, ...]]]:
        """Like ``truth_tested``, with the operands that short-circuit before each part.

        In ``self.training and p < 0.1`` the comparison runs only when ``self.training``
        is true: ``(p < 0.1, (self.training,))``; in ``w > t or h > t`` the second test runs
        only when the first is false: ``(h > t, (not w > t,))``.
        """
        yield from self._guarded(expr, ())

    def _guarded(
        self, expr: ast.expr, guards: tuple[ast.expr, ...]
    ) -> Iterator[tuple[ast.expr, tuple[ast.expr, ...]]]:
        if isinstance(expr, ast.BoolOp):
            operands = self.evaluator.live_operands(expr) if self.evaluator else expr.values
            seen: tuple[ast.expr, ...] = ()
            for value in operands:
                yield from self._guarded(value, guards + seen)
                held = value if isinstance(expr.op, ast.And) else ast.UnaryOp(op=ast.Not(), operand=value)
                seen += (held,)
        elif isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not):
            yield from self._guarded(expr.operand, guards)
        elif isinstance(expr, ast.Name) and self.evaluator is not None and expr.id in self.evaluator.value_guards:
            yield expr, guards + self.evaluator.value_guards[expr.id]  # no_empty = not bf and t.all()
        else:
            yield expr, guards

    def entry_conditions(self) -> tuple[Condition, ...]:
        """What holds whenever this function runs in the region: the tests every call site
        shares (``if self.use_tiling and w > tile: self.tiled_encode(x)``)."""
        if self.analysis is None or self.function is None:
            return ()
        state = self.analysis.states.get(id(self.function))
        return state.entry_conditions if state is not None else ()

    def reached_when(self) -> str:
        """A message clause naming the entry conditions and the early returns before the
        statement (``if n <= tile: return ...``), or ``""``."""
        conditions = self.entry_conditions()
        if self.analysis is not None and self.function is not None and self.statement is not None:
            conditions += early_returns(self.statement, self.analysis.parents_of(self.function.node))
        return f" (reached only when {describe(conditions)})" if conditions else ""

    @staticmethod
    def conditions(guards: tuple[ast.expr, ...]) -> tuple[tuple[str, ...], str]:
        """The guards of a ``guarded_parts`` item as ``only_when`` and a message clause."""
        only_when = tuple(ast.unparse(guard) for guard in guards)
        clause = f" (evaluated only when `{' and '.join(only_when)}` lets it)" if only_when else ""
        return only_when, clause

    def short_circuit_guards(self, node: ast.AST) -> tuple[ast.expr, ...]:
        """The operands that must let Python reach ``node`` within its statement: in
        ``self.cond and random() < 0.5`` the call runs only when ``self.cond`` is true; in
        ``a if t else b``, ``a`` only when ``t`` is."""
        guards: list[ast.expr] = []
        parent_of: Callable[[ast.AST], ast.AST | None] = self.parent
        if self.parent(node) is None and self.statement is not None:  # a rule reports below the node it checks
            local = {id(child): above for above in ast.walk(self.statement) for child in ast.iter_child_nodes(above)}
            parent_of = lambda n: local.get(id(n))  # noqa: E731
        child, parent = node, parent_of(node)
        while parent is not None and not isinstance(parent, ast.stmt):
            if isinstance(parent, ast.BoolOp) and child is not parent.values[0]:
                before = parent.values[: parent.values.index(child)]  # type: ignore[arg-type]
                if isinstance(parent.op, ast.And):
                    guards[:0] = before
                else:
                    guards[:0] = [ast.UnaryOp(op=ast.Not(), operand=value) for value in before]
            elif isinstance(parent, ast.IfExp) and child is not parent.test:
                guards.insert(0, parent.test if child is parent.body else ast.UnaryOp(op=ast.Not(), operand=parent.test))
            child, parent = parent, parent_of(parent)
        return tuple(guards)

    def _value_guards_in(self, node: ast.AST) -> tuple[ast.expr, ...]:
        """The tests under which the names ``node`` reads hold the tensor it is reported for
        (``seen = cache.seen() if cache is not None else 0``, then ``torch.arange(seen)``)."""
        if self.evaluator is None or not self.evaluator.value_guards:
            return ()
        guards: list[ast.expr] = []
        for name in ast.walk(node):
            if isinstance(name, ast.Name) and isinstance(name.ctx, ast.Load):
                guards.extend(g for g in self.evaluator.value_guards.get(name.id, ()) if g not in guards)
        return tuple(guards)

    def in_test_position(self, node: ast.expr) -> bool:
        """True when ``node`` is (part of) the test of an if/while/assert/ternary/comprehension."""
        child: ast.AST = node
        parent = self.parent(node)
        while isinstance(parent, (ast.BoolOp, ast.UnaryOp)) and (
            not isinstance(parent, ast.UnaryOp) or isinstance(parent.op, ast.Not)
        ):
            child, parent = parent, self.parent(parent)
        if isinstance(parent, TEST_HOLDERS):
            return parent.test is child
        if isinstance(parent, ast.comprehension):
            return child in parent.ifs
        return False

    # --- reporting -----------------------------------------------------------------------
    def report(
        self,
        node: ast.AST,
        message: str | None = None,
        *,
        breaks: tuple[Mode, ...] | None = None,
        gb_ids: tuple[str, ...] | None = None,
        fix: Fix | None = None,
        fix_data: object = None,
        only_when: tuple[str, ...] = (),
        claim: str | None = None,
        reaches: tuple[str, ...] = (),
        reached_sites: tuple[ReachedSite, ...] = (),
        own_span: bool = False,
    ) -> None:
        """``claim`` names the measured behaviour this finding predicts (default: the rule's
        code); ``rules/claims/<release>.json`` holds what each release does for it.
        ``own_span``: the finding covers ``node``'s lines, not its statement's (a decorator,
        which Dynamo reports on its own line, above the ``def``)."""
        rule = self.rule
        message = message or getattr(rule, "message")
        if not only_when:  # a claim Python may skip on a line Dynamo traced is conditional
            only_when, clause = self.conditions(self.short_circuit_guards(node))
            held = tuple(ast.unparse(guard) for guard in self._value_guards_in(node))
            if held:
                only_when += held
                clause += f" (its value is a tensor only when `{' and '.join(held)}`)"
            message += clause
        self.sink(
            RawFinding(
                code=getattr(rule, "code"),
                name=getattr(rule, "name"),
                message=message,
                node=node,
                statement=None if own_span else self.statement,
                region=self.region,
                breaks=getattr(rule, "breaks") if breaks is None else breaks,
                gb_ids=getattr(rule, "gb_ids") if gb_ids is None else gb_ids,
                fix=fix,
                fix_data=fix_data,
                only_when=only_when,
                claim=claim or getattr(rule, "code"),
                reaches=reaches,
                reached_sites=reached_sites,
            )
        )

