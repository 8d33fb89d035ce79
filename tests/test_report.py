"""Reports format findings: JSON, the text blocks and their snippets, statistics, rules."""

from __future__ import annotations

import json
import pytest

from compilelint.findings import Applicability, Finding, Fix, Mode
from compilelint.registry import all_rules
from compilelint.report import (
    count_by_rule,
    findings_to_json,
    render_concise,
    render_full,
    render_statistics,
    statistics_to_json,
    summarise,
)
from compilelint.report.rules import ENGINE_CODES, RuleInfo, rule_markdown, rules_plain, rules_to_json
from compilelint.report.snippet import Span, display_cells, render_snippet

JSON_KEYS = {
    "code", "name", "message", "path", "line", "column", "end_line", "end_column",
    "region", "breaks", "gb_ids", "fix", "torch",
}  # fmt: skip
SAFE = Fix(Applicability.SAFE, "Guard with `if not torch.compiler.is_compiling():`")
UNSAFE = Fix(Applicability.UNSAFE, "Rewrite with `torch.where`")


def finding(
    code: str = "CL101", line: int = 2, column: int = 5, end_column: int = 13, path: str = "m.py", **extra: object
) -> Finding:
    values: dict[str, object] = {
        "name": "print-call",
        "message": "`print()` breaks the graph",
        "end_line": line,
        "region": ("Net.forward",),
        "breaks": (Mode.DEFAULT, Mode.FULLGRAPH),
        "gb_ids": ("GB0059",),
    }
    values.update(extra)
    return Finding(code=code, path=path, line=line, column=column, end_column=end_column, **values)  # type: ignore[arg-type]


SOURCE = ["def forward(self, x):", "    print(x)", "    return x"]


def test_json_is_one_sorted_array_with_a_stable_key_set() -> None:
    later = finding(line=3, column=5, end_column=13)
    other_file = finding(path="a.py", fix=SAFE)
    data = json.loads(findings_to_json([later, finding(), other_file]))
    assert [(d["path"], d["line"]) for d in data] == [("a.py", 2), ("m.py", 2), ("m.py", 3)]
    assert all(set(d) == JSON_KEYS for d in data)
    assert data[0]["fix"] == {"applicability": "safe", "title": SAFE.title}
    assert data[1]["fix"] is None
    assert data[1]["region"] == ["Net.forward"] and data[1]["breaks"] == ["default", "fullgraph"]
    assert json.loads(findings_to_json([])) == []


def test_json_keeps_non_ascii_text() -> None:
    assert "café" in findings_to_json([finding(message="café")])


@pytest.mark.parametrize(
    ("fixes", "show_unsafe", "line"),
    [
        ((), False, "All checks passed!"),
        ((None,), False, "Found 1 finding"),
        ((None, None), False, "Found 2 findings"),
        ((SAFE, None), False, "Found 2 findings (1 fixable with --fix)"),
        ((SAFE, UNSAFE, UNSAFE), False, "Found 3 findings (1 fixable with --fix, 2 more with --unsafe-fixes)"),
        ((UNSAFE,), False, "Found 1 finding (1 more with --unsafe-fixes)"),
        ((SAFE, UNSAFE), True, "Found 2 findings (2 fixable with --fix)"),
    ],
)
def test_summary_line(fixes: tuple[Fix | None, ...], show_unsafe: bool, line: str) -> None:
    findings = [finding(line=i + 1, fix=fix) for i, fix in enumerate(fixes)]
    assert summarise(findings).line(show_unsafe) == line


def test_concise_marks_only_fixes_that_fix_would_apply() -> None:
    lines = [t.plain for t in render_concise([finding(fix=UNSAFE, line=3), finding(fix=SAFE)])]
    assert lines == [
        "m.py:2:5: CL101 [*] `print()` breaks the graph",
        "m.py:3:5: CL101 `print()` breaks the graph",
    ]
    assert "[*]" in render_concise([finding(fix=UNSAFE)], show_unsafe=True)[0].plain


def test_full_block_has_snippet_region_modes_and_fix() -> None:
    block = render_full([finding(fix=SAFE, region=("Net.forward", "Net._mix"))], {"m.py": SOURCE})[0].plain
    assert block.splitlines() == [
        "m.py:2:5: CL101 [*] `print()` breaks the graph",
        "  |",
        "2 |     print(x)",
        "  |     ^^^^^^^^ CL101",
        "  |",
        "  = in Net.forward \u2192 Net._mix",
        "  = breaks in: default, fullgraph",
        "  = help: Guard with `if not torch.compiler.is_compiling():`",
    ]


def test_full_block_without_source_or_notes() -> None:
    bare = finding(region=(), breaks=(), code="CL900", message="cannot read: Permission denied")
    assert render_full([bare], {}).__getitem__(0).plain == "m.py:2:5: CL900 cannot read: Permission denied"


def test_unsafe_fix_help_says_it_needs_the_flag() -> None:
    block = render_full([finding(fix=UNSAFE)], {"m.py": SOURCE})[0].plain
    assert "help: Rewrite with `torch.where` (unsafe fix: needs --unsafe-fixes)" in block
    assert "[*]" not in block.splitlines()[0]


def test_ascii_only_output() -> None:
    block = render_full([finding(region=("A.f", "A.g"))], {"m.py": ["x", "    print(x) # é"]}, ascii_only=True)[0]
    assert block.plain.isascii()
    assert "in A.f -> A.g" in block.plain


def carets(lines: list[str], span: Span) -> list[str]:
    snippet = render_snippet(lines, span, "CL1")
    assert snippet is not None
    return snippet.plain.splitlines()


def test_snippet_zero_width_span_gets_one_caret() -> None:
    assert carets(["def f(:"], Span(1, 7, 1, 7))[2] == "  |       ^ CL1"


def test_snippet_at_end_of_line() -> None:
    assert carets(["abc"], Span(1, 4, 1, 4))[2] == "  |    ^ CL1"


def test_snippet_expands_tabs_and_counts_wide_characters() -> None:
    rendered = carets(["\tx = '漢字'; print(x)"], Span(1, 12, 1, 20))
    assert rendered[1] == "1 |     x = '漢字'; print(x)"
    # the tab takes 4 cells, each CJK character 2: `print` starts at cell 16, not 11
    assert rendered[2] == "  | " + " " * 16 + "^" * 8 + " CL1"


def test_snippet_hides_control_characters() -> None:
    shown, offsets = display_cells("s = '\x1b[31m'")
    assert "\x1b" not in shown and "\u241b" in shown
    assert offsets[-2] == len("s = '\x1b[31m'")


def test_snippet_multi_line_span_underlines_each_line() -> None:
    assert carets(["y = f(", "    a,", "    b)"], Span(1, 5, 3, 7)) == [
        "  |",
        "1 | y = f(",
        "  |     ^^",
        "2 |     a,",
        "  |     ^^",
        "3 |     b)",
        "  |     ^^ CL1",
        "  |",
    ]


def test_snippet_long_span_is_elided() -> None:
    lines = [f"line{i}" for i in range(1, 21)]
    rendered = carets(lines, Span(2, 1, 15, 3))
    numbers = [row.split("|")[0].strip() for row in rendered if row.split("|")[0].strip()]
    assert numbers == ["2", "3", "4", "...", "14", "15"]


def test_snippet_outside_the_file_is_none() -> None:
    assert render_snippet(["x"], Span(5, 1, 5, 2), "CL1") is None
    assert carets(["x = (", "  1"], Span(1, 5, 9, 1))[-2].endswith("CL1")  # span past EOF: clipped


def test_statistics_counts_and_orders() -> None:
    findings = [
        finding(),
        finding(line=3, fix=SAFE),
        finding(code="CL103", name="tensor-dependent-branch"),
        finding(code="CL103", name="tensor-dependent-branch", line=4),
        finding(code="CL103", name="tensor-dependent-branch", line=5, fix=UNSAFE),
    ]
    rows = count_by_rule(findings)
    assert [(r.code, r.count, r.fixable) for r in rows] == [("CL103", 3, 0), ("CL101", 2, 1)]
    assert [line.plain for line in render_statistics(rows)] == [
        "3  CL103  [ ] tensor-dependent-branch",
        "2  CL101  [*] print-call",
    ]
    assert json.loads(statistics_to_json(rows)) == [
        {"code": "CL103", "name": "tensor-dependent-branch", "count": 3, "fixable": False},
        {"code": "CL101", "name": "print-call", "count": 2, "fixable": True},
    ]
    assert count_by_rule(findings, show_unsafe=True)[0].fixable == 1


def test_rule_page_has_metadata_and_doc_sections() -> None:
    rule = all_rules().by_code()["CL101"]
    page = rule_markdown(RuleInfo.from_rule(rule))
    assert page.startswith("# CL101 print-call\n")
    for expected in ("- GB ids: GB0059", "- Breaks in: default, fullgraph", "- Fix: safe", "## What it does",
                     "## Fix safety", f"- Torch versions: {rule.torch_versions}"):  # fmt: skip
        assert expected in page


def test_rules_listing_and_json() -> None:
    infos = [RuleInfo.from_rule(rule) for rule in all_rules()] + list(ENGINE_CODES)
    lines = rules_plain(infos)
    assert len(lines) == len(infos)
    assert lines[0].startswith("CL101  print-call ")
    data = json.loads(rules_to_json(infos))
    assert {d["code"] for d in data} >= {"CL101", "CL103", "CL900", "CL999"}
    assert set(data[0]) == {"code", "name", "summary", "message", "gb_ids", "breaks", "torch_versions",
                            "fix_applicability", "doc"}  # fmt: skip
