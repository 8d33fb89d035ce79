"""Settings: defaults, the nearest ``[tool.compilelint]`` above each file, then flags.

Each file gets the configuration of the nearest ``pyproject.toml`` with a
``[tool.compilelint]`` table in its folder or above it (ruff's hierarchy: the closest one
wins whole), whatever else is on the command line. The walk up stops at the project
root: the first ``pyproject.toml`` (with our table or not), a folder holding ``.git``,
or a folder the user does not own or that anyone may write to (``/tmp``), so a
``pyproject.toml`` planted above the project is never read.
"""

from __future__ import annotations

import difflib
import fnmatch
import os
import stat
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from compilelint.config_schema import KEYS, SchemaError, check_table

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
    ".compilelint_cache",
    "__pycache__",
    "__pypackages__",
    "build",
    "dist",
    "node_modules",
    "site-packages",
)
ENGINE_CODES = ("CL900", "CL999")
# Per-file budget (bench/scaling.py): the analysis holds the file's ast, about 170 bytes
# per byte of source, and takes several seconds per MB.
MAX_FILE_MB = 5.0
MAX_FILE_SECONDS = 60.0
# libcst, which --fix needs, takes about a minute per 100,000 nodes (a 0.5 MB tuple literal);
# counted in nodes, not bytes, so a large docstring or data string costs nothing.
MAX_FIX_NODES = 250_000
FOLLOW_IMPORTS = ("installed", "project", "none")


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
    respect_gitignore: bool = True
    force_exclude: bool = False
    torch_prefilter: bool = True  # skip files that never mention torch (TorchFix's trick)
    apply_noqa: bool = True  # the flake8 plugin leaves `# noqa` to flake8 (--disable-noqa works)
    # The torch release the findings assume ("2.11"); None: the installed torch's version,
    # read from package metadata (compilelint/torch_versions.py), never by importing torch.
    torch_version: str | None = None
    release_claims: bool = True  # False: every candidate, as the rules state it (bench/claims.py)
    max_file_bytes: int = int(MAX_FILE_MB * (1 << 20))  # larger files: CL999 "skipped"; 0: no limit
    max_file_seconds: float = MAX_FILE_SECONDS  # analysis time per file; 0: no limit
    max_fix_nodes: int = MAX_FIX_NODES  # --fix leaves files with more syntax nodes alone, saying so
    # like mypy's: "installed" follows compiled code into site-packages, "project" only
    # into the files of the run, "none" into no other file
    follow_imports: str = "installed"
    python_executable: str | None = None  # whose site-packages to follow (default: ours)
    package_cache_dir: str | None = None  # package summaries; "" keeps them in memory only
    package_paths: tuple[str, ...] = ()  # folders searched for packages before site-packages

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

    def to_json(self) -> dict[str, Any]:
        """What ``--show-settings`` prints: the effective settings of one file."""
        from compilelint.registry import all_rules
        from compilelint.torch_versions import assume

        codes = [rule.code for rule in all_rules()] + list(ENGINE_CODES)
        return {
            "config": self.config_path,
            "project_root": self.root,
            "enabled": sorted(self.enabled_codes(codes)),
            "exclude": list(self.exclude),
            "extend_exclude": list(self.extend_exclude),
            "per_file_ignores": {glob: list(codes) for glob, codes in self.per_file_ignores},
            "respect_gitignore": self.respect_gitignore,
            "force_exclude": self.force_exclude,
            "verify_targets": list(self.verify_targets),
            "torch_version": self.torch_version,
            "torch_assumed": assume(self.torch_version).describe(),
        }


# --- finding the configuration ------------------------------------------------------------


@dataclass(frozen=True)
class Lookup:
    """Where the walk up from a folder ended: the config it found, and the project root."""

    config: Path | None
    root: Path | None


def is_trusted_folder(folder: Path) -> bool:
    """A folder whose files only the user (or root) can have put there."""
    try:
        info = folder.stat()
    except OSError:
        return False
    owner_ok = info.st_uid == os.geteuid() if hasattr(os, "geteuid") else True
    return owner_ok and not info.st_mode & stat.S_IWOTH


def _has_our_table(candidate: Path) -> bool:
    try:
        data = tomllib.loads(candidate.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{candidate}: cannot read: {error}") from error
    return "compilelint" in data.get("tool", {})


class ConfigFinder:
    """The nearest config of each folder, each folder asked about once."""

    def __init__(self) -> None:
        self._found: dict[Path, Lookup] = {}

    def lookup(self, start: Path) -> Lookup:
        visited: list[Path] = []
        result = Lookup(None, None)
        for folder in (start, *start.parents):
            if folder in self._found:
                result = self._found[folder]
                break
            if not is_trusted_folder(folder):
                break
            visited.append(folder)
            candidate = folder / "pyproject.toml"
            if candidate.is_file():
                result = Lookup(candidate if _has_our_table(candidate) else None, folder)
                break
            if (folder / ".git").exists():
                result = Lookup(None, folder)
                break
        for folder in visited:
            self._found[folder] = result
        return result


def find_pyproject(paths: Sequence[str]) -> Path | None:
    """The config that applies to the common folder of ``paths`` (or the current folder)."""
    return ConfigFinder().lookup(_anchor(paths)).config


def _anchor(paths: Sequence[str]) -> Path:
    start = Path(os.path.commonpath([os.path.abspath(p) for p in paths])) if paths else Path.cwd()
    return start if start.is_dir() else start.parent


# --- reading it -----------------------------------------------------------------------------


class SettingsResolver:
    """The settings of each file: its nearest config (or ``--config``), then the flags."""

    def __init__(self, overrides: Mapping[str, Any] | None = None, config: str | None = None) -> None:
        self._overrides = overrides or {}
        self._finder = ConfigFinder()
        self._by_config: dict[Path | None, Settings] = {}
        self._fixed = self._settings(Path(config).resolve(), None) if config else None
        self.used: dict[Path | None, Settings] = {}

    def for_path(self, path: str) -> Settings:
        """Settings for a file (or a folder: the settings of the files directly in it)."""
        if self._fixed is not None:
            self.used.setdefault(Path(self._fixed.config_path or ""), self._fixed)
            return self._fixed
        folder = Path(os.path.abspath(path))
        while not folder.is_dir() and folder.parent != folder:  # --stdin-filename may not exist
            folder = folder.parent
        lookup = self._finder.lookup(folder)
        settings = self._settings(lookup.config, lookup.root)
        self.used.setdefault(lookup.config, settings)
        return settings

    def _settings(self, config: Path | None, root: Path | None) -> Settings:
        key = config if config is not None else root
        if key not in self._by_config:
            settings = Settings(root=str(root) if root else None)
            if config is not None:
                settings = _from_pyproject(settings, config)
            if self._overrides:
                settings = _with_overrides(settings, self._overrides)
            self._by_config[key] = settings
        return self._by_config[key]


def load_settings(
    paths: Sequence[str], overrides: Mapping[str, Any] | None = None, config: str | None = None
) -> Settings:
    """One Settings for ``paths``: the config of their common folder, then ``overrides``."""
    return SettingsResolver(overrides, config).for_path(str(_anchor(paths)))


def known_codes() -> list[str]:
    from compilelint.registry import all_rules  # rules load once; config stays import-light

    return [rule.code for rule in all_rules()] + list(ENGINE_CODES)


def _codes(value: Any, key: str, where: str) -> tuple[str, ...]:
    """Rule code prefixes; one no rule code starts with is an error (ruff's rule)."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(f"{where}: '{key}' must be a list of rule code prefixes, got {value!r}")
    codes = known_codes()
    prefixes = []
    for raw in value:
        prefix = "CL" if raw.upper() == "ALL" else raw.strip().upper()
        if not (prefix.startswith("CL") and prefix[2:].isdigit() or prefix == "CL"):
            raise ConfigError(f"{where}: '{key}' has {raw!r}, which is not a rule code prefix like CL1 or CL101")
        if not any(code.startswith(prefix) for code in codes):
            close = difflib.get_close_matches(prefix, codes, n=2, cutoff=0.6)
            hint = f"; did you mean {' or '.join(close)}?" if close else "; 'compilelint rules' lists them"
            raise ConfigError(f"{where}: '{key}' has unknown rule code {raw!r}: no rule starts with it{hint}")
        prefixes.append(prefix)
    return tuple(prefixes)


def _from_pyproject(settings: Settings, path: Path) -> Settings:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(f"{path}: cannot read: {error}") from error
    table = data.get("tool", {}).get("compilelint", {})
    where = f"{path} [tool.compilelint]"
    try:
        check_table(table, KEYS, where)
    except SchemaError as error:
        raise ConfigError(str(error)) from error
    layer = Selection(
        select=_codes(table["select"], "select", where) if "select" in table else None,
        extend_select=_codes(table.get("extend-select", []), "extend-select", where),
        ignore=_codes(table.get("ignore", []), "ignore", where),
    )
    per_file = table.get("per-file-ignores", {})
    return replace(
        settings,
        layers=settings.layers + (layer,),
        exclude=tuple(table.get("exclude", settings.exclude)),
        extend_exclude=tuple(table.get("extend-exclude", ())),
        per_file_ignores=tuple((glob, _codes(codes, f"per-file-ignores.{glob}", where)) for glob, codes in per_file.items()),
        root=str(path.parent),
        config_path=str(path),
        verify_targets=_verify_targets(table.get("verify", {}).get("targets", []), path.parent, where),
        respect_gitignore=table.get("respect-gitignore", settings.respect_gitignore),
        force_exclude=table.get("force-exclude", settings.force_exclude),
        torch_version=_torch_version(table["torch-version"], f"{where}: 'torch-version'")
        if "torch-version" in table else settings.torch_version,
        max_file_bytes=int(table.get("max-file-size", MAX_FILE_MB) * (1 << 20)),
        max_file_seconds=float(table.get("max-file-seconds", MAX_FILE_SECONDS)),
        **_follow_settings(table, where, path.parent, settings),
    )


def _torch_version(value: str, where: str) -> str:
    from compilelint.torch_versions import parse_release

    try:
        parse_release(value)
    except ValueError as error:
        raise ConfigError(f"{where}: {error}") from error
    return value


def _follow_settings(table: Mapping[str, Any], where: str, root: Path, settings: Settings) -> dict[str, Any]:
    follow = table.get("follow-imports", settings.follow_imports)
    if follow not in FOLLOW_IMPORTS:
        raise ConfigError(f"{where}: 'follow-imports' must be one of {', '.join(FOLLOW_IMPORTS)}, got {follow!r}")
    changes: dict[str, Any] = {"follow_imports": follow}
    if "package-paths" in table:
        changes["package_paths"] = tuple(str(root / p) for p in table["package-paths"])
    for key, attribute in (("python-executable", "python_executable"), ("package-cache-dir", "package_cache_dir")):
        if key in table:
            value = table[key]
            changes[attribute] = str(root / os.path.expanduser(value)) if value else value
    return changes


def _verify_targets(targets: Sequence[str], root: Path, where: str) -> tuple[str, ...]:
    """Targets files are imported and run: one outside the project (``../x.py``, an absolute
    path, a symlink out) is refused; name it with ``--targets`` to run it anyway."""
    inside = os.path.realpath(root)
    paths = []
    for target in targets:
        path = os.path.realpath(root / target)
        if os.path.commonpath([inside, path]) != inside:
            raise ConfigError(f"{where}: verify target {target!r} lies outside the project ({root}); name it with --targets")
        paths.append(str(root / target))
    return tuple(paths)


def _with_overrides(settings: Settings, overrides: Mapping[str, Any]) -> Settings:
    layer = Selection(
        select=_codes(overrides["select"], "--select", "command line") if overrides.get("select") else None,
        extend_select=_codes(overrides.get("extend_select") or [], "--extend-select", "command line"),
        ignore=_codes(overrides.get("ignore") or [], "--ignore", "command line"),
    )
    changes: dict[str, Any] = {"layers": settings.layers + (layer,)}
    if overrides.get("exclude"):
        changes["exclude"] = tuple(overrides["exclude"])
    if overrides.get("follow_imports"):
        if overrides["follow_imports"] not in FOLLOW_IMPORTS:
            raise ConfigError(f"--follow-imports must be one of {', '.join(FOLLOW_IMPORTS)}")
        changes["follow_imports"] = overrides["follow_imports"]
    if overrides.get("python_executable"):
        changes["python_executable"] = overrides["python_executable"]
    if overrides.get("extend_exclude"):
        changes["extend_exclude"] = settings.extend_exclude + tuple(overrides["extend_exclude"])
    for flag in ("respect_gitignore", "force_exclude"):
        if overrides.get(flag) is not None:
            changes[flag] = overrides[flag]
    if overrides.get("torch_version"):
        changes["torch_version"] = _torch_version(overrides["torch_version"], "--torch-version")
    return replace(settings, **changes)


DEFAULT_SETTINGS = Settings()
