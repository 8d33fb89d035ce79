"""``--output-format sarif``: SARIF 2.1.0, for code-scanning dashboards (GitHub, GitLab,
Azure DevOps). The test suite validates it against the official OASIS schema."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from compilelint import __version__
from compilelint.findings import Finding
from compilelint.report.rules import RuleInfo

SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SOURCE_ROOT = "%SRCROOT%"


def findings_to_sarif(findings: Iterable[Finding], rules: Sequence[RuleInfo], root: str | None = None) -> str:
    """One run of compilelint; paths relative to ``root`` (default: the current folder)."""
    base = os.path.abspath(root or os.getcwd())
    index = {rule.code: position for position, rule in enumerate(rules)}
    run = {
        "tool": {"driver": {
            "name": "compilelint",
            "version": __version__,
            "informationUri": "https://pypi.org/project/compilelint/",
            "rules": [_rule(rule) for rule in rules],
        }},
        "originalUriBaseIds": {SOURCE_ROOT: {"uri": Path(base).as_uri() + "/"}},
        "columnKind": "unicodeCodePoints",  # our columns count characters, not UTF-16 units
        "results": [_result(f, index, base) for f in sorted(findings, key=lambda f: f.sort_key)],
    }  # fmt: skip
    return json.dumps({"$schema": SCHEMA_URI, "version": "2.1.0", "runs": [run]}, indent=2, ensure_ascii=False)


def _rule(rule: RuleInfo) -> dict[str, Any]:
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc},
        "help": {"text": rule.doc, "markdown": rule.doc},
        "defaultConfiguration": {"level": _level(rule.code)},
        "properties": {"gb_ids": list(rule.gb_ids), "breaks": list(rule.breaks), "fix": rule.fix_applicability},
    }


def _level(code: str) -> str:
    return "error" if code.startswith("CL9") else "warning"  # CL9xx: the file was not linted


def _location(path: str, base: str) -> dict[str, Any]:
    absolute = os.path.abspath(path)
    if os.path.commonpath([absolute, base]) == base:
        return {"uri": Path(os.path.relpath(absolute, base)).as_posix(), "uriBaseId": SOURCE_ROOT}
    return {"uri": Path(absolute).as_uri()}


def _result(finding: Finding, index: dict[str, int], base: str) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.code,
        "level": _level(finding.code),
        "message": {"text": finding.message},
        "locations": [{"physicalLocation": {
            "artifactLocation": _location(finding.path, base),
            "region": {"startLine": finding.line, "startColumn": finding.column,
                       "endLine": finding.end_line, "endColumn": max(finding.end_column, 1)},
        }}],
        "properties": {"region": list(finding.region), "breaks": [m.value for m in finding.breaks],
                       "gb_ids": list(finding.gb_ids)},
    }  # fmt: skip
    if finding.code in index:
        result["ruleIndex"] = index[finding.code]
    if finding.region:
        result["locations"][0]["logicalLocations"] = [{"fullyQualifiedName": finding.region[-1], "kind": "function"}]
    return result
