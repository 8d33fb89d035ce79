"""Worker processes for many files: a dead worker costs one file, and no worker outlives us.

A worker killed by the OOM killer (or by a crash in native code) breaks the whole
``ProcessPoolExecutor``: every pending chunk fails with ``BrokenProcessPool``. Those
chunks are then run again one file per fresh process, so the file that kills its
process is found and reported, and the others keep their results; the next call gets a
new pool. Workers ask Linux for SIGKILL when the parent dies (``PR_SET_PDEATHSIG``),
so a SIGKILLed ``check`` leaves none behind; SIGTERM to the parent unwinds it like
Ctrl-C, and an unwinding parent kills its workers rather than waiting for them.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Generic, TypeVar

J = TypeVar("J")
R = TypeVar("R")
PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Ask the kernel to SIGKILL this process when its parent exits (Linux only)."""
    if not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    except (OSError, AttributeError):
        return
    if os.getppid() == 1:  # the parent died before the request took effect
        os._exit(1)


def _new_pool(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(max_workers=workers, initializer=die_with_parent)


class WorkerPool(Generic[J, R]):
    """Runs chunks of jobs in worker processes; see the module docstring for crashes."""

    def __init__(self, workers: int, alone: Callable[[J], R], crashed: Callable[[J], R]) -> None:
        self.workers = workers
        self._alone = alone  # one job, in a fresh process of its own
        self._crashed = crashed  # the result for a job whose process died
        self._pool: ProcessPoolExecutor | None = None

    def run(self, work: Callable[[list[J]], list[R]], chunks: Sequence[list[J]],
            progress: Callable[[int], None] | None = None) -> list[R]:  # fmt: skip
        """``work`` over each chunk, results in order; ``progress`` told how many are done."""
        if self._pool is None:
            self._pool = _new_pool(self.workers)
        futures: list[Future[list[R]]] = [self._pool.submit(work, chunk) for chunk in chunks]
        results: list[R] = []
        broken = False
        for chunk, future in zip(chunks, futures):
            try:
                results.extend(future.result())
            except BrokenProcessPool:
                broken = True
                results.extend(self._one_by_one(chunk))
            if progress is not None:
                progress(len(results))
        if broken:
            self._discard()
        return results

    def _one_by_one(self, chunk: list[J]) -> list[R]:
        results = []
        for job in chunk:
            with _new_pool(1) as pool:
                try:
                    results.append(pool.submit(self._alone, job).result())
                except BrokenProcessPool:
                    results.append(self._crashed(job))
        return results

    def _discard(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=False, cancel_futures=True)
            self._pool = None

    def close(self, kill: bool = False) -> None:
        """Wait for the workers; with ``kill`` (we are unwinding), kill them instead."""
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if kill:
            for process in list(getattr(pool, "_processes", {}).values()):
                with contextlib.suppress(OSError):
                    process.kill()
            pool.shutdown(wait=False, cancel_futures=True)
        else:
            pool.shutdown(wait=True)


@contextlib.contextmanager
def sigterm_unwinds() -> Iterator[None]:
    """While inside, SIGTERM raises SystemExit(143) in the main thread (so ``finally``
    blocks kill the workers), unless someone else already handles SIGTERM."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.getsignal(signal.SIGTERM)
    if previous not in (signal.SIG_DFL, None):
        yield
        return

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
