"""Where an installed package's source lies, and which distribution and version it is.

Nothing here imports the package: the top-level name is found with
``importlib.machinery.PathFinder`` on the site-packages folders only (never the working
directory or the standard library), submodules by looking at the files, and the version
from the ``.dist-info`` folder (its name, as ``importlib.metadata`` reads it, and the
``Name:`` header). (``importlib.util.find_spec("a.b")`` would
import ``a``: running a package's ``__init__`` to lint code is what we never do.)
"""

from __future__ import annotations

import functools
import json
import os
import re
import site
import subprocess
import sys
import sysconfig
import tempfile
from dataclasses import dataclass
from importlib.machinery import PathFinder

# Never followed: the rules know torch's API, and Dynamo handles the standard library
# through its own tables (skipfiles, polyfills), not by tracing its source.
NOT_FOLLOWED = frozenset({"torch", "torchgen", "functorch", "triton", "numpy", "typing_extensions"})
# _pywt.cpython-311-x86_64-linux-gnu.so, _cext.abi3.so, _speedups.so, _core.cp311-win_amd64.pyd
EXTENSION_FILE = re.compile(r"^(?P<stem>[A-Za-z_]\w*)(\.[\w-]+)?\.(so|pyd)$")


@dataclass(frozen=True)
class Package:
    """An installed top-level package."""

    name: str  # import name: "torchcrf"
    root: str  # folder holding its __init__.py (or the single module file)
    distribution: str  # "pytorch-crf"
    version: str  # "0.7.2"

    @property
    def label(self) -> str:
        return f"{self.distribution} {self.version}"


@dataclass(frozen=True)
class Located:
    """A dotted target split into the file that defines it and the name inside it."""

    package: Package
    module: str  # "torchdiffeq._impl.odeint"
    path: str
    name: str  # "odeint", "CRF.decode"; "" for the module itself


@functools.lru_cache(maxsize=8)
def site_dirs(python: str | None = None, cache_dir: str | None = None) -> tuple[str, ...]:
    """The site-packages folders of ``python`` (default: the interpreter running us).

    Another interpreter is asked once and the answer kept in ``cache_dir`` (keyed by the
    executable's path and mtime): starting it costs more than linting a small project."""
    if python:
        return _remembered_site_dirs(python, cache_dir) if cache_dir else _site_dirs_of(python)
    found = [*site.getsitepackages(), site.getusersitepackages()]
    found += [sysconfig.get_paths()[key] for key in ("purelib", "platlib")]
    # and site folders a .pth file put on the path (a venv layered over another's packages)
    found += [p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages")]
    return _existing(found)


def _remembered_site_dirs(python: str, cache_dir: str) -> tuple[str, ...]:
    path = os.path.join(cache_dir, "interpreters.json")
    try:
        status = os.stat(python)
    except OSError:
        return ()
    key = f"{os.path.abspath(python)}:{status.st_mtime_ns}"
    try:
        with open(path, encoding="utf-8") as handle:
            known = json.load(handle)
    except (OSError, ValueError):
        known = {}
    if isinstance(known, dict) and isinstance(known.get(key), list):
        return _existing(known[key])
    dirs = _site_dirs_of(python)
    if dirs:
        known = known if isinstance(known, dict) else {}
        known[key] = list(dirs)
        try:
            os.makedirs(cache_dir, exist_ok=True)
            handle_fd, temporary = tempfile.mkstemp(dir=cache_dir, suffix=".tmp")
            with os.fdopen(handle_fd, "w", encoding="utf-8") as out:
                json.dump(known, out)
            os.replace(temporary, path)
        except OSError:
            pass
    return dirs


def _site_dirs_of(python: str) -> tuple[str, ...]:
    """Asks the other interpreter once (``-I``: no user code, no working directory)."""
    code = "import json,site,sysconfig;print(json.dumps(site.getsitepackages()+[site.getusersitepackages()]+[sysconfig.get_paths()[k] for k in ('purelib','platlib')]))"
    try:
        out = subprocess.run([python, "-I", "-c", code], capture_output=True, text=True, timeout=30, check=True)
        return _existing(json.loads(out.stdout))
    except (OSError, subprocess.SubprocessError, ValueError):
        return ()


def _existing(paths: list[str]) -> tuple[str, ...]:
    unique: list[str] = []
    for path in paths:
        real = os.path.realpath(path)
        if os.path.isdir(real) and real not in unique:
            unique.append(real)
    return tuple(unique)


class Locator:
    """Finds installed packages in a fixed list of site folders, remembering answers."""

    def __init__(self, dirs: tuple[str, ...]) -> None:
        self.dirs = dirs
        self._packages: dict[str, Package | None] = {}
        self._located: dict[str, Located | None] = {}

    def package(self, top: str) -> Package | None:
        if top not in self._packages:
            self._packages[top] = self._find_package(top)
        return self._packages[top]

    def _find_package(self, top: str) -> Package | None:
        if top in NOT_FOLLOWED or top in sys.stdlib_module_names or not top.isidentifier():
            return None
        spec = PathFinder.find_spec(top, list(self.dirs))
        if spec is None:
            return None
        locations = list(spec.submodule_search_locations or ())
        if spec.origin and spec.origin.endswith("__init__.py"):
            root = os.path.dirname(spec.origin)
        elif spec.origin and spec.origin.endswith(".py"):
            root = spec.origin
        elif len(locations) == 1:  # a namespace package
            root = locations[0]
        else:
            return None  # a C extension, or a namespace spread over folders
        site_dir = os.path.dirname(root)
        distribution, version = distribution_of(site_dir, top)
        return Package(top, os.path.realpath(root), distribution, version)

    def locate(self, target: str) -> Located | None:
        """``torchdiffeq.odeint`` -> the file of the longest module prefix, and the rest."""
        if target not in self._located:
            self._located[target] = self._locate(target)
        return self._located[target]

    def _locate(self, target: str) -> Located | None:
        parts = target.split(".")
        package = self.package(parts[0])
        if package is None or len(parts) < 2:
            return None
        if package.root.endswith(".py"):
            return Located(package, parts[0], package.root, ".".join(parts[1:]))
        files = [os.path.join(package.root, "__init__.py")]  # the file of parts[:i + 1]
        folder = package.root
        for part in parts[1:]:
            sub = os.path.join(folder, part)
            if os.path.isfile(os.path.join(sub, "__init__.py")):
                folder = sub
                files.append(os.path.join(sub, "__init__.py"))
            elif part in extension_stems(folder):
                # compiled code (Python imports it before a .py of the same name): no source
                # to follow, and not a name of the folder's __init__.py either; taking it for
                # one sent star-imported names round scipy.linalg's __init__ as
                # ``_fblas._flapack._fblas.eig``, a new target each round
                return None
            elif os.path.isfile(sub + ".py"):
                files.append(sub + ".py")
                break
            else:
                break
        # A call's target is never a module: when every part names one, the last is a
        # name the package re-exports over its submodule (``from .odeint import odeint``).
        depth = min(len(files), len(parts) - 1)
        if not os.path.isfile(files[depth - 1]):
            return None
        return Located(package, ".".join(parts[:depth]), files[depth - 1], ".".join(parts[depth:]))


@functools.lru_cache(maxsize=1024)
def extension_stems(folder: str) -> frozenset[str]:
    """The names of the compiled extension modules in a folder."""
    try:
        names = os.listdir(folder)
    except OSError:
        return frozenset()
    return frozenset(m.group("stem") for m in map(EXTENSION_FILE.match, names) if m)


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name).lower()


@functools.lru_cache(maxsize=64)
def _dist_infos(site_dir: str) -> tuple[str, ...]:
    try:
        return tuple(sorted(e for e in os.listdir(site_dir) if e.endswith(".dist-info")))
    except OSError:
        return ()


def _installs(dist_info: str, top: str) -> bool:
    """Whether the distribution installs the top-level name ``top`` (``top_level.txt``, or
    the first entries of ``RECORD``: reading a whole RECORD, torch's has 15,000 lines, costs)."""
    try:
        with open(os.path.join(dist_info, "top_level.txt"), encoding="utf-8") as handle:
            return top in handle.read().split()
    except OSError:
        pass
    try:
        with open(os.path.join(dist_info, "RECORD"), encoding="utf-8") as handle:
            for number, line in enumerate(handle):
                if number > 200:
                    break
                first = line.split("/", 1)[0].split(",", 1)[0]
                if first in (top, f"{top}.py"):
                    return True
    except OSError:
        pass
    return False


def _metadata_name(dist_info: str) -> str | None:
    """The ``Name:`` header of METADATA, read by hand: ``importlib.metadata`` parses the
    whole file (a long description included) as an e-mail, which costs more than linting."""
    try:
        with open(os.path.join(dist_info, "METADATA"), encoding="utf-8", errors="replace") as handle:
            for line in handle:
                if line.startswith("Name:"):
                    return line[5:].strip() or None
                if not line.strip():
                    break
    except OSError:
        pass
    return None


def distribution_of(site_dir: str, top: str) -> tuple[str, str]:
    """(distribution name, version) of the package ``top`` installed in ``site_dir``.

    The ``<name>-<version>.dist-info`` folder named like the package answers at once;
    others (``torchcrf`` from ``pytorch-crf``) are found by the names they install. The
    name shown is the one in the distribution's metadata. A package without metadata is
    version ``unknown``.
    """
    wanted = _normalise(top)
    entries = _dist_infos(site_dir)
    named = [e for e in entries if _normalise(e[: -len(".dist-info")].partition("-")[0]) == wanted]
    for entry in named + [e for e in entries if e not in named]:
        if entry in named or _installs(os.path.join(site_dir, entry), top):
            version = entry[: -len(".dist-info")].partition("-")[2]
            return _metadata_name(os.path.join(site_dir, entry)) or entry.partition("-")[0], version or "unknown"
    return top, "unknown"
