"""The per-file budget: a file too large or too slow to analyse is skipped, and said so.

Size is checked before parsing (the ast alone takes about 170 bytes per byte of
source); time is checked between functions and statements of the analysis, so a slow
file stops with a CL999 "skipped" finding instead of holding up the run. Time is the
process's CPU time, not the wall clock: on a loaded CI runner the same file gets the
same verdict.
"""

from __future__ import annotations

import time

MB = 1 << 20


class BudgetExceeded(Exception):
    """The analysis of one file ran out of time; the message says how much it had."""


class Deadline:
    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._end = time.process_time() + seconds if seconds > 0 else float("inf")

    def check(self) -> None:
        if time.process_time() > self._end:
            raise BudgetExceeded(
                f"skipped: analysis took more than the {self.seconds:g} CPU seconds of the per-file budget (max-file-seconds)"
            )


NO_DEADLINE = Deadline(0)


def too_large(size: int, limit: int, budget: str = "per-file budget (max-file-size)") -> str | None:
    """Why a file of ``size`` bytes is over ``limit`` (0: no limit), or None."""
    if limit <= 0 or size <= limit:
        return None
    return f"{size / MB:.1f} MB is over the {limit / MB:g} MB {budget}"
