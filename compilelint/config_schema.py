"""The keys of ``[tool.compilelint]``: one typed table that validates a config and emits its
JSON Schema (``compilelint config --schema``, for editors such as VS Code's Even Better TOML).

Hand-written rather than a pydantic model: the flake8 plugin and the pre-commit hooks load
the config on every run, and importing pydantic costs more than linting a small file (see
the commit that added this module for the measurement). Twelve keys of six shapes do not need
a framework; this table is the one place a new key is added.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

Shape = Literal["codes", "strings", "string", "bool", "number", "code-table", "table"]


class SchemaError(Exception):
    """A value that does not fit the schema (the caller adds the file name)."""


@dataclass(frozen=True)
class Key:
    name: str
    shape: Shape
    description: str
    keys: tuple[Key, ...] = ()  # the keys of a "table"


VERIFY_KEYS = (
    Key("targets", "strings", "Targets files for `compilelint verify`, relative to this pyproject.toml; they must lie inside the project."),
)

KEYS = (
    Key("select", "codes", "Rule code prefixes to enable (`CL`, `CL1`, `CL103`, `ALL`); replaces the default (every rule)."),
    Key("extend-select", "codes", "Rule code prefixes to enable on top of `select`."),
    Key("ignore", "codes", "Rule code prefixes to disable."),
    Key("exclude", "strings", "File and folder patterns to skip while walking folders; replaces the default list."),
    Key("extend-exclude", "strings", "Patterns to skip as well as `exclude`."),
    Key("respect-gitignore", "bool", "Skip files that `.gitignore` files of the git repository exclude (default true)."),
    Key("force-exclude", "bool", "Apply the excludes to files named on the command line too (as pre-commit passes them)."),
    Key("per-file-ignores", "code-table", "Glob (relative to this pyproject.toml) = rule code prefixes to disable in matching files."),
    Key("torch-version", "string", "The torch release findings assume (`\"2.11\"`); default: the installed torch's version."),
    Key("max-file-size", "number", "Per-file budget in MB (default 5): larger files get one CL999 'skipped' finding; 0: no limit."),
    Key("max-file-seconds", "number", "Per-file analysis budget in CPU seconds (default 60): slower files get one CL999 'skipped' finding; 0: no limit."),
    Key("verify", "table", "Settings of `compilelint verify`.", VERIFY_KEYS),
    Key("follow-imports", "string", "Follow compiled code into installed packages (`installed`, default), only into the run's files (`project`), or into no other file (`none`)."),
    Key("python-executable", "string", "The interpreter whose site-packages are followed (default: the one running compilelint); relative to this pyproject.toml."),
    Key("package-paths", "strings", "Folders searched for packages before site-packages, relative to this pyproject.toml."),
    Key("package-cache-dir", "string", "Where package summaries are kept (default `$COMPILELINT_CACHE_DIR` or `~/.cache/compilelint`); `\"\"` keeps them in memory."),
)


def check_table(table: Mapping[str, Any], keys: tuple[Key, ...], where: str) -> None:
    """Raise SchemaError for an unknown key (with a close match) or a value of the wrong shape."""
    known = {key.name: key for key in keys}
    for name, value in table.items():
        key = known.get(name)
        if key is None:
            close = difflib.get_close_matches(name, list(known), n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f"; known keys: {', '.join(known)}"
            raise SchemaError(f"{where}: unknown key '{name}'{hint}")
        _check_value(value, key, f"{where}.{name}" if key.shape == "table" else where)


def _check_value(value: Any, key: Key, where: str) -> None:
    if key.shape in ("codes", "strings"):
        if isinstance(value, str) and key.shape == "codes":
            return  # `select = "CL1"`: one prefix
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise SchemaError(f"{where}: '{key.name}' must be a list of strings, got {value!r}")
    elif key.shape == "string" and not isinstance(value, str):
        raise SchemaError(f"{where}: '{key.name}' must be a string, got {value!r}")
    elif key.shape == "bool" and not isinstance(value, bool):
        raise SchemaError(f"{where}: '{key.name}' must be true or false, got {value!r}")
    elif key.shape == "number" and (isinstance(value, bool) or not isinstance(value, (int, float))
                                    or not 0 <= value < float("inf")):  # fmt: skip
        raise SchemaError(f"{where}: '{key.name}' must be a number >= 0 (0: no limit), got {value!r}")
    elif key.shape == "code-table":
        if not isinstance(value, dict) or not all(isinstance(v, (list, str)) for v in value.values()):
            raise SchemaError(f"{where}: '{key.name}' must be a table of glob = [rule codes]")
    elif key.shape == "table":
        if not isinstance(value, dict):
            raise SchemaError(f"{where}: '{key.name}' must be a table")
        check_table(value, key.keys, where)


def json_schema() -> dict[str, Any]:
    """JSON Schema (draft 2020-12) of ``[tool.compilelint]``."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "[tool.compilelint]",
        "description": "compilelint's settings in pyproject.toml.",
        **_object(KEYS),
    }


CODE_PATTERN = "^(ALL|[Cc][Ll][0-9]{0,3})$"


def _object(keys: tuple[Key, ...]) -> dict[str, Any]:
    return {
        "type": "object",
        "additionalProperties": False,
        "properties": {key.name: {"description": key.description, **_shape(key)} for key in keys},
    }


def _shape(key: Key) -> dict[str, Any]:
    codes = {"type": "array", "items": {"type": "string", "pattern": CODE_PATTERN}}
    if key.shape == "codes":
        return codes
    if key.shape == "strings":
        return {"type": "array", "items": {"type": "string"}}
    if key.shape == "string":
        return {"type": "string"}
    if key.shape == "bool":
        return {"type": "boolean"}
    if key.shape == "number":
        return {"type": "number", "minimum": 0}
    if key.shape == "code-table":
        return {"type": "object", "additionalProperties": codes}
    return _object(key.keys)
