"""The verify run's result as data: per-target reports, the summary, JSON and exit code.

Reports never compute Dynamo facts; they arrange what matching produced. The JSON
schema is documented in README_SECTION.md and versioned by ``SCHEMA_VERSION``.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from compilelint.findings import Finding
from compilelint.verify import statuses
from compilelint.verify.advice import advise, compile_time_lines, remedy
from compilelint.verify.matching import FindingResult, MissedBreak, TargetMatch
from compilelint.verify.model import DEFAULT, FULLGRAPH, DynamicRun
from compilelint.verify.runner import Outcome

# 2: advice, backend_failure, graphs, cudagraph_skips, recompile remedies
# 3: dynamic (--dynamic), compile_time (--compile-time), advice.compile_time, process
# 4: missed[].inside (where below the user's line, in a package, Dynamo broke)
SCHEMA_VERSION = 4
EXIT_CLEAN, EXIT_BREAKS, EXIT_FAULT = 0, 1, 2


@dataclass(frozen=True)
class TargetReport:
    outcome: Outcome
    match: TargetMatch

    @property
    def name(self) -> str:
        return self.outcome.spec.name

    @property
    def status(self) -> str:
        return self.outcome.run.status


@dataclass(frozen=True)
class VerifyReport:
    targets: tuple[TargetReport, ...]
    lint_paths: tuple[str, ...]
    outside: tuple[Finding, ...] = ()  # findings in functions no target ran
    config: str | None = None  # the pyproject.toml that configured the run
    targets_files: tuple[str, ...] = ()
    torch_note: str = ""  # the release findings were judged against, when settings assumed another

    def finding_statuses(self) -> dict[tuple[str, int, int, str], str]:
        """Each finding once, with the best status any target gave it."""
        rank = {status: index for index, status in enumerate(statuses.FINDING_STATUSES)}
        best: dict[tuple[str, int, int, str], str] = {}
        for report in self.targets:
            for result in report.match.findings:
                key = result.finding.sort_key
                if key not in best or rank[result.status] < rank[best[key]]:
                    best[key] = result.status
        for finding in self.outside:
            best.setdefault(finding.sort_key, statuses.NOT_REACHED)
        return best

    def finding_counts(self) -> Counter[str]:
        return Counter(self.finding_statuses().values())

    def missed_count(self) -> int:
        return sum(len(report.match.missed) for report in self.targets)

    def missed_recompile_count(self) -> int:
        return sum(len(report.match.missed_recompiles) for report in self.targets)

    def faults(self) -> list[TargetReport]:
        return [report for report in self.targets if report.status != statuses.OK]

    def exit_code(self) -> int:
        if self.faults():
            return EXIT_FAULT
        if self.finding_counts()[statuses.CONFIRMED] or self.missed_count() or self.missed_recompile_count():
            return EXIT_BREAKS
        return EXIT_CLEAN


def display_path(path: str) -> str:
    """Relative to the working directory when under it, as linters print paths."""
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _finding_json(result: FindingResult) -> dict[str, Any]:
    finding = result.finding
    return {
        "code": finding.code,
        "path": display_path(os.path.abspath(finding.path)),
        "line": finding.line,
        "status": result.status,
        "modes": list(result.modes),
        "gb_id": result.gb_id,
        "gb_type": result.gb_type,
        "predicted_gb_ids": list(finding.gb_ids),
        "message": finding.message,
        "note": result.note,
    }


def _missed_json(missed: MissedBreak) -> dict[str, Any]:
    return {
        "path": display_path(missed.path),
        "line": missed.line,
        "gb_type": missed.gb_type,
        "gb_id": missed.gb_id,
        "reason": missed.explanation,
        "modes": list(missed.modes),
        "wrapped_by": missed.wrapped_by,
        "via": list(missed.via),
        "inside": list(missed.inside),
    }


def speedup(eager_ms: float | None, compiled_ms: float | None) -> float | None:
    if not eager_ms or not compiled_ms:
        return None
    return eager_ms / compiled_ms


def _dynamic_json(dynamic: DynamicRun | None) -> dict[str, Any] | None:
    if dynamic is None:
        return None
    recompiles = {key: value for key, value in dynamic.recompiles.to_json().items() if key != "events"}
    return {"recompiles": recompiles, "graphs": dynamic.graphs, "error": dynamic.error or None,
            "first_call_s": dynamic.first_call_s}  # fmt: skip


def target_json(report: TargetReport) -> dict[str, Any]:
    outcome, run = report.outcome, report.outcome.run
    ran = run.status == statuses.OK
    error = run.fullgraph_error
    return {
        "target": outcome.spec.name,
        "file": display_path(outcome.spec.path),
        "status": run.status,
        "detail": run.detail,
        "notes": list(run.notes),
        "torch": run.torch_version or None,
        "device": run.device or None,
        "backend": run.backend or None,
        "advice": {**advise(run, report.match).to_json(), "compile_time": compile_time_lines(run)},
        "backend_failure": run.backend_failure.to_json() if run.backend_failure else None,
        "graphs": run.graphs,
        "compile_mode": run.compile_mode,
        "cudagraph_skips": list(run.cudagraph_skips),
        "findings": [_finding_json(result) for result in report.match.findings],
        "missed": [_missed_json(missed) for missed in report.match.missed],
        "error_predicted": report.match.error_predicted,
        "recompiles": {
            **{key: value for key, value in run.recompiles.to_json().items() if key != "events"},
            "missed": [recompile.describe() for recompile in report.match.missed_recompiles],
            "remedies": [{"recompile": r.describe(), "remedy": remedy(r)} for r in run.recompiles.unexpected()],
        },
        "fullgraph": {
            "ok": (error is None) if ran and run.fullgraph_ran else None,
            "error": None if error is None else {**error.to_json(), "path": (
                display_path(error.path) if error.path else None)},
        },
        "timing": {**run.timing.to_json(),
                   "speedup": speedup(run.timing.eager_ms, run.timing.compiled_ms)},
        "dynamic": _dynamic_json(run.dynamic),
        "compile_time": run.compile_time,
        "breaks": {mode: sum(1 for e in run.events if e.mode == mode) for mode in (DEFAULT, FULLGRAPH)},
        "output_match": run.output_match,
        "dynamo_hooks": run.hook,
        "wall_s": round(outcome.wall_s, 3),
        "process": {"pid": outcome.pid, "warm_worker_target": outcome.warm or None},
        "log_tail": "" if ran else outcome.log_tail[-2000:],
    }  # fmt: skip


def to_json(report: VerifyReport) -> dict[str, Any]:
    counts = report.finding_counts()
    faults = Counter(target.status for target in report.faults())
    return {
        "schema": SCHEMA_VERSION,
        "lint_paths": [display_path(path) for path in report.lint_paths],
        "config": display_path(report.config) if report.config else None,
        "targets_files": [display_path(path) for path in report.targets_files],
        "torch_note": report.torch_note or None,
        "targets": [target_json(target) for target in report.targets],
        "not_reached": [
            {"code": f.code, "path": display_path(os.path.abspath(f.path)), "line": f.line,
             "status": statuses.NOT_REACHED, "note": "no target ran the function holding it"}
            for f in report.outside
        ],  # fmt: skip
        "summary": {
            "targets": len(report.targets),
            "ok": len(report.targets) - len(report.faults()),
            "faults": dict(sorted(faults.items())),
            "findings": {status: counts[status] for status in statuses.FINDING_STATUSES},
            "missed": report.missed_count(),
            "missed_recompiles": report.missed_recompile_count(),
            "recompiles": sum(t.outcome.run.recompiles.count for t in report.targets),
            "recompile_limit_hit": [t.name for t in report.targets if t.outcome.run.recompiles.limit_hit],
            "fullgraph_failed": [t.name for t in report.targets if t.outcome.run.fullgraph_error],
            "exit_code": report.exit_code(),
        },
    }


def build_report(outcomes: Sequence[Outcome], matches: Sequence[TargetMatch],
                 lint_paths: Sequence[str], findings: Sequence[Finding], torch_note: str = "") -> VerifyReport:  # fmt: skip
    spoken_for = {id(result.finding) for match in matches for result in match.findings}
    outside = tuple(f for f in sorted(findings, key=lambda f: f.sort_key) if id(f) not in spoken_for)
    targets = tuple(TargetReport(o, m) for o, m in zip(outcomes, matches))
    return VerifyReport(targets, tuple(lint_paths), outside, torch_note)
