"""Tensor sizes in text: which f-string fields Dynamo specializes, which stay lazy text.

Measured on torch 2.13, 2.14.1 and 2.15.0 (CPU, eager; three and five input sizes): one
size in an f-string (``f"rows={x.shape[0]}"``, ``{n!s}``, ``{n:>4}``) is specialized once
the text is built: Dynamo guards on the size's value, so every new size compiles again
(five sizes: four recompiles, also with ``dynamic=True``). The text is built at once when
the f-string joins several parts; an f-string of one field alone (``f"{n}"``) stays lazy
until its text is used, and pins nothing if it never is. CL201 reports it where the text
keys a table (a cache per size); in messages of checks (``_assert(H == size, f"...")``)
the size is most often fixed by the model, and reporting them there flooded the zoo
(199 findings, 7 of 18 judged ones confirmed). A whole ``torch.Size``
(``f"{x.shape}"``) stays lazy text either way, and using it breaks the graph (CL140). A
size under a format spec with a type (``{n:04d}``) makes the compile fail
(InternalTorchDynamoError) where the text is built.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from compilelint.analysis.comprehension_frames import assigned_values
from compilelint.analysis.kinds import Kind, is_shape

# The last letter of a format spec that converts a number (``04d``, ``.2f``, ``x``)
SPEC_TYPES = frozenset("bcdoxXneEfFgG%")
MAX_DEPTH = 3


def whole_size(node: ast.expr, kind: Callable[[ast.expr], Kind], builtin: Callable[[ast.expr], str | None],
               function: ast.AST | None, depth: int = 0) -> bool:  # fmt: skip
    """A ``torch.Size`` rather than one size: ``x.shape``, ``x.size()``, a slice of them,
    ``tuple``/``list`` of one, or a local name of ``function`` bound only to such."""
    if depth > MAX_DEPTH or not is_shape(kind(node)):
        return False
    if isinstance(node, ast.Attribute):
        return node.attr == "shape"
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Slice) and whole_size(node.value, kind, builtin, function, depth + 1)
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "size" and not node.args and not node.keywords:
            return True
        return builtin(func) in ("tuple", "list") and len(node.args) == 1 and whole_size(node.args[0], kind, builtin, function, depth + 1)
    if isinstance(node, ast.Name) and function is not None:
        values = assigned_values(function, node.id)
        return bool(values) and all(whole_size(value, kind, builtin, function, depth + 1) for value in values)
    return False


def typed_spec(field: ast.FormattedValue) -> bool:
    """``{n:04d}``, ``{r:.2f}``: a spec whose last letter converts a number."""
    spec = field.format_spec
    if not isinstance(spec, ast.JoinedStr) or not spec.values:
        return False
    last = spec.values[-1]
    return isinstance(last, ast.Constant) and isinstance(last.value, str) and last.value[-1:] in SPEC_TYPES


KEY_METHODS = frozenset({"get", "setdefault", "pop", "__getitem__", "__contains__"})


def keys_a_table(node: ast.JoinedStr, enclosing: Callable[[ast.AST], ast.AST | None], function: ast.AST | None) -> bool:
    """Whether the f-string is a key into a table (``cache[f"{h}x{w}"]``, ``key in cache``,
    ``cache.get(key)``), inline or through a local name bound to it: a cache keyed by
    sizes, where specializing the size means one graph per size. Text only raised with,
    logged or checked (a message) is not a key."""
    uses: list[ast.AST] = [node]
    parent = enclosing(node)
    if isinstance(parent, ast.Assign) and len(parent.targets) == 1 and isinstance(parent.targets[0], ast.Name) and function is not None:
        name = parent.targets[0].id
        uses = [n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load)]
    return any(_is_key(use, enclosing) for use in uses)


def _is_key(use: ast.AST, enclosing: Callable[[ast.AST], ast.AST | None]) -> bool:
    parent = enclosing(use)
    if isinstance(parent, ast.Subscript) and parent.slice is use:
        return True
    if isinstance(parent, ast.Compare) and parent.left is use and all(isinstance(op, (ast.In, ast.NotIn)) for op in parent.ops):
        return True
    return (isinstance(parent, ast.Call) and isinstance(parent.func, ast.Attribute) and parent.func.attr in KEY_METHODS
            and bool(parent.args) and parent.args[0] is use)  # fmt: skip
