"""How often the zoo (``bench/zoo``) hit each GB id: read from ``bench/results/zoo-*.json``.

Each results file's ``summary`` has ``gb_type_counts`` (``{"gb_type": "GB0036 Dynamic
shape operator", "events": 24, "models": 1}``: every break event, outer frames and
"graph break in loop" included) and ``root_gb_type_models`` (models per root cause, loops
unwrapped). Counts are summed over the files: each file is one run of the zoo over its own
set of models (one virtual environment), so models are not counted twice within a file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from compilelint.graph_breaks import RegistryEntry, ZooHits

ZOO_GLOB = "zoo-*.json"
GB_LABEL = re.compile(r"^(GB\d{4})\b\s*(.*)$")


@dataclass
class _Tally:
    events: int = 0
    models: int = 0
    root_models: int = 0


@dataclass(frozen=True)
class ZooReading:
    files: tuple[str, ...]  # as named in the doc: relative to the results' repository
    hits: Mapping[str, ZooHits]
    unmatched: Mapping[str, int] = field(default_factory=dict)  # label -> events, no GB id found


def repository_results_dir() -> Path | None:
    """``bench/results`` of the checkout this package runs from (absent in a wheel)."""
    results = Path(__file__).resolve().parent.parent / "bench" / "results"
    return results if results.is_dir() else None


def zoo_files(results_dir: Path | None) -> list[Path]:
    return sorted(results_dir.glob(ZOO_GLOB)) if results_dir is not None else []


def read_zoo_hits(files: Sequence[Path], registry: Mapping[str, RegistryEntry], root: Path | None = None) -> ZooReading:
    """Events and models per GB id over ``files``; ``root`` makes the listed names relative."""
    by_type = _gb_ids_by_type(registry)
    tallies: dict[str, _Tally] = {}
    unmatched: dict[str, int] = {}
    for path in files:
        summary = json.loads(path.read_text(encoding="utf-8")).get("summary", {})
        for row in summary.get("gb_type_counts", []):
            gb_id = _gb_id(row["gb_type"], by_type)
            if gb_id is None:
                unmatched[row["gb_type"]] = unmatched.get(row["gb_type"], 0) + int(row["events"])
                continue
            tally = tallies.setdefault(gb_id, _Tally())
            tally.events += int(row["events"])
            tally.models += int(row["models"])
        for row in summary.get("root_gb_type_models", []):
            gb_id = _gb_id(row["root_gb_type"], by_type)
            if gb_id is not None:
                tallies.setdefault(gb_id, _Tally()).root_models += int(row["models"])
    names = tuple(_name(path, root) for path in files)
    hits = {gb_id: ZooHits(t.events, t.models, t.root_models) for gb_id, t in sorted(tallies.items())}
    return ZooReading(names, hits, dict(sorted(unmatched.items())))


def _gb_ids_by_type(registry: Mapping[str, RegistryEntry]) -> dict[str, str]:
    by_type = {}
    for gb_id, entry in registry.items():
        for gb_type in (*entry.former_gb_types, entry.gb_type):
            by_type[gb_type] = gb_id
    return by_type


def _gb_id(label: str, by_type: Mapping[str, str]) -> str | None:
    """``"GB0036 Dynamic shape operator"`` -> ``GB0036``; a bare gb_type is looked up."""
    match = GB_LABEL.match(label)
    if match:
        return match.group(1)
    return by_type.get(label.strip())


def _name(path: Path, root: Path | None) -> str:
    if root is not None:
        try:
            return path.resolve().relative_to(root.resolve()).as_posix()
        except ValueError:
            pass
    return path.name
