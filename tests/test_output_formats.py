"""--output-format sarif, github, gitlab, junit, json-lines; -o FILE."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from xml.etree import ElementTree

import pytest
from click.testing import CliRunner, Result

from compilelint.cli import main

DATA = Path(__file__).parent / "data"
SARIF_SCHEMA = DATA / "schemas" / "sarif-schema-2.1.0.json"  # OASIS, errata01 (sarif-spec repo)


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.compilelint]\n")
    shutil.copy(DATA / "basic.py", tmp_path / "basic.py")
    (tmp_path / "bad.py").write_text("import torch\ndef f(:\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_sarif_validates_against_the_2_1_0_schema(project: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    result = run("--output-format", "sarif", "basic.py", "bad.py")
    assert result.exit_code == 1
    log = json.loads(result.stdout)
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).validate(log)
    run_ = log["runs"][0]
    results = run_["results"]
    assert [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in results] == [
        ("CL900", 2), ("CL101", 18), ("CL102", 19), ("CL103", 23)]  # fmt: skip
    rules = run_["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)
    assert results[1]["locations"][0]["physicalLocation"]["artifactLocation"] == {"uri": "basic.py", "uriBaseId": "%SRCROOT%"}
    assert results[0]["level"] == "error" and results[1]["level"] == "warning"


def test_github_annotations(project: Path) -> None:
    result = run("--output-format", "github", "basic.py")
    lines = result.stdout.splitlines()
    assert lines[0] == (
        "::warning file=basic.py,line=18,col=9,endLine=18,endColumn=17,title=compilelint (CL101)::"
        "basic.py:18:9: CL101 `print()` in a compiled region breaks the graph (GB0059); "
        "guard it with `torch.compiler.is_compiling()`"
    )
    assert len(lines) == 3 and all(line.startswith("::warning file=basic.py,") for line in lines)


def test_github_escapes_what_the_runner_would_parse() -> None:
    from compilelint.findings import Finding
    from compilelint.report.ci import findings_to_github

    odd = Finding("CL999", "internal-error", "50% broken\nhere", "a,b:c.py", 1, 1, 1, 1)
    assert findings_to_github([odd]) == (
        "::error file=a%2Cb%3Ac.py,line=1,col=1,endLine=1,endColumn=1,title=compilelint (CL999)::a,b:c.py:1:1: CL999 50%25 broken%0Ahere"
    )


def test_gitlab_code_quality(project: Path) -> None:
    issues = json.loads(run("--output-format", "gitlab", "basic.py").stdout)
    assert [(i["check_name"], i["location"]["path"], i["location"]["lines"]["begin"]) for i in issues] == [
        ("CL101", "basic.py", 18), ("CL102", "basic.py", 19), ("CL103", "basic.py", 23)]  # fmt: skip
    assert len({i["fingerprint"] for i in issues}) == 3 and all(i["severity"] == "major" for i in issues)
    moved = (project / "basic.py").read_text().replace("import torch", "\n\nimport torch", 1)
    (project / "basic.py").write_text(moved)
    again = json.loads(run("--output-format", "gitlab", "basic.py").stdout)
    assert [i["fingerprint"] for i in again] == [i["fingerprint"] for i in issues]  # moved lines: same issues


def test_junit(project: Path) -> None:
    (project / "clean.py").write_text("x = 1\n")
    root = ElementTree.fromstring(run("--output-format", "junit", "basic.py", "clean.py").stdout)
    suite = root.find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("4", "3")
    failures = [case.find("failure") for case in suite.iter("testcase")]
    assert [f.get("type") for f in failures if f is not None] == ["CL101", "CL102", "CL103"]
    assert [case.get("classname") for case in suite.iter("testcase")][-1] == "clean.py"


def test_json_lines(project: Path) -> None:
    lines = run("--output-format", "json-lines", "basic.py").stdout.splitlines()
    assert [json.loads(line)["code"] for line in lines] == ["CL101", "CL102", "CL103"]
    assert run("--format", "json-lines", "basic.py").stdout.splitlines() == lines  # --format: an alias


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_output_file(project: Path, fmt: str) -> None:
    result = run("--output-format", fmt, "-o", "report.out", "basic.py")
    assert result.exit_code == 1 and result.stdout == ""
    written = (project / "report.out").read_text(encoding="utf-8")
    assert "CL101" in written and "\x1b[" not in written
