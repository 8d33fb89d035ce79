"""What to lint when no PATHS are given, and the project a run belongs to.

By default the verifier lints the files that define the targets' callables plus what
they import from the same project, found by reading import statements (never by
importing): installed packages and the standard library are not the user's to fix.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path
from collections.abc import Iterable

from compilelint.verify.attribution import UserFiles, canonical

_MARKERS = ("pyproject.toml", "setup.cfg", "setup.py", ".git")
_MAX_FILES = 500  # a bound on the walk, in case a project imports half of itself


def project_root(start: str) -> str:
    """The nearest folder above ``start`` holding a project marker; else start's folder.

    The root goes on the targets' ``sys.path``: the walk never enters a folder the user
    does not own or anyone may write to (``/tmp``), where anyone could plant a marker."""
    from compilelint.config import is_trusted_folder

    folder = os.path.abspath(start if os.path.isdir(start) else os.path.dirname(start))
    probe = folder
    while True:
        if not is_trusted_folder(Path(probe)):
            return folder
        if any(os.path.exists(os.path.join(probe, marker)) for marker in _MARKERS):
            return probe
        parent = os.path.dirname(probe)
        if parent == probe:
            return folder
        probe = parent


def _module_files(base: str, dotted: str) -> list[str]:
    if not dotted:
        return [os.path.join(base, "__init__.py")]
    stem = os.path.join(base, *dotted.split("."))
    return [stem + ".py", os.path.join(stem, "__init__.py")]


def _imported_modules(tree: ast.Module, path: str, root: str) -> Iterable[tuple[str, str]]:
    """(search folder, dotted name) pairs for every import in the file."""
    bases = [os.path.dirname(path), root, os.path.join(root, "src")]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from ((base, alias.name) for base in bases)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = os.path.dirname(path)
                for _ in range(node.level - 1):
                    base = os.path.dirname(base)
                bases_here = [base]
            else:
                bases_here = bases
            module = node.module or ""
            for base in bases_here:
                yield base, module
                for alias in node.names:  # `from pkg import submodule`
                    yield base, f"{module}.{alias.name}" if module else alias.name


def _imports_of(path: str, root: str, user: UserFiles) -> set[str]:
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return set()
    found: set[str] = set()
    for base, dotted in _imported_modules(tree, path, root):
        for candidate in _module_files(base, dotted):
            if os.path.isfile(candidate) and candidate in user:
                found.add(canonical(candidate))
    return found


def default_lint_paths(callable_files: Iterable[str], root: str) -> list[str]:
    """The callables' files and, transitively, what they import from the project."""
    user = UserFiles([root])
    seen: set[str] = set()
    todo = [canonical(path) for path in callable_files]
    while todo and len(seen) < _MAX_FILES:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        todo.extend(sorted(_imports_of(path, root, user) - seen))
    return sorted(seen)
