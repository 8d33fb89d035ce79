"""``compilelint gb [GB_ID]``: one registry entry in full, or all of them one per line."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from compilelint.graph_breaks import GraphBreak, Registry, ZooHits, hint_sentences
from compilelint.report.rules import RuleInfo


def graph_break_markdown(gb: GraphBreak, rules: Mapping[str, RuleInfo], registry: Registry, zoo_files: Sequence[str]) -> str:
    """The entry's page: a metadata list, the registry's text, then the covering rules."""
    entry = gb.entry
    facts = [
        ("Classification", gb.category.label),
        ("Zoo hits", _zoo_line(gb.zoo, zoo_files)),
        ("Registry", f"{registry.origin}: {registry.path}"),
    ]
    if gb.underlying is not None:
        facts.insert(1, ("Without its rules", gb.underlying.label))
    lines = [f"# {entry.gb_id} {entry.gb_type.strip()}", ""]
    lines += [f"- {label}: {value}" for label, value in facts]
    if gb.note:
        measured = " (measured on torch 2.13: a reduction run through Dynamo)" if gb.measured else ""
        lines += ["", "## Note" if gb.rules else "## Why", "", gb.note + measured]
    lines += ["", "## Explanation", "", entry.explanation.strip() or "(none given)"]
    if entry.hints:
        lines += ["", "## Hints", ""] + [f"- {hint}" for hint in hint_sentences(entry.hints)]
    lines += ["", "## Context", "", f"`{entry.context}`" if entry.context else "(none given)"]
    if entry.former_gb_types:
        lines += ["", "## Former gb_types", ""] + [f"- {gb_type}" for gb_type in entry.former_gb_types]
    if gb.rules:
        lines += ["", "## Covered by", ""]
        for code in gb.rules:
            info = rules.get(code)
            lines.append(f"- {code} {info.name}: {info.message}" if info else f"- {code}")
    return "\n".join(lines) + "\n"


def _zoo_line(hits: ZooHits, zoo_files: Sequence[str]) -> str:
    if not zoo_files:
        return "not known here (no bench/results/zoo-*.json beside this install)"
    if not hits.events and not hits.root_models:
        return f"none (in {len(zoo_files)} zoo results files)"
    root = f", the root cause in {hits.root_models}" if hits.root_models else ""
    return f"{hits.events} events in {hits.models} models{root} ({len(zoo_files)} zoo results files)"


def graph_breaks_plain(breaks: Sequence[GraphBreak]) -> list[str]:
    """One aligned line per entry, for pipes (grep, cut)."""
    width = max((len(gb.category.value) for gb in breaks), default=4)
    lines = []
    for gb in breaks:
        rules = ",".join(gb.rules) or "-"
        lines.append(f"{gb.entry.gb_id}  {gb.category.value:<{width}}  {rules:<11}  {' '.join(gb.entry.gb_type.split())}")
    return lines


def graph_break_to_json(gb: GraphBreak) -> dict[str, object]:
    entry = gb.entry
    return {
        "gb_id": entry.gb_id,
        "gb_type": entry.gb_type,
        "classification": gb.category.value,
        "without_rules": gb.underlying.value if gb.underlying else None,
        "rules": list(gb.rules),
        "note": gb.note,
        "measured": gb.measured,
        "explanation": entry.explanation,
        "hints": hint_sentences(entry.hints),
        "context": entry.context,
        "zoo": {"events": gb.zoo.events, "models": gb.zoo.models, "root_models": gb.zoo.root_models},
    }


def graph_breaks_to_json(breaks: Sequence[GraphBreak], registry: Registry) -> str:
    payload = {"registry": registry.origin, "path": registry.path, "graph_breaks": [graph_break_to_json(gb) for gb in breaks]}
    return json.dumps(payload, indent=2, ensure_ascii=False)
