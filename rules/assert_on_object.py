"""CL128: `assert` on a Python object or a container that Dynamo cannot fold to a constant."""

from __future__ import annotations

import ast
from collections.abc import Iterable

from compilelint.analysis import objects
from compilelint.analysis.kinds import Kind
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

# What a `*args` annotation may name and still hold Python constants (no break: measured).
CONSTANT_ANNOTATIONS = frozenset({"int", "float", "bool", "str", "bytes", "complex", "None", "Any", "object"})
TENSOR_ANNOTATIONS = frozenset({"Tensor", "torch.Tensor", "LongTensor", "BoolTensor", "FloatTensor"})


class AssertOnObject(Rule):
    """Checks for `assert` on an object, a module or a container of them.

    ## What it does
    Flags, inside a compiled region, `assert value` (or `assert not value`) where the
    value is tested for truth but is not a Python constant nor a single tensor: an
    instance of a class (of this file or imported), an `nn.Module` (a `ModuleList` too),
    a list, tuple or dict display holding a tensor, a module or an object, or a `*args`
    tuple annotated with a class (`*transforms: Transform`) or that callers fill with
    tensors.

    ## Why is this bad?
    Dynamo rewrites every `assert` whose condition it cannot fold into a graph op: a
    tensor becomes `torch._assert_async`, a size a guard, and anything else is passed to
    `torch.scalar_tensor`, which cannot take it. Measured on torch 2.13 (backend eager):
    an object, a module, a `ModuleList`, a dict or list holding one breaks the graph at
    the `assert` (GB0055 "Failed to convert args/kwargs to proxy") in the default mode and
    with `dynamic=True`, and `fullgraph=True` fails; a tuple or list holding tensors does
    the same with GB0112. A class's own `__bool__` or `__len__` does not help. The same
    value in an `if`, or `assert value is not None`, `assert len(value)`,
    `assert isinstance(value, C)` and an `assert` on Python numbers, strings or
    containers of them, compile without a break. zuko's `ComposedTransform.__init__`
    (`assert transforms`, its `*transforms` being distribution transforms) breaks in
    every flow built with more than one transform.

    ## Example
    ```python
    class Composed:
        def __init__(self, *parts: Part) -> None:
            assert parts, "no parts"
            self.parts = parts

    class Net(nn.Module):
        def forward(self, x):
            return x * len(Composed(Part(1.0), Part(2.0)).parts)
    ```

    ## Use instead
    ```python
    class Composed:
        def __init__(self, *parts: Part) -> None:
            assert len(parts) > 0, "no parts"
            self.parts = parts

    class Net(nn.Module):
        def forward(self, x):
            return x * len(Composed(Part(1.0), Part(2.0)).parts)
    ```
    `len(...)` of a tuple, list or dict is a Python constant for Dynamo, as is
    `value is not None`.

    ## Fix safety
    No automatic fix: which property the `assert` meant (non-empty, not None) is the
    author's to say.
    """

    code = "CL128"
    name = "assert-on-object"
    message = "`assert` on an object or a container of them breaks the graph: Dynamo cannot make it a graph op (GB0055)"
    gb_ids = ("GB0055", "GB0112")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Assert,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Assert)
        test = node.test
        while isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            test = test.operand
        what = _held(test, ctx)
        if what is None:
            return
        gb = "GB0112" if what == "tensors" else "GB0055"
        ctx.report(
            node.test,
            f"`assert` on {_DESCRIPTIONS[what]} breaks the graph: Dynamo passes what it cannot fold to "
            f"`torch.scalar_tensor` ({gb}); assert `len(...)`, `... is not None` or a property of it instead",
            gb_ids=(gb,),
        )


_DESCRIPTIONS = {
    "object": "an object",
    "module": "an `nn.Module`",
    "container": "a container of objects or modules",
    "tensors": "a tuple or list holding tensors",
    "varargs": "a `*args` tuple of objects",
}


def _held(test: ast.expr, ctx: RuleContext) -> str | None:
    """What non-constant value ``test`` is, or None where it may be a constant, a tensor or unknown."""
    if isinstance(test, (ast.List, ast.Tuple, ast.Set)):
        return _elements(test.elts, ctx)
    if isinstance(test, ast.Dict):
        return _elements(test.values, ctx)
    if not isinstance(test, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
        return None
    vararg = _vararg(test, ctx)
    if vararg is not None:
        return vararg
    kind = ctx.kind(test)
    if kind & Kind.CONTAINER and kind & Kind.TENSOR and not kind & (Kind.UNKNOWN | Kind.STATIC):
        return "tensors"
    if kind & (Kind.TENSOR | Kind.STATIC | Kind.SHAPE | Kind.DATA_SCALAR | Kind.NUMPY):
        return None
    if kind & Kind.MODULE:
        return "module"
    if _is_object(test, ctx):
        return "object"
    return None


def _is_object(value: ast.expr, ctx: RuleContext) -> bool:
    """An instance of a class (its kind is unknown to the analysis, its class known)."""
    return ctx.evaluator is not None and _plain_objects(objects.of_value(ctx.evaluator, value), ctx)


def _elements(elements: Iterable[ast.expr | None], ctx: RuleContext) -> str | None:
    found: str | None = None
    for element in elements:
        if element is None or isinstance(element, ast.Starred):
            return None
        kind = ctx.kind(element)
        if kind & Kind.MODULE or (not kind & (Kind.TENSOR | Kind.STATIC) and _is_object(element, ctx)):
            found = "container"
        elif kind & Kind.TENSOR and not kind & Kind.UNKNOWN and found is None:
            found = "tensors"
    return found


def _vararg(test: ast.expr, ctx: RuleContext) -> str | None:
    """``*args`` of the compiled function, when its annotation or its callers say what it holds."""
    function = ctx.function
    if function is None or not isinstance(test, ast.Name):
        return None
    vararg = function.node.args.vararg
    if vararg is None or vararg.arg != test.id:
        return None
    annotation = vararg.annotation
    if annotation is None:
        kind = ctx.kind(test)
        return "tensors" if kind & Kind.TENSOR and not kind & (Kind.UNKNOWN | Kind.STATIC) else None
    names = {ast.unparse(part) for part in _union_parts(annotation)}
    if names & CONSTANT_ANNOTATIONS or not names:
        return None
    if names <= TENSOR_ANNOTATIONS:
        return "tensors"
    if names & TENSOR_ANNOTATIONS:
        return None
    return "varargs"


def _union_parts(annotation: ast.expr) -> list[ast.expr]:
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return []
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return _union_parts(annotation.left) + _union_parts(annotation.right)
    if isinstance(annotation, ast.Subscript):  # Optional[X], Union[X, Y], list[X]: not a plain class
        return []
    return [annotation]


def _plain_objects(held: objects.Objects, ctx: RuleContext) -> bool:
    """Instances Dynamo keeps as user objects: not named tuples, enums or dataclasses, which it may fold."""
    if not held:
        return False
    for name in held:
        cls = objects.local_class(ctx.index, ctx.evaluator.module if ctx.evaluator else None, name)
        if cls is None:
            continue
        decorators = {ast.unparse(d).split("(")[0].rsplit(".", 1)[-1] for d in cls.node.decorator_list}
        bases = {ast.unparse(b).rsplit(".", 1)[-1] for b in cls.node.bases}
        if decorators & {"dataclass", "dataclasses"} or bases & {"NamedTuple", "Enum", "IntEnum", "Flag", "IntFlag", "StrEnum"}:
            return False
    return True
