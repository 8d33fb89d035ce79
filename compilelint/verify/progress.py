"""Progress while targets run: a rich bar on a terminal, one plain line per target elsewhere.

Called from the runner's worker threads; rich's Progress is thread-safe, and the plain
writer takes a lock so lines never interleave.
"""

from __future__ import annotations

import threading
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as RichProgress

from compilelint.verify.runner import Outcome


class Progress:
    def __init__(self, console: Console, total: int, *, enabled: bool = True) -> None:
        self.console = console
        self.total = total
        self.enabled = enabled
        self._finished = 0
        self._lock = threading.Lock()
        self._bar: RichProgress | None = None
        self._task: object = None

    def __enter__(self) -> Progress:
        if self.enabled and self.console.is_terminal:
            self._bar = RichProgress(
                TextColumn("verifying"), BarColumn(), MofNCompleteColumn(),
                TextColumn("{task.description}"), TimeElapsedColumn(),
                console=self.console, transient=True,
            )  # fmt: skip
            self._bar.__enter__()
            self._task = self._bar.add_task("", total=self.total)
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._bar is not None:
            self._bar.__exit__(kind, exc, tb)

    def done(self, outcome: Outcome) -> None:
        if not self.enabled:
            return
        with self._lock:
            self._finished += 1
            line = (f"[{self._finished}/{self.total}] {outcome.spec.label}: {outcome.run.status}"
                    f" ({outcome.wall_s:.1f} s)")  # fmt: skip
            if self._bar is not None:
                self._bar.update(self._task, advance=1, description=outcome.spec.label)  # type: ignore[arg-type]
            else:
                self.console.print(line, highlight=False, markup=False)
