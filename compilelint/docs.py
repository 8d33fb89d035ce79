"""Generated docs: the README's tables (rules from the registry, ``check``'s options from
click) and ``rules/GRAPH_BREAKS.md``.

``python -m compilelint.docs README.md`` refreshes all of them (the graph-break page lies in
the README's folder under ``rules/``); tests keep them in sync.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

import click

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


def _metavar(option: click.Option) -> str:
    if option.is_flag:
        return ""
    if isinstance(option.type, click.Choice):
        return " " + "\\|".join(str(choice) for choice in option.type.choices)
    return " " + (option.metavar or option.type.name.upper())


def options_table() -> str:
    """``compilelint check``'s options, as ``--help`` lists them."""
    from compilelint.cli import check

    rows = ["| option | meaning |", "|---|---|"]
    for param in check.params:
        if not isinstance(param, click.Option) or param.hidden:
            continue
        first, *others = param.opts
        names = ", ".join([f"`{first}{_metavar(param)}`", *(f"`{name}`" for name in others)])
        if param.secondary_opts:
            names += " / " + ", ".join(f"`{name}`" for name in param.secondary_opts)
        text = (param.help or "").replace("|", "\\|")
        rows.append(f"| {names} | {text} |")
    return "\n".join(rows)


def releases_table() -> str:
    """The claims whose behaviour differs between the measured torch releases."""
    from compilelint.torch_versions import release_table

    return release_table(changed_only=True)


BLOCKS: dict[str, Callable[[], str]] = {
    "rules-table": rules_table,
    "check-options": options_table,
    "releases-table": releases_table,
}


def markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}:start -->", f"<!-- {name}:end -->"


def update_readme(readme: Path) -> bool:
    """Rewrite every generated block between its markers; True if the file changed."""
    text = original = readme.read_text(encoding="utf-8")
    for name, render in BLOCKS.items():
        start, end = markers(name)
        pattern = re.compile(re.escape(start) + r".*?" + re.escape(end), re.S)
        body = render()
        text = pattern.sub(lambda _: f"{start}\n{body}\n{end}", text)
    if text == original:
        return False
    readme.write_text(text, encoding="utf-8")
    return True


if __name__ == "__main__":
    from compilelint.graph_break_doc import DOC_PATH, update_doc

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "README.md")
    print(f"{target}: {'updated' if update_readme(target) else 'up to date'}")
    graph_breaks_page = target.parent / DOC_PATH
    print(f"{graph_breaks_page}: {'updated' if update_doc(target.parent) else 'up to date'}")
