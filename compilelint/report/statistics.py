"""``--statistics``: how many findings of each rule, ruff's layout.

    5  CL103  [ ] tensor-dependent-branch
    2  CL102  [*] logging-call
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from rich.text import Text

from compilelint.findings import Finding
from compilelint.report.summary import is_fixable


@dataclass(frozen=True)
class RuleCount:
    code: str
    name: str
    count: int
    fixable: int  # findings of this rule that --fix (with --unsafe-fixes when shown) removes

    def to_json(self) -> dict[str, object]:
        # ruff's statistics JSON has a boolean `fixable`; the count is ours.
        return {"code": self.code, "name": self.name, "count": self.count, "fixable": self.fixable > 0}


def count_by_rule(findings: Iterable[Finding], show_unsafe: bool = False) -> list[RuleCount]:
    """Counts per code, most frequent first (then by code)."""
    counts: dict[str, list[int]] = {}
    names: dict[str, str] = {}
    for finding in findings:
        entry = counts.setdefault(finding.code, [0, 0])
        entry[0] += 1
        entry[1] += is_fixable(finding, show_unsafe)
        names.setdefault(finding.code, finding.name)
    rows = [RuleCount(code, names[code], total, fixable) for code, (total, fixable) in counts.items()]
    return sorted(rows, key=lambda row: (-row.count, row.code))


def render_statistics(rows: Sequence[RuleCount]) -> list[Text]:
    width = max((len(str(row.count)) for row in rows), default=1)
    code_width = max((len(row.code) for row in rows), default=5)
    lines = []
    for row in rows:
        line = Text(f"{row.count:>{width}}  ")
        line.append(f"{row.code:<{code_width}}", style="bold red")
        line.append("  ")
        line.append("[*]" if row.fixable else "[ ]", style="bold cyan" if row.fixable else "")
        line.append(f" {row.name}")
        lines.append(line)
    return lines


def statistics_to_json(rows: Sequence[RuleCount]) -> str:
    return json.dumps([row.to_json() for row in rows], indent=2)
