"""Whole verify runs in subprocesses: rule statuses, fault statuses, isolation, the CLI.

Two runs, each once per module: the healthy targets alone (through the CLI, JSON out),
and the healthy targets together with every CPU fault of reliability.md §4.6 (through
``verify()``, which also hands back the child pids). The static linter is replaced by
the findings marked in data/hazards.py, so the statuses checked here are Dynamo's.
"""

from __future__ import annotations

import json
import os
import re
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from rich.console import Console

pytest.importorskip("torch")

from compilelint.findings import Finding  # noqa: E402
from compilelint.verify import command, statuses  # noqa: E402
from compilelint.verify.report import VerifyReport, target_json  # noqa: E402
from compilelint.verify.runner import RunOptions  # noqa: E402

pytestmark = pytest.mark.dynamo

FAULT_FILES = ("fault_import_error.py", "fault_syntax.py", "fault_sys_exit.py", "fault_os_exit.py", "faults.py")
HEALTHY = "rules_targets.py"
JOBS = 4
VOLATILE = ("wall_s", "timing", "log_tail", "notes", "process")
MEMORY_LIMIT_MB = 2500  # a torch child with the eager backend stays well under it


@pytest.fixture(scope="module")
def healthy_cli(data_dir: Path, marker_findings: list[Finding]) -> Iterator[tuple[int, dict[str, Any], str]]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(command, "lint_findings", lambda paths, ran=None: (marker_findings, ""))
        result = CliRunner().invoke(
            command.verify_command,
            ["--targets", str(data_dir / HEALTHY), "--format", "json", "--jobs", str(JOBS), "--timeout", "90"],
        )
    yield result.exit_code, json.loads(result.stdout), result.stderr


@pytest.fixture(scope="module")
def mixed(data_dir: Path, marker_findings: list[Finding],
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[VerifyReport, float, Path]]:  # fmt: skip
    evidence = tmp_path_factory.mktemp("evidence")
    files = tuple(str(data_dir / name) for name in (HEALTHY, *FAULT_FILES))
    options = RunOptions(timeout=90, jobs=JOBS, project_root=str(data_dir.parent.parent.parent),
                         memory_limit_mb=MEMORY_LIMIT_MB)  # fmt: skip
    request = command.VerifyRequest((), files, (), options, quiet=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(command, "lint_findings", lambda paths, ran=None: (marker_findings, ""))
        patch.setenv("COMPILELINT_TEST_DIR", str(evidence))
        started = time.perf_counter()
        report = command.verify(request, Console(stderr=True))
        wall = time.perf_counter() - started
    yield report, wall, evidence


def _by_name(report: VerifyReport) -> dict[str, dict[str, Any]]:
    return {target.name: target_json(target) for target in report.targets}


# -- rule statuses ------------------------------------------------------------------------
def test_each_marked_finding_gets_the_status_dynamo_decides(healthy_cli: tuple[int, dict[str, Any], str],
                                                           hazard_expectations: list[Any]) -> None:  # fmt: skip
    _, data, _ = healthy_cli
    got = {(f["line"], f["code"]): (f["status"], tuple(f["modes"]))
           for t in data["targets"] for f in t["findings"]}  # fmt: skip
    for expected in hazard_expectations:
        if expected.code:
            assert got[(expected.line, expected.code)] == (expected.status, expected.modes), expected


def test_a_break_no_rule_flags_is_missed(healthy_cli: tuple[int, dict[str, Any], str],
                                         hazard_expectations: list[Any]) -> None:  # fmt: skip
    _, data, _ = healthy_cli
    missed = {(m["line"], m["gb_id"]) for t in data["targets"] for m in t["missed"]}
    expected_lines = {e.line for e in hazard_expectations if e.status == "missed"}
    assert {line for line, _ in missed} == expected_lines
    assert all(gb_id for _, gb_id in missed)


def test_cli_json_and_exit_code(healthy_cli: tuple[int, dict[str, Any], str]) -> None:
    exit_code, data, stderr = healthy_cli
    assert exit_code == 1  # confirmed and missed breaks
    assert data["schema"] == 4
    assert data["summary"]["faults"] == {}
    assert all(t["status"] == statuses.OK and t["torch"] and t["device"] == "cpu" for t in data["targets"])
    assert "[7/7]" in stderr  # plain progress when stderr is not a terminal
    by_name = {t["target"]: t for t in data["targets"]}
    assert by_name["target_print"]["fullgraph"]["ok"] is False
    assert by_name["target_checked"]["fullgraph"] == {"ok": True, "error": None}


# -- faults -------------------------------------------------------------------------------
EXPECTED_FAULTS = {
    "target_never_runs": (statuses.IMPORT_ERROR, "RuntimeError: boom at import"),
    "<module>": (statuses.IMPORT_ERROR, "SyntaxError 1:"),
    "target_exits_at_import": (statuses.IMPORT_ERROR, "SystemExit 0"),
    "target_os_exit_at_import": (statuses.NO_RESULT, "exit 0"),
    "target_segfault": (statuses.CRASHED, "SIGSEGV during target; last Python stack: File"),
    "target_abort": (statuses.CRASHED, "SIGABRT during target"),
    "target_infinite_loop": (statuses.TIMEOUT, "after 3 s"),
    "target_ignores_sigterm": (statuses.TIMEOUT, "after 3 s"),
    "target_orphan_grandchild": (statuses.OK, ""),
    "target_stdout_flood": (statuses.OK, ""),
    "target_hang_at_exit": (statuses.OK, ""),
    "target_eager_failure": (statuses.TARGET_ERROR, "fails in eager too: RuntimeError"),
    "target_recompile_storm": (statuses.OK, ""),
    "target_suppress_errors": (statuses.OK, ""),
    "target_bad_return": (statuses.TARGET_ERROR, "must return (callable, [input sets])"),
    "target_dynamo_config_disabled": (statuses.NOT_COMPILED, "torch._dynamo.config.disable is True"),
    "target_compile_patched_away": (statuses.NOT_COMPILED, "torch.compile was replaced"),
    "target_memory_hog": (statuses.MEMORY_LIMIT, f"over the {MEMORY_LIMIT_MB} MB --memory-limit during target"),
    "target_printing_loop": (statuses.OK, ""),
}


@pytest.mark.parametrize("name", sorted(EXPECTED_FAULTS))
def test_fault_status(mixed: tuple[VerifyReport, float, Path], name: str) -> None:
    status, detail = EXPECTED_FAULTS[name]
    got = _by_name(mixed[0])[name]
    assert got["status"] == status
    assert detail in got["detail"]


def test_segfault_keeps_the_python_stack(mixed: tuple[VerifyReport, float, Path]) -> None:
    assert "target_segfault" in _by_name(mixed[0])["target_segfault"]["log_tail"]


def test_a_crash_is_retried_once_and_called_reproducible(mixed: tuple[VerifyReport, float, Path]) -> None:
    assert "reproducible: crashed again on a retry" in _by_name(mixed[0])["target_segfault"]["detail"]


def test_captured_output_is_capped_and_the_report_says_so(mixed: tuple[VerifyReport, float, Path]) -> None:
    notes = _by_name(mixed[0])["target_printing_loop"]["notes"]
    assert any("MB to stdout; only the end was kept" in note for note in notes)


def test_recompile_storm_hits_the_limit(mixed: tuple[VerifyReport, float, Path]) -> None:
    storm = _by_name(mixed[0])["target_recompile_storm"]
    assert storm["recompiles"]["limit_hit"] is True
    assert "FailOnRecompileLimitHit" in storm["fullgraph"]["error"]["type"]


def test_suppress_errors_is_overridden_and_said(mixed: tuple[VerifyReport, float, Path]) -> None:
    notes = _by_name(mixed[0])["target_suppress_errors"]["notes"]
    assert any("suppress_errors" in note for note in notes)


def test_healthy_results_do_not_depend_on_faulty_neighbours(
    mixed: tuple[VerifyReport, float, Path], healthy_cli: tuple[int, dict[str, Any], str]
) -> None:
    alone = {t["target"]: t for t in healthy_cli[1]["targets"]}
    together = _by_name(mixed[0])

    def stable(data: dict[str, Any]) -> str:
        # Guard reasons quote runtime values (time.time() here): those differ run to run.
        kept = {k: v for k, v in data.items() if k not in VOLATILE}
        return re.sub(r"\d+\.\d+", "<float>", json.dumps(kept, sort_keys=True))

    for name, result in alone.items():
        assert stable(together[name]) == stable(result), name


def _alive_in_session(session: int) -> list[int]:
    """Like ``pgrep -s``, but a zombie (dead, not yet reaped by init) is not alive."""
    alive = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        state, sid = fields[0], int(fields[3])
        if sid == session and state != "Z":
            alive.append(int(entry))
    return alive


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_no_process_outlives_the_run(mixed: tuple[VerifyReport, float, Path]) -> None:
    report, _, evidence = mixed
    sessions = [t.outcome.pid for t in report.targets if t.outcome.pid]
    assert sessions and all(_alive_in_session(pid) == [] for pid in sessions)
    grandchild = int((evidence / "grandchild.pid").read_text())
    state = Path(f"/proc/{grandchild}/stat")
    assert not state.exists() or state.read_text().rsplit(")", 1)[1].split()[0] == "Z"


def test_wall_time_stays_bounded(mixed: tuple[VerifyReport, float, Path]) -> None:
    # reliability.md §4.6: at most the faulty targets' timeouts plus 60 s.
    _, wall, _ = mixed
    assert wall <= 3 + 3 + 60


def test_exit_code_is_2_when_a_target_could_not_run(mixed: tuple[VerifyReport, float, Path]) -> None:
    assert mixed[0].exit_code() == 2
