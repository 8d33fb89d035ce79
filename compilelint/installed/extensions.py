"""Which installed module a dotted name comes from, when that module is a compiled extension.

``pywt._extensions._pywt.Modes`` names an object of ``_pywt.cpython-311-x86_64-linux-gnu.so``;
``pywt.Wavelet`` and ``kiwisolver.Solver`` name classes a package's ``__init__.py``
imports from such a file (``from ._extensions._pywt import *``, ``from ._cext import
Solver``). Nothing is imported: the files are looked at in Python's own order (a package
folder, then an extension module, then a ``.py`` file), and a Python module's top-level
imports are read with ``ast`` to follow a name it re-exports, through star imports too
(which honour a literal ``__all__``).
"""

from __future__ import annotations

import ast
import functools
import os
import sys
from dataclasses import dataclass

from compilelint.installed.locate import NOT_FOLLOWED, Locator, extension_stems

MAX_HOPS = 8  # re-exports followed from one module to the next


@dataclass(frozen=True)
class _Module:
    name: str
    path: str  # "" for an extension module
    is_package: bool = False


@dataclass(frozen=True)
class _Bindings:
    """What a Python module's top-level statements bind: ``names`` maps a name to the dotted
    name it is imported as (None: defined here, Python); ``stars`` are the modules it
    star-imports, in order; ``exported`` its literal ``__all__``, if it has one."""

    names: dict[str, str | None]
    stars: tuple[str, ...]
    exported: frozenset[str] | None


@functools.lru_cache(maxsize=4096)
def extension_module(locator: Locator, target: str) -> str | None:
    """The dotted name of the compiled extension module that defines ``target`` (a
    function, class or method inside it), or None: Python source, unknown, not installed.
    A name several star-imported extensions may bind gets "a or b"."""
    return _resolve(locator, target, 0)


def _resolve(locator: Locator, target: str, hops: int) -> str | None:
    parts = target.split(".")
    for depth in range(len(parts) - 1, 0, -1):  # the longest prefix that is a module
        module = _find_module(locator, ".".join(parts[:depth]))
        if module is None:
            continue
        if not module.path:
            return module.name
        return _reexported(locator, module, parts[depth:], hops) if hops < MAX_HOPS else None
    return None


def _find_module(locator: Locator, dotted: str) -> _Module | None:
    """The module ``dotted`` names, found as Python's path finder would find it."""
    parts = dotted.split(".")
    package = locator.package(parts[0])
    if package is None:
        return _top_level_extension(locator, parts[0]) if len(parts) == 1 else None
    if package.root.endswith(".py"):
        return _Module(parts[0], package.root) if len(parts) == 1 else None
    folder = package.root
    for index, part in enumerate(parts[1:], 2):
        sub = os.path.join(folder, part)
        last = index == len(parts)
        if os.path.isfile(os.path.join(sub, "__init__.py")):
            folder = sub
        elif part in extension_stems(folder):
            return _Module(dotted, "") if last else None
        elif os.path.isfile(sub + ".py"):
            return _Module(dotted, sub + ".py") if last else None
        elif os.path.isdir(sub):  # a namespace folder (pywt/_extensions has no __init__.py)
            folder = sub
        else:
            return None
    init = os.path.join(folder, "__init__.py")
    return _Module(dotted, init, True) if os.path.isfile(init) else None


def _top_level_extension(locator: Locator, name: str) -> _Module | None:
    """A distribution that installs one extension module and no package (``ujson``)."""
    if name in NOT_FOLLOWED or name in sys.stdlib_module_names:
        return None
    return _Module(name, "") if any(name in extension_stems(folder) for folder in locator.dirs) else None


def _reexported(locator: Locator, module: _Module, rest: list[str], hops: int) -> str | None:
    """``rest[0]`` is a name of the Python ``module``: the extension it is imported from."""
    name, tail = rest[0], rest[1:]
    bindings = _bindings(module.path, module.name, module.is_package)
    if name in bindings.names:
        source = bindings.names[name]
        return None if source is None else _resolve(locator, ".".join([source, *tail]), hops + 1)
    extensions: list[str] = []  # star-imported extensions that may bind the name
    for star in reversed(bindings.stars):  # the last star import that binds the name wins
        found = _find_module(locator, star)
        if found is None:
            return None  # not known where the name comes from
        if not found.path:  # which names an extension exports is known only by importing it
            extensions.append(found.name)
            continue
        exported = _bindings(found.path, found.name, found.is_package)
        if name in (exported.exported if exported.exported is not None else exported.names):
            return None if extensions else _resolve(locator, ".".join([star, name, *tail]), hops + 1)
    if not extensions or name.startswith("_"):  # a star import skips private names
        return None
    return " or ".join(sorted(extensions))


@functools.lru_cache(maxsize=256)
def _bindings(path: str, module: str, is_package: bool) -> _Bindings:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            tree = ast.parse(handle.read())
    except (OSError, SyntaxError, ValueError):
        return _Bindings({}, (), frozenset())
    names: dict[str, str | None] = {}
    stars: list[str] = []
    exported: frozenset[str] | None = None
    for node in _top_level(tree.body):
        if isinstance(node, ast.ImportFrom):
            base = _absolute(node, module, is_package)
            for alias in node.names:
                if alias.name == "*" and base:
                    stars.append(base)
                elif alias.name != "*":
                    names[alias.asname or alias.name] = f"{base}.{alias.name}" if base else None
        elif isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.asname or alias.name.split(".")[0]] = alias.name if alias.asname else None
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] = None
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for name in (n for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)):
                names[name.id] = None
                if name.id == "__all__":
                    exported = _literal_names(node.value) if isinstance(node, ast.Assign) else None
    return _Bindings(names, tuple(stars), exported)


def _literal_names(value: ast.expr | None) -> frozenset[str] | None:
    """A literal ``__all__``; None for one computed (``[s for s in dir() ...]``)."""
    if not isinstance(value, (ast.List, ast.Tuple)):
        return None
    names = [e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return frozenset(names) if len(names) == len(value.elts) else None


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements that run at import, in order: the module's, and a ``try`` body (an
    optional speed-up imported under ``try: ... except ImportError``)."""
    found: list[ast.stmt] = []
    for node in body:
        found.extend(_top_level(node.body) if isinstance(node, ast.Try) else [node])
    return found


def _absolute(node: ast.ImportFrom, module: str, is_package: bool) -> str | None:
    if not node.level:
        return node.module
    package = module.split(".") if is_package else module.split(".")[:-1]
    if node.level - 1 > len(package):
        return None
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else [])) or None
