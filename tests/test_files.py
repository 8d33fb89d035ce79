"""Finding files: special files, --force-exclude, .gitignore (through the CLI)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from compilelint.cli import main

PRINT_MODULE = "import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n"


def run(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def linted(result: Result) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for item in json.loads(result.stdout):
        found.setdefault(Path(item["path"]).as_posix(), []).append(item["code"])
    return found


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.compilelint]\nextend-exclude = ['generated']\n")
    (tmp_path / "m.py").write_text(PRINT_MODULE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_named_like_python_does_not_hang(project: Path) -> None:
    os.mkfifo(project / "x.py")
    # a real process with a timeout: a hang must fail the test, not the suite
    done = subprocess.run([sys.executable, "-m", "compilelint", "--output-format", "json", "."],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    assert done.returncode == 1, done.stderr
    found = {item["path"]: item for item in json.loads(done.stdout)}
    assert found["x.py"]["code"] == "CL900" and "a FIFO, not a regular file" in found["x.py"]["message"]
    assert found["m.py"]["code"] == "CL101"


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_symlink_to_an_endless_device_is_not_read(project: Path) -> None:
    (project / "zero.py").symlink_to("/dev/zero")
    done = subprocess.run([sys.executable, "-m", "compilelint", "--output-format", "json", "zero.py", "m.py"],
                          capture_output=True, text=True, timeout=60)  # fmt: skip
    found = {item["path"]: item for item in json.loads(done.stdout)}
    assert "a character device, not a regular file" in found["zero.py"]["message"]
    assert found["m.py"]["code"] == "CL101"


def test_force_exclude_skips_excluded_files_named_explicitly(project: Path) -> None:
    (project / "generated").mkdir()
    (project / "generated" / "g.py").write_text(PRINT_MODULE)
    (project / "build").mkdir()
    (project / "build" / "b.py").write_text(PRINT_MODULE)
    named = ("m.py", "generated/g.py", "build/b.py")
    assert set(linted(run("--output-format", "json", *named))) == {"m.py", "generated/g.py", "build/b.py"}
    assert set(linted(run("--output-format", "json", "--force-exclude", *named))) == {"m.py"}
    (project / "pyproject.toml").write_text("[tool.compilelint]\nforce-exclude = true\nextend-exclude = ['generated']\n")
    assert set(linted(run("--output-format", "json", *named))) == {"m.py"}


def test_gitignored_files_are_skipped_in_a_git_work_tree(project: Path) -> None:
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("out/\n*_gen.py\n!keep_gen.py\n")
    for name in ("out/o.py", "a_gen.py", "keep_gen.py", "sub/b_gen.py", "sub/c.py", "sub/local.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text(PRINT_MODULE)
    (project / "sub" / ".gitignore").write_text("local.py\n")
    walked = set(linted(run("--output-format", "json", ".")))
    assert walked == {"m.py", "keep_gen.py", "sub/c.py"}
    everything = set(linted(run("--output-format", "json", "--no-respect-gitignore", ".")))
    assert everything == walked | {"out/o.py", "a_gen.py", "sub/b_gen.py", "sub/local.py"}
    # named: linted, unless --force-exclude
    assert set(linted(run("--output-format", "json", "a_gen.py"))) == {"a_gen.py"}
    assert set(linted(run("--output-format", "json", "--force-exclude", "a_gen.py", "out/o.py", "m.py"))) == {"m.py"}


def test_gitignore_outside_a_git_work_tree_is_not_read(project: Path) -> None:
    (project / ".gitignore").write_text("m.py\n")
    assert set(linted(run("--output-format", "json", "."))) == {"m.py"}


def test_an_unreadable_named_file_is_an_error_for_that_path(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (project / "locked.py").write_text(PRINT_MODULE)
    real_access = os.access
    # tests run as root, whom chmod cannot lock out
    monkeypatch.setattr(os, "access", lambda p, mode: not str(p).endswith("locked.py") and real_access(p, mode))
    result = run("--output-format", "json", "locked.py", "m.py")
    assert result.exit_code == 2 and "compilelint: error: locked.py: permission denied" in result.stderr
    assert linted(result) == {"m.py": ["CL101"]}
