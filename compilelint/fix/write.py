"""Writing a fixed file: all the new bytes or none of them, whatever kills us mid-way.

A temporary file in the target's own directory (so ``os.replace`` is a rename within one
file system), flushed and fsynced, given the target's permission bits, then renamed over
the target. A symlink stays a symlink: its target is the file replaced. A file with
several hard links is refused (a rename would cut it off from its other names), and so
is a file we could not write in place: read-only, or owned by another user or group
(the new file would be ours). A symlink whose target lies outside the tree being fixed
is refused and named. If the file changed on disk since it was read (an editor, another
hook), the write is refused. Temporary files carry our pid; those a killed run left are
reported by the next run, never deleted: a file that merely looks like ours is not ours.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
import time
from collections.abc import Iterable, Sequence

TEMP_SUFFIX = ".compilelint-tmp"
_TEMP_NAME = re.compile(r"^\..+\.(?P<pid>\d+)\.[^.]+" + re.escape(TEMP_SUFFIX) + "$")
STALE_AFTER_S = 3600.0  # a temp file this old is removed even if its pid is alive (pid reuse)


class WriteError(Exception):
    """The file was not written; it still holds its old bytes."""


def atomic_write(path: str, data: bytes, expected: bytes, roots: Sequence[str] = ()) -> None:
    """Replace the contents of ``path`` (which must still hold ``expected``) with ``data``;
    a symlink is followed only to a file inside ``roots`` (when given)."""
    real = os.path.realpath(path)
    directory, base = os.path.split(real)
    if roots and real != os.path.abspath(path) and not inside(real, roots):
        raise WriteError(f"is a symlink to {real}, outside the tree being fixed; not written")
    try:
        status = os.stat(real)
    except OSError as error:
        raise WriteError(f"cannot stat: {error.strerror or error}") from error
    if status.st_nlink > 1:
        raise WriteError(f"has {status.st_nlink} hard links, which replacing it would break; not written")
    _require_writable(real, status)
    _require_unchanged(real, expected)
    try:
        fd, temp = tempfile.mkstemp(dir=directory, prefix=f".{base}.{os.getpid()}.", suffix=TEMP_SUFFIX)
    except OSError as error:
        raise WriteError(f"cannot create a temporary file: {error.strerror or error}") from error
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temp, stat.S_IMODE(status.st_mode))
        _keep_owner(temp, status)
        _require_unchanged(real, expected)
        os.replace(temp, real)
    except BaseException as error:
        _remove(temp)
        if isinstance(error, OSError):
            raise WriteError(f"write failed: {error.strerror or error}") from error
        raise
    _sync_directory(directory)


def inside(path: str, roots: Sequence[str]) -> bool:
    """Whether ``path`` (resolved) lies in one of ``roots`` (resolved)."""
    for root in roots:
        top = os.path.realpath(root)
        top = top if os.path.isdir(top) else os.path.dirname(top)
        if os.path.commonpath([top, path]) == top:
            return True
    return False


def _require_writable(path: str, status: os.stat_result) -> None:
    """A rename replaces the file with one of ours: refuse when that changes more than its
    bytes (a read-only file, or another owner or group we cannot give it back to)."""
    if not status.st_mode & 0o222 or not os.access(path, os.W_OK):
        raise WriteError("is read-only; not written")
    if not hasattr(os, "geteuid") or os.geteuid() == 0:
        return  # root gives the replacement its owner and group back (_keep_owner)
    if status.st_uid != os.geteuid():
        raise WriteError(f"is owned by another user (uid {status.st_uid}); replacing it would make it ours; not written")
    if status.st_gid != os.getegid() and status.st_gid not in os.getgroups():
        raise WriteError(f"belongs to group {status.st_gid}, which we are not in; replacing it would change its group; not written")


def _require_unchanged(path: str, expected: bytes) -> None:
    try:
        with open(path, "rb") as handle:
            current = handle.read()
    except OSError as error:
        raise WriteError(f"cannot re-read: {error.strerror or error}") from error
    if current != expected:
        raise WriteError("file changed on disk while it was being fixed; not written")


def _keep_owner(path: str, status: os.stat_result) -> None:
    if not hasattr(os, "chown"):
        return
    try:
        if (status.st_uid, status.st_gid) != (os.getuid(), os.getgid()):
            os.chown(path, status.st_uid, status.st_gid)
    except OSError:
        pass  # only root may give a file away; the owner then becomes us, as with any editor


def _sync_directory(directory: str) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot fsync a directory; the rename itself is atomic
    finally:
        os.close(fd)


def _remove(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def stale_temp_files(directories: Iterable[str]) -> list[str]:
    """Temp files that killed runs left in ``directories`` (their pid is gone, or they are
    old); listed for the user, never removed."""
    stale = []
    now = time.time()
    for directory in sorted(set(directories)):
        try:
            entries = list(os.scandir(directory))
        except OSError:
            continue
        for entry in entries:
            match = _TEMP_NAME.match(entry.name)
            if match is None or not entry.is_file(follow_symlinks=False):
                continue
            if _owner_alive(int(match.group("pid"))) and now - _mtime(entry) < STALE_AFTER_S:
                continue  # another compilelint run is writing it right now
            stale.append(entry.path)
    return stale


def _owner_alive(pid: int) -> bool:
    if pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def _mtime(entry: os.DirEntry[str]) -> float:
    try:
        return entry.stat(follow_symlinks=False).st_mtime
    except OSError:
        return 0.0
