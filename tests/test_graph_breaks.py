"""Dynamo's graph-break registry, classified: in sync with torch, the rules and the docs."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from compilelint import graph_breaks as gbs
from compilelint.cli import main
from compilelint.graph_break_doc import DOC_PATH, build_doc
from compilelint.graph_breaks import (
    Category,
    Classification,
    GraphBreakError,
    RegistryEntry,
    ZooHits,
    check_sync,
    classify,
    covering_rules,
    hint_sentences,
    installed_registry_path,
    load_classifications,
    load_registry,
    rule_gb_ids,
)
from compilelint.zoo_hits import read_zoo_hits

ROOT = Path(__file__).resolve().parent.parent
REGENERATE = "run `python -m compilelint.docs README.md`"


def entry(gb_id: str, gb_type: str = "some break") -> RegistryEntry:
    return RegistryEntry(gb_id, gb_type, "", "", ())


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def _torch_minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


# --- the classification against torch and the rules -----------------------------------------


def test_every_registry_id_is_covered_or_classified() -> None:
    """The installed torch's registry (the shipped copy without torch) is fully classified."""
    registry = load_registry()
    report = check_sync(registry.entries, load_classifications(), covering_rules(rule_gb_ids()))
    assert not report.unclassified, (
        f"GB ids in {registry.origin} that no rule covers and compilelint/data/graph_break_classes.toml "
        f"does not classify: {', '.join(report.unclassified)}"
    )


def test_classified_ids_are_still_in_the_registry() -> None:
    found = installed_registry_path()
    if found is not None and _torch_minor(found[1]) < _torch_minor(gbs.SHIPPED_TORCH):
        pytest.skip(f"torch {found[1]} predates the classified registry ({gbs.SHIPPED_TORCH})")
    registry = load_registry()
    report = check_sync(registry.entries, load_classifications(), {})
    assert not report.stale, f"classified GB ids no longer in {registry.origin}: {', '.join(report.stale)}"


def test_rules_name_only_registry_ids() -> None:
    registry = load_registry()
    report = check_sync(registry.entries, {}, covering_rules(rule_gb_ids()))
    assert not report.unknown_rule_ids, f"rules name GB ids not in {registry.origin}: {', '.join(report.unknown_rule_ids)}"


def test_shipped_copy_is_torch_213s_registry() -> None:
    found = installed_registry_path()
    if found is None or _torch_minor(found[1]) != _torch_minor(gbs.SHIPPED_TORCH):
        pytest.skip(f"needs torch {gbs.SHIPPED_TORCH}.x installed")
    assert load_registry(prefer_installed=False).entries == load_registry().entries


def test_coverage_comes_from_the_rules_and_wins_over_the_file() -> None:
    registry = {gb_id: entry(gb_id) for gb_id in ("GB0001", "GB0002", "GB0003")}
    classes = {
        "GB0002": Classification(Category.STATIC, "what to flag"),
        "GB0003": Classification(Category.INTERNAL, "Dynamo's own"),
    }
    covered = covering_rules([("CL150", ("GB0001", "GB0002")), ("CL120", ("GB0002",))])
    by_id = {gb.entry.gb_id: gb for gb in classify(registry, classes, covered, {"GB0002": ZooHits(5, 2, 1)})}
    assert (by_id["GB0001"].category, by_id["GB0001"].rules) == (Category.RULE, ("CL150",))
    assert (by_id["GB0002"].category, by_id["GB0002"].rules) == (Category.RULE, ("CL120", "CL150"))
    assert (by_id["GB0002"].underlying, by_id["GB0002"].note, by_id["GB0002"].zoo) == (
        Category.STATIC, "what to flag", ZooHits(5, 2, 1))  # fmt: skip
    assert (by_id["GB0003"].category, by_id["GB0003"].underlying) == (Category.INTERNAL, None)


def test_an_unclassified_id_is_named() -> None:
    registry = {"GB0001": entry("GB0001"), "GB0042": entry("GB0042")}
    classes = {"GB0001": Classification(Category.RUNTIME, "why"), "GB7777": Classification(Category.RUNTIME, "gone")}
    with pytest.raises(GraphBreakError, match="GB0042"):
        classify(registry, classes, {}, {})
    lenient = classify(registry, classes, {}, {}, strict=False)
    assert [gb.category for gb in lenient] == [Category.RUNTIME, Category.UNCLASSIFIED]
    report = check_sync(registry, classes, {"GB0099": ("CL150",)})
    assert (report.unclassified, report.stale, report.unknown_rule_ids) == (("GB0042",), ("GB7777",), ("GB0099",))


def test_classification_file_format() -> None:
    classes = load_classifications()
    assert all(c.note.strip() and c.note == c.note.strip() for c in classes.values())
    assert {c.category for c in classes.values()} == {Category.STATIC, Category.RUNTIME, Category.INTERNAL}
    with pytest.raises(GraphBreakError, match="rule"):
        load_classifications('GB0001 = { category = "rule", note = "x" }')
    with pytest.raises(GraphBreakError):
        load_classifications('GB0001 = { category = "sometimes", note = "x" }')
    with pytest.raises(GraphBreakError):
        load_classifications('GB0001 = { note = "x" }')
    with pytest.raises(GraphBreakError):
        load_classifications('GB0001 = { category = "static", note = "x", measured = "yes" }')
    parsed = load_classifications('GB0001 = { category = "static", note = "x", measured = true }\nGB0002 = { category = "runtime", note = "y" }')
    assert (parsed["GB0001"].measured, parsed["GB0002"].measured) == (True, False)
    assert classes["GB0014"].measured and classes["GB0014"].category is Category.STATIC


def test_registry_without_torch_is_the_shipped_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gbs, "installed_registry_path", lambda: None)
    registry = load_registry()
    assert registry.origin == "torch 2.13 (copy shipped with compilelint)"
    assert len(registry.entries) == 517 and registry.entries["GB0014"].gb_type == "Attempted to wrap RNN, GRU, or LSTM"
    # the newest wording comes first in the registry; older wordings are kept apart
    assert "allow_c_slot" in " ".join(registry.entries["GB2861"].hints)


def test_reading_the_registry_never_imports_torch() -> None:
    code = (
        "import sys\n"
        "from compilelint.graph_breaks import graph_breaks, load_registry\n"
        "registry = load_registry()\n"
        "graph_breaks(registry)\n"
        "assert 'installed' in registry.origin, registry.origin\n"
        "assert 'torch' not in sys.modules, 'torch was imported'\n"
    )
    if installed_registry_path() is None:
        code = code.replace("assert 'installed' in registry.origin, registry.origin\n", "")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr


def test_hint_fragments_are_joined() -> None:
    assert hint_sentences(["Use x to ", "register it.", "Report it."]) == ["Use x to register it.", "Report it."]


# --- zoo hits and the generated page ---------------------------------------------------------


def test_zoo_hits_are_summed_over_files(tmp_path: Path) -> None:
    def zoo(name: str, counts: list[dict[str, object]], roots: list[dict[str, object]]) -> Path:
        path = tmp_path / "bench" / "results" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"summary": {"gb_type_counts": counts, "root_gb_type_models": roots}}))
        return path

    first = zoo("zoo-a.json", [{"gb_type": "GB0036 Dynamic shape operator", "events": 24, "models": 1},
                               {"gb_type": "GB7000 graph break in loop", "events": 4, "models": 3}],
                [{"root_gb_type": "GB0036 Dynamic shape operator", "models": 1}])  # fmt: skip
    second = zoo("zoo-b.json", [{"gb_type": "GB0036 Dynamic shape operator", "events": 6, "models": 2},
                                {"gb_type": "Attempted to wrap RNN, GRU, or LSTM", "events": 3, "models": 1},
                                {"gb_type": "? something new", "events": 2, "models": 1}], [])  # fmt: skip
    registry = {"GB0014": entry("GB0014", "Attempted to wrap RNN, GRU, or LSTM")}
    reading = read_zoo_hits([first, second], registry, tmp_path)
    assert reading.files == ("bench/results/zoo-a.json", "bench/results/zoo-b.json")
    assert reading.hits == {"GB0014": ZooHits(3, 1, 0), "GB0036": ZooHits(30, 3, 1), "GB7000": ZooHits(4, 3, 0)}
    assert reading.unmatched == {"? something new": 2}


def test_graph_breaks_page_is_up_to_date() -> None:
    page = ROOT / DOC_PATH
    assert page.exists(), REGENERATE
    assert page.read_text(encoding="utf-8") == build_doc(ROOT), REGENERATE


def test_graph_breaks_page_lists_every_id_and_the_zoo_files() -> None:
    text = (ROOT / DOC_PATH).read_text(encoding="utf-8")
    registry = load_registry(prefer_installed=False)
    rows = [line for line in text.splitlines() if re.match(r"\| GB\d{4} ", line)]
    assert len({row.split(" | ")[0] for row in rows}) == len(registry.entries)
    for path in sorted((ROOT / "bench" / "results").glob("zoo-*.json")):
        assert f"`bench/results/{path.name}`" in text
    assert "(rules/GRAPH_BREAKS.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


# --- compilelint gb ----------------------------------------------------------------------------


def test_gb_prints_one_entry() -> None:
    result = run("gb", "GB0014")
    assert result.exit_code == 0, result.output
    for expected in ("# GB0014 Attempted to wrap RNN, GRU, or LSTM", "- Classification: ", "- Zoo hits: ",
                     "- Registry: torch ", "## Explanation", "Dynamo does not support RNN, GRU, or LSTM.",
                     "## Hints", "allow_rnn=True", "## Context", "`str(value)`"):  # fmt: skip
        assert expected in result.stdout
    assert run("gb", "gb14").stdout == result.stdout


def test_gb_of_a_covered_id_names_its_rules() -> None:
    covered = covering_rules(rule_gb_ids())
    gb_id, codes = sorted(covered.items())[0]
    result = run("gb", gb_id)
    assert "- Classification: covered by a rule" in result.stdout
    for code in codes:
        assert f"- {code} " in result.stdout
    data = json.loads(run("gb", gb_id, "--format", "json").stdout)
    assert (data["graph_breaks"][0]["classification"], data["graph_breaks"][0]["rules"]) == ("rule", list(codes))


def test_gb_lists_all_and_filters() -> None:
    registry = load_registry()
    result = run("gb")
    lines = result.stdout.splitlines()
    assert result.exit_code == 0 and len(lines) == len(registry.entries)
    assert lines[0].split()[0] == "GB0000" and f"registry: {registry.origin}" in result.stderr
    internal = run("gb", "--classification", "internal").stdout.splitlines()
    assert internal and all(line.split()[1] == "internal" for line in internal)
    data = json.loads(run("gb", "--classification", "static", "--format", "json").stdout)
    assert data["registry"] == registry.origin
    assert {gb["classification"] for gb in data["graph_breaks"]} == {"static"}


def test_gb_errors_exit_2() -> None:
    unknown = run("gb", "GB9999")
    assert unknown.exit_code == 2 and "unknown GB id GB9999" in unknown.output
    assert run("gb", "nonsense").exit_code == 2
    assert "is not a GB id" in run("gb", "nonsense").output
    assert run("gb", "GB0014", "--classification", "static").exit_code == 2


def test_gb_says_when_it_uses_the_shipped_copy(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gbs, "installed_registry_path", lambda: None)
    assert "- Registry: torch 2.13 (copy shipped with compilelint)" in run("gb", "GB0025").stdout
