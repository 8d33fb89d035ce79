"""Fixtures as fix specs: ``flagged.fixed.py`` is what ``--fix`` makes of ``flagged.py`` (absent:
``--fix`` changes nothing, the rule's fixes are all unsafe), and ``flagged.unsafe-fixed.py``
what ``--fix --unsafe-fixes`` makes of it where that differs."""

from __future__ import annotations

from pathlib import Path

import pytest
from fixture_support import RuleFixtures, rule_fixture_folders

from compilelint.config import DEFAULT_SETTINGS
from compilelint.fix.loop import applicable, fix_source
from compilelint.fix.preserve import FixPass, first_outside_change
from compilelint.registry import all_rules

FIXABLE = [f for f in rule_fixture_folders() if all_rules().by_code()[f.code].fix_applicability is not None]


def _safe_expected(fixtures: RuleFixtures) -> Path:
    fixed_file = fixtures.folder / "flagged.fixed.py"
    return fixed_file if fixed_file.exists() else fixtures.flagged


def _expected(fixtures: RuleFixtures, unsafe: bool) -> Path:
    unsafe_file = fixtures.folder / "flagged.unsafe-fixed.py"
    return unsafe_file if unsafe and unsafe_file.exists() else _safe_expected(fixtures)


@pytest.mark.parametrize("unsafe", [False, True], ids=["fix", "unsafe-fixes"])
@pytest.mark.parametrize("fixtures", FIXABLE, ids=[f.folder.name for f in FIXABLE])
def test_fix_gives_the_fixed_fixture(fixtures: RuleFixtures, unsafe: bool) -> None:
    data = fixtures.flagged.read_bytes()
    trace: list[FixPass] = []
    result = fix_source(data, str(fixtures.flagged), DEFAULT_SETTINGS, unsafe=unsafe, trace=trace)
    assert result.error is None
    assert first_outside_change(trace) is None  # every byte outside the fixes' claims is kept
    assert result.fixed.decode() == _expected(fixtures, unsafe).read_text(encoding="utf-8")
    assert result.passes <= 3  # ruff's tests allow 10; ours converge fast
    assert not any(applicable(f, unsafe) for f in result.findings)


@pytest.mark.parametrize("unsafe", [False, True], ids=["fix", "unsafe-fixes"])
@pytest.mark.parametrize("fixtures", FIXABLE, ids=[f.folder.name for f in FIXABLE])
def test_fixing_the_fixed_fixture_changes_nothing(fixtures: RuleFixtures, unsafe: bool) -> None:
    path = _expected(fixtures, unsafe)
    data = path.read_bytes()
    result = fix_source(data, str(path), DEFAULT_SETTINGS, unsafe=unsafe)
    assert result.error is None and result.fixed == data and result.fixed_count == 0


@pytest.mark.parametrize("fixtures", FIXABLE, ids=[f.folder.name for f in FIXABLE])
def test_fixed_fixtures_exist_only_where_they_differ(fixtures: RuleFixtures) -> None:
    fixed_file = fixtures.folder / "flagged.fixed.py"
    if fixed_file.exists():
        assert fixed_file.read_bytes() != fixtures.flagged.read_bytes()
    unsafe_file = fixtures.folder / "flagged.unsafe-fixed.py"
    if unsafe_file.exists():
        assert unsafe_file.read_bytes() != _safe_expected(fixtures).read_bytes()


@pytest.mark.parametrize("fixtures", FIXABLE, ids=[f.folder.name for f in FIXABLE])
def test_every_fix_has_a_title_and_an_applicability_the_rule_declares(fixtures: RuleFixtures) -> None:
    """ruff's metadata coherence: a fix's safety is never more permissive than the rule's."""
    from compilelint.engine import lint_file
    from compilelint.findings import Applicability

    rule = all_rules().by_code()[fixtures.code]
    fixes = [f.fix for f in lint_file(str(fixtures.flagged)).findings if f.code == rule.code and f.fix]
    assert fixes, f"{rule.code} declares fixes but its fixture gets none"
    for fix in fixes:
        assert fix.title
        if rule.fix_applicability is Applicability.UNSAFE:
            assert fix.applicability is Applicability.UNSAFE
    assert "## Fix safety" in rule.doc()


def test_rules_without_fix_applicability_attach_no_fix() -> None:
    from compilelint.engine import lint_file

    for fixtures in rule_fixture_folders():
        rule = all_rules().by_code()[fixtures.code]
        if rule.fix_applicability is None:
            findings = lint_file(str(fixtures.flagged)).findings
            assert not [f for f in findings if f.code == rule.code and f.fix is not None]
