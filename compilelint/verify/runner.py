"""Run each target in its own process: own session, wall-clock limit, result by file.

In-process timeouts are either unreliable or fatal (reliability.md §1.6), so the clock
is the parent's. The child is a session leader; on timeout its whole group gets SIGTERM,
then SIGKILL after a grace period, and every run ends with a SIGKILL to the group so no
grandchild (a compile worker, a stray ``sleep``) outlives it. Output goes to files, never
pipes: a grandchild holding a pipe open would make us wait for it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace

from compilelint.verify import statuses
from compilelint.verify.model import TargetRun
from compilelint.verify.targets import TargetSpec

_TAIL_BYTES = 4000
# The folder holding the compilelint package: the child imports it from there.
_PACKAGE_PARENT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@dataclass(frozen=True)
class RunOptions:
    device: str = "cpu"
    backend: str = "eager"
    timeout: float = 300.0
    grace: float = 3.0  # between SIGTERM and SIGKILL
    measure: bool = False
    compile_mode: str = "default"  # torch.compile(mode=...): reduce-overhead, max-autotune, ...
    warmup: int = 5
    repeats: int = 20
    jobs: int = 1
    project_root: str | None = None
    python: str = sys.executable
    env: dict[str, str] = field(default_factory=dict)
    keep_temp: bool = False


@dataclass(frozen=True)
class Outcome:
    """One target's run as the parent saw it."""

    spec: TargetSpec
    run: TargetRun
    wall_s: float = 0.0
    returncode: int | None = None
    pid: int | None = None  # the child's pid, which is also its session and group id
    log_tail: str = ""  # end of the child's stderr (and stdout), for faults


class _Groups:
    """Process groups alive now, so Ctrl-C in the parent can kill them all."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pids: set[int] = set()

    def add(self, pid: int) -> None:
        with self._lock:
            self._pids.add(pid)

    def discard(self, pid: int) -> None:
        with self._lock:
            self._pids.discard(pid)

    def kill_all(self) -> None:
        with self._lock:
            for pid in self._pids:
                _killpg(pid, signal.SIGKILL)


_GROUPS = _Groups()


def _killpg(pid: int, sig: signal.Signals) -> None:
    try:
        os.killpg(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass  # the group is gone already


def _tail(path: str, size: int = _TAIL_BYTES) -> str:
    try:
        with open(path, "rb") as handle:
            handle.seek(0, os.SEEK_END)
            handle.seek(max(0, handle.tell() - size))
            return handle.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _wait(process: subprocess.Popen[bytes], options: RunOptions, timeout: float) -> bool:
    """Wait up to ``timeout``; on expiry TERM the group, then KILL. True if it timed out."""
    try:
        process.wait(timeout=timeout)
        return False
    except subprocess.TimeoutExpired:
        _killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=options.grace)
        except subprocess.TimeoutExpired:
            _killpg(process.pid, signal.SIGKILL)
            process.wait()
        return True


def _child_env(options: RunOptions) -> dict[str, str]:
    env = dict(os.environ, **options.env)
    path = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = _PACKAGE_PARENT + (os.pathsep + path if path else "")
    env["PYTHONFAULTHANDLER"] = "1"
    return env


def _verdict(result: TargetRun | None, timed_out: bool, rc: int, phase: str, limit: float) -> TargetRun:
    where = f" during {phase}" if phase else ""
    if result is not None and timed_out:
        note = "hung at exit after writing its result; killed"
        return replace(result, notes=(*result.notes, note))
    if result is not None:
        return result
    if timed_out:
        return TargetRun(statuses.TIMEOUT, f"after {limit:g} s{where}")
    if rc < 0:
        try:
            name = signal.Signals(-rc).name
        except ValueError:
            name = f"signal {-rc}"
        return TargetRun(statuses.CRASHED, f"{name}{where}")
    return TargetRun(statuses.NO_RESULT, f"exit {rc} without a result{where}")


def _read_result(path: str) -> TargetRun | None:
    try:
        with open(path, encoding="utf-8") as handle:
            return TargetRun.from_json(json.load(handle))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def run_one(spec: TargetSpec, options: RunOptions) -> Outcome:
    if spec.parse_error is not None:
        return Outcome(spec, TargetRun(statuses.IMPORT_ERROR, spec.parse_error))
    limit = spec.timeout if spec.timeout is not None else options.timeout
    folder = tempfile.mkdtemp(prefix="compilelint-verify-")
    files = {name: os.path.join(folder, name) for name in
             ("request.json", "result.json", "phase", "stdout", "stderr")}  # fmt: skip
    request = {"path": spec.path, "name": spec.name, "device": options.device,
               "backend": options.backend, "measure": options.measure, "compile_mode": options.compile_mode,
               "warmup": options.warmup, "repeats": options.repeats,
               "project_root": options.project_root, "result": files["result.json"],
               "phase": files["phase"]}  # fmt: skip
    with open(files["request.json"], "w", encoding="utf-8") as handle:
        json.dump(request, handle)
    started = time.perf_counter()
    with open(files["stdout"], "wb") as out, open(files["stderr"], "wb") as err:
        process = subprocess.Popen(
            [options.python, "-m", "compilelint.verify.child", files["request.json"]],
            stdin=subprocess.DEVNULL, stdout=out, stderr=err,
            start_new_session=True, env=_child_env(options),
        )  # fmt: skip
        _GROUPS.add(process.pid)
        try:
            timed_out = _wait(process, options, limit)
        finally:
            _killpg(process.pid, signal.SIGKILL)  # orphans: grandchildren, compile workers
            _GROUPS.discard(process.pid)
    wall = time.perf_counter() - started
    phase = _tail(files["phase"], 100).strip()
    run = _verdict(_read_result(files["result.json"]), timed_out, process.returncode, phase, limit)
    log = _tail(files["stderr"])
    stdout = _tail(files["stdout"], 1000).strip()
    if run.status != statuses.OK and stdout:
        log += "\n[stdout] ..." + stdout
    if not options.keep_temp:
        shutil.rmtree(folder, ignore_errors=True)
    return Outcome(spec, run, wall, process.returncode, process.pid, log.strip())


def run_all(
    specs: Sequence[TargetSpec],
    options: RunOptions,
    on_done: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Run every target, ``options.jobs`` at a time; results in the order of ``specs``."""

    def one(spec: TargetSpec) -> Outcome:
        outcome = run_one(spec, options)
        if on_done is not None:
            on_done(outcome)
        return outcome

    pool = ThreadPoolExecutor(max_workers=max(1, options.jobs))
    try:
        futures = [pool.submit(one, spec) for spec in specs]
        return [future.result() for future in futures]
    except BaseException:
        _GROUPS.kill_all()  # Ctrl-C: no child may outlive the run
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    finally:
        pool.shutdown(wait=True)
