"""The pre-commit hooks, end to end, with the real ``pre-commit`` in temporary git repositories.

The hooks come from ``.pre-commit-hooks.yaml`` exactly as users get them: the checkout is
copied to a temporary repository and committed, and a project's ``.pre-commit-config.yaml``
points at it by path and commit, so pre-commit clones it and pip-installs it into its own
virtualenv (``language: python``), which needs PyPI once per run of this module (about
30 s here). Commits then go through ``git commit`` with the hooks installed.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PRE_COMMIT = Path(sys.executable).parent / "pre-commit"
PACKAGE = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "compilelint", "rules")
GIT_ENV = {
    "GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@example.com", "GIT_COMMITTER_NAME": "test",
    "GIT_COMMITTER_EMAIL": "test@example.com", "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
    "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}  # fmt: skip
FIXABLE = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n"
UNFIXABLE = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x * x.sum().item()\n"
CLEAN = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x + 1\n"

pytestmark = pytest.mark.skipif(
    not PRE_COMMIT.exists() or shutil.which("git") is None, reason="needs the pre-commit tool and git"
)


def git(cwd: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=check)


def test_every_package_is_shipped() -> None:
    """pre-commit pip-installs the hooks (not editable): a package missing from pyproject's
    list would be missing in the hook's environment, and the hook would crash on import."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    on_disk = {
        ".".join(path.parent.relative_to(ROOT).parts)
        for path in (ROOT / "compilelint").rglob("__init__.py")
        if "__pycache__" not in path.parts
    }
    assert on_disk - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, str, Path]]:
    """The checkout as a committed repository, and a PRE_COMMIT_HOME shared by the tests."""
    repo = tmp_path_factory.mktemp("hook-repo")
    for name in PACKAGE:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, repo / name, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, repo / name)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "compilelint under test")
    yield repo, git(repo, "rev-parse", "HEAD").stdout.strip(), tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture
def project(tmp_path: Path, hook_repo: tuple[Path, str, Path]) -> Path:
    repo, rev, home = hook_repo
    (tmp_path / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {repo}\n    rev: {rev}\n    hooks:\n      - id: compilelint-fix\n      - id: compilelint\n"
    )
    git(tmp_path, "init", "-q")
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(home)}
    subprocess.run([str(PRE_COMMIT), "install"], cwd=tmp_path, env=env, check=True, capture_output=True)
    git(tmp_path, "add", ".pre-commit-config.yaml")
    return tmp_path


def commit(project: Path, hook_repo: tuple[Path, str, Path], *files: str) -> subprocess.CompletedProcess[str]:
    git(project, "add", *files)
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(hook_repo[2]), "PATH": os.environ.get("PATH", "")}
    # git prints the hooks' output on stderr
    return subprocess.run(["git", "commit", "-m", "change"], cwd=project, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def test_a_clean_repository_passes(project: Path, hook_repo: tuple[Path, str, Path]) -> None:
    (project / "m.py").write_text(CLEAN)
    result = commit(project, hook_repo, "m.py")
    assert result.returncode == 0, result.stdout
    assert "compilelint (apply safe fixes)" in result.stdout and "Failed" not in result.stdout


def test_a_fixable_finding_fails_with_the_file_fixed_then_passes(project: Path, hook_repo: tuple[Path, str, Path]) -> None:
    path = project / "m.py"
    path.write_text(FIXABLE)
    first = commit(project, hook_repo, "m.py")
    assert first.returncode == 1, first.stdout
    assert "files were modified by this hook" in first.stdout
    assert "if not torch.compiler.is_compiling():\n            print(x)" in path.read_text()
    second = commit(project, hook_repo, "m.py")
    assert second.returncode == 0, second.stdout


def test_an_unfixable_finding_fails_without_touching_the_file(project: Path, hook_repo: tuple[Path, str, Path]) -> None:
    path = project / "m.py"
    path.write_text(UNFIXABLE)
    before = path.stat()
    result = commit(project, hook_repo, "m.py")
    assert result.returncode == 1
    assert "CL105" in result.stdout and "files were modified" not in result.stdout
    after = path.stat()
    assert path.read_text() == UNFIXABLE and (after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns)


def test_excluded_and_gitignored_files_are_left_alone(project: Path, hook_repo: tuple[Path, str, Path]) -> None:
    """pre-commit names each staged file; the project's excludes still hold for them."""
    (project / "pyproject.toml").write_text('[tool.compilelint]\nextend-exclude = ["generated"]\n')
    (project / ".gitignore").write_text("scratch_*.py\n")
    (project / "generated").mkdir()
    for name in ("generated/g.py", "scratch_1.py"):
        (project / name).write_text(FIXABLE)
    git(project, "add", "-f", "scratch_1.py")  # a gitignored file staged anyway
    (project / "m.py").write_text(CLEAN)
    result = commit(project, hook_repo, "pyproject.toml", ".gitignore", "generated/g.py", "m.py")
    assert result.returncode == 0, result.stdout
    assert (project / "generated" / "g.py").read_text() == FIXABLE
    assert (project / "scratch_1.py").read_text() == FIXABLE
