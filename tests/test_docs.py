"""The README's rule table is generated from the registry and must not drift."""

from __future__ import annotations

import re
from pathlib import Path

from compilelint.docs import END, START, markers, releases_table, rules_table

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_rule_table_matches_the_registry() -> None:
    text = README.read_text(encoding="utf-8")
    match = re.search(re.escape(START) + r"\n(.*?)\n" + re.escape(END), text, re.S)
    assert match, "README lost its rules-table markers"
    assert match.group(1) == rules_table(), "run `python -m compilelint.docs README.md`"


def test_readme_lists_every_option_of_check() -> None:
    from compilelint.docs import markers, options_table

    start, end = markers("check-options")
    text = README.read_text(encoding="utf-8")
    match = re.search(re.escape(start) + r"\n(.*?)\n" + re.escape(end), text, re.S)
    assert match, "README lost its check-options markers"
    assert match.group(1) == options_table(), "run `python -m compilelint.docs README.md`"
    assert "`--stdin-filename PATH`" in match.group(1) and "`--output-format" in match.group(1)


def test_the_fix_safety_of_check_rewrites_says_formatted_messages_lose_their_values() -> None:
    """issue 14: the CL103/CL104 unsafe fixes turn f-string messages into literal `{...}`
    text; the rules' Fix safety must say so."""
    from compilelint.registry import all_rules

    for rule in all_rules():
        if rule.code in ("CL103", "CL104"):
            safety = rule.doc().split("## Fix safety", 1)[1]
            assert '{x.shape}"' in safety and "literal" in safety, rule.code


def test_the_readme_promises_no_release_that_does_not_exist() -> None:
    """issue 14: `pip install compilelint` and `rev: v0.1.0` did not work (no release, no tag)."""
    text = README.read_text(encoding="utf-8")
    assert "pip install compilelint " not in text and "rev: v0.1.0" not in text
    assert "no release on PyPI yet" in text


def test_readme_release_table_matches_the_claim_files() -> None:
    text = README.read_text(encoding="utf-8")
    start, end = markers("releases-table")
    match = re.search(re.escape(start) + r"\n(.*?)\n" + re.escape(end), text, re.S)
    assert match, "README lost its releases-table markers"
    assert match.group(1) == releases_table(), "run `python -m compilelint.docs README.md`"
