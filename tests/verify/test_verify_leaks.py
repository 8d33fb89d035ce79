"""No process a target started outlives it, not even in a session of its own, and nothing
is left when verify is SIGKILLed (issue 16 item 9; compilelint/verify/reaper.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import pytest

pytest.importorskip("torch")

from compilelint.verify import statuses  # noqa: E402
from compilelint.verify.runner import RunOptions, run_all  # noqa: E402
from compilelint.verify.targets import TargetSpec  # noqa: E402

pytestmark = [pytest.mark.dynamo, pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")]
ROOT = Path(__file__).resolve().parents[2]
DAEMONS = ("setsid.pid", "bare.pid", "daemon.pid")


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _gone_soon(pids: list[int], seconds: float = 10) -> bool:
    deadline = time.monotonic() + seconds
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return not any(_alive(pid) for pid in pids)


def _ours(temp: Path) -> list[Path]:
    """Our temporary folders (torch keeps its own Inductor cache there, torchinductor_<user>)."""
    return [p for p in temp.iterdir() if not p.name.startswith("torchinductor_")]


def _pids(evidence: Path, names: tuple[str, ...] = DAEMONS) -> list[int]:
    deadline = time.monotonic() + 60
    while not all((evidence / n).exists() and (evidence / n).read_text().strip() for n in names):
        assert time.monotonic() < deadline, "the target never started its daemons"
        time.sleep(0.1)
    return [int((evidence / name).read_text()) for name in names]


@pytest.mark.parametrize("isolate", [False, True], ids=["warm-worker", "own-process"])
def test_daemons_in_sessions_of_their_own_die_with_their_target(tmp_path: Path, data_dir: Path, isolate: bool,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    evidence, temp = tmp_path / "evidence", tmp_path / "temp"
    evidence.mkdir()
    temp.mkdir()
    monkeypatch.setenv("COMPILELINT_TEST_DIR", str(evidence))
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    spec = TargetSpec(str(data_dir / "leaks.py"), "target_setsid_grandchildren", 1)
    [outcome] = run_all([spec], RunOptions(timeout=90, jobs=1, project_root=str(ROOT), isolate=isolate))
    assert outcome.run.status == statuses.OK, outcome.run.detail
    daemons = _pids(evidence)
    left = [pid for pid in daemons if _alive(pid)]
    _kill(left)  # a failing run must not leave them either
    assert left == []  # killed before run_all returned, and reaped
    assert _ours(temp) == []
    if not isolate:  # a warm worker that a target left processes in is not shared
        assert any("3 processes left running" in note for note in outcome.run.notes), outcome.run.notes


KILLED_PARENT = textwrap.dedent(
    """
    import sys
    from compilelint.verify.runner import RunOptions, run_all
    from compilelint.verify.targets import TargetSpec
    isolate = sys.argv[2] == "isolate"
    run_all([TargetSpec(sys.argv[1], "target_holds_the_gil", 1)], RunOptions(timeout=120, isolate=isolate))
    """
)


@pytest.mark.parametrize("isolate", [False, True], ids=["warm-worker", "own-process"])
def test_a_sigkilled_verify_kills_a_child_that_holds_the_gil_and_its_daemons(tmp_path: Path, data_dir: Path,
                                                                             isolate: bool) -> None:  # fmt: skip
    evidence, temp = tmp_path / "evidence", tmp_path / "temp"
    evidence.mkdir()
    temp.mkdir()
    env = dict(os.environ, COMPILELINT_TEST_DIR=str(evidence), TMPDIR=str(temp))
    command = [sys.executable, "-c", KILLED_PARENT, str(data_dir / "leaks.py"), "isolate" if isolate else "warm"]
    parent = subprocess.Popen(command, env=env)
    try:
        child, *daemons = _pids(evidence, ("looping", *DAEMONS))
        time.sleep(0.5)  # in the C loop now
        assert _alive(child) and all(_alive(pid) for pid in daemons)
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        assert _gone_soon([child, *daemons]), [(pid, _alive(pid), Path(f"/proc/{pid}/cmdline").read_bytes() if _alive(pid) else b"") for pid in [child, *daemons]]
        deadline = time.monotonic() + 10
        while _ours(temp) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _ours(temp) == []
    finally:
        if parent.poll() is None:
            parent.kill()
        _kill(_pids(evidence, ("looping", *DAEMONS)) if (evidence / "daemon.pid").exists() else [])


def _kill(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
