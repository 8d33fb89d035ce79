"""CL201: Python control flow on tensor sizes, which Dynamo guards on."""

from __future__ import annotations

import ast
import re

from compilelint.analysis.call_conditions import pins_a_size_to_one
from compilelint.analysis.guards import on_output_or_failure_path, only_raises
from compilelint.analysis.size_text import keys_a_table, typed_spec, whole_size
from compilelint.analysis.kinds import Kind, is_shape
from compilelint.context import RuleContext
from compilelint.registry import Rule

# Comparing a size with 0 or 1 adds nothing: Dynamo specialises sizes 0 and 1 anyway.
ALREADY_SPECIALISED = (0, 1)
ORDERING = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
UNROLLED = (
    "loop over a tensor size is unrolled: Dynamo guards on the exact value of the loop's bound "
    "(for `range(0, h, tile)`, on `h` itself) and recompiles for every new one; pad to a few bucket sizes "
    "or loop with tensor ops"
)


class ShapeDependentControlFlow(Rule):
    """Checks for Python loops and branches on tensor sizes inside compiled code.

    ## What it does
    Flags, inside a compiled region, `for` loops whose trip count is a tensor size
    (`for i in range(x.size(1))`, `for row in x.unbind(0)`), `while` loops that test a
    size, `if`/ternaries that compare a size with something other than 0 or 1
    (`if x.shape[0] > 128:`), Python lists built as long as a size
    (`[scale] * mask.shape[1]`, `list(range(0, t, chunk))`), and a size formatted in an
    f-string that keys a table (`self.cache[f"{h}x{w}"]`, `key in cache`, `cache.get(key)`).

    ## Why is this bad?
    Dynamo runs Python control flow at trace time and installs a guard on what it
    depended on. Measured on torch 2.13 with five input shapes: a loop over
    `range(x.size(0))` is unrolled and recompiles for every new size (5 graphs for 5
    sizes) until the recompile limit (8) sends the function to eager; a `while` on a size
    recompiles for each new trip count; an `if` on a size first recompiles when the size
    changes (automatic dynamic shapes, as any model does once), then once more when an
    input first lands on the other side of the threshold (3 graphs instead of 2). A list
    as long as a size pins the size like a loop, even when it is only counted (5 graphs
    for 5 sizes). So does a size in an f-string (2.13, 2.14 and 2.15; also with
    `dynamic=True`): Dynamo formats it by specializing it, 5 graphs for 5 sizes, whether the
    text is a cache key, returned or unused, as soon as the f-string joins several parts;
    `f"{n}"` alone stays lazy and pins only once its text is used. Only table keys are
    reported (a cache per size): check messages (`_assert(H == size, f"...")`) pin too,
    but their sizes are mostly fixed by the model, and on the zoo they were noise. A whole
    `x.shape` in an f-string stays lazy text (CL140 when used), and a typed spec
    (`{n:04d}`) fails the compile (CL140).

    Left alone, because their guards do not fail for ordinary inputs (each measured on
    real transformers/diffusers code): equality checks, comparisons with 0 or 1, and
    `< 2` (a dynamic size is assumed to be at least 2); two
    sizes of the same input compared (`key.shape[1] > mask.shape[-1]`); tests against the
    size of a parameter or buffer (a positional table); tests whose other side raises;
    `range(len(seq))` (mostly a list a submodule returns); trip counts clamped by a bound
    (`min(x.shape[2], overlap)`); and loops or tests over counts a config fixes, named as
    such (codebooks, levels, layers, heads, experts, quantizers, stages, rope axes,
    vocabulary, `ndim`). Lengths that come from the data (`len(x.nonzero())`) are CL106's.
    Nor is code Dynamo never compiles: after a graph break inside a loop or a generator
    expression (or a call, in a loop, of a helper that always breaks) Dynamo skips the
    frame, from the last graph break before the loop on, and runs it in Python (measured:
    no graph, no guard from those lines); the break is reported by its own rule. The same
    holds for CL202 and CL204.

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            out = x
            for i in range(x.size(0)):
                out = out + x[i]
            return out
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            return x + x.sum(0)
    ```
    Express loops over sizes as tensor operations. When sizes really vary, mark the
    dimension dynamic (`torch._dynamo.mark_dynamic(x, 0)`) and keep Python branches off
    it, or pad inputs to a few bucket sizes so each bucket compiles once.

    ## Fix safety
    No automatic fix: the remedy changes the computation or the input pipeline.
    """

    code = "CL201"
    name = "shape-dependent-control-flow"
    message = "Python control flow on a tensor size: Dynamo guards on it and recompiles"
    breaks = ()
    nodes = (ast.For, ast.comprehension, ast.While, ast.If, ast.IfExp, ast.BinOp, ast.Call, ast.JoinedStr)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, ast.JoinedStr):
            field = _size_field(node, ctx)
            if field is not None and not pins_a_size_to_one(ctx.entry_conditions()):
                ctx.report(
                    field,
                    f"tensor size in an f-string{ctx.reached_when()}: Dynamo formats it by guarding on the size's "
                    "exact value, so every new size compiles again (until the recompile limit sends the function "
                    "to eager); build the text outside the compiled code, or from a size that does not change",
                )
            return
        if isinstance(node, (ast.BinOp, ast.Call)):
            count = _list_length(node, ctx)
            if count is not None and not _counts_a_config_fixes(count) and not pins_a_size_to_one(ctx.entry_conditions()):
                ctx.report(
                    node,
                    f"Python list as long as a tensor size{ctx.reached_when()}: Dynamo guards on its exact length and "
                    "recompiles for every new one; build it with tensor ops (`x.new_full((n,), v)`, `t.expand(n, -1)`) "
                    "or from a size that does not change",
                )
            return
        if pins_a_size_to_one(ctx.entry_conditions()):
            return  # every caller is on the one-step path (`seq_len == 1`): sizes there are 1
        reached = ctx.reached_when()
        if isinstance(node, (ast.For, ast.comprehension)):
            if (
                _loops_over_a_size(node.iter, ctx)
                and not _counts_a_config_fixes(node.target, node.iter)
                and not _bound_checked_against_config(node.iter, ctx)
            ):
                ctx.report(node.iter, UNROLLED.replace(":", f"{reached}:", 1))
        elif isinstance(node, ast.While):
            if _backed_size(ctx.kind(node.test)):
                ctx.report(node.test, f"`while` on a tensor size{reached}: Dynamo unrolls it and recompiles for each new trip count")
        elif isinstance(node, (ast.If, ast.IfExp)) and ctx.static_value(node.test) is None:
            if isinstance(node, ast.If) and (only_raises(node.body) or only_raises(node.orelse)):
                return  # a size check: the side that would recompile raises instead
            decided = _decided_on_entry(ctx)
            for part, guards in ctx.guarded_parts(node.test):
                if _guards_a_size(part, ctx) and ast.unparse(part) not in decided:
                    only_when, when = ctx.conditions(guards)
                    ctx.report(
                        part,
                        f"branch on a tensor size{when}{reached}: Dynamo guards on it, and the first input on the other "
                        "side of the test compiles a second graph; use `torch._dynamo.mark_dynamic` or bucket the sizes",
                        only_when=only_when,
                    )


def _size_field(node: ast.JoinedStr, ctx: RuleContext) -> ast.expr | None:
    """The first field of an f-string that formats one size (``{x.shape[0]}``, ``{n!s}``,
    ``{n:>4}``) when its text keys a table: Dynamo specializes it (``analysis.size_text``). A
    whole ``Size`` is lazy text instead, and a typed spec (``{n:04d}``) fails the compile
    (CL140); text only printed, logged or raised with is left to the rules for those."""
    function = ctx.function.node if ctx.function is not None else None
    for field in node.values:
        if not isinstance(field, ast.FormattedValue) or field.conversion not in (-1, ord("s")) or typed_spec(field):
            continue
        if _backed_size(ctx.kind(field.value)) and not whole_size(field.value, ctx.kind, ctx.builtin, function):
            if keys_a_table(node, ctx.enclosing, function) and not on_output_or_failure_path(node, ctx.enclosing):
                return field.value
            return None
    return None


def _loops_over_a_size(iterable: ast.expr, ctx: RuleContext) -> bool:
    """``for i in range(x.size(0))``, ``for row in x.unbind(0)``."""
    for walked, is_bound in ctx.iterated(iterable):
        if is_bound and _size_bound(walked, ctx):
            return True
        if not is_bound and isinstance(walked, ast.Call) and isinstance(walked.func, ast.Attribute) and walked.func.attr == "unbind":
            return True
    return False


def _list_length(node: ast.BinOp | ast.Call, ctx: RuleContext) -> ast.expr | None:
    """The size a list is built to the length of: ``[v] * x.shape[0]``,
    ``list(range(0, t, c))`` (measured: a new graph for every size, used or not)."""
    if isinstance(node, ast.BinOp):
        if not isinstance(node.op, ast.Mult):
            return None
        for display, count in ((node.left, node.right), (node.right, node.left)):
            if isinstance(display, (ast.List, ast.Tuple)) and _size_bound(count, ctx):
                return count
        return None
    if ctx.builtin(node.func) in ("list", "tuple") and len(node.args) == 1:
        inner = node.args[0]
        if isinstance(inner, ast.Call) and ctx.builtin(inner.func) == "range":
            return next((bound for bound in inner.args if _size_bound(bound, ctx)), None)
    return None


# Counts a model's config fixes: a loop or a test over them never sees a new value.
CONFIG_COUNTS = re.compile(r"codebook|quantizer|level|lvl|layer|head|expert|stage|ndim|axes|pos_dims|vocab|channel", re.IGNORECASE)


def _counts_a_config_fixes(*nodes: ast.expr) -> bool:
    """``for codebook in range(num_codebooks)``, ``for level in range(h.shape[1])``: the loop
    walks codebooks, feature levels, layers or heads, which the config fixes, even where the
    count is read off a tensor (the reviewed transformers findings of this shape never
    recompiled). Only names that *are* the count or the loop variable count, not names
    anywhere inside the expression (``range(0, n, self.head_dim)`` walks a sequence)."""
    named: list[str] = []
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range":
            parts: list[ast.expr] = list(node.args)
        elif isinstance(node, ast.Tuple):
            parts = list(node.elts)
        else:
            parts = [node]
        named += [p.id if isinstance(p, ast.Name) else p.attr for p in parts if isinstance(p, (ast.Name, ast.Attribute))]
    return any(CONFIG_COUNTS.search(name) for name in named)


def _bound_checked_against_config(iterable: ast.expr, ctx: RuleContext) -> bool:
    """``if num_images != self.config.num_images: raise ...`` before ``range(num_images)``:
    the check pins the trip count to the config's value (measured on transformers' ViLT)."""
    if not (isinstance(iterable, ast.Call) and iterable.args and ctx.function is not None):
        return False
    bounds = {a.id for a in iterable.args if isinstance(a, ast.Name)}
    for node in ast.walk(ctx.function.node):
        if not isinstance(node, ast.If) or node.lineno >= iterable.lineno or not only_raises(node.body):
            continue
        test = node.test
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.NotEq):
            if any(isinstance(o, ast.Name) and o.id in bounds for o in (test.left, *test.comparators)):
                return True
    return False


def _decided_on_entry(ctx: RuleContext) -> set[str]:
    """Tests every caller has already evaluated before calling (``if h > t or w > t:
    self.interpolate(h, w)`` evaluates ``h > t`` always, ``w > t`` only sometimes):
    Dynamo installed their guards in the caller, so repeating the test adds none
    (measured on transformers' TVP, whose interpolate_pos_encoding re-tests ``height``)."""
    return {ast.unparse(test) for condition in ctx.entry_conditions() for test in _always_evaluated(condition.test)}


def _always_evaluated(test: ast.expr) -> list[ast.expr]:
    if isinstance(test, ast.BoolOp):
        return _always_evaluated(test.values[0])
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return _always_evaluated(test.operand)
    return [test]


def _capacity(operand: ast.expr) -> bool:
    """``self.weights.size(0)``: the size of a parameter or buffer, a table the inputs stay
    inside in ordinary use (positional tables; the guard flips only past their end)."""
    node = operand.func.value if isinstance(operand, ast.Call) and isinstance(operand.func, ast.Attribute) and operand.func.attr == "size" else operand
    if isinstance(node, ast.Subscript):
        node = node.value
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        node = node.value
    elif node is operand:
        return False
    while isinstance(node, ast.Attribute):
        node = node.value
    return isinstance(node, ast.Name) and node.id == "self"


def _bounded_or_length(bound: ast.expr, ctx: RuleContext) -> bool:
    """``range(len(features))``: model code takes ``len()`` of the list a submodule returns
    far more often than of a tensor (measured on diffusers' MultiAdapter: no guard)."""
    return isinstance(bound, ast.Call) and ctx.builtin(bound.func) == "len"


def _size_bound(bound: ast.expr, ctx: RuleContext) -> bool:
    """A loop bound or list length Dynamo has to specialise: a backed size, not ``len()``."""
    return _backed_size(ctx.kind(bound)) and not _bounded_or_length(bound, ctx)


def _backed_size(kind: Kind) -> bool:
    """A size Dynamo knows at trace time; a data-dependent one (``len(x.nonzero())``) is
    CL106's: ``fullgraph=True`` cannot guard on it at all."""
    return is_shape(kind) and not kind & Kind.DATA_SIZED


def _guards_a_size(test: ast.expr, ctx: RuleContext) -> bool:
    """An ordering test of a size against a threshold (``x.shape[0] > 128``).

    Equality tests (``if h != self.image_size``) are left alone: they validate sizes that
    never change in practice, so their guards never fail; and ``len(seq)`` is skipped,
    since model code takes it of tuples far more often than of tensors.
    """
    if not isinstance(test, ast.Compare) or not _backed_size(ctx.kind(test)):
        return False
    if not all(isinstance(op, ORDERING) for op in test.ops):
        return False
    operands = [test.left, *test.comparators]
    if any(isinstance(n, ast.Call) and ctx.builtin(n.func) == "len" for o in operands for n in ast.walk(o)):
        return False
    # size against size (`key.shape[1] > mask.shape[-1]`): both follow the same input, the
    # guard Dynamo installs holds for every ordinary input (measured: no recompile)
    if all(is_shape(ctx.kind(o)) for o in operands):
        return False
    names_in_operands = [n for o in operands for n in ast.walk(o) if isinstance(n, (ast.Name, ast.Attribute))]
    if any(_capacity(o) for o in operands) or _counts_a_config_fixes(*names_in_operands):
        return False
    constants = [o.value for o in operands if isinstance(o, ast.Constant)]
    if constants and all(c in ALREADY_SPECIALISED for c in constants):
        return False
    return not _below_two(test)


def _below_two(test: ast.Compare) -> bool:
    """``n < 2`` / ``n >= 2``: Dynamo assumes a dynamic size is at least 2 (0 and 1 are
    specialised), so the test needs no guard (measured: no recompile on vjepa2's
    ``num_frames < 2``)."""
    if len(test.ops) != 1:
        return False
    op, right, left = test.ops[0], test.comparators[0], test.left
    if isinstance(right, ast.Constant) and right.value == 2:
        return isinstance(op, (ast.Lt, ast.GtE))
    if isinstance(left, ast.Constant) and left.value == 2:
        return isinstance(op, (ast.Gt, ast.LtE))
    return False
