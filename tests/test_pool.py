"""The lint pool: a worker the OOM killer takes costs one file, and no worker outlives us."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from compilelint import engine
from compilelint.config import DEFAULT_SETTINGS

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="fork, /proc and prctl")

MODEL = "import torch\n\n\nclass M{n}(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n"


def _tree(root: Path, count: int = 20) -> list[str]:
    paths = []
    for n in range(count):
        path = root / f"m{n:02d}.py"
        path.write_text(MODEL.format(n=n))
        paths.append(str(path))
    return paths


def test_a_worker_killed_mid_file_costs_that_file_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paths = _tree(tmp_path)
    real = engine.lint_file

    def oom_killed_on_m07(path: str, *args: object, **kwargs: object) -> object:
        if path.endswith("m07.py"):
            os.kill(os.getpid(), signal.SIGKILL)  # what the OOM killer does
        return real(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(engine, "lint_file", oom_killed_on_m07)  # forked workers inherit it
    results = {r.path: r for r in engine.lint_paths([str(tmp_path)], DEFAULT_SETTINGS, jobs=2)}
    assert sorted(results) == sorted(paths)
    killed = results[str(tmp_path / "m07.py")].findings
    assert [f.code for f in killed] == ["CL999"] and "process died" in killed[0].message
    for path in paths:
        if not path.endswith("m07.py"):
            assert [f.code for f in results[path].findings] == ["CL101"], path


SLOW_RUN = textwrap.dedent(
    """
    import sys, time
    from compilelint import engine
    def slow(*args, **kwargs):
        time.sleep(600)
    engine.lint_file = slow
    print("ready", flush=True)
    engine.lint_paths([sys.argv[1]], jobs=2)
    """
)


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.append(int(entry))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for(condition: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL])
def test_no_worker_outlives_a_terminated_or_killed_run(tmp_path: Path, sig: signal.Signals) -> None:
    _tree(tmp_path)
    main = subprocess.Popen([sys.executable, "-c", SLOW_RUN, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert main.stdout is not None and main.stdout.readline().strip() == "ready"
        assert _wait_for(lambda: len(_children(main.pid)) >= 2, 30)
        workers = _children(main.pid)
        main.send_signal(sig)
        main.wait(timeout=15)
        assert _wait_for(lambda: not any(_alive(w) for w in workers), 15), workers
    finally:
        if main.poll() is None:
            main.kill()
            main.wait()
