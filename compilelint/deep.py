"""Run a function where deep recursion is safe: a thread with a large stack.

The analysis and libcst recurse once per level of an expression or an ``elif`` chain,
so about 340 ``+`` terms or 260 ``elif``s pass Python's default limit of 1,000 frames,
although CPython compiles them (its own parser stops near 6,000 levels). Raising the
limit in the thread we are in could overflow the C stack (8 MB by default, and frames
entered through C, such as ``any(...)`` over a generator, use it); a fresh thread
with a 512 MB stack (address space, touched only as deep as the recursion goes) and a
limit of 60,000 frames holds every file CPython can parse. Only files that need it pay
for the thread: callers try the normal way first.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

STACK_BYTES = 512 << 20
RECURSION_LIMIT = 60_000
_LOCK = threading.Lock()  # the limit and the stack size are process-wide


def call_with_deep_stack(function: Callable[[], T]) -> T:
    """``function()``, run in a thread with a large stack and a high recursion limit."""
    outcome: list[T] = []
    failure: list[BaseException] = []

    def run() -> None:
        try:
            outcome.append(function())
        except BaseException as error:  # noqa: BLE001 - handed back to the caller
            failure.append(error)

    with _LOCK:
        old_limit, old_size = sys.getrecursionlimit(), threading.stack_size()
        try:
            threading.stack_size(STACK_BYTES)
            sys.setrecursionlimit(max(old_limit, RECURSION_LIMIT))
            worker = threading.Thread(target=run, name="compilelint-deep")
            worker.start()
            worker.join()
        finally:
            threading.stack_size(old_size)
            sys.setrecursionlimit(old_limit)
    if failure:
        raise failure[0]
    return outcome[0]
