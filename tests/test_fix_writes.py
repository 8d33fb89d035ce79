"""Writing fixes: atomic, faithful to the file's mode and links, never touching clean files."""

from __future__ import annotations

import functools
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from compilelint.config import DEFAULT_SETTINGS
from compilelint.fix.api import fix_paths
from compilelint.fix.loop import fix_source
from compilelint.fix.write import TEMP_SUFFIX, WriteError, atomic_write, stale_temp_files

FIXABLE = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n"
UNFIXABLE = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x.sum().item()\n"
CLEAN = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return x + 1\n"


def _temps(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(TEMP_SUFFIX)]


def test_fix_writes_fixable_files_and_never_touches_the_others(tmp_path: Path) -> None:
    fixable, unfixable, clean = tmp_path / "a.py", tmp_path / "b.py", tmp_path / "c.py"
    for path, text in ((fixable, FIXABLE), (unfixable, UNFIXABLE), (clean, CLEAN)):
        path.write_text(text)
    before = {p: os.stat(p) for p in (unfixable, clean)}
    report = fix_paths([str(tmp_path)], DEFAULT_SETTINGS)
    assert "if not torch.compiler.is_compiling():" in fixable.read_text()
    for path, status in before.items():
        after = os.stat(path)
        assert (after.st_ino, after.st_mtime_ns) == (status.st_ino, status.st_mtime_ns)
    assert report.summary_line() == "1 fixed, 1 remaining"
    assert report.exit_code() == 1 and _temps(tmp_path) == []
    assert fix_paths([str(tmp_path)], DEFAULT_SETTINGS).fixed == 0  # idempotent


def test_diff_writes_nothing_and_exits_1(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text(FIXABLE)
    report = fix_paths([str(path)], DEFAULT_SETTINGS, diff=True)
    assert path.read_text() == FIXABLE
    assert "+        if not torch.compiler.is_compiling():\n" in report.diffs
    assert report.diffs.startswith(f"--- a/{path}\n+++ b/{path}\n")
    assert report.exit_code() == 1 and report.summary_line() == "Would fix 1, 0 remaining"


def test_summary_counts_what_unsafe_fixes_would_add(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text(FIXABLE.replace("return x\n", "assert not torch.isnan(x).any()\n        return x\n"))
    assert fix_paths([str(path)], DEFAULT_SETTINGS).summary_line() == "1 fixed, 1 remaining (1 more with --unsafe-fixes)"
    assert fix_paths([str(path)], DEFAULT_SETTINGS, unsafe=True).summary_line() == "1 fixed, 0 remaining"


def test_mode_is_kept_and_a_symlink_stays_a_link(tmp_path: Path) -> None:
    target = tmp_path / "real" / "model.py"
    target.parent.mkdir()
    target.write_text(FIXABLE)
    os.chmod(target, 0o640)
    link = tmp_path / "link.py"
    link.symlink_to(target)
    fix_paths([str(link)], DEFAULT_SETTINGS)
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert "is_compiling" in target.read_text()
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640


def test_a_hard_linked_file_is_refused_and_reported(tmp_path: Path) -> None:
    path, other = tmp_path / "a.py", tmp_path / "other-name.py"
    path.write_text(FIXABLE)
    os.link(path, other)
    report = fix_paths([str(path)], DEFAULT_SETTINGS)
    assert path.read_text() == FIXABLE and "hard links" in report.errors[0][1]
    assert report.exit_code() == 2 and [f.code for f in report.remaining] == ["CL101"]


def test_a_file_changed_meanwhile_is_not_overwritten(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text("theirs\n")
    with pytest.raises(WriteError, match="changed on disk"):
        atomic_write(str(path), b"ours\n", b"what we read\n")
    assert path.read_text() == "theirs\n" and _temps(tmp_path) == []


def test_a_failed_write_keeps_the_old_bytes_and_the_other_files_are_fixed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = tmp_path / "a.py", tmp_path / "b.py"
    first.write_text(FIXABLE)
    second.write_text(FIXABLE)
    real_replace = os.replace

    def no_space(source: str, target: str) -> None:
        if target.endswith("a.py"):
            raise OSError(28, "No space left on device")
        real_replace(source, target)

    monkeypatch.setattr(os, "replace", no_space)  # the module write.py calls os.replace through
    report = fix_paths([str(tmp_path)], DEFAULT_SETTINGS, jobs=1)
    assert first.read_text() == FIXABLE and "No space left" in report.errors[0][1]
    assert "is_compiling" in second.read_text()
    assert report.exit_code() == 2 and _temps(tmp_path) == []


def _dead_pid() -> str:
    return subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True).stdout.strip()


def test_temp_files_of_dead_runs_are_reported_never_removed(tmp_path: Path) -> None:
    stale = tmp_path / f".a.py.{_dead_pid()}.x1y2{TEMP_SUFFIX}"
    live = tmp_path / f".a.py.{os.getppid()}.z9w8{TEMP_SUFFIX}"
    stale.write_text("partial")
    live.write_text("being written")
    assert stale_temp_files([str(tmp_path)]) == [str(stale)]
    (tmp_path / "a.py").write_text(FIXABLE)
    for diff in (True, False):
        report = fix_paths([str(tmp_path)], DEFAULT_SETTINGS, diff=diff)
        assert stale.exists() and live.exists()
        assert report.notes == [f"temporary file left by a killed run (remove it): {stale}"]


def test_a_read_only_file_is_refused_and_reported(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    path.write_text(FIXABLE)
    path.chmod(0o444)
    report = fix_paths([str(path)], DEFAULT_SETTINGS)
    assert path.read_text() == FIXABLE and "read-only" in report.errors[0][1] and report.exit_code() == 2


def test_a_file_of_another_user_is_refused_when_we_cannot_give_it_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "a.py"
    path.write_text(FIXABLE)
    owner = path.stat().st_uid
    monkeypatch.setattr(os, "geteuid", lambda: owner + 1)  # we are someone else, and not root
    report = fix_paths([str(path)], DEFAULT_SETTINGS, jobs=1)
    assert path.read_text() == FIXABLE and f"owned by another user (uid {owner})" in report.errors[0][1]


def test_a_symlink_leaving_the_tree_is_refused_and_named(tmp_path: Path) -> None:
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    target = outside / "real.py"
    target.write_text(FIXABLE)
    stale = outside / f".real.py.{_dead_pid()}.q1w2{TEMP_SUFFIX}"
    stale.write_text("not ours to judge")
    (tree / "link.py").symlink_to(target)
    report = fix_paths([str(tree)], DEFAULT_SETTINGS)
    assert target.read_text() == FIXABLE and stale.exists()
    assert f"is a symlink to {target}, outside the tree being fixed" in report.errors[0][1]


BIG_MODEL = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n\n\nDATA = '''\n{}'''\n"


@functools.lru_cache(maxsize=1)
def _big_versions() -> tuple[bytes, bytes]:
    old = BIG_MODEL.format("0123456789abcdef\n" * 60_000).encode()  # 1 MB: the write takes a while
    return old, fix_source(old, "big.py", DEFAULT_SETTINGS, unsafe=False).fixed


@pytest.mark.parametrize("trial", range(8))
def test_sigkill_leaves_old_or_new_bytes_and_no_temp_after_the_next_run(tmp_path: Path, trial: int) -> None:
    """Reliability W1, small: the full 200 trials are ``bench/fix_safety.py --sigkill``."""
    import random

    old, new = _big_versions()
    path = tmp_path / "big.py"
    path.write_bytes(old)
    command = [sys.executable, "-c", "import sys; from compilelint.fix.api import fix_paths; fix_paths(sys.argv[1:])", str(path)]
    child = subprocess.Popen(command)
    rng = random.Random(trial)
    if trial % 2:  # at a random point of the whole run
        time.sleep(rng.uniform(0.05, 1.0))
    else:  # just after the temp file appears: mid-write, around the rename
        deadline = time.monotonic() + 30
        while not _temps(tmp_path) and child.poll() is None and time.monotonic() < deadline:
            pass
        time.sleep(rng.uniform(0, 0.005))
    child.send_signal(signal.SIGKILL)
    child.wait()
    assert path.read_bytes() in (old, new)
    report = fix_paths([str(path)], DEFAULT_SETTINGS)
    assert path.read_bytes() == new
    assert len(report.notes) == len(_temps(tmp_path))  # what the kill left is named, not deleted
