"""The results cache (``.compilelint_cache``, like ``.ruff_cache``): a re-run lints only
what changed.

A file's result is stored under a key made of everything it was computed from:

- the file's path and the hash of its bytes;
- compilelint itself (its version and the bytes of its own sources, so an edited
  checkout never reads stale results);
- the file's effective settings (every field of ``Settings``) and the torch release the
  findings assume (compilelint/torch_versions.py: the installed torch's, unless set);
- the cross-file facts it was linted with: the entry points other files' compiled
  regions give it (``EntryPoint``: which functions, with which argument kinds).

Each entry also lists what else the result depended on, checked at lookup: the content
hash of each project file it calls into, and whatever ``FileResult.depends_on`` names (an
installed package's version, say). A dependency that changed is a miss. One pickle per
cache folder, loaded once and written back atomically; only folders that only the user
can write are used (a pickle is code).
"""

from __future__ import annotations

import hashlib
import os
import pickle
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from compilelint import __version__
from compilelint.config import Settings, is_trusted_folder
from compilelint.findings import FileResult
from compilelint.project import EntryPoint, ModuleMap

DEFAULT_DIR = ".compilelint_cache"
FORMAT = 4  # 3: Finding.reached_sites; 4: FileResult.constructions
MAX_ENTRIES = 200_000
DISABLE_VARIABLE = "COMPILELINT_NO_CACHE"

Dependency = tuple[str, str]  # (what, its fingerprint): ("file:/x/utils.py", "<hash>")


@dataclass(frozen=True)
class Entry:
    result: FileResult
    depends: tuple[Dependency, ...]
    used: float  # when last used, for pruning


def code_fingerprint() -> str:
    """compilelint's version and the bytes of its own sources (~1 MB, a few ms), so an
    edited checkout never reads stale results and a checkout that only moved (a rebase,
    a fresh clone of the same commit) keeps its cache."""
    digest = hashlib.blake2b(f"{__version__}\0{FORMAT}".encode(), digest_size=20)
    package = Path(__file__).resolve().parent
    for folder in (package, package.parent / "rules", package / "rules"):
        if folder.is_dir():
            # the rules' per-release claims (rules/claims/*.json) change findings too
            for path in sorted([*folder.rglob("*.py"), *folder.glob("claims/*.json")]):
                digest.update(path.relative_to(folder).as_posix().encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def settings_fingerprint(settings: Settings) -> str:
    """Every field, and the torch release the findings assume: with no torch-version set
    that is the installed torch's, which an upgrade changes."""
    from compilelint.torch_versions import assume

    return hashlib.sha256(repr((settings, assume(settings.torch_version))).encode()).hexdigest()


def entries_fingerprint(entries: Iterable[EntryPoint]) -> str:
    parts = sorted(repr((e.name, [int(k) for k in e.positional], sorted((n, int(k)) for n, k in e.keywords.items()), e.chain,
                         e.root, e.receivers, sorted(e.objects.items()), e.spread))
                   for e in entries)  # fmt: skip
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()


class ResultCache:
    """Lookups and stores for one run; ``save()`` writes the cache back."""

    def __init__(self, folder: str) -> None:
        self._dirty = False
        self.folder = Path(folder)
        self.file = self.folder / f"results-v{FORMAT}.pickle"
        self._code = code_fingerprint()
        self._settings: dict[int, str] = {}
        self._hashes: dict[str, str | None] = {}
        self._entries, self._stats = self._load()
        self._modules: ModuleMap | None = None
        self.hits = self.misses = 0

    def _load(self) -> tuple[dict[str, Entry], dict[str, tuple[tuple[int, int, int, int], str]]]:
        if not self.file.is_file() or not is_trusted_folder(self.folder):
            return {}, {}
        try:
            with open(self.file, "rb") as handle:
                entries, stats = pickle.load(handle)
        except Exception:  # a torn or foreign file: start over
            return {}, {}
        return (entries, stats) if isinstance(entries, dict) and isinstance(stats, dict) else ({}, {})

    def bind(self, modules: ModuleMap) -> None:
        """The run's module map, to tell which called functions are files of the project."""
        self._modules = modules

    def content_hash(self, path: str) -> str | None:
        """The hash of a file's bytes; unchanged (device, inode, size, mtime in ns: git's
        index test) files are not read again, their hash is the one stored last time."""
        if path not in self._hashes:
            absolute = os.path.abspath(path)
            try:
                info = os.stat(absolute)
                signature = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
                known = self._stats.get(absolute)
                if known is not None and known[0] == signature:
                    self._hashes[path] = known[1]
                else:
                    with open(absolute, "rb") as handle:
                        digest = hashlib.blake2b(handle.read(), digest_size=20).hexdigest()
                    self._hashes[path] = digest
                    if time.time() - info.st_mtime > 2:  # a file written this second may change again unseen
                        self._stats[absolute] = (signature, digest)
                        self._dirty = True
            except OSError:
                self._hashes[path] = None
        return self._hashes[path]

    def key(self, path: str, settings: Settings, entries: Iterable[EntryPoint], facts: str = "") -> str | None:
        content = self.content_hash(path)
        if content is None:
            return None
        fingerprint = self._settings.get(id(settings))
        if fingerprint is None:
            fingerprint = self._settings[id(settings)] = settings_fingerprint(settings)
        parts = (self._code, fingerprint, os.path.abspath(path), content, entries_fingerprint(entries), facts)
        return hashlib.sha256("\0".join(parts).encode()).hexdigest()

    def lookup(self, key: str | None) -> FileResult | None:
        entry = self._entries.get(key) if key else None
        if entry is None or not all(self._fingerprint(what) == value for what, value in entry.depends):
            self.misses += 1
            return None
        self.hits += 1
        self._entries[key] = replace(entry, used=time.time())  # type: ignore[index]
        return entry.result

    def store(self, key: str | None, result: FileResult) -> None:
        if key is None:
            return
        findings = tuple(replace(f, fix_data=None) for f in result.findings)  # --fix lints again
        kept = replace(result, findings=findings)
        self._entries[key] = Entry(kept, self._dependencies(result), time.time())
        self._dirty = True

    def _dependencies(self, result: FileResult) -> tuple[Dependency, ...]:
        found: dict[str, str] = {}
        for call in result.calls:
            located = self._modules.locate(call.target) if self._modules else None
            if located is not None and located[0] != result.path:
                what = f"file:{os.path.abspath(located[0])}"
                found[what] = self._fingerprint(what) or ""
        for what in result.depends_on:
            found[what] = self._fingerprint(what) or ""
        return tuple(sorted(found.items()))

    def _fingerprint(self, what: str) -> str | None:
        kind, _, name = what.partition(":")
        if kind == "file":
            return self.content_hash(name)
        resolver = DEPENDENCY_KINDS.get(kind)
        return resolver(name) if resolver else None

    def save(self) -> None:
        """Write back (atomically) when anything was stored."""
        if not self._dirty:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            _mark_cache_folder(self.folder)
            if not is_trusted_folder(self.folder):
                return
            entries = self._entries
            if len(entries) > MAX_ENTRIES:
                entries = dict(sorted(entries.items(), key=lambda item: item[1].used)[-MAX_ENTRIES:])
            import tempfile

            fd, temporary = tempfile.mkstemp(dir=self.folder, prefix=".results-", suffix=".tmp")
            with os.fdopen(fd, "wb") as handle:
                pickle.dump((entries, self._stats), handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(temporary, self.file)
        except OSError:
            pass  # a read-only checkout: the run still works, uncached


# Fingerprints of other kinds of dependency ("package:transformers" -> its version), for
# the analysis to register: a result that names one is recomputed when it changes.
DEPENDENCY_KINDS: dict[str, Callable[[str], str | None]] = {}


def _mark_cache_folder(folder: Path) -> None:
    """ruff's courtesy: the folder ignores itself in git, and backup tools skip it."""
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# created by compilelint\n*\n")
    tag = folder / "CACHEDIR.TAG"
    if not tag.exists():
        tag.write_text("Signature: 8a477f597d28d172789f06886806bc55\n# compilelint's results cache\n")
