"""CL124: a graph break meeting a bound method of an object built in compiled code: GB0092."""

from __future__ import annotations

import ast
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

from compilelint.analysis.eager_code import break_points, happens_with_its_block
from compilelint.analysis.frames import own_nodes
from compilelint.analysis.method_attributes import stores_bound_method
from compilelint.analysis.comprehension_frames import assigned_values
from compilelint.analysis.module_index import ClassInfo, FunctionInfo, ModuleIndex
from compilelint.analysis.objects import local_classes
from compilelint.analysis.new_objects import (
    built_instance,
    dominates,
    enclosing_statement,
    live_at,
    rebound_between,
    resumes_at,
    sure_break_with_args,
)
from compilelint.analysis.regions import RegionAnalysis
from compilelint.context import RawFinding, RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule


@dataclass(frozen=True)
class _Candidate:
    node: ast.Call  # the method call, or the construction of an object holding bound methods
    built: ast.Call
    name: str  # the local holding the object
    class_name: str
    statement: ast.stmt | None
    region: tuple[str, ...]
    holder: bool  # True: the object holds bound methods of itself; any break while live


# Method calls on objects built in the same function, from ``check`` to ``derive``.
_CANDIDATES: weakref.WeakKeyDictionary[RegionAnalysis, list[_Candidate]] = weakref.WeakKeyDictionary()


class NewObjectMethodBreak(Rule):
    """Checks for method calls that break the graph on objects built in compiled code.

    ## What it does
    Flags `obj.method(...)` where `obj` is an instance of a class of this file (an
    `nn.Module` too), built in the same compiled function (`solver = Solver(...)`,
    `SOLVERS[name](...)`) or returned new by a function or module of this file (`make(y0)`,
    `self.lazy(c)`, as zuko's lazy transforms do), also called on the call itself
    (`Solver(y0).integrate(t)`), when the method
    breaks the graph whenever it runs, or one of the call's arguments does; the same for a
    class imported from another file of the package that `follow-imports` analyses, when
    that file's analysis finds the method always breaks (torchdiffeq's `odeint`); and a graph
    break while such an object is live when its class, of this file or another one, stores a
    bound method of itself in an attribute (`self.f = self._default`), also a break in an `if`
    arm after the object was built (it holds when the arm runs).

    ## Why is this bad?
    At a graph break Dynamo compiles what it has and writes bytecode that rebuilds the
    stack for the rest of the function. The bound method `obj.method` is on that stack, and
    Dynamo cannot rebuild a bound method of an object that exists only in compiled code
    (GB0092 "Reconstruction failure"), nor an object holding one of its own bound methods.
    It then gives up on the rest of the function, which
    runs in Python: the method is compiled as a frame of its own and everything after the
    call loses its graph. Measured on torch 2.13 (default mode and `dynamic=True`); the
    zoo hit it in torchdiffeq's `odeint` (`SOLVERS[method](...).integrate(t)`) and
    torchsde's `sdeint` (the solver call, and its `ForwardSDE` holding bound methods), and
    the same at `Solver(y0).integrate(t)`, `make(y0).integrate(t)` and `self.lazy(c).integrate(t)`
    where `make` and `forward` return a new `Solver`; not where they return an existing one
    (`return self.solver`). The same call through the class, `Solver.integrate(solver, t)`,
    or on an object passed in, breaks only where the method does. In a loop or a `try`
    Dynamo skips the frame instead (no GB0092); `fullgraph=True` stops at the method's own
    break.

    ## Example
    ```python
    class Solver:
        def __init__(self, y0):
            self.y0 = y0

        def integrate(self, t):
            return self.y0 * t.sum().item()


    class Net(nn.Module):
        def forward(self, x):
            solver = Solver(x + 1)
            return solver.integrate(x) + 1
    ```

    ## Use instead
    ```python
    class Solver:
        def __init__(self, y0):
            self.y0 = y0

        def integrate(self, t):
            return self.y0 * t.sum()


    class Net(nn.Module):
        def forward(self, x):
            solver = Solver(x + 1)
            return solver.integrate(x) + 1
    ```
    Remove the method's break; where it must stay, call it through the class
    (`Solver.integrate(solver, x)`).

    ## Fix safety
    No automatic fix: the cause is the method's break, reported by its own rule.
    """

    code = "CL124"
    name = "new-object-method-break"
    message = "this graph break meets a bound method of an object built in compiled code (GB0092)"
    gb_ids = ("GB0092",)
    breaks = (Mode.DEFAULT,)
    nodes = (ast.Call,)
    derived_from_breaks = True

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if ctx.function is None or ctx.analysis is None:
            return
        found = _method_call(node, ctx) or _chained_method_call(node, ctx) or _imported_method_call(node, ctx) or _holder(node, ctx)
        if found is not None:
            _CANDIDATES.setdefault(ctx.analysis, []).append(found)

    def derive(self, breaks: Sequence[RawFinding], analysis: RegionAnalysis) -> list[RawFinding]:
        candidates = _CANDIDATES.pop(analysis, [])
        if not candidates:
            return []
        points = break_points(breaks, analysis, ignored=(self.code, "CL123"))
        states = {state.info.qualname: state for state in analysis.regions()}
        found: dict[str, list[tuple[RawFinding, bool]]] = {}
        for candidate in candidates:
            state = states.get(candidate.region[-1]) if candidate.region else None
            if state is None:
                continue
            function, own = state.info.node, points.get(state.info.qualname, [])
            parents = analysis.parents_of(function)
            judged = self._holder_findings if candidate.holder else self._method_call_finding
            found.setdefault(state.info.qualname, []).extend(judged(candidate, own, function, parents, analysis.index))
        return [finding for judged in found.values() for finding in _until_sure(judged)]

    def _method_call_finding(
        self, candidate: _Candidate, points: list[ast.AST], function: ast.AST, parents: dict[int, ast.AST], index: ModuleIndex
    ) -> list[tuple[RawFinding, bool]]:
        if any(point is candidate.built for point in points):
            return []  # the construction breaks: Python built the object, and Dynamo rebuilds it from there
        if sure_break_with_args(candidate.node, points, function, parents) and resumes_at(candidate.node, candidate.built, points, function, parents, index):
            func = candidate.node.func
            assert isinstance(func, ast.Attribute)
            what = f"the bound method `{candidate.name}.{func.attr}` waits on the stack"
            return [(self._finding(candidate, candidate.node, candidate.statement, what), True)]
        return []

    def _holder_findings(
        self, candidate: _Candidate, points: list[ast.AST], function: ast.AST, parents: dict[int, ast.AST], index: ModuleIndex
    ) -> list[tuple[RawFinding, bool]]:
        """Each break after the construction while the object is live, up to the first that
        happens whenever the function runs on (an ``if`` arm's may not)."""
        found: list[tuple[RawFinding, bool]] = []
        later = sorted((p for p in points if getattr(p, "lineno", 0) > (candidate.built.end_lineno or 0)), key=lambda p: getattr(p, "lineno", 0))
        for point in later:
            if rebound_between(candidate.name, candidate.built, point, function):
                break
            sure = happens_with_its_block(point, function, parents)
            if not dominates(candidate.built, point, function, parents) or not resumes_at(point, candidate.built, points, function, parents, index):
                continue
            if live_at(candidate.name, point, function):
                what = f"`{candidate.name}` is live and holds bound methods of itself"
                found.append((self._finding(candidate, point, enclosing_statement(point, parents), what), sure))
            if sure:
                break
        return found

    def _finding(self, candidate: _Candidate, node: ast.AST, statement: ast.stmt | None, what: str) -> RawFinding:
        return RawFinding(
            code=self.code,
            name=self.name,
            message=(
                f"this graph break comes while {what} (`{candidate.name}` is a `{candidate.class_name}` built in "
                f"compiled code, line {candidate.built.lineno}): Dynamo cannot rebuild it for the code after the break "
                "(GB0092) and runs the rest of the function in Python; build the object outside compiled code, "
                "call methods through the class, or remove the break"
            ),
            node=node,
            statement=statement,
            region=candidate.region,
            breaks=self.breaks,
            gb_ids=self.gb_ids,
            fix=None,
        )


def _until_sure(found: list[tuple[RawFinding, bool]]) -> list[RawFinding]:
    """A function's findings up to its first sure one: after a GB0092 the rest runs in Python."""
    kept: dict[int, RawFinding] = {}
    for finding, sure in sorted(found, key=lambda item: getattr(item[0].node, "lineno", 0)):
        kept.setdefault(getattr(finding.node, "lineno", 0), finding)
        if sure:
            break
    return list(kept.values())


def _method_call(node: ast.Call, ctx: RuleContext) -> _Candidate | None:
    """``obj.method(...)`` on ``obj = Cls(...)`` built earlier in the same function."""
    func = node.func
    if ctx.function is None or not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
        return None
    method = ctx.callee(node)
    if method is None or method.owner is None or method.is_static or "classmethod" in set(ctx.index.decorator_names(method.node)):
        return None
    built = built_instance(func.value.id, ctx.function, ctx.callee, allow_modules=True) or _made_instance(func.value.id, ctx)
    if built is None or built[0].lineno >= node.lineno:
        return None
    return _Candidate(node, built[0], func.value.id, built[1].name, ctx.statement, ctx.region, holder=False)


def _made_instance(name: str, ctx: RuleContext) -> tuple[ast.Call, ClassInfo] | None:
    """``name = make(c)`` (its only binding), where ``make`` returns a new object of a class
    of this file (``_new_object``)."""
    assert ctx.function is not None
    values = assigned_values(ctx.function.node, name)
    if len(values) != 1 or not isinstance(values[0], ast.Call):
        return None
    classes = _new_object(values[0], ctx)
    return (values[0], classes[0]) if classes else None


def _chained_method_call(node: ast.Call, ctx: RuleContext) -> _Candidate | None:
    """``Cls(...).method(...)``, ``make(c).method(...)``, ``self.lazy(c).method(...)``: the
    receiver is a new object of a class of this file, built by the call itself or returned
    by a function of this file that builds it (each ``return`` returns a call's result)."""
    func = node.func
    if ctx.function is None or ctx.evaluator is None or not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Call):
        return None
    method = ctx.callee(node)
    if method is None or method.owner is None or method.is_static or "classmethod" in set(ctx.index.decorator_names(method.node)):
        return None
    receiver = func.value
    classes = _new_object(receiver, ctx)
    if not classes:
        return None
    return _Candidate(node, receiver, ast.unparse(receiver.func) + "(...)", classes[0].name, ctx.statement, ctx.region, holder=False)


def _new_object(call: ast.Call, ctx: RuleContext) -> tuple[ClassInfo, ...]:
    """The classes of this file whose new instance ``call`` gives: it builds it, or runs a
    function of this file that returns one."""
    maker = ctx.callee(call)
    if ctx.evaluator is None or maker is None or not (maker.name == "__init__" or _returns_new_objects(maker)):
        return ()
    return local_classes(ctx.evaluator, call)


def _returns_new_objects(function: FunctionInfo) -> bool:
    """Each ``return`` of ``function`` returns what a call gives (``return Transform(w)``),
    not an object that existed before (``return self``), which Dynamo can rebuild."""
    returns = [n for n in own_nodes(function.node) if isinstance(n, ast.Return)]
    return bool(returns) and all(isinstance(r.value, ast.Call) for r in returns)


def _imported_method_call(node: ast.Call, ctx: RuleContext) -> _Candidate | None:
    """``solver.integrate(t)`` on ``solver = SOLVERS[m](f)`` of classes imported from other
    files (a package's table, a factory's result), or ``self.make(y).total(y)`` on the
    instance a call of an imported class (handed to the constructor) builds: the method breaks whenever it runs when
    those files' analysis says so (``KnownReturn.breaks``, a break point here)."""
    if ctx.evaluator is None or ctx.callee(node) is not None:
        return None
    func = node.func
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):  # self.make(y).total(y)
        # classes by their CapWords spelling: an imported function may return an object that
        # existed before the call, whose bound method Dynamo rebuilds
        imported = tuple(n for n in ctx.evaluator.imported_built.get(id(func.value), ()) if n.rsplit(".", 1)[-1][:1].isupper())
        if not imported:
            return None
        return _Candidate(node, func.value, ast.unparse(func.value.func) + "(...)", _class_names(imported), ctx.statement, ctx.region, holder=False)
    site = ctx.evaluator.built_receivers.get(id(node))
    if site is None or not site.imported or site.built.lineno >= node.lineno:
        return None
    assert isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
    return _Candidate(node, site.built, func.value.id, _class_names(site.imported), ctx.statement, ctx.region, holder=False)


def _class_names(qualnames: tuple[str, ...]) -> str:
    return " or ".join(dict.fromkeys(name.rsplit(".", 1)[-1] for name in qualnames[:3]))


def _holder(node: ast.Call, ctx: RuleContext) -> _Candidate | None:
    """``obj = Cls(...)`` where ``Cls`` stores bound methods of itself in attributes."""
    statement = ctx.statement
    if ctx.function is None or not (isinstance(statement, ast.Assign) and statement.value is node and len(statement.targets) == 1):
        return None
    target = statement.targets[0]
    class_name = _holding_class(node, ctx) if isinstance(target, ast.Name) else None
    if class_name is None:
        return None
    assert isinstance(target, ast.Name)
    return _Candidate(node, node, target.id, class_name, statement, ctx.region, holder=True)


def _holding_class(node: ast.Call, ctx: RuleContext) -> str | None:
    """The class ``node`` builds, when its instances hold bound methods of themselves: a class
    of this file, or one whose own file's analysis says so (``KnownReturn.holds_own_methods``)."""
    init = ctx.callee(node)
    if init is not None:
        owner = init.owner if init.name == "__init__" else None
        return owner.name if owner is not None and stores_bound_method(owner) else None
    if ctx.evaluator is None or ctx.analysis is None:
        return None
    for qualname in ctx.evaluator.imported_built.get(id(node), ()):
        known = ctx.analysis.known_return(qualname)
        if known is not None and known.holds_own_methods:
            return qualname.rsplit(".", 1)[-1]
    return None
