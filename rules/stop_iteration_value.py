"""CL135: a generator's return value read off ``StopIteration.value``, used in compiled code."""

from __future__ import annotations

import ast
import weakref

from compilelint.analysis.regions import RegionAnalysis
from compilelint.analysis.stop_values import handler_names, is_stop_read, returns_stop_value, stop_names, use_gb_ids
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

BOTH = (Mode.DEFAULT, Mode.FULLGRAPH)

# Per file analysis, per function (id of its node): the names holding a stop value, read off
# an exception here or assigned from a call that returns one (added as the walk meets them).
_NAMES: weakref.WeakKeyDictionary[RegionAnalysis, dict[int, tuple[frozenset[str], set[str]]]] = weakref.WeakKeyDictionary()
# Per file analysis: whether each function of the file (id of its node) returns one.
_RETURNS: weakref.WeakKeyDictionary[RegionAnalysis, dict[int, bool]] = weakref.WeakKeyDictionary()


class StopIterationValue(Rule):
    """Checks for uses of a generator's return value taken from `StopIteration.value`.

    ## What it does
    Flags, in compiled code, an operation on a value read off a caught `StopIteration`
    (`except StopIteration as e: ... e.value`): directly, through local names, or as the
    result of a function that returns one (a generator driver, such as the `trampoline`
    package, in this file, another file of the package, or an installed package).
    The operations are unpacking, arithmetic, indexing, iterating, truth tests, method
    calls, and passing it to `len()` and the like or to a torch function (comparisons are
    not flagged: `==` broke alone, but not in every context).

    ## Why is this bad?
    Dynamo traces the generator and the `StopIteration` that ends it, but keeps `e.value`
    as an attribute it cannot resolve, with no Python type. Measured on torch 2.13 (default
    mode, `dynamic=True` and `fullgraph=True` alike): returning it, passing it to a Python
    function or testing `is None` compiles, but using it breaks the graph where it is used
    (GB4841 "Unsupported python_type() call"; GB0156 for a method call, GB0055 for a torch
    function's argument). torchsde's Brownian interval does
    `W, H = trampoline.trampoline(...)` on every query.

    ## Example
    ```python
    def drive(gen):
        try:
            next(gen)
        except StopIteration as e:
            return e.value


    def pair(x):
        if False:
            yield
        return x, x + 1


    class Net(nn.Module):
        def forward(self, x):
            a, b = drive(pair(x))
            return a * b
    ```

    ## Use instead
    ```python
    def pair(x):
        return x, x + 1


    class Net(nn.Module):
        def forward(self, x):
            a, b = pair(x)
            return a * b
    ```
    Call the function directly (or iterate the generator with `for`), instead of driving it
    by hand.

    ## Fix safety
    No automatic fix: replacing a generator protocol changes the program's structure.
    """

    code = "CL135"
    name = "stop-iteration-value"
    message = "a value read off `StopIteration.value` has no type Dynamo knows: using it breaks the graph"
    gb_ids = ("GB4841", "GB0156", "GB0055")
    breaks = BOTH
    nodes = (ast.Attribute, ast.Name, ast.Call)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if ctx.function is None or ctx.analysis is None:
            return
        handlers, names = _names_of(ctx)
        if isinstance(node, ast.Call):
            if not _returns_stop_value(node, ctx):
                return
            _note_assigned(node, ctx, names)
        elif isinstance(node, ast.Name):
            if not isinstance(node.ctx, ast.Load) or node.id not in names:
                return
        elif not is_stop_read(node, handlers):
            return
        parent = ctx.parent(node)
        if parent is None:
            return
        qualname = ctx.qualname(parent.func) if isinstance(parent, ast.Call) and parent.func is not node else None
        gb_ids = use_gb_ids(node, parent, qualname)
        if gb_ids is not None:
            ctx.report(
                node,
                "a generator's return value read off `StopIteration.value` has no type Dynamo knows: using it "
                f"here breaks the graph ({gb_ids[0]}); call the function directly instead of driving a generator by hand",
                gb_ids=gb_ids,
            )


def _names_of(ctx: RuleContext) -> tuple[frozenset[str], set[str]]:
    assert ctx.function is not None and ctx.analysis is not None
    functions = _NAMES.setdefault(ctx.analysis, {})
    key = id(ctx.function.node)
    if key not in functions:
        handlers = handler_names(ctx.function.node)
        functions[key] = (handlers, set(stop_names(ctx.function.node, handlers)) if handlers else set())
    return functions[key]


def _returns_stop_value(call: ast.Call, ctx: RuleContext) -> bool:
    """``call`` runs a function that may return a ``StopIteration.value``: one of this file,
    another file's (``KnownReturn.stop_value``), or an installed package's."""
    assert ctx.analysis is not None
    callee = ctx.callee(call)
    if callee is not None:
        memo = _RETURNS.setdefault(ctx.analysis, {})
        if id(callee.node) not in memo:
            memo[id(callee.node)] = returns_stop_value(callee.node)
        return memo[id(callee.node)]
    qualname = ctx.qualname(call.func)
    known = ctx.analysis.known_return(qualname) if qualname is not None else None
    if known is not None:
        return known.stop_value
    return ctx.package_returns_stop_value(call)


def _note_assigned(call: ast.Call, ctx: RuleContext, names: set[str]) -> None:
    """``r = drive(g)``: ``r`` holds the value for the statements after."""
    statement = ctx.statement
    if isinstance(statement, ast.Assign) and statement.value is call:
        names.update(t.id for t in statement.targets if isinstance(t, ast.Name))
