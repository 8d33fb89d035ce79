"""Warm workers: targets share a process until one changes what the next would see.

One verify run with one job, so the targets of data/worker_targets.py run in file
order; each leaves its pid and what it saw. Faults in workers (crash, timeout, memory
limit, output flood) are covered by test_verify_runs.py, which runs with warm workers.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("torch")

from rich.console import Console  # noqa: E402

from compilelint.verify import command  # noqa: E402
from compilelint.verify.report import VerifyReport  # noqa: E402
from compilelint.verify.runner import RunOptions  # noqa: E402
from compilelint.verify.targets import discover_targets  # noqa: E402
from compilelint.verify import worker  # noqa: E402
from compilelint.verify.worker import changed  # noqa: E402

pytestmark = pytest.mark.dynamo


@pytest.fixture(scope="module")
def shared(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[VerifyReport, dict[str, Any]]]:
    evidence = tmp_path_factory.mktemp("workers")
    options = RunOptions(timeout=90, jobs=1)
    request = command.VerifyRequest((), (str(data_dir / "worker_targets.py"),), (), options, quiet=True)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(command, "lint_findings", lambda paths, ran=None: ([], ""))
        patch.setenv("COMPILELINT_TEST_DIR", str(evidence))
        report = command.verify(request, Console(stderr=True))
    seen = {path.stem: json.loads(path.read_text()) for path in evidence.glob("*.json")}
    yield report, seen


def test_clean_targets_share_one_warm_process(shared: tuple[VerifyReport, dict[str, Any]]) -> None:
    report, seen = shared
    assert all(t.status == "ok" for t in report.targets)
    assert seen["clean_first"]["pid"] == seen["clean_second"]["pid"] == seen["sets_config"]["pid"]
    warm = {t.name: t.outcome.warm for t in report.targets}
    assert warm["target_clean_first"] == 1 and warm["target_clean_second"] == 2


def test_a_changed_dynamo_config_does_not_reach_the_next_target(shared: tuple[VerifyReport, dict[str, Any]]) -> None:
    report, seen = shared
    assert seen["after_config"]["pid"] != seen["sets_config"]["pid"]
    assert seen["after_config"]["recompile_limit"] == seen["clean_first"]["recompile_limit"] != 1
    notes = next(t.outcome.run.notes for t in report.targets if t.name == "target_sets_config")
    assert any("torch._dynamo.config" in note and "fresh worker" in note for note in notes)


def test_a_changed_environment_does_not_reach_the_next_target(shared: tuple[VerifyReport, dict[str, Any]]) -> None:
    _, seen = shared
    assert seen["after_environment"]["pid"] != seen["sets_environment"]["pid"]
    assert seen["after_environment"]["variable"] is None


def test_an_isolated_target_gets_a_process_of_its_own(shared: tuple[VerifyReport, dict[str, Any]]) -> None:
    report, seen = shared
    others = {value["pid"] for name, value in seen.items() if name != "isolated"}
    assert seen["isolated"]["pid"] not in others
    assert next(t.outcome.warm for t in report.targets if t.name == "target_isolated") == 0


def test_isolate_is_read_from_the_decorator(data_dir: Path) -> None:
    specs = {spec.name: spec for spec in discover_targets(str(data_dir / "worker_targets.py"))}
    assert specs["target_isolated"].isolate and not specs["target_clean_first"].isolate


def test_changed_names_the_state_and_the_variables() -> None:
    before = {"torch._dynamo.config": "a", "environment": {"A": "1", "B": "2"}, "threads": 4}
    after = {"torch._dynamo.config": "b", "environment": {"A": "1", "C": "3"}, "threads": 4}
    assert changed(before, after) == ["environment variables B, C", "torch._dynamo.config"]
    assert changed(before, dict(before)) == []


def test_a_poisoned_cuda_context_retires_the_worker_instead_of_killing_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """After a device-side assert even torch.cuda.empty_cache() raises (measured on the H200,
    torch 2.11): the clean-up must say so, so that the worker writes the target's result
    (cuda-error) and retires, instead of dying with no result (status no-result)."""
    import torch

    def poisoned() -> None:
        raise RuntimeError("CUDA error: device-side assert triggered\nSearch for `cudaErrorAssert'")

    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "empty_cache", poisoned)
    assert worker._clean_up("cuda") == ["clean-up failed: RuntimeError: CUDA error: device-side assert triggered"]
    assert worker._clean_up("cpu") == []
