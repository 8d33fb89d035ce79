"""Findings follow the torch release they assume: claims measured per release (rules/claims)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner
from fixture_support import ROOT, rule_fixture_folders

from compilelint import torch_versions
from compilelint.cli import main
from compilelint.config import DEFAULT_SETTINGS, ConfigError, load_settings
from compilelint.engine import lint_file
from compilelint.findings import Finding, Mode
from compilelint.torch_versions import assume, load_claims, measured_releases, nearest_release, parse_release

FIXTURES = ROOT / "fixtures"
REQUIRED_RELEASES = {"2.11", "2.13", "2.14", "2.15"}


def findings(path: Path, release: str | None) -> list[Finding]:
    settings = replace(DEFAULT_SETTINGS, torch_version=release) if release else replace(DEFAULT_SETTINGS, release_claims=False)
    return list(lint_file(str(path), settings).findings)


def line_of(path: Path, text: str) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} not in {path}")


@pytest.fixture
def no_installed_torch(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    assume.cache_clear()
    monkeypatch.setattr(torch_versions, "installed_torch", lambda: None)
    yield
    assume.cache_clear()


def test_claim_files_cover_the_measured_releases() -> None:
    assert REQUIRED_RELEASES <= set(measured_releases())
    for release in measured_releases():
        claims = load_claims(release)
        assert parse_release(claims.torch)[:2] == parse_release(release)
        assert claims.claims and all(c.sites > 0 for c in claims.claims.values())


def test_release_parsing() -> None:
    assert parse_release("2.11.0+cu130") == (2, 11)
    assert parse_release("2.15") == (2, 15)
    assert parse_release("2.14.1rc1") == (2, 14)
    with pytest.raises(ValueError, match="not a torch version"):
        parse_release("latest")


def test_a_release_not_measured_gets_the_nearest_one_marked() -> None:
    releases = ("2.11", "2.13", "2.14", "2.15")
    assert nearest_release("2.12", releases) == "2.11"  # equally near: the older one
    assert nearest_release("2.20.0", releases) == "2.15"
    assert nearest_release("1.13", releases) == "2.11"
    assumption = assume("2.9.1")
    assert assumption.nearest and assumption.source == "setting" and assumption.release == measured_releases()[0]
    assert "was not measured" in assumption.describe()
    assert not assume("2.13").nearest


def test_without_torch_the_newest_measured_release_is_assumed(no_installed_torch: None) -> None:
    assumption = assume(None)
    assert assumption.source == "default" and assumption.release == measured_releases()[-1]
    assert "no torch installed" in assumption.describe()


def test_the_installed_torch_is_read_from_metadata(monkeypatch: pytest.MonkeyPatch) -> None:
    assume.cache_clear()
    monkeypatch.setattr(torch_versions, "installed_torch", lambda: "2.11.0+cu130")
    try:
        assumption = assume(None)
        assert (assumption.release, assumption.source, assumption.requested) == ("2.11", "installed", "2.11.0+cu130")
    finally:
        assume.cache_clear()


def test_the_base_release_claims_agree_with_what_the_rules_state() -> None:
    """rules/claims/2.13.json is what the rules were written against: every mode a finding
    claims broke on its claim's sites there, and a candidate (no modes) broke on none.
    Claims of rules added since the last `bench/claims.py` run are not judged here (the
    engine leaves their findings as the rule states them); that run lists them."""
    base = load_claims(torch_versions.BASE_RELEASE).claims
    problems = []
    for fixtures in rule_fixture_folders():
        for path in (fixtures.flagged, fixtures.clean):
            for finding in findings(path, None):
                if not finding.code.startswith("CL1"):
                    continue
                claim = base.get(finding.claim)
                if claim is None:
                    continue
                for mode in (Mode.DEFAULT, Mode.FULLGRAPH, Mode.DYNAMIC):
                    broke = claim.broke[mode.value]
                    if mode in finding.breaks and broke == 0:
                        problems.append(f"{fixtures.folder.name}:{finding.line} {finding.claim} claims {mode.value}")
                    if not finding.breaks and broke:
                        problems.append(f"{fixtures.folder.name}:{finding.line} candidate {finding.claim} broke")
    assert problems == []


def test_sizes_divided_by_torch_break_on_2_11_where_2_13_folds_them() -> None:
    path = FIXTURES / "CL105_tensor_to_python" / "flagged.py"
    division = line_of(path, 'chunks = torch.div(x.size(1), 2, rounding_mode="trunc")')
    readback = division + 1
    on_211 = {f.line: f for f in findings(path, "2.11")}
    on_213 = {f.line: f for f in findings(path, "2.13")}
    assert division in on_211 and division not in on_213
    assert on_211[division].breaks == (Mode.DEFAULT, Mode.FULLGRAPH)
    assert on_211[division].gb_ids == ("GB0224",)
    assert "measured on torch 2.11" in on_211[division].message
    assert readback in on_213 and readback not in on_211  # 2.11 breaks at the division instead


def test_deepcopy_of_a_config_breaks_on_2_11_only() -> None:
    path = FIXTURES / "CL107_untraceable_call" / "clean.py"
    line = line_of(path, "options = copy.deepcopy(CONFIG)")
    assert [f.line for f in findings(path, "2.13")] == []
    on_211 = findings(path, "2.11")
    assert [(f.line, f.code, f.gb_ids) for f in on_211] == [(line, "CL107", ("GB0179",))]


def test_gb_ids_follow_the_release() -> None:
    path = FIXTURES / "CL107_untraceable_call" / "flagged.py"
    now = line_of(path, "datetime.now()")
    by_release = {r: {f.line: f for f in findings(path, r)}[now] for r in ("2.11", "2.13")}
    assert by_release["2.13"].gb_ids == ("GB0156",) and "GB0156" in by_release["2.13"].message
    assert by_release["2.11"].gb_ids == ("GB0007",) and "GB0007" in by_release["2.11"].message


def test_what_2_14_traces_is_no_longer_reported() -> None:
    mutation = FIXTURES / "CL202_attribute_mutation" / "flagged.py"
    counter = line_of(mutation, "calls += 1")
    assert counter in {f.line for f in findings(mutation, "2.13")}
    assert counter not in {f.line for f in findings(mutation, "2.14")}
    calls = FIXTURES / "CL107_untraceable_call" / "flagged.py"
    draws = {f.line for f in findings(calls, "2.13") if "random.random" in f.message}
    assert draws and not draws & {f.line for f in findings(calls, "2.14")}


def test_a_dynamic_only_finding_follows_the_release_dynamic_runs() -> None:
    # CL145: the f-string of a float attribute breaks under dynamic=True on 2.13, and 2.14
    # traces it; str() of one breaks on both
    path = FIXTURES / "CL145_number_argument_as_text" / "flagged.py"
    f_string = line_of(path, 'note = f"eps={EPSILON}"')
    text = line_of(path, "tag = str(self.scale)")
    on_213 = {f.line: f.breaks for f in findings(path, "2.13")}
    on_214 = {f.line: f.breaks for f in findings(path, "2.14")}
    assert on_213[f_string] == on_213[text] == (Mode.DYNAMIC,)
    assert f_string not in on_214 and on_214[text] == (Mode.DYNAMIC,)


def test_torch_version_in_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\ntorch-version = "2.11"\n')
    assert load_settings([str(tmp_path)]).torch_version == "2.11"
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\ntorch-version = "newest"\n')
    with pytest.raises(ConfigError, match="torch-version"):
        load_settings([str(tmp_path)])
    (tmp_path / "pyproject.toml").write_text("[tool.compilelint]\ntorch-version = 2.11\n")
    with pytest.raises(ConfigError, match="must be a string"):
        load_settings([str(tmp_path)])


def test_cli_torch_version_and_verbose() -> None:
    path = str(FIXTURES / "CL107_untraceable_call" / "clean.py")
    runner = CliRunner()
    result = runner.invoke(main, ["check", "--torch-version", "2.11", "-v", "--format", "json", path])
    assert result.exit_code == 1, result.output
    assert "findings assume torch 2.11 (torch-version = 2.11)" in result.stderr
    data = json.loads(result.stdout)
    assert [f["torch"]["release"] for f in data] == ["2.11"]
    assert runner.invoke(main, ["check", "--torch-version", "2.13", path]).exit_code == 0
    bad = runner.invoke(main, ["check", "--torch-version", "two", path])
    assert bad.exit_code == 2 and "--torch-version" in bad.output


def test_rule_page_shows_each_release() -> None:
    result = CliRunner().invoke(main, ["rule", "CL202"])
    assert result.exit_code == 0
    page = result.output
    assert "Measured on each torch release" in page
    assert re.search(r"`CL202:global`:\n  - 2\.11: 4 recompiles\n(  - 2\.12: 4 recompiles\n)?  - 2\.13: 4 recompiles\n  - 2\.14: 0 recompiles", page), page


def test_verify_judges_findings_against_the_release_that_ran() -> None:
    from compilelint.verify.command import lint_findings

    path = str(FIXTURES / "CL107_untraceable_call" / "clean.py")
    found, note = lint_findings([path], ran="2.11.0+cu130")
    assert [f.gb_ids for f in found] == [("GB0179",)]
    assert "judged against torch 2.11" in note and "settings assume" in note
    same, no_note = lint_findings([path], ran=torch_versions.installed_torch())
    assert same == [] and no_note == ""
