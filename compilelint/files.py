"""Which files to lint, and reading them as Python source (encoding cookie, BOM).

Only regular files are read, and never more than ``MAX_SOURCE_BYTES``: a FIFO named
``x.py`` would block the run forever, a ``*.py`` symlink to ``/dev/zero`` would read until
memory runs out, and git stores symlinks, so a checkout can hold either.
"""

from __future__ import annotations

import fnmatch
import functools
import io
import os
import re
import stat
import tokenize
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from compilelint.config import Settings, is_trusted_folder

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

MAX_SOURCE_BYTES = 256 * 1024 * 1024


class SourceError(Exception):
    """A file that cannot be read or decoded; reported as CL900."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


def decode_source(data: bytes) -> str:
    """Decode like the interpreter does: BOM, then a PEP 263 cookie, then UTF-8."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        raise SourceError(f"cannot decode: {error}") from error
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        line = data[: getattr(error, "start", 0)].count(b"\n") + 1
        raise SourceError(f"cannot decode as {encoding}: {error}", line=line) from error


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "a FIFO"), (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder")):  # fmt: skip
        if test(mode):
            return name
    return "not a regular file"


def read_bytes(path: str, limit: int = MAX_SOURCE_BYTES) -> bytes:
    """A regular file's bytes; anything else (FIFO, device, socket) or a file over ``limit``
    is a SourceError. O_NONBLOCK: opening a FIFO must not wait for a writer."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except OSError as error:
        raise SourceError(f"cannot read: {error.strerror or error}") from error
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise SourceError(f"not linted: {_kind(info.st_mode)}, not a regular file")
        if info.st_size > limit:
            raise SourceError(f"not linted: {info.st_size:,} bytes, over the {limit:,}-byte limit")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(limit + 1)
    except OSError as error:
        raise SourceError(f"cannot read: {error.strerror or error}") from error
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew while we read it
        raise SourceError(f"not linted: over the {limit:,}-byte limit")
    return data


def read_source(path: str) -> str:
    return decode_source(read_bytes(path))


# --- discovery ------------------------------------------------------------------------------


@dataclass
class Discovery:
    """The files to lint, each with its settings, and the paths that could not be walked."""

    files: list[tuple[str, Settings]] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)  # (path, message): exit 2
    skipped: list[str] = field(default_factory=list)  # named, but excluded (--force-exclude)


class GitIgnores:
    """``.gitignore`` files of the git work tree a path lies in, each read once (pathspec)."""

    def __init__(self) -> None:
        self._specs: dict[Path, GitIgnoreSpec | None] = {}
        self._roots: dict[Path, Path | None] = {}

    def ignored(self, path: Path, is_dir: bool) -> bool:
        root = self._git_root(path.parent)
        if root is None:
            return False
        folders = [path.parent, *path.parent.parents]
        for folder in folders[: folders.index(root) + 1]:
            spec = self._spec(folder)
            if spec is not None and spec.match_file(path.relative_to(folder).as_posix() + ("/" if is_dir else "")):
                return True
        return False

    def _git_root(self, folder: Path) -> Path | None:
        if folder not in self._roots:
            if (folder / ".git").exists():
                self._roots[folder] = folder
            elif folder.parent == folder or not is_trusted_folder(folder.parent):
                self._roots[folder] = None
            else:
                self._roots[folder] = self._git_root(folder.parent)
        return self._roots[folder]

    def _spec(self, folder: Path) -> GitIgnoreSpec | None:
        if folder not in self._specs:
            try:
                lines = (folder / ".gitignore").read_text(encoding="utf-8", errors="replace").splitlines()
            except OSError:
                lines = []
            if lines:
                from pathspec import GitIgnoreSpec  # only runs that walk a git work tree pay for it

                self._specs[folder] = GitIgnoreSpec.from_lines(lines)
            else:
                self._specs[folder] = None
        return self._specs[folder]


@functools.lru_cache(maxsize=64)
def _matcher(patterns: tuple[str, ...]) -> Callable[[str], re.Match[str] | None]:
    """All patterns as one regex (fnmatch's translation): one match per name, not one per
    pattern (20 default patterns x 3 spellings x every file of a big tree add up)."""
    if not patterns:
        return lambda _: None
    return re.compile("|".join(f"(?:{fnmatch.translate(os.path.normcase(p))})" for p in patterns)).match


def _is_excluded(name: str, relatives: Sequence[str], patterns: Sequence[str]) -> bool:
    match = _matcher(tuple(patterns))
    return bool(match(os.path.normcase(name)) or any(match(os.path.normcase(r)) for r in relatives))


def _prefixes(folder: str, base: str, settings: Settings) -> list[str]:
    """A folder as patterns see it, relative to the linted folder and to the project root
    (each name under it is joined on): once per folder, not once per file."""
    found = [os.path.relpath(folder, base).replace(os.sep, "/")]
    if settings.root:
        found.append(os.path.relpath(os.path.abspath(folder), settings.root).replace(os.sep, "/"))
    return [prefix + "/" if prefix != "." else "" for prefix in found]


def _generates(name: str, siblings: Sequence[str]) -> bool:
    """transformers' ``modular_x.py``: the source its code generator expands into
    ``modeling_x.py`` beside it. It is never imported; its code runs, and is reported, in
    the generated file. (Named on the command line, it is linted like any file.)"""
    return name.startswith("modular_") and "modeling_" + name[len("modular_") :] in siblings


def _is_virtualenv(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, "pyvenv.cfg"))


SettingsOf = Callable[[str], Settings]


def discover(paths: Sequence[str], settings_of: SettingsOf) -> Discovery:
    """Python files under ``paths``. Files named explicitly are linted unless the settings
    say ``force-exclude``; a path that does not exist or a folder that cannot be listed is
    an error for that path, and the others are still linted."""
    found = Discovery()
    seen: set[str] = set()
    gitignores = GitIgnores()

    def add(path: str, settings: Settings) -> None:
        if path not in seen:
            seen.add(path)
            found.files.append((path, settings))

    for path in paths:
        if not os.path.lexists(path):
            found.errors.append((path, "no such file or directory"))
        elif not os.path.isdir(path) and not os.access(path, os.R_OK):
            found.errors.append((path, "permission denied"))
        elif not os.path.isdir(path):
            settings = settings_of(path)
            if settings.force_exclude and _named_is_excluded(path, settings, gitignores):
                found.skipped.append(path)
            else:
                add(os.path.normpath(path), settings)
        else:
            for file, settings in _walk(path, settings_of, gitignores, found.errors):
                add(file, settings)
    return found


def _named_is_excluded(path: str, settings: Settings, gitignores: GitIgnores) -> bool:
    """``--force-exclude``: the file, or a folder above it inside the project, is excluded."""
    absolute = Path(os.path.abspath(path))
    base = Path(settings.root) if settings.root else Path.cwd()
    patterns = settings.excluded_patterns()
    try:
        parts = absolute.relative_to(base).parts
    except ValueError:
        parts = (absolute.name,)
        base = absolute.parent
    for depth in range(1, len(parts) + 1):
        current = base.joinpath(*parts[:depth])
        relative = "/".join(parts[:depth])
        if _is_excluded(parts[depth - 1], [relative], patterns):
            return True
        if settings.respect_gitignore and gitignores.ignored(current, is_dir=depth < len(parts)):
            return True
    return False


def _walk(root: str, settings_of: SettingsOf, gitignores: GitIgnores, errors: list[tuple[str, str]]) -> Iterator[tuple[str, Settings]]:
    def failed(error: OSError) -> None:
        errors.append((error.filename or root, f"cannot list folder: {error.strerror or error}"))

    for folder, dirs, files in os.walk(root, onerror=failed):
        settings = settings_of(folder)
        patterns = settings.excluded_patterns()
        prefixes = _prefixes(folder, root, settings)
        absolute = Path(os.path.abspath(folder))
        kept = []
        for name in sorted(dirs):
            full = os.path.join(folder, name)
            if _is_excluded(name, [p + name for p in prefixes], patterns) or _is_virtualenv(full):
                continue
            if settings.respect_gitignore and gitignores.ignored(absolute / name, is_dir=True):
                continue
            kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            if not name.endswith((".py", ".pyi")) or _generates(name, files):
                continue
            if _is_excluded(name, [p + name for p in prefixes], patterns):
                continue
            if settings.respect_gitignore and gitignores.ignored(absolute / name, is_dir=False):
                continue
            yield os.path.normpath(os.path.join(folder, name)), settings  # "a.py", not "./a.py"
