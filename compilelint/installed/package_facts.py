"""Facts about a package's own code that decide which of its hazards a caller meets.

- Functions it registers with ``torch._dynamo.allow_in_graph`` at import (einops does this
  for ``rearrange``, ``reduce`` ...): Dynamo puts the call into the graph whole and never
  traces the body (measured on torch 2.13: an einops Mixer compiles as one graph), so
  nothing inside them is reached.
- The classes that define a method of a given name (``method_owners``): a call on an object
  of no known class may run any of them (analysis.duck_calls).
- Diagnostics under a condition (``if verbose: logger.info(...)``, a ``warnings.warn``
  on a deprecated path, a ``print`` while probing backends): in a package these are
  almost never on the path a model runs, and a finding there would claim a break
  Dynamo never reports.
"""

from __future__ import annotations

import ast
import functools
import os
from collections.abc import Iterator

from compilelint.analysis.duck_calls import MAX_OWNERS
from compilelint.analysis.imports import ImportTable, dotted_name
from compilelint.project import absolute_target, module_name

REGISTRATION = "allow_in_graph"
# Rules about I/O and untraceable calls, whose sites count only on a function's main path.
DIAGNOSTIC_CODES = frozenset({"CL101", "CL102", "CL107"})


def package_files(root: str) -> Iterator[str]:
    if root.endswith(".py"):
        yield root
        return
    for base, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__" and not d.startswith(".")]
        for name in files:
            if name.endswith(".py"):
                yield os.path.join(base, name)


def files_holding(root: str, needle: str) -> Iterator[tuple[str, str]]:
    """(path, text) of the package's files whose text holds ``needle``, in path order."""
    for path in sorted(package_files(root)):
        try:
            with open(path, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:
            continue
        if needle in text:
            yield path, text


def registered_in_graph(root: str) -> list[str]:
    """Dotted names of the functions the package passes to ``allow_in_graph``."""
    found: list[str] = []
    for path, text in files_holding(root, REGISTRATION):
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        found.extend(_registered(tree, path))
    return sorted(set(found))


@functools.cache
def file_count(root: str) -> int:
    return sum(1 for _ in package_files(root))


@functools.cache
def method_owners(root: str, method: str, max_files: int) -> tuple[str, ...]:
    """The top-level classes (dotted names) of the installed package at ``root`` that define
    ``method`` in their own body, up to one past ``duck_calls.MAX_OWNERS``: only the files
    whose text holds ``def method(`` are parsed (analysis.duck_calls). A package of more
    than ``max_files`` files has none: a summary could not analyse what they lead to
    (measured: sympy's methods, reached from torch_geometric's DimeNet, took a summary
    past 18 GB)."""
    if file_count(root) > max_files:
        return ()
    found: list[str] = []
    for path, text in files_holding(root, f"def {method}("):
        module = module_name(path)
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            continue
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and module and any(
                isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name == method for item in node.body
            ):
                found.append(f"{module}.{node.name}")
        if len(found) > MAX_OWNERS:  # past the limit: no need to read on
            break
    return tuple(sorted(found))


def _registered(tree: ast.Module, path: str) -> Iterator[str]:
    imports = ImportTable()
    for node in ast.walk(tree):  # imports inside the registering function count too
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports.add(node)
    module = module_name(path)
    is_package = os.path.basename(path) == "__init__.py"
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and node.args and (dotted_name(node.func) or "").endswith(REGISTRATION)):
            continue
        name = imports.qualname(node.args[0])
        if name is None:
            continue
        if "." not in name and module:  # defined in this very module
            name = f"{module}.{name}"
        target = absolute_target(name, module, is_package)
        if target:
            yield target


@functools.lru_cache(maxsize=256)
def conditional_lines(path: str, decided: frozenset[int] = frozenset()) -> frozenset[int]:
    """Lines of statements under an ``if``/``else``, an ``except`` or a loop's ``else``,
    counted from the function that holds them; an ``if`` on a ``decided`` line (its test
    known, so only its taken side runs) does not count."""
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    lines: set[int] = set()
    _visit(tree, False, lines, decided)
    return frozenset(lines)


def _visit(node: ast.AST, conditional: bool, lines: set[int], decided: frozenset[int]) -> None:
    if conditional and isinstance(node, ast.stmt):
        lines.update(range(node.lineno, (node.end_lineno or node.lineno) + 1))
    for field, value in ast.iter_fields(node):
        for child in value if isinstance(value, list) else [value]:
            if not isinstance(child, ast.AST):
                continue
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                _visit(child, False, lines, decided)
            elif isinstance(node, ast.If) and field in ("body", "orelse") and node.lineno not in decided:
                _visit(child, True, lines, decided)
            elif isinstance(node, ast.ExceptHandler) and field == "body":
                _visit(child, True, lines, decided)
            elif isinstance(node, (ast.For, ast.While)) and field == "orelse":
                _visit(child, True, lines, decided)
            else:
                _visit(child, conditional, lines, decided)
