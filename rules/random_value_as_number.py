"""CL144: a number drawn by `random.uniform`/`randint`/`randrange`, used as a Python number."""

from __future__ import annotations

import ast
import weakref
from collections.abc import Sequence
from dataclasses import dataclass

from compilelint.analysis.comprehension_frames import assigned_values
from compilelint.analysis.eager_code import break_points, inside
from compilelint.analysis.kinds import Kind, is_data
from compilelint.analysis.new_objects import enclosing_statement
from compilelint.analysis.regions import RegionAnalysis
from compilelint.context import TEST_HOLDERS, RawFinding, RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

# Dynamo's UserDefinedObjectVariable._supported_random_functions less `random.random`, a C
# method Dynamo skips (GB0007, CL107): torch 2.13 calls these while tracing and hands the
# number to the graph as an input tensor.
RANDOM_VALUES = frozenset({"random.uniform", "random.randint", "random.randrange"})
BOTH = (Mode.DEFAULT, Mode.FULLGRAPH)
DEFAULT = (Mode.DEFAULT,)
NUMBER_KINDS = Kind.STATIC | Kind.SHAPE


@dataclass(frozen=True)
class _Use:
    node: ast.expr  # the expression that fails: the operation, call, test or subscript
    what: str
    modes: tuple[Mode, ...]
    gb_ids: tuple[str, ...]  # none for Dynamo's internal error
    operand: ast.expr | None = None  # in a test: the operand of ``and``/``or`` that holds the use


@dataclass(frozen=True)
class _Candidate:
    draw: ast.Call
    use: _Use
    statement: ast.stmt | None
    region: tuple[str, ...]
    function: str
    only_when: tuple[str, ...]  # operands that short-circuit before the use (``self.training and u < p``)
    clause: str


# Draws bound to a local, by (function, name), while a file's analysis runs.
_DRAWS: weakref.WeakKeyDictionary[RegionAnalysis, dict[tuple[str, str], ast.Call]] = weakref.WeakKeyDictionary()
# The failing uses of each draw, from ``check`` to ``derive``.
_CANDIDATES: weakref.WeakKeyDictionary[RegionAnalysis, list[_Candidate]] = weakref.WeakKeyDictionary()


class RandomValueAsNumber(Rule):
    """Checks for numbers from Python's `random` used as Python numbers in compiled code.

    ## What it does
    Flags the first use, in a compiled region, of a number drawn by `random.uniform`,
    `random.randint` or `random.randrange` (with arguments Dynamo knows as constants) that
    Dynamo cannot trace: Python arithmetic with another number (`area * random.uniform(a, b)`,
    `k + 1`, `-u`, `u ** 0.5`), a `math` function of it (`math.exp(u)`), `round`, `int`,
    `float` or `str` of it, `range(k)`, a test (`if u < p:`, `x if k else y`),
    repeating a list (`[x] * k`), or a tensor index or slice bound (`x[:, top:]`, `x[k]`).

    ## Why is this bad?
    Unlike `random.random()` (skipped, CL107), Dynamo calls these three while tracing and
    hands the number to the graph as an input: inside the graph it is a 0-d tensor, not a
    Python number. Measured on torch 2.13 (CPU, backend eager), each use above fails:
    arithmetic with a Python number, `-u` and a size from it break in both modes (GB0213
    "unimplemented builtin op on tensor arguments"); `math.exp(u)`, `math.sqrt(u)`,
    `math.log(u)` and `math.floor(u)` stop compilation with an internal error
    (`InternalTorchDynamoError: AsPythonConstantNotImplementedError`) in every mode; `round`
    and `str` break in both modes (GB0178 "constant fold exception"), `int` and `float` in
    the default mode; `range(k)` breaks (GB4841);
    a test is data-dependent branching (GB0170); a slice bound breaks the default mode
    (GB0124), an index or a repeated list too (GB0033), and under `fullgraph=True` an index
    fails on an unbacked integer. In the default mode the code after the break gets the
    number as a Python constant, so only the first such use breaks. Multiplying a tensor by
    it (`x * u`), `torch.tensor(u)`, `abs(u)`, `min(u, 1.0)`, or a fill value
    (`torch.full(..., u)`, `x.masked_fill(m, u)`) compile. An earlier graph break between the
    draw and the use hands the number to the resumed code as a constant: nothing is
    flagged then. Nor is an f-string of it: Dynamo fails in `Tensor.__format__` (GB0088
    "Observed exception") but names the line after it.

    ## Example
    ```python
    class RandomScale(nn.Module):
        def forward(self, x):
            scale = math.exp(random.uniform(-0.3, 0.3))
            return x * scale
    ```

    ## Use instead
    ```python
    class RandomScale(nn.Module):
        def forward(self, x):
            scale = torch.empty((), device=x.device).uniform_(-0.3, 0.3).exp()
            return x * scale
    ```
    Draw the number with torch and keep it a tensor, or draw it outside the compiled code
    and pass it in (a crop box, a repeat count).

    ## Fix safety
    No automatic fix: the torch draw changes the random stream.
    """

    code = "CL144"
    name = "random-value-as-number"
    message = "a number from `random.uniform`/`randint`/`randrange` is a tensor in Dynamo's graph: using it as a Python number fails"
    gb_ids = ("GB0213", "GB0178", "GB0170", "GB4841", "GB0124", "GB0033")
    breaks = BOTH
    nodes = (ast.Call, ast.Name)
    derived_from_breaks = True

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if ctx.function is None or ctx.analysis is None:
            return
        if isinstance(node, ast.Call) and _draw(node, ctx):
            self._use(node, node, ctx)  # used where it is drawn: ``math.exp(random.uniform(a, b))``
            name = _bound_name(node, ctx)
            if name is not None:
                _DRAWS.setdefault(ctx.analysis, {})[(ctx.function.qualname, name)] = node
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            draw = _DRAWS.get(ctx.analysis, {}).get((ctx.function.qualname, node.id))
            if draw is not None and draw.lineno < node.lineno:
                self._use(draw, node, ctx)

    def _use(self, draw: ast.Call, value: ast.expr, ctx: RuleContext) -> None:
        """Records ``value``'s use when it fails; asked as the statement holding it is
        checked, once its kinds are known."""
        assert ctx.function is not None and ctx.analysis is not None
        parents = ctx.analysis.parents_of(ctx.function.node)
        use = _failing_use(value, parents, ctx)
        if use is not None:
            statement = enclosing_statement(use.node, parents)
            only_when, clause = ctx.conditions(ctx.short_circuit_guards(use.operand or use.node))
            candidate = _Candidate(draw, use, statement, ctx.region, ctx.function.qualname, only_when, clause)
            _CANDIDATES.setdefault(ctx.analysis, []).append(candidate)

    def derive(self, breaks: Sequence[RawFinding], analysis: RegionAnalysis) -> list[RawFinding]:
        _DRAWS.pop(analysis, None)
        candidates = _CANDIDATES.pop(analysis, [])
        if not candidates:
            return []
        points = break_points(breaks, analysis, ignored=(self.code,))
        first: dict[int, _Candidate] = {}
        for candidate in sorted(candidates, key=lambda c: (c.use.node.lineno, c.use.node.col_offset)):
            first.setdefault(id(candidate.draw), candidate)  # the code after the first runs with a constant
        found: list[RawFinding] = []
        for candidate in first.values():
            if _break_between(candidate, points.get(candidate.function, [])):
                continue
            use = candidate.use
            failure = f"fails ({use.gb_ids[0]})" if use.gb_ids else "stops compilation with an internal error (InternalTorchDynamoError)"
            modes = "both modes" if use.modes == BOTH else "the default mode"
            found.append(
                RawFinding(
                    code=self.code,
                    name=self.name,
                    message=(
                        f"`{ast.unparse(candidate.draw.func)}()` (line {candidate.draw.lineno}) is a 0-d tensor in Dynamo's "
                        f"graph, not a Python number: {use.what} {failure} in {modes}{candidate.clause}; draw it with torch and keep "
                        "it a tensor (`torch.empty(()).uniform_(a, b)`), or draw it outside the compiled code and pass it in"
                    ),
                    node=use.node,
                    statement=candidate.statement,
                    region=candidate.region,
                    breaks=use.modes,
                    gb_ids=use.gb_ids,
                    fix=None,
                    only_when=candidate.only_when,
                )
            )
        return found


def _draw(call: ast.Call, ctx: RuleContext) -> bool:
    """``random.uniform(a, b)`` & co. with arguments Dynamo holds as constants (literals,
    configuration, static sizes): with a tensor value Dynamo does not draw while tracing."""
    if ctx.qualname(call.func) not in RANDOM_VALUES or call.keywords and any(k.arg is None for k in call.keywords):
        return False
    arguments = [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]
    return all(_python_number(argument, ctx) for argument in arguments)


def _python_number(node: ast.expr, ctx: RuleContext) -> bool:
    """A number Dynamo holds as a constant: a literal, configuration (``self.p``), a size."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return _python_number(node.operand, ctx)
    kind = ctx.kind(node)
    return bool(kind) and not kind & ~NUMBER_KINDS


def _bound_name(draw: ast.Call, ctx: RuleContext) -> str | None:
    """The local ``name = random.uniform(...)`` binds, when that is its only binding."""
    assert ctx.function is not None
    statement = ctx.statement
    if not (isinstance(statement, ast.Assign) and statement.value is draw and len(statement.targets) == 1):
        return None
    target = statement.targets[0]
    if not isinstance(target, ast.Name) or assigned_values(ctx.function.node, target.id) != [draw]:
        return None
    return target.id


def _failing_use(value: ast.expr, parents: dict[int, ast.AST], ctx: RuleContext) -> _Use | None:
    parent = parents.get(id(value))
    if isinstance(parent, ast.BinOp):
        other = parent.right if parent.left is value else parent.left
        if _python_number(other, ctx):
            return _Use(parent, "Python arithmetic with it", BOTH, ("GB0213",))
        if isinstance(parent.op, ast.Mult) and isinstance(other, (ast.List, ast.Tuple)):
            return _Use(parent, "repeating a list by it", BOTH, ("GB0033",))
        return None
    if isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.USub):
        return _Use(parent, "negating it", BOTH, ("GB0213",))
    if isinstance(parent, ast.Call) and value in parent.args:
        return _called_with(parent, ctx)
    tested = _tested(value, parent, parents)
    if tested is not None:
        test, operand = tested
        return _Use(test, "a test on it", BOTH, ("GB0170",), operand)
    return _indexing(value, parent, parents, ctx)


def _called_with(call: ast.Call, ctx: RuleContext) -> _Use | None:
    name = ctx.qualname(call.func) or ""
    if name.startswith("math."):
        return _Use(call, f"`{name}()` of it", BOTH, ())
    builtin = ctx.builtin(call.func)
    if builtin in ("round", "str"):
        return _Use(call, f"`{builtin}()` of it", BOTH, ("GB0178",))
    if builtin in ("int", "float"):
        return _Use(call, f"`{builtin}()` of it", DEFAULT, ("GB0178",))
    if builtin == "range":
        return _Use(call, "`range()` of it", BOTH, ("GB4841", "GB0124"))  # 2.14 and 2.15 report both
    return None


def _tested(value: ast.expr, parent: ast.AST | None, parents: dict[int, ast.AST]) -> tuple[ast.expr, ast.expr] | None:
    """The test of an ``if``/``while``/conditional expression/``assert`` whose truth depends
    on ``value`` (the value itself, or a comparison of it, inside ``and``/``or``/``not``),
    and the operand of the ``and``/``or`` that holds it."""
    node: ast.AST = value
    if isinstance(parent, ast.Compare):
        node, parent = parent, parents.get(id(parent))
    operand = node
    while isinstance(parent, ast.BoolOp) or (isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not)):
        node, parent = parent, parents.get(id(parent))
    if isinstance(parent, TEST_HOLDERS) and parent.test is node:
        assert isinstance(node, ast.expr) and isinstance(operand, ast.expr)
        return node, operand
    return None


def _indexing(value: ast.expr, parent: ast.AST | None, parents: dict[int, ast.AST], ctx: RuleContext) -> _Use | None:
    """``x[k]`` or a slice bound of ``x[..., a:b]`` where ``x`` is a tensor."""
    bound = isinstance(parent, ast.Slice)
    holder = parents.get(id(parent)) if bound else parent
    if isinstance(holder, ast.Tuple):
        holder = parents.get(id(holder))
    if not isinstance(holder, ast.Subscript) or not is_data(ctx.kind(holder.value)) or not inside(value, holder.slice):
        return None
    if bound:
        return _Use(holder, "a slice bound from it", DEFAULT, ("GB0124",))
    return _Use(holder, "indexing a tensor with it", BOTH, ("GB0033",))


def _break_between(candidate: _Candidate, points: list[ast.AST]) -> bool:
    """A graph break after the draw and before its use: the resumed code gets the number
    as a Python constant. A break at the use itself (another rule's) does not count."""
    start, end = candidate.draw.end_lineno or candidate.draw.lineno, candidate.use.node.lineno
    return any(
        start <= getattr(point, "lineno", 0) <= end and not inside(point, candidate.use.node) and not inside(point, candidate.draw)
        for point in points
    )
