"""``compilelint --fix / --unsafe-fixes / --diff / --exit-non-zero-on-fix`` through click."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from compilelint.cli import main

PRINT_AND_ASSERT = (
    "import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n    def forward(self, x):\n"
    "        print(x)\n        assert not torch.isnan(x).any()\n        return x.sum().item()\n"
)


def run(*args: str, stdin: str | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin)


@pytest.fixture
def model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.compilelint]\n")
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "m.py"
    path.write_text(PRINT_AND_ASSERT)
    return path


def test_fix_applies_safe_fixes_and_reports_what_is_left(model: Path) -> None:
    result = run("--fix", "m.py", "--format", "concise")
    assert result.exit_code == 1
    assert "if not torch.compiler.is_compiling():\n            print(x)" in model.read_text()
    lines = result.stdout.splitlines()
    assert lines[0].startswith("m.py:9:16: CL104 `assert`")  # unsafe fix: no [*] without --unsafe-fixes
    assert lines[-1] == "1 fixed, 2 remaining (1 more with --unsafe-fixes)"


def test_unsafe_fixes_apply_too_and_mark_unsafe_findings_fixable(model: Path) -> None:
    shown = run("--unsafe-fixes", "m.py", "--format", "concise").stdout.splitlines()
    assert [line.split()[2] for line in shown[:3]] == ["[*]", "[*]", "`.item()`"]
    result = run("--fix", "--unsafe-fixes", "m.py", "--format", "concise")
    assert result.exit_code == 1 and result.stdout.splitlines()[-1] == "2 fixed, 1 remaining"
    assert "torch._assert_async(~torch.isnan(x).any())" in model.read_text()


def test_fix_exits_0_when_nothing_is_left_unless_asked_to_fail_on_fixes(model: Path) -> None:
    model.write_text(PRINT_AND_ASSERT.replace("x.sum().item()", "x").replace("        assert not torch.isnan(x).any()\n", ""))
    assert run("--fix", "--exit-non-zero-on-fix", "m.py").exit_code == 1
    assert run("--fix", "--exit-non-zero-on-fix", "m.py").exit_code == 0  # nothing left to fix
    result = run("--fix", "m.py")
    assert (result.exit_code, result.stdout) == (0, "0 fixed, 0 remaining\n")


def test_diff_prints_and_writes_nothing(model: Path) -> None:
    result = run("--diff", "m.py")
    assert result.exit_code == 1 and model.read_text() == PRINT_AND_ASSERT
    assert result.stdout.startswith("--- a/m.py\n+++ b/m.py\n@@")
    assert "+        if not torch.compiler.is_compiling():\n" in result.stdout
    assert "Would fix 1, 2 remaining (1 more with --unsafe-fixes)" in result.stderr
    model.write_text("import torch\n")
    assert run("--diff", "m.py").exit_code == 0


def test_json_carries_the_fix_and_the_remaining_findings(model: Path) -> None:
    data = json.loads(run("--fix", "m.py", "--format", "json").stdout)
    assert [(d["code"], d["fix"]) for d in data] == [
        ("CL104", {"applicability": "unsafe", "title": "Replace with `torch._assert_async` (raises RuntimeError)"}),
        ("CL105", None),
    ]


def test_a_file_that_cannot_be_fixed_exits_2_and_the_others_are_fixed(model: Path) -> None:
    linked = model.parent / "n.py"
    linked.write_text(PRINT_AND_ASSERT)
    (model.parent / "n-other-name.py").hardlink_to(linked)
    result = run("--fix", "m.py", "n.py", "--format", "concise")
    assert result.exit_code == 2
    assert "compilelint: error: n.py: not written: has 2 hard links" in result.stderr
    assert "is_compiling" in model.read_text() and linked.read_text() == PRINT_AND_ASSERT


def test_fix_refuses_stdin() -> None:
    result = run("--fix", "-", stdin=PRINT_AND_ASSERT)
    assert result.exit_code == 2 and "stdin" in result.stderr


GIT_APPLY_CASES = {
    "crlf.py": b"import torch\r\n\r\n\r\nclass M(torch.nn.Module):\r\n    def forward(self, x):\r\n        print(x)\r\n        return x\r\n",
    # the fix adds `import torch` on line 1, after the BOM
    "bom.py": b"\xef\xbb\xbffrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n",
    "latin1.py": b"# -*- coding: latin-1 -*-\nimport torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        print('caf\xe9', x)\n        return x",
}


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_diff_applies_with_git_apply(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    (tmp_path / "pyproject.toml").write_text("[tool.compilelint]\n")
    for name, data in GIT_APPLY_CASES.items():
        (tmp_path / name).write_bytes(data)
    monkeypatch.chdir(tmp_path)
    done = subprocess.run([sys.executable, "-m", "compilelint", "--diff", *GIT_APPLY_CASES], capture_output=True, timeout=120)
    assert done.returncode == 1, done.stderr
    (tmp_path / "fix.patch").write_bytes(done.stdout)
    fixed = subprocess.run([sys.executable, "-m", "compilelint", "--fix", "--no-cache", *GIT_APPLY_CASES], capture_output=True, timeout=120)
    assert fixed.returncode == 0, fixed.stderr
    expected = {name: (tmp_path / name).read_bytes() for name in GIT_APPLY_CASES}
    for name, data in GIT_APPLY_CASES.items():
        (tmp_path / name).write_bytes(data)
    applied = subprocess.run(["git", "apply", "-v", "fix.patch"], cwd=tmp_path, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stderr
    assert {name: (tmp_path / name).read_bytes() for name in GIT_APPLY_CASES} == expected
    assert expected["bom.py"].startswith(b"\xef\xbb\xbfimport torch\n") and b"\r\n" in expected["crlf.py"]
