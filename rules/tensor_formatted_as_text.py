"""CL140: a tensor formatted into text (f-string, `str.format`, `%`, `format()`) in compiled code."""

from __future__ import annotations

import ast
import re

from compilelint.analysis.comprehension_frames import assigned_values
from compilelint.analysis.guards import on_output_or_failure_path
from compilelint.analysis.size_text import typed_spec, whole_size
from compilelint.analysis.kinds import Kind, is_data, is_shape, is_tensor_container
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

BOTH = (Mode.DEFAULT, Mode.FULLGRAPH)
# `%` conversions that read a number: the tensor is read back as a Python value.
NUMBER_CONVERSIONS = frozenset("dioxXeEfFgGc")
STR_METHODS = frozenset(name for name in dir(str) if not name.startswith("_"))
# What lazily formatted text was formatted from: tensor data, a tensor size (lazy once the
# size is dynamic), or a size under a format spec with a type (``f"{n:04d}"``), whose use
# makes the compile itself fail once the size is dynamic
TENSOR_TEXT, SIZE_TEXT, SIZE_SPEC_TEXT = "tensor", "size", "size-spec"
SIZE_CONDITION = "the size changes between calls, or `dynamic=True`"


class TensorFormattedAsText(Rule):
    """Checks for tensors formatted into strings inside compiled code.

    ## What it does
    Flags, inside a compiled region, a tensor (or a list or tuple of tensors) formatted into
    text where Dynamo needs its values at once: the right operand of `%` on a string
    (`"loss=%.3f" % loss`), `format(t, spec)`, and an f-string field with `!r`. Formatting
    inside `print`, logging and `warnings.warn` calls is left to CL101/CL102, and messages of
    `raise` and `assert` (built only when the check fails) are left alone. A plain f-string
    field or `str.format` argument is flagged where the text is used as a string: `len()`
    of it, a `str` method on it, `+` with it, `==`/`!=` on it, or `sep.join` of a list
    holding it, inline or through a local name every assignment of which binds such text.
    Tensor sizes too, as holding from the first call with another size: `str()`, `repr()`,
    `%` and `format()` of a size, a whole `x.shape` in an f-string or any size in
    `str.format` where the text is used, and a size under a typed format spec
    (`f"{n:04d}"`) joined with other parts, or alone where the text is used. One size in a
    plain f-string is not flagged here (CL201 reports it where it keys a table).

    ## Why is this bad?
    Text needs the tensor's values, which a graph does not have. Measured on torch 2.13
    (backend eager), each form breaks the graph in the default mode (and with
    `dynamic=True`) and makes `fullgraph=True` fail: `"%s" % t` and `"%r" % t` return a
    non-tensor from a torch op (GB0208), a tuple after `%` is not traced (GB0059),
    `%d`/`%f` read the value back as a number (GB0033), and `f"{t!r}"` calls the tensor's
    repr (GB0569). `format(t, ".2f")` is worse: the compile itself fails
    (InternalTorchDynamoError "TensorVariable() is not a constant") in every mode.
    A plain f-string field or `str.format` argument is formatted lazily on 2.13: storing or
    returning the text is traced (so is a dict key or another f-string made of it), and
    using it breaks where the use is, in both modes: `len()` (GB0088), a string method or
    `join` (GB0156), `+` (GB3934), `==` (GB9648), `%` (GB0088). Text formatted from a tensor
    size is lazy the same way once that size is dynamic: from the first call with another
    size (automatic dynamic shapes) and with `dynamic=True`, reported as holding then.
    Measured on 2.13, 2.14 and 2.15 with three sizes: `str(n)` breaks at once (GB0059;
    GB6053 from 2.14), `repr(n)` too (GB6053), `"%d" % n` and `"%dx%d" % (h, w)` too
    (GB0088), and `format(n, "d")` makes the compile fail (InternalTorchDynamoError), as
    does `f"rows={n:04d}"` (joined with other parts, even unused) or a lone `f"{n:04d}"`
    once used ("Unknown format code 'd' for object of type 'str'"). One size in an
    f-string (`f"rows={n}"`, `{n!s}`, `{n:>4}`) is specialized instead: no break, a
    recompile for each new size. A whole `x.shape` in an f-string stays lazy text.
    Dtypes and devices format as usual.

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            self.last = "mean=%.3f" % x.mean()
            return x * 2
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            self.last_mean = x.mean().detach()
            return x * 2
    ```
    Keep the tensor and format it outside the compiled code, or format only what the
    graph knows (shapes, dtypes).

    ## Fix safety
    No automatic fix: where the text goes decides what to keep.
    """

    code = "CL140"
    name = "tensor-formatted-as-text"
    message = "formatting a tensor as text needs its values: breaks the graph in both modes (GB0208)"
    gb_ids = ("GB0569", "GB0208", "GB0059", "GB0033", "GB0088", "GB0156", "GB3934", "GB9648", "GB6053")
    breaks = BOTH
    nodes = (ast.FormattedValue, ast.Call, ast.BinOp, ast.Compare)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if ctx.function is None or on_output_or_failure_path(node, ctx.enclosing):
            return
        if isinstance(node, ast.FormattedValue):
            self._field(node, ctx)
        elif isinstance(node, ast.Call):
            self._call(node, ctx)
            self._text_call(node, ctx)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_text(node.left):
            self._percent(node, ctx)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            lazy = _lazy_text(node.left, ctx) or (_lazy_text(node.right, ctx) if isinstance(node.op, ast.Add) else None)
            if lazy is not None:
                self._used(node, "`+` on it" if isinstance(node.op, ast.Add) else "`%` on it",
                           "GB3934" if isinstance(node.op, ast.Add) else "GB0088", lazy, ctx)  # fmt: skip
        elif isinstance(node, ast.Compare) and all(isinstance(op, (ast.Eq, ast.NotEq)) for op in node.ops):
            lazy = next((found for operand in [node.left, *node.comparators] if (found := _lazy_text(operand, ctx))), None)
            if lazy is not None:
                self._used(node, "comparing it", "GB9648", lazy, ctx)

    def _text_call(self, node: ast.Call, ctx: RuleContext) -> None:
        """``len(text)``, ``text.upper()``, ``" ".join([text, ...])`` of lazily formatted text."""
        func = node.func
        if ctx.builtin(func) == "len" and len(node.args) == 1 and (lazy := _lazy_text(node.args[0], ctx)):
            self._used(node, "`len()` of it", "GB0088", lazy, ctx)
        elif isinstance(func, ast.Attribute) and func.attr in STR_METHODS and (lazy := _lazy_text(func.value, ctx)):
            self._used(node, f"`.{func.attr}()` on it", "GB0156", lazy, ctx)
        elif isinstance(func, ast.Attribute) and func.attr == "join" and _is_text(func.value) and node.args:
            joined = node.args[0]
            if isinstance(joined, (ast.List, ast.Tuple)):
                lazy = next((found for e in joined.elts if (found := _lazy_text(e, ctx))), None)
                if lazy is not None:
                    self._used(node, "joining it", "GB0156", lazy, ctx)

    def _used(self, node: ast.expr, use: str, gb_id: str, lazy: str, ctx: RuleContext) -> None:
        if lazy == SIZE_SPEC_TEXT:
            ctx.report(
                node,
                f"text formatted from a tensor size with a format spec (`:d`, `:04d`, `:.2f`) is built lazily once "
                f"that size is dynamic, and {use} makes the compile itself fail (InternalTorchDynamoError: Unknown "
                "format code for object of type 'str') from the first call with another size, and with "
                "`dynamic=True`; format the size without a spec (`f\"{n}\"`), or outside the compiled code",
                gb_ids=(),
                only_when=(SIZE_CONDITION,),
            )
            return
        if lazy == TENSOR_TEXT:
            ctx.report(
                node,
                f"text formatted from a tensor is built lazily, and {use} needs the tensor's values: breaks the graph "
                f"in both modes ({gb_id}); keep the tensor and format it outside the compiled code",
                gb_ids=(gb_id,),
            )
            return
        ctx.report(
            node,
            f"text formatted from a tensor size is built lazily once that size is dynamic, and {use} needs its "
            f"value: breaks the graph ({gb_id}) from the first call with another size (automatic dynamic shapes), "
            "and with `dynamic=True`; use the text outside the compiled code, or keep the sizes as numbers",
            gb_ids=(gb_id,),
            only_when=(SIZE_CONDITION,),
        )

    def _field(self, node: ast.FormattedValue, ctx: RuleContext) -> None:
        if node.conversion == ord("r") and _holds_tensor(ctx.kind(node.value)):
            ctx.report(
                node.value,
                "`!r` of a tensor calls its repr, which needs its values: breaks the graph in both modes (GB0569); "
                "format it outside the compiled code",
                gb_ids=("GB0569",),
            )
            return
        joined = ctx.parent(node)
        if isinstance(joined, ast.JoinedStr) and len(joined.values) > 1 and _size_under_typed_spec(node, ctx):
            ctx.report(
                node.value,
                "a tensor size under a format spec with a type (`:d`, `:04d`, `:.2f`), joined into an f-string, makes "
                "the compile itself fail once that size is dynamic (InternalTorchDynamoError: Unknown format code for "
                "object of type 'str'), from the first call with another size and with `dynamic=True`; format the "
                "size without a spec (`f\"{n}\"`), or outside the compiled code",
                gb_ids=(),
                only_when=(SIZE_CONDITION,),
            )

    def _call(self, node: ast.Call, ctx: RuleContext) -> None:
        builtin = ctx.builtin(node.func)
        if builtin == "format" and node.args and is_data(ctx.kind(node.args[0])):
            ctx.report(
                node,
                "`format()` of a tensor makes the compile itself fail in every mode (InternalTorchDynamoError: "
                "TensorVariable() is not a constant), not just break the graph; format it outside the compiled code",
                gb_ids=(),
            )
        elif builtin == "format" and node.args and is_shape(ctx.kind(node.args[0])):
            ctx.report(
                node,
                "`format()` of a tensor size makes the compile itself fail once that size is dynamic "
                "(InternalTorchDynamoError), from the first call with another size and with `dynamic=True`; "
                "use an f-string without a spec (`f\"{n}\"`), or format it outside the compiled code",
                gb_ids=(),
                only_when=(SIZE_CONDITION,),
            )
        elif builtin in ("str", "repr") and len(node.args) == 1 and not node.keywords and is_shape(ctx.kind(node.args[0])):
            gb_ids = ("GB0059", "GB6053") if builtin == "str" else ("GB6053",)  # str: GB6053 from 2.14 on
            ctx.report(
                node,
                f"`{builtin}()` of a tensor size needs its value: once the size is dynamic Dynamo cannot trace it "
                f"and breaks the graph ({gb_ids[0]}) from the first call with another size (automatic dynamic shapes), "
                "and with `dynamic=True`; keep the size as a number, or an f-string of it (`f\"{n}\"`), which "
                "Dynamo specializes instead",
                gb_ids=gb_ids,
                only_when=(SIZE_CONDITION,),
            )

    def _percent(self, node: ast.BinOp, ctx: RuleContext) -> None:
        right = node.right
        if isinstance(right, ast.Tuple):
            if any(_holds_tensor(ctx.kind(e)) for e in right.elts):
                ctx.report(
                    node,
                    "`%` formatting of a tuple holding a tensor is not traced: breaks the graph in both modes "
                    "(GB0059); format it outside the compiled code",
                    gb_ids=("GB0059",),
                )
            elif any(is_shape(ctx.kind(e)) for e in right.elts):
                whole = any(_whole_size(e, ctx) for e in right.elts)
                self._percent_of_sizes(node, "GB0059" if whole else "GB0088", ctx)
            return
        if is_shape(ctx.kind(right)):
            self._percent_of_sizes(node, "GB0059" if _whole_size(right, ctx) else "GB0088", ctx)
            return
        if not is_data(ctx.kind(right)):
            return
        conversions = _conversions(node.left)
        if conversions and conversions <= NUMBER_CONVERSIONS:
            ctx.report(
                node,
                "`%` formatting of a tensor as a number reads its value back in Python: a data-dependent operator "
                "that breaks the graph in both modes (GB0033); format it outside the compiled code",
                gb_ids=("GB0033",),
            )
        elif conversions:
            ctx.report(
                node,
                "`%` formatting of a tensor as text needs its values: breaks the graph in both modes (GB0208); "
                "format it outside the compiled code",
                gb_ids=("GB0208",),
            )

    def _percent_of_sizes(self, node: ast.BinOp, gb_id: str, ctx: RuleContext) -> None:
        ctx.report(
            node,
            f"`%` formatting of a tensor size needs its value: once the size is dynamic Dynamo cannot trace it and "
            f"breaks the graph ({gb_id}) from the first call with another size (automatic dynamic shapes), and with "
            "`dynamic=True`; use an f-string of the size (`f\"{n}\"`), which Dynamo specializes instead",
            gb_ids=(gb_id,),
            only_when=(SIZE_CONDITION,),
        )


def _lazy_text(node: ast.expr, ctx: RuleContext) -> str | None:
    """Text Dynamo formats lazily: an f-string with a plain field, or ``"...".format(...)``,
    holding tensor data (``TENSOR_TEXT``) or a tensor size (``SIZE_TEXT``: lazy once the size
    is dynamic), or a local name each assignment binds to such text."""
    if isinstance(node, ast.Name) and ctx.function is not None:
        values = assigned_values(ctx.function.node, node.id)
        found = [None if isinstance(value, ast.Name) else _lazy_text(value, ctx) for value in values]
        if not found or None in found:
            return None
        return next(kind for kind in (TENSOR_TEXT, SIZE_SPEC_TEXT, SIZE_TEXT) if kind in found)
    if isinstance(node, ast.JoinedStr):
        fields = [f for f in node.values if isinstance(f, ast.FormattedValue)]
        plain = [f.value for f in fields if f.conversion == -1]
        if any(is_data(ctx.kind(part)) for part in plain):
            return TENSOR_TEXT
        if len(node.values) == 1 and _size_under_typed_spec(fields[0], ctx):
            return SIZE_SPEC_TEXT  # joined with other parts, the f-string itself fails (``_field``)
        # one size in an f-string is specialized (a recompile per size), not formatted lazily
        return SIZE_TEXT if any(f.conversion in (-1, ord("s")) and _whole_size(f.value, ctx) for f in fields) else None
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" and _is_text(node.func.value):
        parts = [*node.args, *(k.value for k in node.keywords)]
    else:
        return None
    kinds = [ctx.kind(part) for part in parts]
    if any(is_data(kind) for kind in kinds):
        return TENSOR_TEXT
    return SIZE_TEXT if any(is_shape(kind) for kind in kinds) else None


def _holds_tensor(kind: Kind) -> bool:
    """A tensor, or a list or tuple of tensors, on every path we can see."""
    return is_tensor_container(kind) if kind & Kind.CONTAINER else is_data(kind)


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def _conversions(template: ast.expr) -> frozenset[str]:
    """The conversion letters of a literal `%` template (`"%.2f and %s"`: f, s)."""
    if not (isinstance(template, ast.Constant) and isinstance(template.value, str)):
        return frozenset()
    return frozenset(letter for letter in _CONVERSION.findall(template.value) if letter != "%")


_CONVERSION = re.compile(r"%(?:\([^)]*\))?[#0\- +]*(?:\*|\d+)?(?:\.(?:\*|\d+))?[hlL]?([a-zA-Z%])")


def _whole_size(node: ast.expr, ctx: RuleContext) -> bool:
    return whole_size(node, ctx.kind, ctx.builtin, ctx.function.node if ctx.function else None)


def _size_under_typed_spec(field: ast.FormattedValue, ctx: RuleContext) -> bool:
    return field.conversion == -1 and typed_spec(field) and is_shape(ctx.kind(field.value)) and not _whole_size(field.value, ctx)
