"""Which config and targets ``verify`` uses: never one planted above the project."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from compilelint.cli import main

TARGET = "import os\n\ndef target_planted():\n    open(os.environ['MARK'], 'w').close()\n    return (lambda x: x), [(1,)]\n"


def test_a_config_planted_in_a_world_writable_parent_is_not_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = tmp_path / "shared"
    (shared / "me").mkdir(parents=True)
    (shared / "pyproject.toml").write_text('[tool.compilelint.verify]\ntargets = ["t.py"]\n')
    (shared / "t.py").write_text(TARGET)
    shared.chmod(0o1777)  # like /tmp
    (shared / "me" / "model.py").write_text("def f(x):\n    return x\n")
    mark = tmp_path / "ran"
    monkeypatch.setenv("MARK", str(mark))
    monkeypatch.chdir(shared / "me")
    result = CliRunner().invoke(main, ["verify", "model.py"])
    assert result.exit_code == 2 and "no targets" in result.stderr
    assert not mark.exists()


@pytest.mark.parametrize("target", ["../t.py", "/etc/t.py", "link/t.py"])
def test_configured_targets_outside_the_project_are_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, target: str) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (tmp_path / "t.py").write_text(TARGET)
    (project / "link").symlink_to(tmp_path)
    (project / "pyproject.toml").write_text(f'[tool.compilelint.verify]\ntargets = ["{target}"]\n')
    monkeypatch.chdir(project)
    result = CliRunner().invoke(main, ["verify"])
    assert result.exit_code == 2
    assert f"verify target '{target}' lies outside the project" in result.stderr


def test_the_report_names_the_config_and_targets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compilelint.verify.report import VerifyReport, to_json

    report = VerifyReport(targets=(), lint_paths=(), config=str(tmp_path / "pyproject.toml"), targets_files=(str(tmp_path / "t.py"),))
    monkeypatch.chdir(tmp_path)
    data = json.loads(json.dumps(to_json(report)))
    assert (data["config"], data["targets_files"]) == ("pyproject.toml", ["t.py"])


def test_no_torch_is_an_environment_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The README's table: no torch in the child gives environment-error, not import-error."""
    import sys

    from compilelint.verify import child, statuses

    targets = tmp_path / "t.py"
    targets.write_text("import torch\n\ndef target_x():\n    return (lambda x: x), [(torch.ones(1),)]\n")
    monkeypatch.setitem(sys.modules, "torch", None)  # as if torch were not installed
    run = child.run_request({"path": str(targets), "name": "target_x"})
    assert run.status == statuses.ENVIRONMENT_ERROR and "torch is not installed" in run.detail
