"""Qualified names from a module's imports, built in one pass over its top-level statements.

This replaces libcst's QualifiedNameProvider: we only ever need to know what the root name
of a dotted expression was imported as (``nn`` -> ``torch.nn``), and that table is tiny.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator


class ImportTable:
    """Maps local names bound by imports to fully qualified names."""

    def __init__(self) -> None:
        self._names: dict[str, str] = {}
        self.stars: list[str] = []  # modules of ``from x import *``: a free name may come from any

    def add(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    self._names[alias.asname] = alias.name
                else:
                    root = alias.name.split(".", 1)[0]
                    self._names[root] = root
            return
        # Relative imports keep their dots so cross-file resolution can find the file.
        module = "." * node.level + (node.module or "")
        names = {alias.name for alias in node.names}
        for alias in node.names:
            if alias.name == "*":
                self.stars.append(module)
                continue
            sep = "" if module.endswith(".") or not module else "."
            self._names[alias.asname or alias.name] = _reexported(alias.name, names) or f"{module}{sep}{alias.name}"

    def rebind(self, name: str, qualname: str) -> None:
        """``name`` is ``qualname``: another module of the run re-exports it (``from .common
        import F`` where common.py does ``import torch.nn.functional as F``)."""
        self._names[name] = qualname

    def __contains__(self, name: str) -> bool:
        return name in self._names

    def get(self, name: str) -> str | None:
        return self._names.get(name)

    def items(self) -> Iterator[tuple[str, str]]:
        return iter(self._names.items())

    def qualname(self, node: ast.expr) -> str | None:
        """``nn.functional.relu`` -> ``torch.nn.functional.relu``; None if not a dotted name.

        A root that was not imported is returned as written (``print``, ``self.proj``).
        """
        name = dotted_name(node)
        if name is None:
            return None
        root, dot, rest = name.partition(".")
        return self._names.get(root, root) + dot + rest


# Modules a test suite's common file re-exports under their usual names (``from
# ._repros_common import torch, nn, np``): the names are those modules, wherever they come from.
REEXPORTED = {"torch": "torch", "numpy": "numpy", "np": "numpy"}
REEXPORTED_WITH_TORCH = {"nn": "torch.nn"}  # only beside ``torch`` itself: ``nn`` is not always torch's


def _reexported(name: str, imported_together: set[str]) -> str | None:
    if name in REEXPORTED:
        return REEXPORTED[name]
    if name in REEXPORTED_WITH_TORCH and "torch" in imported_together:
        return REEXPORTED_WITH_TORCH[name]
    return None


def dotted_name(node: ast.expr) -> str | None:
    """The source spelling of a dotted name (``torch.nn.Module``), or None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))
