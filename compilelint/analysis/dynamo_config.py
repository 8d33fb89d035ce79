"""Dynamo config the file itself sets around its compiled code.

Measured on torch 2.13 (backend eager, default mode): with
``torch._dynamo.config.capture_scalar_outputs = True`` a ``.item()``, ``int(t)``, a
``.tolist()`` of an integer tensor and a tensor passed where a size goes
(``torch.ones(t.sum().long())``) are traced, not breaks (GB0124 and GB0033 go away); with
``capture_dynamic_output_shape_ops = True`` ``nonzero``, ``unique`` and boolean-mask
indexing are traced (GB0036 goes away). Each flag leaves the other's breaks as they are.
``fullgraph=True`` turns both on, which is why these findings claim the default mode only.

The file says so in these spellings, all read here: an assignment at module level
(``torch._dynamo.config.capture_scalar_outputs = True``, through any import of the config
module), and ``torch._dynamo.config.patch(...)`` (keywords, ``"name", value`` or a dict),
``unittest.mock.patch.object(torch._dynamo.config, "name", True)`` or
``unittest.mock.patch("torch._dynamo.config.name", True)`` as a decorator of the compiled
function, of a function around it (a test method around its closure) or of their class, or
as a ``with`` in such a function.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from compilelint.analysis.module_index import FunctionInfo, ModuleIndex

CONFIG_MODULES = ("torch._dynamo.config", "torch.compiler.config")
# unresolved ``patch`` counts too (``from common import *`` re-exporting unittest.mock's):
# the arguments must still name the config module and a flag
MOCK_PATCH = frozenset({"unittest.mock.patch", "mock.patch", "patch"})
MOCK_PATCH_OBJECT = frozenset({"unittest.mock.patch.object", "mock.patch.object", "patch.object"})
# flag -> the graph breaks it turns into traced code (default mode)
CAPTURED_BREAKS: dict[str, frozenset[str]] = {
    "capture_scalar_outputs": frozenset({"GB0124", "GB0033"}),
    "capture_dynamic_output_shape_ops": frozenset({"GB0036"}),
}


def module_flags(index: ModuleIndex, tree: ast.Module) -> frozenset[str]:
    """Flags a module-level statement sets to True (the last assignment wins)."""
    flags: dict[str, bool] = {}
    for stmt in tree.body:
        if not isinstance(stmt, ast.Assign) or not isinstance(stmt.value, ast.Constant):
            continue
        for target in stmt.targets:
            flag = _config_attribute(index, target)
            if flag is not None:
                flags[flag] = stmt.value.value is True
    return frozenset(flag for flag, on in flags.items() if on)


def function_flags(index: ModuleIndex, info: FunctionInfo) -> frozenset[str]:
    """Flags patched on around ``info``: its decorators, its enclosing functions' decorators
    and ``with`` blocks, and their classes' decorators."""
    found: set[str] = set()
    function: FunctionInfo | None = info
    while function is not None:
        found.update(_patched(index, function.node.decorator_list))
        if function is not info:
            found.update(_with_patches(index, function))
        if function.owner is not None:
            found.update(_patched(index, function.owner.node.decorator_list))
        function = function.parent
    return frozenset(found)


def _with_patches(index: ModuleIndex, function: FunctionInfo) -> Iterator[str]:
    for node in ast.walk(function.node):
        if isinstance(node, (ast.With, ast.AsyncWith)):
            yield from _patched(index, [item.context_expr for item in node.items])


def _patched(index: ModuleIndex, expressions: list[ast.expr]) -> Iterator[str]:
    """Flags ``config.patch(...)`` calls among ``expressions`` set to True, and the
    ``unittest.mock`` spellings: ``patch.object(torch._dynamo.config, "flag", True)`` and
    ``patch("torch._dynamo.config.flag", True)``."""
    for node in expressions:
        if not isinstance(node, ast.Call):
            continue
        for name, value in _config_patch_items(index, node) or _mock_patch_items(index, node):
            if name in CAPTURED_BREAKS and isinstance(value, ast.Constant) and value.value is True:
                yield name


def _config_patch_items(index: ModuleIndex, call: ast.Call) -> list[tuple[str, ast.expr]]:
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "patch" and index.qualname(func.value) in CONFIG_MODULES:
        return list(_patch_items(call))
    return []


def _mock_patch_items(index: ModuleIndex, call: ast.Call) -> list[tuple[str, ast.expr]]:
    name, args = index.qualname(call.func), call.args
    if len(args) < 2 or not isinstance(name, str):
        return []
    if name in MOCK_PATCH_OBJECT and index.qualname(args[0]) in CONFIG_MODULES:
        attribute = args[1]
        if len(args) == 3 and isinstance(attribute, ast.Constant) and isinstance(attribute.value, str):
            return [(attribute.value, args[2])]
    elif name in MOCK_PATCH and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
        module, _, flag = args[0].value.rpartition(".")
        if module in CONFIG_MODULES:
            return [(flag, args[1])]
    return []


def _patch_items(call: ast.Call) -> Iterator[tuple[str, ast.expr]]:
    for keyword in call.keywords:
        if keyword.arg is not None:
            yield keyword.arg, keyword.value
    args = call.args
    if len(args) == 2 and isinstance(args[0], ast.Constant) and isinstance(args[0].value, str):
        yield args[0].value, args[1]
    elif len(args) == 1 and isinstance(args[0], ast.Dict):
        for key, value in zip(args[0].keys, args[0].values):
            if isinstance(key, ast.Constant) and isinstance(key.value, str):
                yield key.value, value


def _config_attribute(index: ModuleIndex, target: ast.expr) -> str | None:
    if isinstance(target, ast.Attribute) and index.qualname(target.value) in CONFIG_MODULES:
        return target.attr
    return None


def captured(flags: frozenset[str], gb_ids: tuple[str, ...]) -> bool:
    """Whether the flags make a default-mode-only break of these GB ids traced code."""
    if not gb_ids or not flags:
        return False
    traced = frozenset().union(*(CAPTURED_BREAKS[flag] for flag in flags if flag in CAPTURED_BREAKS))
    return set(gb_ids) <= traced
