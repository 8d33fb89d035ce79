"""Whether a compiled function is compiled with ``fullgraph=True`` everywhere the file
compiles it.

A finding that claims a break in the default mode only (``.item()``, a data-dependent
output shape: Dynamo captures them under ``fullgraph=True``) is no hazard in a function
only ever compiled with ``fullgraph=True`` (``torch.compile(fn, fullgraph=True)``,
``@torch.compile(fullgraph=True)``, ``torch._dynamo.optimize(..., nopython=True)``,
``torch._dynamo.optimize_assert``); measured on torch 2.13, backend eager. A module's
``forward`` and anything compiled through a compiler the file does not show stays "any
mode".
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from compilelint.analysis.roots import COMPILING_DECORATORS, _compile_target, unpartial

if TYPE_CHECKING:
    from compilelint.analysis.module_index import FunctionInfo, ModuleIndex
    from compilelint.analysis.nested_roots import NestedRoot

ASSERTING = frozenset({"torch._dynamo.optimize_assert"})
FULLGRAPH_KEYWORDS = ("fullgraph", "nopython")


def fullgraph_only(index: ModuleIndex, info: FunctionInfo, nested: NestedRoot | None) -> bool:
    if info.owner is not None:
        return False  # methods are compiled through their object too: not followed here
    compilers = _compile_decorators(index, info)
    if nested is not None:
        compilers += nested.compiled_with
    elif info.parent is None:
        compilers += _module_level_compiles(index, info)
    return bool(compilers) and all(c is not None and is_fullgraph(index, c) for c in compilers)


def is_fullgraph(index: ModuleIndex, call: ast.Call) -> bool:
    if index.qualname(call.func) in ASSERTING:
        return True
    return any(k.arg in FULLGRAPH_KEYWORDS and isinstance(k.value, ast.Constant) and k.value.value is True
               for k in call.keywords)  # fmt: skip


def _compile_decorators(index: ModuleIndex, info: FunctionInfo) -> list[ast.Call | None]:
    found: list[ast.Call | None] = []
    for decorator in info.node.decorator_list:
        call = unpartial(decorator, index.imports) if isinstance(decorator, ast.Call) else None
        name = index.qualname(call.func if call is not None else decorator)
        if name in COMPILING_DECORATORS:
            found.append(call)  # a bare @torch.compile: the default mode
        elif isinstance(decorator, ast.Name) and decorator.id in index.compile_sites.compilers:
            found.append(None)  # @opt: its options are in an assignment not read here
    return found


def _module_level_compiles(index: ModuleIndex, info: FunctionInfo) -> list[ast.Call | None]:
    """Each compile of the module-level function by name: ``torch.compile(fn, ...)`` gives
    its options; ``torch.compile(...)(fn)`` or ``opt(fn)`` count as any mode."""
    from compilelint.analysis.nested_roots import nested_compiles

    local = nested_compiles(index).local_targets
    found: list[ast.Call | None] = []
    for target, _ in index.compile_sites.targets:
        if isinstance(target, ast.Name) and target.id == info.name and id(target) not in local:
            direct = next((c for c in index.compile_sites.calls if _compile_target(c) is target), None)
            found.append(direct)
    return found
