"""The ``compilelint`` command: through click's CliRunner, and a few real processes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import types
from pathlib import Path

import click
import pytest
from click.testing import CliRunner, Result

from compilelint import cli
from compilelint.cli import main

DATA = Path(__file__).parent / "data"
BIN = Path(sys.executable).parent
JSON_KEYS = {
    "code", "name", "message", "path", "line", "column", "end_line", "end_column",
    "region", "breaks", "gb_ids", "fix", "torch",
}  # fmt: skip
PRINT_MODULE = "import torch\nimport torch.nn as nn\n\n\nclass Net(nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n"
COLOUR = re.compile(r"\x1b\[(?:\d+;)*3\dm")


def run(*args: str, stdin: str | bytes | None = None) -> Result:
    return CliRunner().invoke(main, list(args), input=stdin)


def codes(result: Result) -> list[tuple[str, str, int, int]]:
    return [(d["path"], d["code"], d["line"], d["column"]) for d in json.loads(result.stdout)]


def expected_summary(json_result: Result) -> str:
    """The summary line the text format must print for the findings of a JSON run.

    Rules gain and lose fixes as they evolve; the summary must agree with the JSON.
    """
    fixes = [d["fix"]["applicability"] for d in json.loads(json_result.stdout) if d["fix"]]
    hints = [f"{fixes.count('safe')} fixable with --fix"] if "safe" in fixes else []
    hints += [f"{fixes.count('unsafe')} more with --unsafe-fixes"] if "unsafe" in fixes else []
    total = len(json.loads(json_result.stdout))
    return f"Found {total} findings" + (f" ({', '.join(hints)})" if hints else "")


def write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty project folder as cwd, with a pyproject.toml so no config above it leaks in."""
    write(tmp_path / "pyproject.toml", "[tool.compilelint]\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --- exit codes and the text format ------------------------------------------------------


def test_clean_file_exits_0() -> None:
    result = run(str(DATA / "clean.py"))
    assert (result.exit_code, result.stdout) == (0, "All checks passed!\n")


def test_findings_exit_1_with_ruff_style_text(project: Path) -> None:
    shutil.copy(DATA / "basic.py", project / "basic.py")
    result = run("basic.py")
    assert result.exit_code == 1, result.stderr
    assert not COLOUR.search(result.stdout) and "\x1b" not in result.stdout  # piped: plain
    assert result.stdout.splitlines()[:8] == [
        "basic.py:18:9: CL101 [*] `print()` in a compiled region breaks the graph (GB0059); "
        "guard it with `torch.compiler.is_compiling()`",
        "   |",
        "18 |         print(y)",
        "   |         ^^^^^^^^ CL101",
        "   |",
        "   = in Net.forward",
        "   = breaks in: default, fullgraph",
        "   = help: Guard with `if not torch.compiler.is_compiling():`",
    ]
    assert "   = in Net.forward \u2192 Net._mix" in result.stdout  # CL103, reached through a call
    assert result.stdout.endswith(f"\n{expected_summary(run('--format', 'json', 'basic.py'))}\n")
    assert result.stderr == ""


def test_concise_format(project: Path) -> None:
    shutil.copy(DATA / "basic.py", project / "basic.py")
    lines = run("basic.py", "--format", "concise").stdout.splitlines()
    assert lines[0].startswith("basic.py:18:9: CL101 [*] `print()`")
    assert lines[2].startswith("basic.py:23:12: CL103 `if` on tensor data")
    assert lines[3] == expected_summary(run("basic.py", "--format", "json"))


def test_missing_path_exits_2_and_the_other_files_are_linted() -> None:
    result = run("--format", "concise", str(DATA / "basic.py"), "no/such/file.py")
    assert result.exit_code == 2
    assert result.stderr == "compilelint: error: no/such/file.py: no such file or directory\n"
    assert "CL101" in result.stdout and result.stdout.rstrip().endswith("; 1 path could not be linted")
    clean = run(str(DATA / "clean.py"), "nope.py")
    assert (clean.exit_code, clean.stdout) == (2, "No findings; 1 path could not be linted\n")


def test_an_unlistable_folder_is_an_error_for_that_folder(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(project / "ok" / "m.py", PRINT_MODULE)
    write(project / "locked" / "m.py", PRINT_MODULE)
    real_scandir = os.scandir

    def scandir(path: object) -> object:  # tests run as root, which chmod cannot lock out
        if str(path).endswith("locked"):
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "scandir", scandir)
    result = run("--format", "json", ".")
    assert result.exit_code == 2
    assert "locked: cannot list folder: Permission denied" in result.stderr
    assert {Path(p).as_posix() for p, _, _, _ in codes(result)} == {"ok/m.py"}


@pytest.mark.parametrize("selector", ["CL555", "CL4", "CL1011"])
@pytest.mark.parametrize("option", ["--select", "--ignore", "--extend-select"])
def test_unknown_rule_codes_are_rejected(option: str, selector: str) -> None:
    result = run(option, selector, str(DATA / "basic.py"))
    assert result.exit_code == 2 and result.stdout == ""
    assert f"unknown rule code '{selector}': no rule starts with it" in result.stderr


@pytest.mark.parametrize("key", ["select", "ignore", "extend-select"])
def test_unknown_rule_codes_in_pyproject_are_rejected(project: Path, key: str) -> None:
    write(project / "pyproject.toml", f'[tool.compilelint]\n{key} = ["CL105", "CL555"]\n')
    write(project / "m.py", PRINT_MODULE)
    result = run("m.py")
    assert result.exit_code == 2 and "unknown rule code 'CL555'" in result.stderr
    write(project / "pyproject.toml", '[tool.compilelint.per-file-ignores]\n"m.py" = ["CL1O1"]\n')
    assert run("m.py").exit_code == 2


def test_the_readme_selectors_are_accepted(project: Path) -> None:
    write(project / "pyproject.toml", '[tool.compilelint]\nselect = ["CL"]\nignore = ["CL9"]\n')
    shutil.copy(DATA / "basic.py", project / "m.py")
    assert [code for _, code, _, _ in codes(run("--format", "json", "m.py"))] == ["CL101", "CL102", "CL103"]
    for prefix in ("CL", "CL1", "CL10", "CL101", "ALL", "cl2"):
        assert run("--select", prefix, "m.py").exit_code in (0, 1), prefix


def test_usage_error_exits_2_with_one_line() -> None:
    result = run("--bogus", str(DATA / "clean.py"))
    assert result.exit_code == 2
    assert result.stderr.startswith("compilelint: error: No such option '--bogus'")
    assert len(result.stderr.splitlines()) == 1


def test_bad_code_prefix_is_a_usage_error() -> None:
    result = run("--select", "E501", str(DATA / "clean.py"))
    assert result.exit_code == 2
    assert "'E501', which is not a rule code prefix" in result.stderr


def test_bad_config_exits_2(project: Path) -> None:
    write(project / "pyproject.toml", "[tool.compilelint]\nselect = ['CL1']\nfrobnicate = true\n")
    write(project / "m.py", PRINT_MODULE)
    result = run("m.py")
    assert result.exit_code == 2
    assert result.stderr.startswith("compilelint: error: ") and "unknown key 'frobnicate'" in result.stderr


def test_crash_of_the_cli_exits_2(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr("compilelint.check.lint_files", boom)
    monkeypatch.delenv(cli.DEBUG_VARIABLE, raising=False)
    result = run(str(DATA / "basic.py"))
    assert result.exit_code == 2
    assert result.stderr.startswith("compilelint: error: internal error: RuntimeError: boom (please report")


def test_internal_error_finding_exits_1(monkeypatch: pytest.MonkeyPatch) -> None:
    from compilelint import engine

    def crash(*args: object) -> None:
        raise ValueError("analysis bug")

    monkeypatch.setattr(engine, "_analyse", crash)
    result = run(str(DATA / "basic.py"), str(DATA / "clean.py"), "--format", "json")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert {(Path(d["path"]).name, d["code"], d["line"]) for d in data} == {
        ("basic.py", "CL999", 1),
        ("clean.py", "CL999", 1),
    }
    assert "ValueError: analysis bug" in data[0]["message"]


# --- json, statistics, quiet, exit-zero --------------------------------------------------


def test_json_schema(project: Path) -> None:
    shutil.copy(DATA / "basic.py", project / "basic.py")
    result = run("--format", "json", "basic.py")
    assert result.exit_code == 1
    data = json.loads(result.stdout)  # the whole of stdout is one JSON document
    assert all(set(d) == JSON_KEYS for d in data)
    assert [(d["line"], d["column"]) for d in data] == sorted((d["line"], d["column"]) for d in data)
    printed = data[0]
    assert printed == {
        "code": "CL101",
        "name": "print-call",
        "message": printed["message"],
        "path": "basic.py",
        "line": 18,
        "column": 9,  # 1-based, like the text output
        "end_line": 18,
        "end_column": 17,  # exclusive: `print(y)` is 8 characters
        "region": ["Net.forward"],
        "breaks": ["default", "fullgraph"],
        "gb_ids": ["GB0059"],
        "fix": {"applicability": "safe", "title": "Guard with `if not torch.compiler.is_compiling():`"},
        "torch": printed["torch"],
    }
    assert set(printed["torch"]) == {"release", "why"}
    branch = data[2]
    assert (branch["code"], branch["region"]) == ("CL103", ["Net.forward", "Net._mix"])
    assert branch["fix"] is None or set(branch["fix"]) == {"applicability", "title"}


def test_json_without_findings_is_an_empty_array() -> None:
    result = run("--format", "json", str(DATA / "clean.py"))
    assert (result.exit_code, result.stdout) == (0, "[]\n")


def test_statistics(project: Path) -> None:
    shutil.copy(DATA / "basic.py", project / "basic.py")
    shutil.copy(DATA / "noqa.py", project / "noqa.py")
    result = run("--statistics", ".")
    assert result.exit_code == 1
    assert result.stdout.splitlines() == [
        "3  CL101  [*] print-call",
        "1  CL102  [*] logging-call",
        "1  CL103  [ ] tensor-dependent-branch",  # no fix, or an unsafe one: not fixable by --fix
        expected_summary(run("--format", "json", ".")),
    ]
    data = json.loads(run("--statistics", "--format", "json", ".").stdout)
    assert data[0] == {"code": "CL101", "name": "print-call", "count": 3, "fixable": True}


def test_quiet_prints_only_findings() -> None:
    result = run("-q", "--format", "concise", str(DATA / "basic.py"))
    assert result.exit_code == 1
    assert len(result.stdout.splitlines()) == 3
    clean = run("--quiet", str(DATA / "clean.py"))
    assert (clean.exit_code, clean.stdout) == (0, "")


def test_exit_zero() -> None:
    result = run("--exit-zero", str(DATA / "basic.py"))
    assert result.exit_code == 0 and "Found 3 findings" in result.stdout


# --- selection and configuration ---------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((), ["CL101", "CL102", "CL103"]),
        (("--select", "CL1", "--ignore", "CL101"), ["CL102", "CL103"]),
        (("--select", "CL101"), ["CL101"]),
        (("--select", "CL101,CL103"), ["CL101", "CL103"]),
        (("--select", "CL101", "--select", "CL102"), ["CL101", "CL102"]),
        (("--select", "CL101", "--ignore", "CL1"), ["CL101"]),  # the more specific prefix wins
        (("--ignore", "CL10"), []),
        (("--ignore", "CL1", "--extend-select", "CL103"), ["CL103"]),
        (("--select", "cl102"), ["CL102"]),
    ],
)
def test_selection(args: tuple[str, ...], expected: list[str]) -> None:
    result = run("--format", "json", *args, str(DATA / "basic.py"))
    assert [code for _, code, _, _ in codes(result)] == expected


def test_pyproject_found_walking_up_and_overridden_by_flags(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "proj" / "pyproject.toml", '[tool.compilelint]\nignore = ["CL101"]\n')
    shutil.copy(DATA / "basic.py", write(tmp_path / "proj" / "src" / "pkg" / "model.py", ""))
    monkeypatch.chdir(tmp_path)
    found = [code for _, code, _, _ in codes(run("--format", "json", "proj/src/pkg"))]
    assert found == ["CL102", "CL103"]
    overridden = [code for _, code, _, _ in codes(run("--format", "json", "--extend-select", "CL101", "proj/src"))]
    assert overridden == ["CL101", "CL102", "CL103"]
    selected = [code for _, code, _, _ in codes(run("--format", "json", "--select", "CL101", "proj/src/pkg/model.py"))]
    assert selected == ["CL101"]


def test_a_project_pyproject_without_our_table_stops_the_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "pyproject.toml", '[tool.compilelint]\nselect = ["CL103"]\n')
    write(tmp_path / "sub" / "pyproject.toml", '[tool.black]\nline-length = 100\n')
    shutil.copy(DATA / "basic.py", tmp_path / "sub" / "m.py")
    monkeypatch.chdir(tmp_path / "sub")
    assert [code for _, code, _, _ in codes(run("--format", "json", "m.py"))] == ["CL101", "CL102", "CL103"]


def test_a_git_folder_stops_the_walk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "pyproject.toml", '[tool.compilelint]\nselect = ["CL103"]\n')
    (tmp_path / "repo" / ".git").mkdir(parents=True)
    shutil.copy(DATA / "basic.py", write(tmp_path / "repo" / "src" / "m.py", ""))
    monkeypatch.chdir(tmp_path / "repo")
    assert [code for _, code, _, _ in codes(run("--format", "json", "src/m.py"))] == ["CL101", "CL102", "CL103"]


def test_a_config_planted_in_a_world_writable_folder_is_never_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    write(shared / "pyproject.toml", '[tool.compilelint]\nignore = ["CL"]\n')  # silences everything
    shared.chmod(0o1777)  # like /tmp
    shutil.copy(DATA / "basic.py", write(shared / "me" / "m.py", ""))
    monkeypatch.chdir(shared / "me")
    assert [code for _, code, _, _ in codes(run("--format", "json", "m.py"))] == ["CL101", "CL102", "CL103"]


def test_each_file_gets_its_nearest_config_whatever_else_is_linted(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(tmp_path / "pyproject.toml", '[tool.compilelint]\nselect = ["CL103"]\n')
    write(tmp_path / "lib" / "pyproject.toml", '[tool.compilelint]\nselect = ["CL101"]\n')
    shutil.copy(DATA / "basic.py", write(tmp_path / "app.py", ""))
    shutil.copy(DATA / "basic.py", write(tmp_path / "lib" / "m.py", ""))
    monkeypatch.chdir(tmp_path)
    alone = codes(run("--format", "json", "app.py"))
    together = codes(run("--format", "json", "app.py", "lib/m.py"))
    walked = codes(run("--format", "json", "."))
    assert [c for _, c, _, _ in alone] == ["CL103"]
    assert [(Path(p).as_posix(), c) for p, c, _, _ in together] == [("app.py", "CL103"), ("lib/m.py", "CL101")]
    assert together == walked


def test_typos_in_the_verify_table_are_errors(project: Path) -> None:
    write(project / "pyproject.toml", '[tool.compilelint.verify]\ntarget = ["t.py"]\n')
    write(project / "m.py", PRINT_MODULE)
    result = run("m.py")
    assert result.exit_code == 2 and "[tool.compilelint].verify: unknown key 'target'; did you mean 'targets'?" in result.stderr
    write(project / "pyproject.toml", '[tool.compilelint]\nrespect-gitignore = "yes"\n')
    assert "must be true or false" in run("m.py").stderr


def test_explicit_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config = write(tmp_path / "elsewhere" / "pyproject.toml", '[tool.compilelint]\nselect = ["CL102"]\n')
    shutil.copy(DATA / "basic.py", write(tmp_path / "code" / "m.py", ""))
    monkeypatch.chdir(tmp_path / "code")
    assert [code for _, code, _, _ in codes(run("--format", "json", "--config", str(config), "m.py"))] == ["CL102"]
    missing = run("--config", "nope.toml", "m.py")
    assert missing.exit_code == 2 and missing.stderr.startswith("compilelint: error: Invalid value for '--config'")


def test_per_file_ignores(project: Path) -> None:
    write(project / "pyproject.toml", '[tool.compilelint.per-file-ignores]\n"tests/*" = ["CL101", "CL102"]\n')
    shutil.copy(DATA / "basic.py", write(project / "tests" / "test_m.py", ""))
    shutil.copy(DATA / "basic.py", write(project / "src" / "m.py", ""))
    found = codes(run("--format", "json", "."))
    assert [(Path(p).as_posix(), c) for p, c, _, _ in found] == [
        ("src/m.py", "CL101"),
        ("src/m.py", "CL102"),
        ("src/m.py", "CL103"),
        ("tests/test_m.py", "CL103"),
    ]


def lint_tree(*args: str) -> set[str]:
    result = run("--format", "json", *args)
    assert result.exit_code in (0, 1), result.stderr
    return {Path(path).as_posix().removeprefix("./") for path, _, _, _ in codes(result)}


def test_default_excludes(project: Path) -> None:
    for folder in (".git", "build", "dist", "__pycache__", "lib/site-packages/pkg", "env1", "src", ".venv", "node_modules"):
        write(project / folder / "m.py", PRINT_MODULE)
    write(project / "env1" / "pyvenv.cfg", "home = /usr/bin\n")  # a virtualenv by any name
    assert lint_tree(".") == {"src/m.py"}
    # Named on the command line, excluded folders and files are linted.
    assert lint_tree("lib/site-packages") == {"lib/site-packages/pkg/m.py"}
    assert lint_tree("build/m.py", "src") == {"build/m.py", "src/m.py"}


def test_modular_sources_are_skipped_beside_their_generated_file(project: Path) -> None:
    # transformers' modular_x.py is expanded into modeling_x.py and never imported
    for name in ("models/a/modular_a.py", "models/a/modeling_a.py", "models/b/modular_b.py"):
        write(project / name, PRINT_MODULE)
    assert lint_tree(".") == {"models/a/modeling_a.py", "models/b/modular_b.py"}
    assert lint_tree("models/a/modular_a.py") == {"models/a/modular_a.py"}


def test_exclude_and_extend_exclude(project: Path) -> None:
    for name in ("src/m.py", "src/gen/m.py", "src/gen_old/m.py", "build/m.py", "src/m_pb2.py"):
        write(project / name, PRINT_MODULE)
    assert lint_tree(".", "--extend-exclude", "gen,*_pb2.py") == {"src/m.py", "src/gen_old/m.py"}
    assert lint_tree(".", "--extend-exclude", "gen*", "--extend-exclude", "*_pb2.py") == {"src/m.py"}
    # --exclude replaces the defaults: build/ is linted now.
    assert lint_tree(".", "--exclude", "gen*") == {"src/m.py", "src/m_pb2.py", "build/m.py"}
    write(project / "pyproject.toml", '[tool.compilelint]\nextend-exclude = ["gen"]\n')
    assert lint_tree(".", "--extend-exclude", "*_pb2.py") == {"src/m.py", "src/gen_old/m.py"}


# --- stdin, broken files, encodings, columns, noqa ---------------------------------------


def test_stdin_with_filename(project: Path) -> None:
    write(project / "pyproject.toml", '[tool.compilelint.per-file-ignores]\n"tests/*" = ["CL101"]\n')
    source = (DATA / "basic.py").read_text(encoding="utf-8")
    result = run("-", "--stdin-filename", "src/model.py", stdin=source)
    assert result.exit_code == 1
    assert result.stdout.startswith("src/model.py:18:9: CL101 [*] ")
    assert "18 |         print(y)" in result.stdout  # the snippet comes from stdin, not the disk
    ignored = run("--format", "json", "-", "--stdin-filename", "tests/test_model.py", stdin=source)
    assert [c for _, c, _, _ in codes(ignored)] == ["CL102", "CL103"]
    # --stdin-filename alone reads stdin too (ruff's rule).
    assert codes(run("--format", "json", "--stdin-filename", "x.py", stdin=source))[0] == ("x.py", "CL101", 18, 9)


def test_stdin_without_filename_and_mixed_with_files() -> None:
    result = run("--format", "json", "-", str(DATA / "clean.py"), stdin=PRINT_MODULE)
    assert codes(result) == [("<stdin>", "CL101", 7, 9)]


def test_stdin_bytes_are_decoded_like_a_file() -> None:
    source = b"# -*- coding: latin-1 -*-\n" + PRINT_MODULE.replace("print(x)", "s = 'caf\xe9'; print(x)").encode("latin-1")
    result = run("-", "--stdin-filename", "m.py", stdin=source)
    assert "s = 'café'; print(x)" in result.stdout
    assert result.stdout.startswith("m.py:8:21: CL101")


def test_syntax_error_and_undecodable_files_do_not_stop_the_others(project: Path) -> None:
    write(project / "a_good.py", PRINT_MODULE)
    write(project / "b_syntax.py", "import torch\n\ndef f(:\n    pass\n")
    write(project / "c_bytes.py", b"import torch\nx = '\xff\xfe'\n")
    result = run("--format", "json", ".")
    assert result.exit_code == 1
    data = json.loads(result.stdout)
    assert [(Path(d["path"]).name, d["code"], d["line"]) for d in data] == [
        ("a_good.py", "CL101", 7),
        ("b_syntax.py", "CL900", 3),
        ("c_bytes.py", "CL900", 2),
    ]
    assert data[1]["message"].startswith("SyntaxError")
    assert "utf-8" in data[2]["message"]
    text = run("b_syntax.py")
    assert "3 | def f(:" in text.stdout and text.exit_code == 1


def test_coding_cookie_and_bom(project: Path) -> None:
    latin = PRINT_MODULE.replace("print(x)", "s = 'd\xe9j\xe0'; print(x)")
    write(project / "latin.py", ("# -*- coding: latin-1 -*-\n" + latin).encode("latin-1"))
    write(project / "bom.py", b"\xef\xbb\xbf" + PRINT_MODULE.encode("utf-8"))
    result = run("--format", "json", "latin.py", "bom.py")
    assert codes(result) == [("bom.py", "CL101", 7, 9), ("latin.py", "CL101", 8, 21)]  # characters, not bytes
    text = run("latin.py", "bom.py").stdout
    assert "8 |         s = 'déjà'; print(x)" in text
    assert "7 |         print(x)" in text and "\ufeff" not in text


def test_columns_count_characters(project: Path) -> None:
    result = run("--format", "json", str(DATA / "unicode.py"))
    ((_, code, line, column),) = codes(result)
    # `é = "äöü"; ` is 12 characters but 16 UTF-8 bytes before `print`
    assert (code, line, column) == ("CL101", 7, 20)
    assert json.loads(result.stdout)[0]["end_column"] == 28
    text = run(str(DATA / "unicode.py")).stdout.splitlines()
    assert text[2] == '7 |         é = "äöü"; print(x)  # non-ASCII before the finding'
    assert text[3] == "  |                    ^^^^^^^^ CL101"


def test_noqa() -> None:
    assert [(c, line) for _, c, line, _ in codes(run("--format", "json", str(DATA / "noqa.py")))] == [
        ("CL101", 9),  # `# noqa: CL103` does not cover CL101
        ("CL101", 12),
    ]


# --- parallel, default command, other commands --------------------------------------------


def test_jobs_give_the_same_findings(project: Path) -> None:
    for index in range(20):  # above the engine's threshold for a process pool
        write(project / f"m{index:02}.py", PRINT_MODULE)
    serial = run("--format", "json", "--jobs", "1", ".")
    parallel = run("--format", "json", "-j", "2", ".")
    assert serial.stdout == parallel.stdout and len(json.loads(serial.stdout)) == 20
    assert run("-j", "0", ".").exit_code == 2


def test_check_is_the_default_command(project: Path) -> None:
    write(project / "rule" / "m.py", PRINT_MODULE)
    assert codes(run("check", "--format", "json", "rule")) == [("rule/m.py", "CL101", 7, 9)]
    assert codes(run("--select", "CL101", "--format", "json", "rule")) == [("rule/m.py", "CL101", 7, 9)]
    assert run("rule", "CL101").stdout.startswith("# CL101 print-call")  # the command, not the folder


def test_no_arguments_shows_help() -> None:
    result = run()
    assert result.exit_code == 2 and "compilelint PATHS..." in result.stdout


def test_version() -> None:
    from compilelint import __version__

    assert run("--version").stdout == f"compilelint {__version__}\n"


def test_rule_page() -> None:
    result = run("rule", "CL101")
    assert result.exit_code == 0
    for expected in ("# CL101 print-call", "- GB ids: GB0059", "- Breaks in: default, fullgraph",
                     "- Torch versions: measured on torch", "- Fix: safe", "## What it does",
                     "## Why is this bad?", "## Example", "## Use instead", "## Fix safety"):  # fmt: skip
        assert expected in result.stdout
    assert "\x1b" not in result.stdout
    assert run("rule", "print-call").stdout == result.stdout
    assert run("rule", "cl101").stdout == result.stdout
    data = json.loads(run("rule", "CL103", "--format", "json").stdout)
    assert (data["code"], data["fix_applicability"], data["gb_ids"]) == ("CL103", "unsafe", ["GB0170"])
    assert run("rule", "CL900").stdout.startswith("# CL900 syntax-error")


def test_unknown_rule_lists_close_matches() -> None:
    result = run("rule", "CL180")
    assert result.exit_code == 2
    assert result.stderr.startswith("compilelint: error: unknown rule 'CL180'; did you mean CL1")
    assert "did you mean print-call" in run("rule", "print-cal").stderr
    assert "did you mean CL101, CL102" in run("rule", "CL10").stderr  # a prefix lists its rules
    assert "'compilelint rules' lists them" in run("rule", "zzz").stderr


def test_rules_listing() -> None:
    result = run("rules")
    lines = result.stdout.splitlines()
    assert result.exit_code == 0 and lines[0].split()[:3] == ["CL101", "print-call", "safe"]
    assert ["CL103", "tensor-dependent-branch", "unsafe", "Checks"] in [line.split()[:4] for line in lines]
    data = json.loads(run("rules", "--format", "json").stdout)
    assert [d["code"] for d in data][:3] == ["CL101", "CL102", "CL103"]


def test_verify_is_registered() -> None:
    assert "verify" in main.commands
    helped = run("verify", "--help")
    assert helped.exit_code == 0 and "compilelint verify" in helped.stdout


def test_verify_stand_in_when_its_module_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "compilelint.verify.command", None)  # import -> ImportError
    group = click.Group("g")
    cli._add_verify(group)
    result = CliRunner().invoke(group, ["verify", "--targets", "x.py"])
    assert result.exit_code == 2
    assert "'verify' is not available: import of compilelint.verify.command halted" in result.output


def test_verify_import_errors_other_than_import_error_propagate(monkeypatch: pytest.MonkeyPatch) -> None:
    class Broken(types.ModuleType):
        def __getattr__(self, name: str) -> object:
            raise RuntimeError("bug in verify")

    monkeypatch.setitem(sys.modules, "compilelint.verify.command", Broken("compilelint.verify.command"))
    with pytest.raises(RuntimeError, match="bug in verify"):
        cli._add_verify(click.Group("g"))


# --- real processes ----------------------------------------------------------------------


def console_script(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "TTY_COMPATIBLE")}
    environment.update(env or {})
    return subprocess.run(
        [str(BIN / "compilelint"), *args], capture_output=True, text=True, env=environment, cwd=cwd, timeout=60
    )


def test_console_script_plain_when_piped_and_coloured_when_forced() -> None:
    piped = console_script(str(DATA / "basic.py"))
    assert piped.returncode == 1 and "\x1b" not in piped.stdout
    assert "Found 3 findings" in piped.stdout
    forced = console_script(str(DATA / "basic.py"), env={"FORCE_COLOR": "1"})
    assert COLOUR.search(forced.stdout)
    no_colour = console_script(str(DATA / "basic.py"), env={"FORCE_COLOR": "1", "NO_COLOR": "1"})
    assert not COLOUR.search(no_colour.stdout)
    missing = console_script("missing.py")
    assert (missing.returncode, missing.stderr) == (2, "compilelint: error: missing.py: no such file or directory\n")


def test_python_m_and_no_torch_import() -> None:
    code = "import sys, compilelint.cli; assert 'torch' not in sys.modules, 'the CLI imported torch'"
    assert subprocess.run([sys.executable, "-c", code], timeout=60).returncode == 0
    done = subprocess.run(
        [sys.executable, "-m", "compilelint", "--format", "json", str(DATA / "clean.py")],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, "[]\n")


def test_noqa_anywhere_in_a_multi_line_statement(project: Path) -> None:
    from test_flake8_plugin import MULTILINE_NOQA

    write(project / "m.py", MULTILINE_NOQA)
    assert [(c, line) for _, c, line, _ in codes(run("--format", "json", "m.py"))] == [("CL103", 11)]


@pytest.mark.parametrize(
    ("comment", "expected"),
    [
        ("# compilelint: noqa", []),
        ("#compilelint:NOQA", []),
        ("# compilelint: noqa: CL101", ["CL102", "CL103"]),
        ("# compilelint: noqa: CL101, CL10", []),
        ("x = 1  # compilelint: noqa", ["CL101", "CL102", "CL103"]),  # not on a line of its own
    ],
)
def test_file_level_noqa(project: Path, comment: str, expected: list[str]) -> None:
    write(project / "m.py", f'"""A module."""\n{comment}\n' + (DATA / "basic.py").read_text())
    assert [c for _, c, _, _ in codes(run("--format", "json", "m.py"))] == expected


def test_config_schema_is_valid_and_matches_the_validator(project: Path) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(run("config", "--schema").stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    good = {"select": ["CL1"], "per-file-ignores": {"tests/*": ["CL101"]}, "verify": {"targets": ["t.py"]}}
    jsonschema.validate(good, schema)
    for bad in ({"selekt": ["CL1"]}, {"verify": {"target": ["t.py"]}}, {"respect-gitignore": "yes"}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, schema)
    shown = json.loads(run("config").stdout)
    assert shown["config"] == str(project / "pyproject.toml") and "CL101" in shown["enabled"]


def test_verbose_show_files_and_show_settings(project: Path) -> None:
    write(project / "a.py", PRINT_MODULE)
    write(project / "sub" / "b.py", "x = 1\n")
    verbose = run("-v", ".")
    assert f"config: {project / 'pyproject.toml'}" in verbose.stderr
    assert re.search(r"checked 2 files \(1 parsed, 1 without torch, 0 results from the cache\) in \d+\.\d\d s", verbose.stderr)
    assert run("--show-files", ".").stdout.splitlines() == ["a.py", "sub/b.py"]
    settings = json.loads(run("--show-settings", "--ignore", "CL2", ".").stdout)
    assert settings["file"] == "a.py" and "CL101" in settings["enabled"] and "CL201" not in settings["enabled"]


def test_a_warning_when_no_python_file_is_found(project: Path) -> None:
    write(project / "notes.txt", "hello\n")
    result = run(".")
    assert result.exit_code == 0 and "compilelint: warning: no Python files found under ." in result.stderr


@pytest.mark.parametrize(("color", "coloured"), [("always", True), ("never", False), ("auto", False)])
def test_color(project: Path, color: str, coloured: bool) -> None:
    write(project / "m.py", PRINT_MODULE)
    result = run("--color", color, "m.py")
    assert bool(COLOUR.search(result.stdout)) is coloured


def test_progress_bar_on_a_terminal_for_long_runs(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from compilelint import check

    for n in range(20):
        write(project / f"m{n}.py", PRINT_MODULE)
    stream = io.StringIO()
    monkeypatch.setattr(check, "PROGRESS_AFTER_S", 0.0)
    monkeypatch.setattr(check, "console_for", lambda file, color="auto": check.Console(file=stream, force_terminal=True, width=80) if file is sys.stderr else check.Console(file=io.StringIO()))
    check.run_check(check.CheckRequest(paths=(".",), overrides={}, jobs=2))
    assert "linting" in stream.getvalue() and "20/20" in stream.getvalue()


def test_rule_page_on_a_narrow_terminal_loses_no_text(monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from rich.console import Console

    from compilelint.report.rules import rule_markdown

    for info in cli.rule_infos():
        stream = io.StringIO()
        monkeypatch.setattr(cli, "markdown_console", lambda: Console(file=stream, force_terminal=True, width=40, color_system=None))
        assert run("rule", info.code).exit_code == 0
        shown = re.sub(r"\s+", "", stream.getvalue())
        words = set(re.findall(r"[A-Za-z0-9_]{3,}", rule_markdown(info))) - {"python"}  # the fence's language
        assert {w for w in words if w not in shown} == set(), info.code
