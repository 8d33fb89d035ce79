"""The flake8 plugin, run through flake8 itself (a process, or its Application in-process)."""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from flake8.main.application import Application

from compilelint import flake8_plugin
from compilelint.cli import main
from compilelint.config import ConfigError, Settings, load_settings
from compilelint.engine import lint_file, lint_source
from compilelint.findings import FileResult, Finding
from compilelint.flake8_plugin import CompileLintChecker, settings_for_folder

DATA = Path(__file__).parent / "data"
BASIC_CODES = [finding.code for finding in lint_file(str(DATA / "basic.py")).findings]


def flake8(*args: str, cwd: Path | None = None, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        # `python -m flake8`, not the venv's bin/flake8: a venv that shares another's
        # site-packages (/work/wt/mkvenv.sh) has the package but not the script
        [sys.executable, "-m", "flake8", "--isolated", *args], capture_output=True, text=True, cwd=cwd, input=stdin, timeout=120
    )


def parse(output: str) -> list[tuple[str, int, int, str]]:
    """``path:row:col: CODE message`` lines -> (path, row, col, 'CODE message')."""
    rows = []
    for line in output.splitlines():
        path, row, col, text = line.split(":", 3)
        rows.append((path, int(row), int(col), text.strip()))
    return rows


def checker_errors(source: str, filename: str = "m.py") -> list[tuple[int, int, str]]:
    lines = source.splitlines(keepends=True)
    checker = CompileLintChecker(ast.parse(source), lines, filename)
    return [(row, col, text) for row, col, text, kind in checker.run()]


@pytest.fixture(autouse=True)
def fresh_settings_cache() -> None:
    settings_for_folder.cache_clear()


def test_same_findings_and_positions_as_the_cli(tmp_path: Path) -> None:
    shutil.copy(DATA / "basic.py", tmp_path / "basic.py")
    shutil.copy(DATA / "breaks.py", tmp_path / "breaks.py")
    shutil.copy(DATA / "unicode.py", tmp_path / "unicode.py")
    done = flake8("--select", "CL", ".", cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    from_flake8 = sorted((os.path.normpath(p), row, col, text) for p, row, col, text in parse(done.stdout))
    cli = CliRunner().invoke(main, ["--format", "json", str(tmp_path)])
    from_cli = sorted(
        (os.path.relpath(d["path"], tmp_path), d["line"], d["column"], f"{d['code']} {d['message']}")
        for d in json.loads(cli.stdout)
    )
    assert from_flake8 == from_cli
    assert ("basic.py", 18, 9) in {row[:3] for row in from_flake8}
    assert ("unicode.py", 7, 20) in {row[:3] for row in from_flake8}  # characters, like the CLI
    assert len(from_flake8) >= 15


def test_select_cl_and_default_selection() -> None:
    only_cl = parse(flake8("--select", "CL", str(DATA / "basic.py")).stdout)
    assert "CL101" in BASIC_CODES
    assert [text.split()[0] for _, _, _, text in only_cl] == BASIC_CODES
    everything = parse(flake8(str(DATA / "basic.py")).stdout)
    assert {text.split()[0] for _, _, _, text in everything} >= {"CL101", "CL102", "CL103"}  # on by default


def test_noqa_is_honoured() -> None:
    found = parse(flake8("--select", "CL", str(DATA / "noqa.py")).stdout)
    assert [(row, text.split()[0]) for _, row, _, text in found] == [(9, "CL101"), (12, "CL101")]


def test_syntax_error_gives_e999_only(tmp_path: Path) -> None:
    (tmp_path / "bad.py").write_text("import torch\n\ndef f(:\n    print(1)\n", encoding="utf-8")
    shutil.copy(DATA / "basic.py", tmp_path / "good.py")
    found = parse(flake8("--select", "CL,E999", "bad.py", "good.py", cwd=tmp_path).stdout)
    assert [(path, text.split()[0]) for path, _, _, text in found if path == "bad.py"] == [("bad.py", "E999")]
    assert [text.split()[0] for path, _, _, text in found if path == "good.py"] == BASIC_CODES


def test_stdin_lints_the_buffer_not_the_disk() -> None:
    buffer = (DATA / "basic.py").read_text(encoding="utf-8")
    done = flake8("--select", "CL", "--stdin-display-name", str(DATA / "clean.py"), "-", stdin=buffer)
    assert [(row, col) for _, row, col, _ in parse(done.stdout)] == [(18, 9), (19, 9), (23, 12)]


def test_forced_internal_error_becomes_one_cl999(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    shutil.copy(DATA / "basic.py", tmp_path / "a.py")
    shutil.copy(DATA / "basic.py", tmp_path / "b.py")
    def flaky(source: str, path: str, settings: object, **kwargs: object) -> FileResult:
        if path.endswith("a.py"):
            raise RecursionError("maximum recursion depth exceeded")
        return lint_source(source, path, settings)  # type: ignore[arg-type]

    monkeypatch.setattr(flake8_plugin, "lint_source", flaky)
    monkeypatch.chdir(tmp_path)
    app = Application()
    app.run(["--isolated", "--jobs", "1", "--select", "CL", "a.py", "b.py"])
    found = parse(capsys.readouterr().out)
    assert [(p, row, col, text.split()[0]) for p, row, col, text in found if p == "a.py"] == [("a.py", 1, 1, "CL999")]
    assert "RecursionError" in found[0][3]
    assert [text.split()[0] for p, _, _, text in found if p == "b.py"] == BASIC_CODES  # as if alone
    assert app.exit_code() == 1


def test_checker_yields_flake8_tuples_with_0_based_columns() -> None:
    errors = checker_errors((DATA / "unicode.py").read_text(encoding="utf-8"))
    assert len(errors) == 1
    row, col, text = errors[0]
    assert (row, col) == (7, 19) and text.startswith("CL101 `print()`")


def test_checker_never_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> FileResult:
        raise MemoryError()

    monkeypatch.setattr(flake8_plugin, "lint_source", boom)
    errors = checker_errors("import torch\n")
    assert [(row, col) for row, col, _ in errors] == [(1, 0)]
    assert errors[0][2].startswith("CL999 compilelint internal error (MemoryError")


def test_checker_drops_cl900(monkeypatch: pytest.MonkeyPatch) -> None:
    cl900 = Finding("CL900", "syntax-error", "SyntaxError: x", "m.py", 1, 1, 1, 1)
    monkeypatch.setattr(flake8_plugin, "lint_source", lambda *args, **kwargs: FileResult("m.py", (cl900,)))
    assert checker_errors("import torch\n") == []


def test_config_is_read_once_per_folder_and_used(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nignore = ["CL101"]\n', encoding="utf-8")
    (tmp_path / "pkg").mkdir()
    source = (DATA / "basic.py").read_text(encoding="utf-8")
    calls = []

    def counting(paths: list[str]) -> Settings:
        calls.append(paths)
        return load_settings(paths)

    monkeypatch.setattr(flake8_plugin, "load_settings", counting)
    first = checker_errors(source, str(tmp_path / "pkg" / "a.py"))
    second = checker_errors(source, str(tmp_path / "pkg" / "b.py"))
    assert [text.split()[0] for _, _, text in first] == ["CL102", "CL103"] and first == second
    assert len(calls) == 1


def test_bad_config_is_reported_not_raised(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nselect = ["X1"]\n', encoding="utf-8")
    errors = checker_errors("import torch\n", str(tmp_path / "m.py"))
    assert len(errors) == 1 and errors[0][:2] == (1, 0)
    assert errors[0][2].startswith("CL999 compilelint configuration error:")
    assert isinstance(settings_for_folder(str(tmp_path)), ConfigError)


MULTILINE_NOQA = (
    "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
    "        print(\n            x,\n        )  # noqa: CL101\n"
    "        y = x.sum(\n        ).item()  # noqa\n"
    "        if x.sum() > 0:\n            x = x + 1  # noqa: CL103 (in the body: does not silence the if)\n"
    "        return x\n"
)


def test_noqa_anywhere_in_a_multi_line_statement(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(MULTILINE_NOQA)
    found = parse(flake8("--select", "CL", "m.py", cwd=tmp_path).stdout)
    assert [(row, text.split()[0]) for _, row, _, text in found] == [(11, "CL103")]
    every = parse(flake8("--select", "CL", "--disable-noqa", "m.py", cwd=tmp_path).stdout)
    assert [text.split()[0] for _, _, _, text in every] == ["CL101", "CL105", "CL103"]
