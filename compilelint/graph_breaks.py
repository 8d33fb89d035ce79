"""Dynamo's graph-break registry, each entry classified by what the linter can do about it.

torch ships ``torch/_dynamo/graph_break_registry.json``: every graph-break type (GB id)
with its gb_type, context, explanation and hints. Each entry here is one of:

- ``rule``: a rule's ``gb_ids`` name it (derived from the rules, never stored);
- ``static``: visible in source, no rule yet (the note says what to flag);
- ``runtime``: needs runtime values: the verifier reports it;
- ``internal``: internal to Dynamo: users cannot cause it from source.

The last three live in ``data/graph_break_classes.toml``, one line per GB id. The
registry is read from the installed torch through its package metadata (torch is never
imported); without torch, from the copy of torch 2.13's registry shipped here.
"""

from __future__ import annotations

import enum
import json
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import metadata, resources
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REGISTRY_IN_TORCH = "torch/_dynamo/graph_break_registry.json"
SHIPPED_REGISTRY = "graph_break_registry-torch-2.13.json"
SHIPPED_TORCH = "2.13"
CLASSES_FILE = "graph_break_classes.toml"


class Category(enum.Enum):
    RULE = "rule"
    STATIC = "static"
    RUNTIME = "runtime"
    INTERNAL = "internal"
    UNCLASSIFIED = "unclassified"  # in the installed torch's registry, not yet in the file

    @property
    def label(self) -> str:
        return CATEGORY_LABELS[self]


CATEGORY_LABELS = {
    Category.RULE: "covered by a rule",
    Category.STATIC: "statically visible, no rule yet",
    Category.RUNTIME: "needs runtime values: the verifier reports it",
    Category.INTERNAL: "internal to Dynamo: users cannot cause it from source",
    Category.UNCLASSIFIED: "not classified yet (new in this torch)",
}


@dataclass(frozen=True)
class RegistryEntry:
    """One GB id as the registry states it now (its first version; older ones follow)."""

    gb_id: str
    gb_type: str
    context: str
    explanation: str
    hints: tuple[str, ...]
    former_gb_types: tuple[str, ...] = ()


def hint_sentences(hints: Sequence[str]) -> list[str]:
    """The registry splits long hints into fragments that end in a space: join them back."""
    sentences: list[str] = []
    continues = False
    for hint in hints:
        if continues and sentences:
            sentences[-1] += hint
        else:
            sentences.append(hint)
        continues = hint.endswith((" ", "\n"))
    return [" ".join(sentence.split()) for sentence in sentences]


@dataclass(frozen=True)
class Registry:
    entries: Mapping[str, RegistryEntry]
    origin: str  # "torch 2.13.0+cpu (installed)" or "torch 2.13 (copy shipped with compilelint)"
    path: str


@dataclass(frozen=True)
class Classification:
    """What ``graph_break_classes.toml`` says of a GB id that no rule needs to cover."""

    category: Category
    note: str
    measured: bool = False  # the note was checked by running a reduction through Dynamo


@dataclass(frozen=True)
class ZooHits:
    events: int = 0
    models: int = 0
    root_models: int = 0  # models where it was the root cause (inside "graph break in loop")


@dataclass(frozen=True)
class GraphBreak:
    """A registry entry joined with its classification, covering rules and zoo hits."""

    entry: RegistryEntry
    category: Category
    note: str  # the classification's reason or what to flag; for rule-covered ids, context
    rules: tuple[str, ...]  # codes of the rules whose gb_ids name it
    underlying: Category | None  # what it would be without its rules
    zoo: ZooHits
    measured: bool = False


class GraphBreakError(ValueError):
    """The registry or the classification file cannot be read."""


def installed_registry_path() -> tuple[Path, str] | None:
    """torch's own registry and torch's version, from package metadata (no import)."""
    try:
        distribution = metadata.distribution("torch")
    except metadata.PackageNotFoundError:
        return None
    path = Path(str(distribution.locate_file(REGISTRY_IN_TORCH)))
    return (path, distribution.version) if path.is_file() else None


def load_registry(prefer_installed: bool = True) -> Registry:
    """The installed torch's registry, else the shipped copy; ``origin`` says which."""
    found = installed_registry_path() if prefer_installed else None
    if found is not None:
        path, version = found
        return Registry(parse_registry(path.read_text(encoding="utf-8")), f"torch {version} (installed)", str(path))
    shipped = resources.files("compilelint") / "data" / SHIPPED_REGISTRY
    origin = f"torch {SHIPPED_TORCH} (copy shipped with compilelint)"
    return Registry(parse_registry(shipped.read_text(encoding="utf-8")), origin, str(shipped))


def parse_registry(text: str) -> dict[str, RegistryEntry]:
    try:
        raw = json.loads(text)
        entries = {}
        for gb_id, versions in raw.items():
            current = versions[0]  # the registry lists the newest wording first
            former = tuple(dict.fromkeys(v["Gb_type"] for v in versions[1:] if v["Gb_type"] != current["Gb_type"]))
            entries[gb_id] = RegistryEntry(
                gb_id=gb_id,
                gb_type=current["Gb_type"],
                context=current["Context"],
                explanation=current["Explanation"],
                hints=tuple(current["Hints"]),
                former_gb_types=former,
            )
    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as error:
        raise GraphBreakError(f"malformed graph-break registry: {error!r}") from error
    return dict(sorted(entries.items()))


def load_classifications(text: str | None = None) -> dict[str, Classification]:
    """``graph_break_classes.toml``: ``GB0014 = { category = "static", note = "...", measured = true }``."""
    if text is None:
        text = (resources.files("compilelint") / "data" / CLASSES_FILE).read_text(encoding="utf-8")
    try:
        raw = tomllib.loads(text)
        classes = {
            gb_id: Classification(Category(row["category"]), row["note"], row.get("measured", False))
            for gb_id, row in raw.items()
        }
        if any(not isinstance(c.note, str) or not isinstance(c.measured, bool) for c in classes.values()):
            raise TypeError("note must be a string and measured a boolean")
    except (tomllib.TOMLDecodeError, ValueError, KeyError, TypeError) as error:
        raise GraphBreakError(f"malformed {CLASSES_FILE}: {error!r}") from error
    if any(c.category in (Category.RULE, Category.UNCLASSIFIED) for c in classes.values()):
        raise GraphBreakError(f"{CLASSES_FILE}: categories are static, runtime or internal ('rule' comes from the rules)")
    return classes


def covering_rules(rules: Iterable[tuple[str, Sequence[str]]]) -> dict[str, tuple[str, ...]]:
    """GB id -> codes of the rules that name it, from ``(code, gb_ids)`` pairs."""
    covered: dict[str, list[str]] = {}
    for code, gb_ids in rules:
        for gb_id in gb_ids:
            covered.setdefault(gb_id, []).append(code)
    return {gb_id: tuple(sorted(codes)) for gb_id, codes in covered.items()}


def rule_gb_ids() -> list[tuple[str, tuple[str, ...]]]:
    from compilelint.registry import all_rules

    return [(rule.code, tuple(rule.gb_ids)) for rule in all_rules()]


@dataclass(frozen=True)
class SyncReport:
    """How the classification file and the rules stand against a registry."""

    unclassified: tuple[str, ...]  # in the registry, no rule, no classification
    stale: tuple[str, ...]  # classified, but not in the registry
    unknown_rule_ids: tuple[str, ...]  # named by a rule, not in the registry


def check_sync(
    registry: Mapping[str, RegistryEntry],
    classes: Mapping[str, Classification],
    covered: Mapping[str, Sequence[str]],
) -> SyncReport:
    return SyncReport(
        unclassified=tuple(sorted(set(registry) - set(classes) - set(covered))),
        stale=tuple(sorted(set(classes) - set(registry))),
        unknown_rule_ids=tuple(sorted(set(covered) - set(registry))),
    )


def classify(
    registry: Mapping[str, RegistryEntry],
    classes: Mapping[str, Classification],
    covered: Mapping[str, Sequence[str]],
    zoo: Mapping[str, ZooHits],
    strict: bool = True,
) -> list[GraphBreak]:
    """Every registry entry with its category.

    An id neither covered nor classified is an error when ``strict`` (the shipped table must
    be complete); otherwise it is UNCLASSIFIED, so a newer torch still gets an answer.
    """
    missing = check_sync(registry, classes, covered).unclassified
    if missing and strict:
        raise GraphBreakError(f"GB ids neither covered by a rule nor classified in {CLASSES_FILE}: {', '.join(missing)}")
    breaks = []
    for gb_id, entry in registry.items():
        known = classes.get(gb_id)
        rules = tuple(covered.get(gb_id, ()))
        category = Category.RULE if rules else known.category if known else Category.UNCLASSIFIED
        breaks.append(
            GraphBreak(
                entry=entry,
                category=category,
                note=known.note if known else "",
                rules=rules,
                underlying=known.category if known and rules else None,
                zoo=zoo.get(gb_id, ZooHits()),
                measured=known.measured if known else False,
            )
        )
    return breaks


def graph_breaks(
    registry: Registry, zoo: Mapping[str, ZooHits] | None = None, strict: bool = True
) -> list[GraphBreak]:
    """``registry``'s entries classified, with the rules as they are now."""
    covered = covering_rules(rule_gb_ids())
    return classify(registry.entries, load_classifications(), covered, zoo or {}, strict)
