"""The README's rule table, generated from the registry (``python -m compilelint.docs``)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from compilelint.registry import all_rules

START, END = "<!-- rules-table:start -->", "<!-- rules-table:end -->"


def rules_table() -> str:
    rows = ["| code | name | breaks in | GB ids | fix | what it flags |", "|---|---|---|---|---|---|"]
    for rule in all_rules():
        modes = ", ".join(mode.value for mode in rule.breaks) or "—"
        fix = rule.fix_applicability.value if rule.fix_applicability else "—"
        gb_ids = ", ".join(rule.gb_ids) or "—"
        rows.append(f"| {rule.code} | `{rule.name}` | {modes} | {gb_ids} | {fix} | {rule.summary()} |")
    return "\n".join(rows)


def update_readme(readme: Path) -> bool:
    """Rewrite the table between the markers; True if the file changed."""
    text = readme.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(START) + r".*?" + re.escape(END), re.S)
    updated = pattern.sub(f"{START}\n{rules_table()}\n{END}", text)
    if updated == text:
        return False
    readme.write_text(updated, encoding="utf-8")
    return True


if __name__ == "__main__":
    target = Path(sys.argv[1] if len(sys.argv) > 1 else "README.md")
    print(f"{target}: {'updated' if update_readme(target) else 'up to date'}")
