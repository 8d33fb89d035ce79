"""Which files to lint, and reading them as Python source (encoding cookie, BOM)."""

from __future__ import annotations

import fnmatch
import io
import os
import tokenize
from collections.abc import Iterator, Sequence

from compilelint.config import Settings


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


def read_source(path: str) -> str:
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        raise SourceError(f"cannot read: {error.strerror or error}") from error
    return decode_source(data)


def _is_excluded(name: str, relative: str, patterns: Sequence[str]) -> bool:
    return any(fnmatch.fnmatch(name, p) or fnmatch.fnmatch(relative, p) for p in patterns)


def _generates(name: str, siblings: Sequence[str]) -> bool:
    """transformers' ``modular_x.py``: the source its code generator expands into
    ``modeling_x.py`` beside it. It is never imported; its code runs, and is reported, in
    the generated file. (Named on the command line, it is linted like any file.)"""
    return name.startswith("modular_") and "modeling_" + name[len("modular_") :] in siblings


def _is_virtualenv(folder: str) -> bool:
    return os.path.isfile(os.path.join(folder, "pyvenv.cfg"))


def discover(paths: Sequence[str], settings: Settings) -> Iterator[str]:
    """Python files under ``paths``. Files named explicitly are always linted."""
    patterns = settings.excluded_patterns()
    seen: set[str] = set()
    for path in paths:
        if os.path.isfile(path) or not os.path.exists(path):
            if path not in seen:  # a missing file is reported by the engine as CL900
                seen.add(path)
                yield path
            continue
        for found in _walk(path, patterns):
            if found not in seen:
                seen.add(found)
                yield found


def _walk(root: str, patterns: Sequence[str]) -> Iterator[str]:
    for folder, dirs, files in os.walk(root):
        relative_folder = os.path.relpath(folder, root)
        kept = []
        for name in sorted(dirs):
            relative = os.path.normpath(os.path.join(relative_folder, name)).replace(os.sep, "/")
            full = os.path.join(folder, name)
            if _is_excluded(name, relative, patterns) or _is_virtualenv(full):
                continue
            kept.append(name)
        dirs[:] = kept
        for name in sorted(files):
            if not name.endswith((".py", ".pyi")) or _generates(name, files):
                continue
            relative = os.path.normpath(os.path.join(relative_folder, name)).replace(os.sep, "/")
            if not _is_excluded(name, relative, patterns):
                yield os.path.normpath(os.path.join(folder, name))  # "a.py", not "./a.py"
