"""No process a target started outlives it, not even one in a session of its own.

Killing the target's process group misses a descendant that called ``setsid`` (or
``setpgid``), and a verify process that is SIGKILLed kills nothing. So (Linux):

- The child (a target's own process, or a warm worker) forks at once, before torch and
  before any thread: the work goes on in the fork, and the child stays as its *warden*.
  Both are child subreapers (``PR_SET_CHILD_SUBREAPER``): every descendant of a target,
  orphaned or not, after ``setsid``, a double fork or with an emptied environment, stays
  below them. The warden waits, idle, so it can always run Python. When the work ends,
  the warden kills everything left below it and exits as the work did (same code, same
  signal); a warm worker also kills what each target left running, and retires.
- When verify dies, even by SIGKILL, the kernel signals the warden (``PR_SET_PDEATHSIG``):
  it kills everything below it and removes the folder. The work gets SIGKILL from the
  kernel when its warden dies, so a target stuck in C code holding the GIL goes too.
- The verify process is a subreaper while targets run: when it kills a child's group
  (timeout, memory limit, a crash, a retired worker), what was below it in other
  sessions is reparented to verify, which kills and reaps it.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

_SPAWNING = threading.Lock()  # from starting a child until its pid is in _OURS; kill_orphans waits
_OURS: set[int] = set()  # the children verify started (their Popen reaps them)
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
MAX_ROUNDS = 20  # kill, look again: a descendant may fork while its parent is killed


def _prctl(option: int, value: int) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return int(libc.prctl(option, value, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


@contextlib.contextmanager
def subreaper() -> Iterator[bool]:
    """Be a child subreaper while the block runs; yields whether that worked."""
    became = _prctl(PR_SET_CHILD_SUBREAPER, 1)
    try:
        yield became
    finally:
        if became:
            _prctl(PR_SET_CHILD_SUBREAPER, 0)


@dataclass(frozen=True)
class Process:
    pid: int
    parent: int
    session: int
    zombie: bool = False


def proc_stats() -> Iterator[tuple[int, list[bytes]]]:
    """(pid, the fields of /proc/<pid>/stat after the command name) of every process; none
    where there is no /proc. Field 0 is the state, 1 the parent, 3 the session, 21 the RSS."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        yield int(entry), fields


def processes(zombies: bool = False) -> list[Process]:
    """Every live process in /proc (and the zombies, if asked); empty where there is no /proc."""
    return [
        Process(pid, int(fields[1]), int(fields[3]), fields[0] == b"Z")
        for pid, fields in proc_stats()
        if zombies or fields[0] != b"Z"
    ]


def below(root: int) -> set[int]:
    """The live descendants of ``root``."""
    children: dict[int, list[int]] = {}
    for process in processes():
        children.setdefault(process.parent, []).append(process.pid)
    found: set[int] = set()
    todo = list(children.get(root, []))
    while todo:
        pid = todo.pop()
        if pid not in found:
            found.add(pid)
            todo += children.get(pid, [])
    return found


def kill_below(spare: Iterable[int] = ()) -> list[int]:
    """SIGKILL every process below this one but ``spare``, and reap those that are ours."""
    spared = set(spare)
    return _kill_until_gone(lambda: below(os.getpid()) - spared)


@contextlib.contextmanager
def spawning() -> Iterator[Callable[[int], None]]:
    """Start a child in this block and pass its pid to the function it yields: kill_orphans
    then knows it for one of ours, also while other threads start children."""
    with _SPAWNING:
        yield _OURS.add


def forget(pid: int) -> None:
    _OURS.discard(pid)


def kill_orphans() -> list[int]:
    """SIGKILL the processes reparented to us from other sessions (what was below a child
    whose group we killed), but not the children we started ourselves."""
    me, ours = os.getpid(), os.getsid(0)
    with _SPAWNING:
        spared = set(_OURS)
        return _kill_until_gone(lambda: {p.pid for p in processes()
                                         if p.parent == me and p.session != ours and p.pid not in spared})  # fmt: skip


def _kill_until_gone(find: Callable[[], set[int]]) -> list[int]:
    killed: list[int] = []
    for _ in range(MAX_ROUNDS):
        doomed = sorted(find())
        if not doomed:
            break
        for pid in doomed:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        killed += doomed
        _reap(doomed)
    return killed


def _reap(pids: Iterable[int]) -> None:
    """Collect the exit status of killed processes that are our children (no zombies);
    those below them come to us as orphans, and are reaped in a later round."""
    for pid in pids:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, 0)


def reap_zombies(spare: Iterable[int] = ()) -> None:
    """Collect orphans that were reparented to us and have exited since (a subreaper's chore)."""
    me, spared = os.getpid(), set(spare)
    for process in processes(zombies=True):
        if process.zombie and process.parent == me and process.pid not in spared:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(process.pid, os.WNOHANG)


class _VerifyDied(Exception):
    pass


def _verify_died(signum: int, frame: object) -> None:
    # once: the signal comes again as each of verify's threads dies (we are handed from one to the next)
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    raise _VerifyDied


def become_warden(folder: str) -> bool:
    """Fork (module docstring). Returns in the fork, True if a warden watches it; False,
    without forking, where that cannot be set up (not Linux). The warden never returns."""
    parent = os.getppid()
    signal.signal(signal.SIGUSR1, _verify_died)
    if parent == 1 or not _prctl(PR_SET_CHILD_SUBREAPER, 1) or not _prctl(PR_SET_PDEATHSIG, signal.SIGUSR1):
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)
        return False
    if os.getppid() != parent:  # verify died before the request took effect
        os._exit(1)
    warden = os.getpid()
    work = os.fork()
    if work == 0:
        signal.signal(signal.SIGUSR1, signal.SIG_DFL)
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        _prctl(PR_SET_CHILD_SUBREAPER, 1)  # not inherited: orphans of the target come to the work
        if os.getppid() != warden:
            os._exit(1)
        return True
    try:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a timeout's TERM is for the work; we clean up after it
        _, status = os.waitpid(work, 0)
    except _VerifyDied:
        kill_below()
        shutil.rmtree(folder, ignore_errors=True)
        os._exit(1)
    kill_below()
    _exit_like(status)
    return True  # not reached


def _exit_like(status: int) -> None:
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        signal.signal(number, signal.SIG_DFL)
        os.kill(os.getpid(), number)
        time.sleep(1)  # not reached for a signal that ends a process
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
