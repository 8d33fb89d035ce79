"""Adopting compilelint on a project with findings: --write-baseline/--baseline, --add-noqa."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from compilelint.cli import main

DATA = Path(__file__).parent / "data"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def codes(result: Result) -> list[tuple[str, int]]:
    return [(d["code"], d["line"]) for d in json.loads(result.stdout)]


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.compilelint]\n")
    shutil.copy(DATA / "basic.py", tmp_path / "m.py")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_baseline_hides_known_findings_and_survives_line_moves(project: Path) -> None:
    written = run("--write-baseline", "baseline.json", "m.py")
    assert written.exit_code == 0 and "Wrote 3 findings" in written.stderr
    assert run("--baseline", "baseline.json", "m.py").stdout.startswith("All checks passed! (3 findings in the baseline)")
    path = project / "m.py"
    text = path.read_text()
    moved = text.replace("import torch\n", "import torch\n\n\n# a comment that moves every line\n", 1)
    path.write_text(moved.replace("print(y)", "print( y )  # reformatted"))  # same statement, normalised
    result = run("--output-format", "json", "--baseline", "baseline.json", "m.py")
    assert (result.exit_code, codes(result)) == (0, [])
    # a new finding, and a second copy of a baselined statement, are reported
    path.write_text(moved.replace("        print(y)\n", "        print(y)\n        print(y)\n        print(x)\n"))
    result = run("--output-format", "json", "--baseline", "baseline.json", "m.py")
    assert result.exit_code == 1 and [c for c, _ in codes(result)] == ["CL101", "CL101"]


def test_a_baseline_matches_by_function_and_text(project: Path) -> None:
    run("--write-baseline", "b.json", "m.py")
    entries = json.loads((project / "b.json").read_text())["findings"]
    assert {(e["code"], e["path"], e["function"], e["statement"]) for e in entries} >= {
        ("CL101", "m.py", "Net.forward", "print ( y )")}  # fmt: skip
    bad = project / "bad.json"
    bad.write_text("{}")
    assert run("--baseline", "bad.json", "m.py").exit_code == 2


def test_add_noqa_is_idempotent_and_keeps_other_bytes(project: Path) -> None:
    path = project / "m.py"
    original = path.read_text().replace("\n", "\r\n")
    path.write_bytes(b"\xef\xbb\xbf" + original.replace("print(y)", "print(y)  # noqa: CL999").encode())
    before = path.read_bytes()
    result = run("--add-noqa", "m.py")
    assert result.exit_code == 0 and "Added 3 noqa comments in 1 files" in result.stderr
    after = path.read_bytes()
    assert after.startswith(b"\xef\xbb\xbf") and after.count(b"\r\n") == before.count(b"\r\n") and b"\n" not in after.replace(b"\r\n", b"")
    changed = [(a, b) for a, b in zip(before.split(b"\r\n"), after.split(b"\r\n")) if a != b]
    assert [b.split(b"#", 1)[-1] for _, b in changed] == [b" noqa: CL101, CL999", b" noqa: CL102", b" noqa: CL103"]
    assert run("--output-format", "json", "m.py").stdout.strip() == "[]"
    assert run("--add-noqa", "m.py").stderr.startswith("Added 0 noqa comments") and path.read_bytes() == after


def test_add_noqa_puts_the_comment_after_a_multi_line_string(project: Path) -> None:
    path = project / "m.py"
    path.write_text(
        "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
        '        print("""a\n        b""", x)\n        return x\n'
    )
    run("--add-noqa", "m.py")
    assert '        b""", x)  # noqa: CL101\n' in path.read_text()
    assert run("--output-format", "json", "m.py").stdout.strip() == "[]"
