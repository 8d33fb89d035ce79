"""What a zoo recording says Dynamo did: break sites, traced lines, guard sites.

bench/zoo/run_all.py writes one JSON per venv and package (or, in older recordings,
per venv over several libraries).  Paths in it are spelled from the package's
folder (``transformers/models/bert/modeling_bert.py``); the first component is the
package a site belongs to.
"""

from __future__ import annotations

import collections
import dis
import functools
import os
import re
import types
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

# The three classes of break site, each with its own recall line.
DEFAULT = "default"  # breaks under a plain torch.compile, eval or train (the quality bar counts these)
DYNAMIC_ONLY = "dynamic-only"  # breaks only once every size is symbolic (dynamic=True)
FULLGRAPH_ONLY = "fullgraph-only"  # fails fullgraph=True, never breaks the default mode


@dataclass
class Site:
    """One place Dynamo broke, over all models of a zoo recording."""

    path: str
    line: int
    gb_id: str
    gb_type: str
    modes: set[str] = field(default_factory=set)
    models: set[str] = field(default_factory=set)

    @property
    def package(self) -> str:
        return package_of(self.path)

    @property
    def kind(self) -> str:
        if self.modes & {"default", "train"}:
            return DEFAULT
        if "dynamic" in self.modes:
            return DYNAMIC_ONLY
        return FULLGRAPH_ONLY

    def describe(self) -> str:
        return f"{self.path}:{self.line} {self.gb_id} {self.gb_type} ({', '.join(sorted(self.models))})"


def package_of(path: str) -> str:
    return path.split("/", 1)[0]


def package_roots(zoo: dict[str, Any]) -> dict[str, str]:
    """package name -> installed package folder (…/site-packages/transformers).

    A recording made in another checkout names that checkout's venv; when the folder is
    gone, the same venv name is looked up beside this checkout (or under /work/venvs)."""
    roots: dict[str, str] = {}
    for model in zoo["models"]:
        root = model.get("package_root") or model.get("library_root")
        if root:
            root = root.rstrip("/")
            roots[os.path.basename(root)] = _local_root(root, zoo.get("meta") or {})
    return roots


def _local_root(root: str, meta: dict[str, Any]) -> str:
    if os.path.isdir(root):
        return root
    marker = "site-packages" + os.sep
    if marker not in root:
        return root
    tail = root.split(marker, 1)[1]
    label = str(meta.get("venv") or "")
    for venv in (ROOT / f".{label}", ROOT / label, Path("/work/venvs") / label):
        for candidate in venv.glob(f"lib/python*/site-packages/{tail}"):
            return str(candidate)
    return root


def relative(path: str, roots: dict[str, str]) -> str | None:
    """…/site-packages/transformers/x.py -> transformers/x.py (the zoo's spelling)."""
    for root in roots.values():
        if path.startswith(root + os.sep):
            return os.path.join(os.path.basename(root), os.path.relpath(path, root))
    return None


def break_sites(zoo: dict[str, Any]) -> tuple[dict[tuple[str, int], Site], collections.Counter[str]]:
    """Every site in package code where a mode broke, and the count of break events
    outside the packages (in torch itself or in the zoo's own case code), by mode."""
    sites: dict[tuple[str, int], Site] = {}
    outside: collections.Counter[str] = collections.Counter()
    for model in zoo["models"]:
        for mode in ("default", "train", "dynamic", "fullgraph"):
            record = model.get(mode) or {}
            events = list(record.get("breaks") or [])
            error = _error_site(record)  # the compiled call raised (fullgraph: the first break)
            if error:
                events.append(error)
            for event in events:
                if not event.get("in_library", True) or not event.get("path"):
                    outside[mode] += 1
                    continue
                key = (event["path"], int(event["line"]))
                gb_id = event.get("root_gb_id") or event.get("gb_id") or "?"
                gb_type = event.get("root_gb_type") or event.get("gb_type") or ""
                site = sites.setdefault(key, Site(key[0], key[1], gb_id, gb_type))
                site.modes.add(mode)
                site.models.add(model["name"])
    return sites, outside


USER_FRAME = re.compile(r'File "[^"]*/site-packages/([^"]+)", line (\d+)')


def _error_site(record: dict[str, Any]) -> dict[str, Any] | None:
    """Where a compiled run raised, in package code (the innermost "from user code" frame)."""
    error = record.get("error")
    if not isinstance(error, dict):
        return None
    path, line = error.get("path"), error.get("line")
    if not error.get("in_library", True) or not path:
        frames = USER_FRAME.findall(error.get("message") or "")
        if not frames:
            return None
        path, line = frames[-1][0], int(frames[-1][1])
    return {
        "path": path,
        "line": line,
        "gb_id": error.get("root_gb_id") or error.get("gb_id") or _guard_error_id(error),
        "root_gb_type": error.get("root_gb_type") or error.get("gb_type") or error.get("type", ""),
        "in_library": True,
    }


def _guard_error_id(error: dict[str, Any]) -> str:
    """fullgraph's data-dependent guard errors carry no GB id: count them as GB0170/GB0033."""
    message = error.get("message") or ""
    if "Could not guard on data-dependent" in message:
        return "GB0170"
    if "data-dependent" in message or "unbacked" in message.lower():
        return "GB0033"
    return "?"


def traced_lines(zoo: dict[str, Any], modes: tuple[str, ...]) -> dict[str, set[int]]:
    """Lines Dynamo's interpreter reached in these modes, over all models and variants:
    a claim about a line Dynamo never traced (it ran eager after an earlier break, or
    was never called) cannot be judged.

    Dynamo reports a line for every instruction it steps, including the artificial jump
    that ends an if-body and skips its else (CPython 3.11 files it under the body's last
    line, with no position). A test that is false jumps straight to it, so such a line is
    "traced" without its statement running; it counts only where the eager run executed it.
    """
    roots = package_roots(zoo)
    lines: dict[str, set[int]] = collections.defaultdict(set)
    for model in zoo["models"]:
        ran = model.get("coverage") or {}
        for mode in modes:
            for per_path in ((model.get(mode) or {}).get("traced_lines") or {}).values():
                for path, numbers in per_path.items():
                    jumps = _jump_only_lines(_source_path(path, roots))
                    lines[path].update(n for n in numbers if n not in jumps or n in ran.get(path, ()))
    return lines


def _source_path(path: str, roots: dict[str, str]) -> str:
    root = roots.get(package_of(path), "")
    return os.path.join(root, path.split("/", 1)[1]) if root and "/" in path else ""


@functools.lru_cache(maxsize=None)
def _jump_only_lines(source_path: str) -> frozenset[int]:
    """Lines holding a jump target without a position of its own (see ``traced_lines``);
    compiled by this interpreter, which must be the recording's minor version."""
    try:
        code = compile(Path(source_path).read_bytes(), source_path, "exec", dont_inherit=True)
    except (OSError, SyntaxError, ValueError):
        return frozenset()
    found: set[int] = set()
    pending = [code]
    while pending:
        current = pending.pop()
        pending.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
        line = None
        for instruction in dis.get_instructions(current):
            line = instruction.starts_line or line
            positions = instruction.positions
            if instruction.is_jump_target and line and (positions is None or positions.lineno is None):
                found.add(line)
    return frozenset(found)


def executed_lines(zoo: dict[str, Any]) -> dict[str, set[int]]:
    """Lines some model ran eagerly (the recompile rules are judged on these)."""
    lines: dict[str, set[int]] = collections.defaultdict(set)
    for model in zoo["models"]:
        for path, numbers in (model.get("coverage") or {}).items():
            lines[path].update(numbers)
    return lines


GUARD_SOURCE = re.compile(r"#\s*(?:[^#]*?)\s*#\s*(\S+\.py):(\d+)")


def recompile_sites(zoo: dict[str, Any]) -> set[tuple[str, int]]:
    """(path, line) of the statements that made Dynamo guard on a value or a size: those
    named by failed guards in recompile reasons (``... # if x.shape[0] > 128:  #
    transformers/x.py:12 in f``), and those that installed symbolic shape guards once
    shapes went dynamic (a real specialization, even where no later input failed it)."""
    found: set[tuple[str, int]] = set()
    for model in zoo["models"]:
        for mode in ("default", "train", "dynamic"):
            for path, line in (model.get(mode) or {}).get("shape_guard_sites") or []:
                found.add((path, int(line)))
        recompiles = (model.get("default") or {}).get("recompiles") or {}
        for event in recompiles.get("events") or []:
            for reason in event.get("reasons") or []:
                for path, line in GUARD_SOURCE.findall(reason):
                    found.add((_package_relative(path), int(line)))
    return found


def _package_relative(path: str) -> str:
    marker = "site-packages/"
    return path.split(marker, 1)[1] if marker in path else path
