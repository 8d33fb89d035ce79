"""On-disk summaries of installed packages, one JSON file per package version.

The flake8 plugin lints one file per call, pre-commit a few: neither may re-analyse
torchdiffeq for every file that calls ``odeint``. A summary says what one function of a
package breaks on given the kinds of its arguments; it is keyed by the distribution, its
version and compilelint's version, and holds the size and mtime of every file it read,
so an editable install that changed is analysed again.

Concurrent writers (two flake8 processes, pre-commit's parallel batches): each writes a
temporary file in the cache folder and renames it over the old one, so a reader sees a
whole file, old or new; a summary lost to a race is only computed again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Mapping
from typing import Any

import compilelint
from compilelint import __version__

ENVIRONMENT_VARIABLE = "COMPILELINT_CACHE_DIR"


def default_cache_dir() -> str:
    """``$COMPILELINT_CACHE_DIR``, else ``$XDG_CACHE_HOME/compilelint``, else ``~/.cache/compilelint``."""
    explicit = os.environ.get(ENVIRONMENT_VARIABLE)
    if explicit:
        return explicit
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "compilelint")


@functools.lru_cache(maxsize=1)
def analysis_stamp() -> str:
    """compilelint's version and a digest of its own files' sizes and mtimes: a checkout
    between releases (a development install) must not read summaries an older analysis
    wrote under the same version number."""
    digest = hashlib.sha1(__version__.encode())
    root = os.path.dirname(os.path.abspath(compilelint.__file__))
    rules = os.path.join(os.path.dirname(root), "rules")  # a checkout's rules/ (the wheel's are inside)
    for folder in (root, rules):
        for base, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(f for f in files if f.endswith(".py")):
                digest.update(f"{name}{file_stamp(os.path.join(base, name))}".encode())
    return f"{__version__}-{digest.hexdigest()[:10]}"


def file_stamp(path: str) -> list[int]:
    try:
        status = os.stat(path)
    except OSError:
        return [-1, -1]
    return [status.st_size, status.st_mtime_ns]


class SummaryStore:
    """Summaries by package version; ``folder=None`` keeps them in memory only."""

    def __init__(self, folder: str | None) -> None:
        self.folder = os.path.join(folder, "packages") if folder else None
        self._loaded: dict[tuple[str, str], dict[str, Any]] = {}

    def _file(self, distribution: str, version: str) -> str:
        assert self.folder is not None
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in f"{distribution}-{version}")
        return os.path.join(self.folder, f"{safe}-compilelint{analysis_stamp()}.json")

    def entries(self, distribution: str, version: str) -> dict[str, Any]:
        key = (distribution, version)
        if key not in self._loaded:
            self._loaded[key] = self._read(distribution, version)
        return self._loaded[key]

    def get(self, distribution: str, version: str, key: str) -> Mapping[str, Any] | None:
        entry = self.entries(distribution, version).get(key)
        if entry is None or not all(file_stamp(path) == stamp for path, stamp in entry.get("files", {}).items()):
            return None
        return entry  # type: ignore[no-any-return]

    def put(self, distribution: str, version: str, key: str, entry: dict[str, Any]) -> None:
        self.entries(distribution, version)[key] = entry
        if self.folder is None:
            return
        # Merge with what other processes wrote since we read, then replace atomically.
        merged = self._read(distribution, version)
        merged.update(self._loaded[(distribution, version)])
        try:
            os.makedirs(self.folder, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=self.folder, prefix=".summary-", suffix=".tmp")
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump({"compilelint": analysis_stamp(), "entries": merged}, out)
            os.replace(temporary, self._file(distribution, version))
        except OSError:
            pass  # a read-only or full cache folder costs time, never an answer

    def _read(self, distribution: str, version: str) -> dict[str, Any]:
        if self.folder is None:
            return {}
        try:
            with open(self._file(distribution, version), encoding="utf-8") as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            return {}
        entries = data.get("entries") if isinstance(data, dict) else None
        return entries if isinstance(entries, dict) else {}
