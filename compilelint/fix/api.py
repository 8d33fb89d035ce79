"""``--fix`` / ``--unsafe-fixes`` / ``--diff`` over files: the entry points for the CLI.

``apply_fixes`` takes the CLI's lint results and fixes only the files that have a fix to
apply (the others are never re-read, let alone rewritten); ``fix_paths`` lints and fixes
paths in one call. Each file is fixed on its own: a failure is reported for that file,
which keeps its bytes, and the other files are still fixed.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field

from compilelint.config import DEFAULT_SETTINGS, Settings
from compilelint.engine import collect_entries, lint_paths
from compilelint.pool import die_with_parent
from compilelint.findings import Applicability, FileResult, Finding
from compilelint.fix.diff import unified_diff
from compilelint.fix.loop import LintSetup, SourceFix, applicable, fix_source
from compilelint.fix.write import WriteError, atomic_write, inside, stale_temp_files
from compilelint.project import EntryPoint, ModuleMap

PARALLEL_MIN_FILES = 16


@dataclass(frozen=True)
class FileOutcome:
    path: str
    fixed_count: int  # findings whose fix was applied (or would be, with --diff)
    findings: tuple[Finding, ...]  # what is left in the file
    changed: bool = False  # written (or, with --diff, would be)
    error: str | None = None  # the file was left as it was: why
    diff: str = ""


@dataclass(frozen=True)
class FixReport:
    outcomes: tuple[FileOutcome, ...]
    results: list[FileResult]  # every file's findings after fixing, in the input order
    unsafe: bool
    diff: bool
    notes: list[str] = field(default_factory=list)

    @property
    def fixed(self) -> int:
        return sum(o.fixed_count for o in self.outcomes)

    @property
    def remaining(self) -> list[Finding]:
        return [f for result in self.results for f in result.findings]

    @property
    def hidden_unsafe(self) -> int:
        """Remaining findings that ``--unsafe-fixes`` would fix."""
        if self.unsafe:
            return 0
        return sum(1 for f in self.remaining if f.fix is not None and f.fix.applicability is Applicability.UNSAFE)

    @property
    def errors(self) -> list[tuple[str, str]]:
        return [(o.path, o.error) for o in self.outcomes if o.error is not None]

    @property
    def diffs(self) -> str:
        return "".join(o.diff for o in self.outcomes)

    def summary_line(self) -> str:
        """``N fixed, M remaining (K more with --unsafe-fixes)``; with --diff, ``Would fix N, ...``."""
        head = f"Would fix {self.fixed}" if self.diff else f"{self.fixed} fixed"
        line = f"{head}, {len(self.remaining)} remaining"
        hidden = self.hidden_unsafe
        return line + (f" ({hidden} more with --unsafe-fixes)" if hidden else "")

    def exit_code(self, exit_non_zero_on_fix: bool = False) -> int:
        """ruff's: 2 a file could not be fixed; with --diff 1 if there is a diff; else 1 if
        findings remain (or, with ``--exit-non-zero-on-fix``, if anything was fixed)."""
        if self.errors:
            return 2
        if self.diff:
            return 1 if any(o.changed for o in self.outcomes) else 0
        if self.remaining or (exit_non_zero_on_fix and self.fixed):
            return 1
        return 0


def apply_fixes(
    results: Sequence[FileResult], settings: Settings, unsafe: bool, diff: bool, jobs: int | None = None,
    settings_of: Callable[[str], Settings] | None = None, roots: Sequence[str] = (),
) -> FixReport:
    """Fix the files among ``results`` that have an applicable fix; write them unless ``diff``.

    ``settings_of`` gives each file its own settings (its nearest config); else ``settings``.
    ``roots`` is the tree being fixed (the run's paths; by default the folder all the files
    share): a symlink to a file outside it is not written, and is named."""
    roots = tuple(roots) or _common_folder([r.path for r in results])
    stale = stale_temp_files(_directories((r.path for r in results), roots))
    todo = [r.path for r in results if os.path.isfile(r.path) and any(applicable(f, unsafe) for f in r.findings)]
    setups = lint_setups(results, todo, settings_of or (lambda _: settings))
    fixes = _fix_all([(path, setups[path]) for path in todo], unsafe, jobs or os.cpu_count() or 1)
    outcomes: dict[str, FileOutcome] = {}
    by_path = {r.path: r for r in results}
    for path in todo:
        outcomes[path] = _settle(fixes[path], by_path[path], diff, roots)
    new_results = [
        FileResult(path=r.path, findings=outcomes[r.path].findings) if r.path in outcomes else r for r in results
    ]
    notes = [f"temporary file left by a killed run (remove it): {path}" for path in stale]
    return FixReport(tuple(outcomes[p] for p in todo), new_results, unsafe, diff, notes=notes)


def fix_paths(
    paths: Sequence[str], settings: Settings = DEFAULT_SETTINGS, unsafe: bool = False, diff: bool = False,
    jobs: int | None = None,
) -> FixReport:
    """Lint ``paths`` (files or folders) and fix what can be fixed."""
    return apply_fixes(lint_paths(paths, settings, jobs=jobs), settings, unsafe, diff, jobs, roots=paths)


def lint_setups(results: Sequence[FileResult], todo: Sequence[str], settings_of: Callable[[str], Settings]) -> dict[str, LintSetup]:
    """Lint each file to fix as the run did: with the functions other files' compiled
    regions call in it (cross-file entry points, rebuilt from the results' calls)."""
    modules = ModuleMap(r.path for r in results)
    entries: dict[str, dict[str, EntryPoint]] = {}
    collect_entries(results, modules, entries)
    return {
        path: LintSetup(settings_of(path), tuple(entries.get(path, {}).values()), modules.by_path.get(path)) for path in todo
    }


def _common_folder(paths: Sequence[str]) -> tuple[str, ...]:
    if not paths:
        return ()
    return (os.path.commonpath([os.path.dirname(os.path.abspath(p)) for p in paths]),)


def _directories(paths: Iterable[str], roots: Sequence[str]) -> list[str]:
    """Where killed runs may have left temp files: next to each file, and next to its
    target when that lies inside the tree."""
    folders: set[str] = set()
    for path in paths:
        folders.add(os.path.dirname(os.path.abspath(path)) or ".")
        real = os.path.realpath(path)
        if inside(real, roots):
            folders.add(os.path.dirname(real) or ".")
    return sorted(folders)


def _settle(fix: SourceFix, before: FileResult, diff: bool, roots: Sequence[str]) -> FileOutcome:
    """Write (or diff) one file's fix; a failure keeps the old bytes and the old findings."""
    if fix.error is not None:
        return FileOutcome(fix.path, 0, before.findings, error=fix.error)
    if not fix.changed:
        return FileOutcome(fix.path, 0, fix.findings)
    if diff:
        return FileOutcome(fix.path, fix.fixed_count, fix.findings, changed=True,
                           diff=unified_diff(fix.path, fix.original, fix.fixed))
    try:
        atomic_write(fix.path, fix.fixed, fix.original, roots)
    except WriteError as error:
        return FileOutcome(fix.path, 0, before.findings, error=f"not written: {error}")
    return FileOutcome(fix.path, fix.fixed_count, fix.findings, changed=True)


def fix_file(path: str, setup: LintSetup, unsafe: bool) -> SourceFix:
    """Read and fix one file in memory (never raises: trouble becomes ``error``)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except OSError as error:
        return SourceFix(path, b"", b"", 0, (), error=f"cannot read: {error.strerror or error}")
    try:
        return fix_source(data, path, setup, unsafe)
    except Exception as error:  # a bug of ours: this file is reported, the others go on
        return SourceFix(path, data, data, 0, (), error=f"internal error: {type(error).__name__}: {error}")


Job = tuple[str, LintSetup]


def _fix_chunk(jobs: list[Job], unsafe: bool) -> dict[str, SourceFix]:
    return {path: fix_file(path, setup, unsafe) for path, setup in jobs}


def _fix_all(jobs: list[Job], unsafe: bool, workers: int) -> dict[str, SourceFix]:
    if workers <= 1 or len(jobs) < PARALLEL_MIN_FILES:
        return _fix_chunk(jobs, unsafe)
    size = max(1, -(-len(jobs) // (workers * 4)))
    chunks = [jobs[i : i + size] for i in range(0, len(jobs), size)]
    fixes: dict[str, SourceFix] = {}
    crashed: list[Job] = []
    with ProcessPoolExecutor(max_workers=workers, initializer=die_with_parent) as pool:
        futures = {pool.submit(_fix_chunk, chunk, unsafe): chunk for chunk in chunks}
        for future in as_completed(futures):
            try:
                fixes.update(future.result())
            except BrokenProcessPool:
                crashed += futures[future]
    for job in crashed:  # a worker died (a parser crash): find the file, fix the others
        fixes[job[0]] = _isolated(job, unsafe)
    return fixes


def _isolated(job: Job, unsafe: bool) -> SourceFix:
    with ProcessPoolExecutor(max_workers=1, initializer=die_with_parent) as pool:
        try:
            return pool.submit(fix_file, job[0], job[1], unsafe).result()
        except BrokenProcessPool:
            return SourceFix(job[0], b"", b"", 0, (), error="internal error: the fixing process crashed on this file")
