"""Rule registration: metadata validated at import, duplicates rejected, docs complete."""

from __future__ import annotations

import ast
import sys
import textwrap
from pathlib import Path

import pytest

from compilelint.registry import DOC_SECTIONS, Rule, RuleDefinitionError, _discover, all_rules

GOOD_DOC = "\n".join(f"{section}\ntext\n" for section in DOC_SECTIONS)


def test_all_rules_are_found_sorted_and_unique() -> None:
    codes = [rule.code for rule in all_rules()]
    assert codes == sorted(codes)
    assert len(codes) == len(set(codes))
    assert {"CL101", "CL102", "CL103", "CL104", "CL105", "CL106", "CL107", "CL108"} <= set(codes)


@pytest.mark.parametrize("rule", list(all_rules()), ids=lambda r: r.code)
def test_rule_docs_have_every_section_and_measured_modes(rule: Rule) -> None:
    doc = rule.doc()
    for section in DOC_SECTIONS:
        assert section in doc
    assert "2.13" in doc, "the doc says which torch version the behaviour was measured on"
    if rule.code.startswith("CL1"):
        assert rule.breaks, "graph-break rules name the modes they break in"
    elif rule.code.startswith("CL3"):
        assert rule.breaks == () and "wrong" in doc, "wrong-result rules break nothing: the values differ"
    else:
        assert rule.breaks == () and "recompile" in doc, "recompile rules break nothing"


def test_bad_metadata_fails_at_class_creation_with_the_rule_name() -> None:
    with pytest.raises(RuleDefinitionError, match="BadRule.*code 'X1'"):

        class BadRule(Rule):
            __doc__ = GOOD_DOC
            code = "X1"
            name = "bad-rule"
            message = "m"
            nodes = (ast.Call,)


def test_missing_doc_sections_are_named() -> None:
    with pytest.raises(RuleDefinitionError, match="docstring lacks ## Fix safety"):

        class Undocumented(Rule):
            """## What it does\n## Why is this bad?\n## Example\n## Use instead\n"""

            code = "CL890"
            name = "undocumented"
            message = "m"
            nodes = (ast.Call,)


def test_duplicate_codes_are_rejected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    package = tmp_path / "duplicate_rules"
    package.mkdir()
    (package / "__init__.py").write_text("")
    body = textwrap.dedent(
        '''
        import ast
        from compilelint.registry import Rule

        class R{n}(Rule):
            __doc__ = {doc!r}
            code = "CL891"
            name = "r-{n}"
            message = "m"
            nodes = (ast.Call,)
        '''
    )
    for n in (1, 2):
        (package / f"rule_{n}.py").write_text(body.format(n=n, doc=GOOD_DOC))
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(RuleDefinitionError, match="duplicate rule code CL891"):
        list(_discover("duplicate_rules"))
    sys.modules.pop("duplicate_rules", None)
