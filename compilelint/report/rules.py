"""``compilelint rule CODE`` and ``compilelint rules``: a rule's metadata and docs."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from rich.table import Table
from rich.text import Text

from compilelint.registry import Rule


@dataclass(frozen=True)
class RuleInfo:
    """What the reports show about a rule: a registry rule, or one of the engine's codes."""

    code: str
    name: str
    summary: str
    doc: str
    message: str = ""
    gb_ids: tuple[str, ...] = ()
    breaks: tuple[str, ...] = ()
    torch_versions: str = ""
    fix_applicability: str | None = None

    @classmethod
    def from_rule(cls, rule: Rule) -> RuleInfo:
        return cls(
            code=rule.code,
            name=rule.name,
            summary=rule.summary(),
            doc=rule.doc(),
            message=rule.message,
            gb_ids=tuple(rule.gb_ids),
            breaks=tuple(mode.value for mode in rule.breaks),
            torch_versions=rule.torch_versions,
            fix_applicability=rule.fix_applicability.value if rule.fix_applicability else None,
        )

    def to_json(self) -> dict[str, object]:
        return {
            "code": self.code,
            "name": self.name,
            "summary": self.summary,
            "message": self.message,
            "gb_ids": list(self.gb_ids),
            "breaks": list(self.breaks),
            "torch_versions": self.torch_versions,
            "fix_applicability": self.fix_applicability,
            "doc": self.doc,
        }


# The engine's own codes: not rules (nothing to select in a rule file), but they appear in
# output, so `compilelint rule CL900` should explain them too.
ENGINE_CODES = (
    RuleInfo(
        code="CL900",
        name="syntax-error",
        summary="Reports files that cannot be read, decoded or parsed.",
        doc=(
            "Reports files that cannot be read, decoded or parsed.\n\n"
            "## What it does\nA file compilelint could not lint: it does not exist or cannot be "
            "opened, its bytes do not decode with its PEP 263 coding cookie (UTF-8 by default), "
            "or it is not valid Python for the running interpreter.\n\n"
            "## Why is this bad?\nNothing in the file was checked. The other files still are.\n\n"
            "## Fix safety\nNo fix: correct the file, or exclude it."
        ),
    ),
    RuleInfo(
        code="CL999",
        name="internal-error",
        summary="Reports a crash of compilelint itself on this file.",
        doc=(
            "Reports a crash of compilelint itself on this file.\n\n"
            "## What it does\nA rule or the analysis raised an exception. The message names it. "
            "The rest of the file, and the other files, are still reported.\n\n"
            "## Why is this bad?\nIt is a bug in compilelint: please report it with the smallest "
            "file that shows it.\n\n"
            "## Fix safety\nNo fix."
        ),
    ),
)


def rule_markdown(info: RuleInfo) -> str:
    """The rule's page: a metadata list, then its docstring (which is Markdown)."""
    facts = [
        ("GB ids", ", ".join(info.gb_ids) or "-"),
        ("Breaks in", ", ".join(info.breaks) or "-"),
        ("Torch versions", info.torch_versions or "-"),
        ("Fix", info.fix_applicability or "none"),
    ]
    if info.message:
        facts.insert(0, ("Message", info.message))
    header = [f"# {info.code} {info.name}", ""]
    header += [f"- {label}: {value}" for label, value in facts]
    return "\n".join(header) + "\n\n" + info.doc + _releases_section(info.code) + "\n"


def _releases_section(code: str) -> str:
    """What each measured torch release does for the rule's claims (rules/claims/)."""
    from compilelint.torch_versions import measured_builds, measured_releases, release_list

    if not code.startswith("CL") or code.startswith("CL9") or not measured_releases():
        return ""
    table = release_list((code,))
    if not table:
        return ""
    return (
        "\n\n## Measured on each torch release\n"
        "D: breaks in the default mode, F: under `fullgraph=True`, Y: with `dynamic=True` "
        "(lower case: on some of the fixture sites; F?: no fullgraph run reached it); then the GB ids that release reported. "
        f"Recompile rules: recompiles per counted fixture. Measured: {measured_builds()}.\n\n" + table
    )


def rules_table(infos: Sequence[RuleInfo]) -> Table:
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("Code", "Name", "Fix", "Summary"):
        table.add_column(column, no_wrap=column != "Summary")
    for info in infos:
        table.add_row(Text(info.code, style="bold red"), info.name, info.fix_applicability or "-", info.summary)
    return table


def rules_plain(infos: Sequence[RuleInfo]) -> list[str]:
    """One aligned line per rule, for pipes (grep, cut) where a table's wrapping hurts."""
    name_width = max((len(info.name) for info in infos), default=4)
    return [f"{info.code}  {info.name:<{name_width}}  {info.fix_applicability or '-':<6}  {info.summary}" for info in infos]


def rules_to_json(infos: Sequence[RuleInfo]) -> str:
    return json.dumps([info.to_json() for info in infos], indent=2, ensure_ascii=False)


def rule_to_json(info: RuleInfo) -> str:
    return json.dumps(info.to_json(), indent=2, ensure_ascii=False)
