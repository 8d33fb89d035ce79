"""Python lists, tuples and dicts the source builds, as opposed to tensors.

Dynamo looks items of a Python container up while it traces: an index or key must be a
concrete value, so it guards on an argument's exact value (CL204) and cannot use a number
it captured from tensor data (CL121). A tensor is indexed in the graph. Which one a name
holds is read from how every binding builds it.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from compilelint.analysis.comprehension_frames import assigned_values, is_self, stored_in_mro
from compilelint.analysis.module_index import FunctionInfo

CONTAINER_DISPLAYS = (ast.Dict, ast.DictComp, ast.List, ast.ListComp, ast.Tuple)
CONTAINER_BUILTINS = frozenset({"list", "tuple", "dict", "sorted"})


def built_as_container(node: ast.expr, function: FunctionInfo | None, builtin: Callable[[ast.expr], str | None]) -> bool:
    """A dict, list or tuple: a display or comprehension, a call of ``list()``/``tuple()``/
    ``dict()``/``sorted()``, or a local name or attribute of ``self`` every binding of which
    (in the function; in the methods of the class and its local bases) is one of those."""
    if _builds(node, builtin):
        return True
    values: list[ast.expr] = []
    if isinstance(node, ast.Name) and function is not None:
        values = assigned_values(function.node, node.id)
    elif isinstance(node, ast.Attribute) and function is not None and function.owner is not None and is_self(node.value, function):
        values = stored_in_mro(function.owner, node.attr)
    return bool(values) and all(_builds(value, builtin) for value in values)


def _builds(node: ast.expr, builtin: Callable[[ast.expr], str | None]) -> bool:
    return isinstance(node, CONTAINER_DISPLAYS) or isinstance(node, ast.Call) and builtin(node.func) in CONTAINER_BUILTINS
