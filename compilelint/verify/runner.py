"""Run each target in its own process: own session, wall-clock limit, result by file.

In-process timeouts are either unreliable or fatal (reliability.md §1.6), so the clock
is the parent's. The child is a session leader; on timeout its whole group gets SIGTERM,
then SIGKILL after a grace period, and every run ends with a SIGKILL to the group so no
grandchild (a compile worker, a stray ``sleep``) outlives it; those in sessions of their
own are handled by wardens and subreapers (:mod:`.reaper`). Output goes to files, never
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
from typing import Any

from compilelint.verify import reaper, statuses
from compilelint.verify.model import TargetRun
from compilelint.verify.targets import TargetSpec
from compilelint.verify.workers import Worker, WorkerPool

_TAIL_BYTES = 4000
_POLL_S = 0.05  # how often the parent looks at the clock, the memory and the output files
OUTPUT_LIMIT_BYTES = 64 << 20  # per stream; past it the file is emptied and only the end kept
MB = 1 << 20
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
    memory_limit_mb: float | None = None  # resident memory of the target's whole session
    output_limit: int = OUTPUT_LIMIT_BYTES
    retry_crashes: bool = True  # one more run tells a flaky crash from a reproducible one
    isolate: bool = False  # every target in a process of its own (no warm workers)
    measure_lock: str | None = None  # a file the measure phases lock: one target timed at a time
    dynamic: bool = False  # the input sets again under torch.compile(dynamic=True)
    compile_time: bool = False  # cold compile, regional compilation and warm caches, fresh processes


@dataclass(frozen=True)
class Outcome:
    """One target's run as the parent saw it."""

    spec: TargetSpec
    run: TargetRun
    wall_s: float = 0.0
    returncode: int | None = None
    pid: int | None = None  # the child's pid, which is also its session and group id
    warm: int = 0  # run by a warm worker as its n-th target (1 = its first); 0: a process of its own
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
# Set when the run is being stopped (Ctrl-C, SIGTERM): the targets killed then are not
# "crashed", and nothing new may start, not even a crash's retry.
_STOPPING = threading.Event()


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


@dataclass
class _Watch:
    """What the parent saw while the child ran."""

    timed_out: bool = False
    memory_mb: float = 0.0  # set when the session went over --memory-limit
    output_dropped: dict[str, int] = field(default_factory=dict)  # stream -> bytes emptied


def _wait(process: subprocess.Popen[bytes], options: RunOptions, timeout: float, streams: dict[str, str],
          finished: Callable[[], bool] | None = None) -> _Watch:  # fmt: skip
    """Wait up to ``timeout`` for the process to end (or, for a warm worker, ``finished``),
    watching memory and output; on a limit TERM the group, then KILL."""
    watch = _Watch()
    deadline = time.monotonic() + timeout
    while True:
        try:
            process.wait(timeout=_POLL_S)
            return watch
        except subprocess.TimeoutExpired:
            pass
        if finished is not None and finished():
            return watch
        _cap_output(streams, options.output_limit, watch)
        if options.memory_limit_mb:
            used = session_rss_mb(process.pid)
            if used > options.memory_limit_mb:
                watch.memory_mb = used
                _stop(process, options, signal.SIGKILL)  # memory is the emergency: no grace
                return watch
        if time.monotonic() > deadline:
            watch.timed_out = True
            _stop(process, options, signal.SIGTERM)
            return watch


def _stop(process: subprocess.Popen[bytes], options: RunOptions, first: signal.Signals) -> None:
    _killpg(process.pid, first)
    try:
        process.wait(timeout=options.grace)
    except subprocess.TimeoutExpired:
        _killpg(process.pid, signal.SIGKILL)
        process.wait()


def _cap_output(streams: dict[str, str], limit: int, watch: _Watch) -> None:
    """Empty a stream's file once it passes ``limit``: the child keeps writing at its offset,
    so the file becomes sparse and holds only what came after (the tail we report)."""
    for name, path in streams.items():
        try:
            size = os.path.getsize(path)
        except OSError:
            continue
        dropped = watch.output_dropped.get(name, 0)
        if size - dropped > limit:
            os.truncate(path, 0)
            watch.output_dropped[name] = size


def session_rss_mb(session: int) -> float:
    """Resident memory of every process in ``session`` (Linux /proc; 0 elsewhere)."""
    page = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
    total = sum(int(fields[21]) * page for _, fields in reaper.proc_stats() if int(fields[3]) == session)  # rss, in pages
    return total / MB


def _child_env(options: RunOptions) -> dict[str, str]:
    env = dict(os.environ, **options.env)
    path = env.get("PYTHONPATH", "")
    env["PYTHONPATH"] = _PACKAGE_PARENT + (os.pathsep + path if path else "")
    env["PYTHONFAULTHANDLER"] = "1"
    env["PYTHONSAFEPATH"] = "1"  # not the caller's folder first on sys.path (a json.py there)
    return env


def _verdict(result: TargetRun | None, watch: _Watch, rc: int, phase: str, limit: float, options: RunOptions) -> TargetRun:
    where = f" during {phase}" if phase else ""
    timed_out = watch.timed_out
    if watch.memory_mb:
        return TargetRun(statuses.MEMORY_LIMIT,
                         f"{watch.memory_mb:.0f} MB resident, over the {options.memory_limit_mb:g} MB --memory-limit{where}; killed")  # fmt: skip
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


def _read_result_data(path: str) -> dict[str, Any] | None:
    try:
        with open(path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _parse_result(data: dict[str, Any] | None) -> TargetRun | None:
    try:
        return TargetRun.from_json(data) if data is not None else None
    except (ValueError, KeyError, TypeError):
        return None


def run_one(spec: TargetSpec, options: RunOptions, workers: WorkerPool | None = None) -> Outcome:
    """Run one target; a crash is run once more, in a process of its own, to tell a flaky
    one from a reproducible one."""
    isolated = workers is None or options.isolate or spec.isolate
    first = _run_once(spec, options, None if isolated else workers)
    if first.run.status != statuses.CRASHED or not options.retry_crashes or _STOPPING.is_set():
        return first
    second = _run_once(spec, options)
    if second.run.status == statuses.CRASHED:
        run = replace(first.run, detail=f"{first.run.detail}; reproducible: crashed again on a retry")
        return replace(first, run=run)
    note = f"flaky: crashed once ({first.run.detail}), then ran on a retry"
    return replace(second, run=replace(second.run, notes=(*second.run.notes, note)))


def _request(spec: TargetSpec, options: RunOptions, files: dict[str, str]) -> dict[str, object]:
    return {"path": spec.path, "name": spec.name, "device": options.device,
            "backend": options.backend, "measure": options.measure, "compile_mode": options.compile_mode,
            "warmup": options.warmup, "repeats": options.repeats,
            "project_root": options.project_root, "result": files["result.json"],
            "phase": files["phase"], "fault": files["fault"], "stdout": files["stdout"],
            "stderr": files["stderr"], "measure_lock": options.measure_lock,
            "dynamic": options.dynamic, "compile_time": options.compile_time}  # fmt: skip


def _start_child(files: dict[str, str], options: RunOptions) -> subprocess.Popen[bytes]:
    """A process of the target's own (the cold path)."""
    with open(files["stdout"], "wb") as out, open(files["stderr"], "wb") as err, reaper.spawning() as ours:
        process = subprocess.Popen(
            [options.python, "-m", "compilelint.verify.child", files["request.json"]],
            stdin=subprocess.DEVNULL, stdout=out, stderr=err,
            start_new_session=True, env=_child_env(options),
        )  # fmt: skip
        ours(process.pid)
    return process


def _run_once(spec: TargetSpec, options: RunOptions, workers: WorkerPool | None = None) -> Outcome:
    if spec.parse_error is not None:
        return Outcome(spec, TargetRun(statuses.IMPORT_ERROR, spec.parse_error))
    if _STOPPING.is_set():
        return Outcome(spec, TargetRun(statuses.NO_RESULT, "not run: the verify run was stopped"))
    limit = spec.timeout if spec.timeout is not None else options.timeout
    worker = workers.acquire() if workers is not None else None
    folder = tempfile.mkdtemp(prefix="compilelint-verify-", dir=worker.folder if worker else None)
    files = {name: os.path.join(folder, name) for name in
             ("request.json", "result.json", "phase", "stdout", "stderr", "fault")}  # fmt: skip
    with open(files["request.json"], "w", encoding="utf-8") as handle:
        json.dump(_request(spec, options, files), handle)
    started = time.perf_counter()
    if worker is not None:
        process, finished = worker.process, (lambda: os.path.exists(files["result.json"]))
        if not worker.submit(files["request.json"]):
            finished = lambda: True  # noqa: E731 - died before it could take the request
    else:
        process, finished = _start_child(files, options), None
    _GROUPS.add(process.pid)
    watch, data, retired = _Watch(), None, None
    try:
        watch = _wait(process, options, limit, {"stdout": files["stdout"], "stderr": files["stderr"]}, finished)
        data = _read_result_data(files["result.json"])
    finally:
        reuse = data is not None and not data.get("worker_retire") and not (watch.timed_out or watch.memory_mb)
        retired = _end(process, worker if reuse else None, workers if worker is not None else None)
    wall = time.perf_counter() - started
    phase = _tail(files["phase"], 100).strip()
    result = _parse_result(data)
    if result is None and worker is not None and process.poll() is None:
        process.wait()
    run = _verdict(result, watch, process.returncode or 0, phase, limit, options)
    run = replace(run, notes=(*run.notes, *_output_notes(watch), *_retire_notes(data)))
    stack = _tail(files["fault"]).strip()
    if run.status == statuses.CRASHED and stack:
        run = replace(run, detail=f"{run.detail}; last Python stack: {_last_frame(stack)}")
    log = (stack + "\n" if stack else "") + _tail(files["stderr"])
    if result is None and worker is not None and worker.served <= 1:
        log += worker.log_tail()
    stdout = _tail(files["stdout"], 1000).strip()
    if run.status != statuses.OK and stdout:
        log += "\n[stdout] ..." + stdout
    if not options.keep_temp:
        shutil.rmtree(retired or folder, ignore_errors=True)
    return Outcome(spec, run, wall, process.returncode, process.pid, log_tail=log.strip(), warm=worker.served if worker else 0)


def _end(process: subprocess.Popen[bytes], reusable: Worker | None, workers: WorkerPool | None) -> str | None:
    """Back to the pool, or the whole group killed: orphans, grandchildren, compile workers.
    A retired worker's folder (the target's files are in it) is returned, to be removed."""
    if reusable is not None and workers is not None:
        workers.release(reusable)
        return None
    _killpg(process.pid, signal.SIGKILL)
    _GROUPS.discard(process.pid)
    process.wait()
    reaper.forget(process.pid)
    reaper.kill_orphans()  # what was below it in sessions of their own came to us
    if workers is not None:
        return workers.retire_pid(process.pid, lambda pid: _killpg(pid, signal.SIGKILL))
    return None


def _retire_notes(data: dict[str, Any] | None) -> list[str]:
    changed = [str(reason) for reason in (data or {}).get("worker_retire") or () if not str(reason).startswith("status ")]
    if not changed:
        return []
    return [f"changed process-wide state ({', '.join(changed)}): the next target ran in a fresh worker"]


def _output_notes(watch: _Watch) -> list[str]:
    return [f"wrote {size / MB:.0f} MB to {name}; only the end was kept" for name, size in watch.output_dropped.items()]


def _last_frame(stack: str) -> str:
    """The innermost frame of faulthandler's dump (it lists the innermost first)."""
    frames = [line.strip() for line in stack.splitlines() if line.strip().startswith("File ")]
    return frames[0] if frames else stack.splitlines()[-1]


def worker_pool(options: RunOptions) -> WorkerPool | None:
    """Warm workers for the run, unless every target must have a process of its own. On one
    GPU shared by several jobs each worker may use its share of the memory (see run_all)."""
    if options.isolate:
        return None
    tail = [options.device, options.backend]
    if options.device.startswith("cuda") and options.jobs > 1:
        tail.append(f"{0.95 / options.jobs:.4f}")
    return WorkerPool([options.python, "-m", "compilelint.verify.worker"], _child_env(options), tail)


def _alone(outcome: Outcome, options: RunOptions) -> bool:
    """Out of CUDA memory while sharing the GPU: run it again alone, with all of it."""
    return outcome.run.status == statuses.CUDA_OOM and options.device.startswith("cuda") and options.jobs > 1


def run_all(
    specs: Sequence[TargetSpec],
    options: RunOptions,
    on_done: Callable[[Outcome], None] | None = None,
) -> list[Outcome]:
    """Run every target, ``options.jobs`` at a time; results in the order of ``specs``.
    Targets that ran out of their share of GPU memory run again at the end, one at a time."""
    workers = worker_pool(options)
    _STOPPING.clear()

    def one(spec: TargetSpec) -> Outcome:
        outcome = run_one(spec, options, workers)
        if on_done is not None and not _alone(outcome, options):
            on_done(outcome)
        return outcome

    pool = ThreadPoolExecutor(max_workers=max(1, options.jobs))
    with reaper.subreaper():  # orphans of the children come to us, not to init
        try:
            futures = [pool.submit(one, spec) for spec in specs]
            outcomes = [future.result() for future in futures]
            if workers is not None:
                workers.close(lambda pid: _killpg(pid, signal.SIGKILL))  # the GPU to the reruns alone
            for index, outcome in enumerate(outcomes):
                if _alone(outcome, options):
                    outcomes[index] = _rerun_alone(outcome, options, on_done)
            return outcomes
        except BaseException:
            _STOPPING.set()
            _GROUPS.kill_all()  # Ctrl-C: no child may outlive the run
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        finally:
            pool.shutdown(wait=True)
            if workers is not None:
                workers.close(lambda pid: _killpg(pid, signal.SIGKILL))
            reaper.kill_orphans()


def _rerun_alone(outcome: Outcome, options: RunOptions, on_done: Callable[[Outcome], None] | None) -> Outcome:
    again = run_one(outcome.spec, replace(options, jobs=1))
    note = f"out of its 1/{options.jobs} share of GPU memory beside other targets ({outcome.run.detail}); run again alone"
    again = replace(again, run=replace(again.run, notes=(*again.run.notes, note)))
    if on_done is not None:
        on_done(again)
    return again
