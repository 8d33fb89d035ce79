"""Warm workers, parent side: processes that import torch once and run targets in turn.

A target that is not isolated (``@target(isolate=True)``, ``--isolate``, a crash's retry,
a CUDA out-of-memory rerun) is handed to an idle worker, or a new one. The parent keeps
every fault limit it has for a process of its own (wall clock, memory, output) and
kills the worker's whole session when a limit is passed, when the worker dies, and when
the worker says a target changed what the next would see (``worker.py``). Each worker
has a folder; every target's files lie under it, so a worker that outlives a killed
parent removes them all (its warden, ``reaper.become_warden``; elsewhere ``child.watch_parent``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import IO

from compilelint.verify import reaper


@dataclass
class Worker:
    process: subprocess.Popen[bytes]
    folder: str
    requests: IO[str]
    served: int = 0

    @property
    def pid(self) -> int:
        return self.process.pid

    def submit(self, request_path: str) -> bool:
        """Hand over one request; False when the worker is gone."""
        try:
            self.requests.write(request_path + "\n")
            self.requests.flush()
        except (BrokenPipeError, OSError, ValueError):
            return False
        self.served += 1
        return True

    def log_tail(self, size: int = 2000) -> str:
        """What the worker wrote before its first target took its output (warm-up errors)."""
        try:
            with open(os.path.join(self.folder, "worker.err"), "rb") as handle:
                return handle.read()[-size:].decode("utf-8", "replace")
        except OSError:
            return ""


@dataclass
class WorkerPool:
    """Idle workers of one run; ``close`` ends every one of them."""

    command: list[str]  # python -m compilelint.verify.worker, without FOLDER and FD
    env: dict[str, str]
    tail: list[str] = field(default_factory=list)  # DEVICE BACKEND [MEMORY_FRACTION]
    _idle: list[Worker] = field(default_factory=list)
    _alive: dict[int, Worker] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def acquire(self) -> Worker:
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.process.poll() is None:
                    return worker
                self._forget(worker)
        return self._start()

    def release(self, worker: Worker) -> None:
        with self._lock:
            self._idle.append(worker)

    def retire(self, worker: Worker, kill: Callable[[int], None], keep_folder: bool = False) -> None:
        """Kill the worker's session; its folder goes too unless the caller still reads it."""
        kill(worker.pid)
        try:
            worker.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass
        with self._lock:
            self._forget(worker)
        if not keep_folder:
            shutil.rmtree(worker.folder, ignore_errors=True)

    def retire_pid(self, pid: int, kill: Callable[[int], None]) -> str | None:
        """Retire the worker with this pid, if it is one; its folder is the caller's to remove."""
        with self._lock:
            worker = self._alive.get(pid)
        if worker is None:
            return None
        self.retire(worker, kill, keep_folder=True)
        return worker.folder

    def close(self, kill: Callable[[int], None]) -> None:
        with self._lock:
            workers = list(self._alive.values())
        for worker in workers:
            self.retire(worker, kill)

    def pids(self) -> list[int]:
        with self._lock:
            return list(self._alive)

    def _forget(self, worker: Worker) -> None:
        self._alive.pop(worker.pid, None)
        reaper.forget(worker.pid)
        if worker in self._idle:
            self._idle.remove(worker)
        try:
            worker.requests.close()
        except OSError:
            pass

    def _start(self) -> Worker:
        folder = tempfile.mkdtemp(prefix="compilelint-worker-")
        read_end, write_end = os.pipe()
        with open(os.path.join(folder, "worker.out"), "wb") as out, \
                open(os.path.join(folder, "worker.err"), "wb") as err, reaper.spawning() as ours:  # fmt: skip
            process = subprocess.Popen(
                [*self.command, folder, str(read_end), *self.tail],
                stdin=subprocess.DEVNULL, stdout=out, stderr=err, pass_fds=(read_end,),
                start_new_session=True, env=self.env,
            )  # fmt: skip
            ours(process.pid)
        os.close(read_end)
        worker = Worker(process, folder, os.fdopen(write_end, "w", encoding="utf-8"))
        with self._lock:
            self._alive[worker.pid] = worker
        return worker
