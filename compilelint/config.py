"""Settings: defaults, ``[tool.compilelint]`` in pyproject.toml, then command-line flags."""

from __future__ import annotations

import fnmatch
import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on 3.10 only
    import tomli as tomllib

DEFAULT_EXCLUDES = (
    ".git",
    ".hg",
    ".svn",
    ".bzr",
    ".venv",
    "venv",
    ".tox",
    ".nox",
    ".eggs",
    "*.egg-info",
    ".mypy_cache",
    ".pytest_cache",
    ".ruff_cache",
    "__pycache__",
    "__pypackages__",
    "build",
    "dist",
    "node_modules",
    "site-packages",
)
KNOWN_KEYS = frozenset(
    {"select", "ignore", "extend-select", "exclude", "extend-exclude", "per-file-ignores", "verify"}
)


class ConfigError(Exception):
    """Bad configuration: exit code 2 with this message."""


@dataclass(frozen=True)
class Selection:
    """One layer of rule selection (defaults, pyproject, command line)."""

    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    def apply(self, enabled: set[str], codes: Iterable[str]) -> set[str]:
        """ruff's resolution: a layer's ``select`` resets; the most specific prefix wins."""
        result = set() if self.select is not None else set(enabled)
        chosen = (self.select or ()) + self.extend_select
        for code in codes:
            on = max((len(p) for p in chosen if code.startswith(p)), default=-1)
            off = max((len(p) for p in self.ignore if code.startswith(p)), default=-1)
            if on > off:
                result.add(code)
            elif off >= 0 and off >= on:
                result.discard(code)
        return result


@dataclass(frozen=True)
class Settings:
    layers: tuple[Selection, ...] = (Selection(select=("CL",)),)
    exclude: tuple[str, ...] = DEFAULT_EXCLUDES
    extend_exclude: tuple[str, ...] = ()
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    root: str | None = None  # folder of the pyproject.toml that configured us
    config_path: str | None = None
    verify_targets: tuple[str, ...] = ()
    torch_prefilter: bool = True  # skip files that never mention torch (TorchFix's trick)
    apply_noqa: bool = True  # the flake8 plugin leaves `# noqa` to flake8 (--disable-noqa works)

    def enabled_codes(self, codes: Sequence[str], path: str | None = None) -> frozenset[str]:
        enabled: set[str] = set()
        for layer in self.layers:
            enabled = layer.apply(enabled, codes)
        if path is not None and self.per_file_ignores:
            for pattern, prefixes in self.per_file_ignores:
                if self._path_matches(path, pattern):
                    enabled = {c for c in enabled if not c.startswith(prefixes)}
        return frozenset(enabled)

    def _path_matches(self, path: str, pattern: str) -> bool:
        absolute = os.path.abspath(path)
        relative = os.path.relpath(absolute, self.root) if self.root else path
        candidates = {relative.replace(os.sep, "/"), os.path.basename(path)}
        return any(fnmatch.fnmatch(c, pattern) for c in candidates)

    def excluded_patterns(self) -> tuple[str, ...]:
        return self.exclude + self.extend_exclude


def find_pyproject(paths: Sequence[str]) -> Path | None:
    """The nearest pyproject.toml with a [tool.compilelint] table, walking up from the paths."""
    start = Path(os.path.commonpath([os.path.abspath(p) for p in paths])) if paths else Path.cwd()
    if start.is_file():
        start = start.parent
    for folder in (start, *start.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
                raise ConfigError(f"{candidate}: cannot read: {error}") from error
            if "compilelint" in data.get("tool", {}):
                return candidate
    return None


def load_settings(
    paths: Sequence[str], overrides: Mapping[str, Any] | None = None, config: str | None = None
) -> Settings:
    """Settings for linting ``paths``: pyproject.toml found above them, then ``overrides``."""
    settings = Settings()
    pyproject = Path(config) if config else find_pyproject(paths)
    if pyproject is not None:
        settings = _from_pyproject(settings, pyproject)
    if overrides:
        settings = _with_overrides(settings, overrides)
    return settings


def _codes(value: Any, key: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: '{key}' must be a list of rule code prefixes, got {value!r}")
    for code in value:
        if code != "ALL" and not (code.upper().startswith("CL") and code[2:].isdigit()):
            raise ConfigError(f"{where}: '{key}' has {code!r}, which is not a rule code prefix like CL1 or CL101")
    return tuple("CL" if c == "ALL" else c.upper() for c in value)


def _from_pyproject(settings: Settings, path: Path) -> Settings:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from error
    table = data.get("tool", {}).get("compilelint", {})
    where = f"{path} [tool.compilelint]"
    unknown = set(table) - KNOWN_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(sorted(unknown))}; known: {', '.join(sorted(KNOWN_KEYS))}")
    layer = Selection(
        select=_codes(table["select"], "select", where) if "select" in table else None,
        extend_select=_codes(table.get("extend-select", []), "extend-select", where),
        ignore=_codes(table.get("ignore", []), "ignore", where),
    )
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{where}: 'per-file-ignores' must be a table of glob = [codes]")
    return replace(
        settings,
        layers=settings.layers + (layer,),
        exclude=_strings(table, "exclude", where, settings.exclude),
        extend_exclude=_strings(table, "extend-exclude", where, ()),
        per_file_ignores=tuple((glob, _codes(codes, f"per-file-ignores.{glob}", where)) for glob, codes in per_file.items()),
        root=str(path.parent),
        config_path=str(path),
        verify_targets=_verify_targets(table, where, path.parent),
    )


def _strings(table: Mapping[str, Any], key: str, where: str, default: tuple[str, ...]) -> tuple[str, ...]:
    if key not in table:
        return default
    value = table[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: '{key}' must be a list of strings")
    return tuple(value)


def _verify_targets(table: Mapping[str, Any], where: str, root: Path) -> tuple[str, ...]:
    verify = table.get("verify", {})
    if not isinstance(verify, dict):
        raise ConfigError(f"{where}: 'verify' must be a table")
    targets = _strings(verify, "targets", f"{where}.verify", ())
    return tuple(str(root / t) for t in targets)


def _with_overrides(settings: Settings, overrides: Mapping[str, Any]) -> Settings:
    layer = Selection(
        select=_codes(overrides["select"], "--select", "command line") if overrides.get("select") else None,
        extend_select=_codes(overrides.get("extend_select") or [], "--extend-select", "command line"),
        ignore=_codes(overrides.get("ignore") or [], "--ignore", "command line"),
    )
    changes: dict[str, Any] = {"layers": settings.layers + (layer,)}
    if overrides.get("exclude"):
        changes["exclude"] = tuple(overrides["exclude"])
    if overrides.get("extend_exclude"):
        changes["extend_exclude"] = settings.extend_exclude + tuple(overrides["extend_exclude"])
    return replace(settings, **changes)


DEFAULT_SETTINGS = Settings()
