"""The verifier against its environment: Dynamo switched off, a shadowing json.py, bad
limits, and a verify process that is killed (issue 16 items 2 and 9)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from rich.console import Console

pytest.importorskip("torch")

from compilelint.verify import command, statuses  # noqa: E402
from compilelint.verify.runner import RunOptions, run_one  # noqa: E402
from compilelint.verify.targets import TargetSpec  # noqa: E402

pytestmark = pytest.mark.dynamo
ROOT = Path(__file__).resolve().parents[2]
TINYGPT = ROOT / "examples" / "tinygpt" / "targets.py"


def test_tinygpt_with_dynamo_disabled_gets_no_verdict() -> None:
    options = RunOptions(timeout=120, jobs=1, project_root=str(ROOT / "examples" / "tinygpt"),
                         env={"TORCHDYNAMO_DISABLE": "1"})  # fmt: skip
    report = command.verify(command.VerifyRequest((), (str(TINYGPT),), (), options, quiet=True), Console(stderr=True))
    assert [t.status for t in report.targets] == [statuses.NOT_COMPILED]
    assert "TORCHDYNAMO_DISABLE=1" in report.targets[0].outcome.run.detail
    assert report.exit_code() == 2


def test_a_json_py_in_the_callers_folder_does_not_shadow_the_stdlib(tmp_path: Path, data_dir: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    (tmp_path / "json.py").write_text("raise ImportError('the wrong json')\n")
    monkeypatch.chdir(tmp_path)
    spec = TargetSpec(str(data_dir / "rules_targets.py"), "target_print", 1)
    outcome = run_one(spec, RunOptions(timeout=90, project_root=str(ROOT)))
    assert outcome.run.status == statuses.OK, outcome.run.detail


@pytest.mark.parametrize("option", [["--timeout", "nan"], ["--timeout", "inf"], ["--timeout", "0"],
                                    ["--timeout", "-5"], ["--repeats", "0"], ["--memory-limit", "0"]])  # fmt: skip
def test_limits_that_cannot_work_are_rejected(option: list[str]) -> None:
    result = CliRunner().invoke(command.verify_command, ["--targets", str(TINYGPT), *option])
    assert result.exit_code == 2 and "Invalid value" in result.output


KILLED_PARENT = textwrap.dedent(
    """
    import sys
    from compilelint.verify.runner import RunOptions, run_one
    from compilelint.verify.targets import TargetSpec
    run_one(TargetSpec(sys.argv[1], "target_infinite_loop", 1), RunOptions(timeout=120))
    """
)


def _sessions_of_children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_sigkilled_verify_leaves_no_target_process_nor_folder(data_dir: Path) -> None:
    parent = subprocess.Popen([sys.executable, "-c", KILLED_PARENT, str(data_dir / "faults.py")])
    try:
        deadline = time.monotonic() + 60
        while not (children := _sessions_of_children(parent.pid)) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert children
        time.sleep(3)  # the target is running its loop now
        request = Path(Path(f"/proc/{children[0]}/cmdline").read_bytes().split(b"\0")[-2].decode())
        assert request.name == "request.json" and request.parent.is_dir()
        parent.send_signal(signal.SIGKILL)
        parent.wait()
        deadline = time.monotonic() + 10
        while any(_alive(c) for c in children) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not any(_alive(c) for c in children)
        assert not request.parent.exists()
    finally:
        if parent.poll() is None:
            parent.kill()


def test_torch_compile_disable_gets_no_verdict(data_dir: Path) -> None:
    spec = TargetSpec(str(data_dir / "rules_targets.py"), "target_print", 1)
    outcome = run_one(spec, RunOptions(timeout=90, project_root=str(ROOT), env={"TORCH_COMPILE_DISABLE": "1"}))
    assert outcome.run.status == statuses.NOT_COMPILED, outcome.run.detail
    assert "TORCH_COMPILE_DISABLE=1" in outcome.run.detail


def test_a_crash_that_does_not_come_back_on_the_retry_is_called_flaky(data_dir: Path, tmp_path: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:  # fmt: skip
    monkeypatch.setenv("COMPILELINT_TEST_DIR", str(tmp_path))
    spec = TargetSpec(str(data_dir / "flaky.py"), "target_crashes_once", 1)
    outcome = run_one(spec, RunOptions(timeout=90, project_root=str(ROOT)))
    assert outcome.run.status == statuses.OK, outcome.run.detail
    assert any(note.startswith("flaky: crashed once (SIGABRT during target") for note in outcome.run.notes)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_a_sigtermed_verify_stops_without_retrying_the_killed_target(tmp_path: Path) -> None:
    # The killed target looks crashed (SIGKILL); a crash's retry would start it again.
    targets = tmp_path / "slow_targets.py"
    targets.write_text("import time\n\n\ndef target_sleeps():\n    time.sleep(600)\n")
    verify = subprocess.Popen([sys.executable, "-m", "compilelint", "verify", "--targets", str(targets),
                               "--timeout", "300", "-q"], cwd=tmp_path)  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not _sessions_of_children(verify.pid) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _sessions_of_children(verify.pid)
        time.sleep(2)
        verify.send_signal(signal.SIGTERM)
        started = time.monotonic()
        verify.wait(timeout=60)
        assert time.monotonic() - started < 20
    finally:
        if verify.poll() is None:
            verify.kill()
