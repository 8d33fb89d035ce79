"""Formats for CI systems: GitHub workflow annotations, GitLab code quality, JUnit XML,
and JSON lines (one finding per line, for streaming tools)."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from collections.abc import Iterable
from xml.etree import ElementTree

from compilelint.findings import Finding


def _ordered(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: f.sort_key)


def findings_to_json_lines(findings: Iterable[Finding]) -> str:
    return "\n".join(json.dumps(f.to_json(), ensure_ascii=False) for f in _ordered(findings))


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def findings_to_github(findings: Iterable[Finding]) -> str:
    """``::error file=...,line=...,col=...,endLine=...,endColumn=...,title=...::message``:
    GitHub Actions shows each as an annotation on the pull request's diff."""
    lines = []
    for f in _ordered(findings):
        level = "error" if f.code.startswith("CL9") else "warning"
        props = (f"file={_escape_property(f.path)},line={f.line},col={f.column},endLine={f.end_line},"
                 f"endColumn={f.end_column},title={_escape_property(f'compilelint ({f.code})')}")  # fmt: skip
        lines.append(f"::{level} {props}::{_escape_data(f'{f.path}:{f.line}:{f.column}: {f.code} {f.message}')}")
    return "\n".join(lines)


def _relative(path: str) -> str:
    return os.path.relpath(os.path.abspath(path)).replace(os.sep, "/")


def findings_to_gitlab(findings: Iterable[Finding]) -> str:
    """GitLab's code quality report (a subset of Code Climate's). The fingerprint ignores the
    line number, so a finding that moves is the same finding in GitLab's merge-request diff."""
    seen: Counter[tuple[str, str, str]] = Counter()
    issues = []
    for f in _ordered(findings):
        path = _relative(f.path)
        key = (f.code, path, f.message)
        seen[key] += 1
        fingerprint = hashlib.sha256("\0".join([*key, str(seen[key])]).encode()).hexdigest()
        issues.append({
            "description": f"{f.code} {f.message}",
            "check_name": f.code,
            "fingerprint": fingerprint,
            "severity": "critical" if f.code.startswith("CL9") else "major",
            "location": {"path": path, "lines": {"begin": f.line, "end": f.end_line}},
        })  # fmt: skip
    return json.dumps(issues, indent=2, ensure_ascii=False)


def findings_to_junit(findings: Iterable[Finding], files: Iterable[str] = ()) -> str:
    """One test suite, one failing test case per finding (classname: the file), and one
    passing case per linted file without findings, so CI dashboards count the files."""
    ordered = _ordered(findings)
    suite = ElementTree.Element("testsuite", name="compilelint", tests="0", failures=str(len(ordered)), errors="0")
    for f in ordered:
        case = ElementTree.SubElement(suite, "testcase", name=f"{f.code} at {f.line}:{f.column}", classname=f.path,
                                      file=f.path, line=str(f.line))  # fmt: skip
        failure = ElementTree.SubElement(case, "failure", message=f.message, type=f.code)
        failure.text = f"{f.path}:{f.line}:{f.column}: {f.code} {f.message}"
    with_findings = {f.path for f in ordered}
    for path in sorted(set(files) - with_findings):
        ElementTree.SubElement(suite, "testcase", name="compilelint", classname=path, file=path)
    suite.set("tests", str(len(suite)))
    root = ElementTree.Element("testsuites", name="compilelint", tests=suite.get("tests", "0"), failures=str(len(ordered)))
    root.append(suite)
    ElementTree.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ElementTree.tostring(root, encoding="unicode")
