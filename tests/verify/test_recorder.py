"""The in-process recorder, as the fixture tests use it: real Dynamo, backend eager."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

torch = pytest.importorskip("torch")

from compilelint.verify import statuses  # noqa: E402
from compilelint.verify.recorder import override_suppress_errors, record  # noqa: E402
from compilelint.verify.statuses import classify_compile_failure  # noqa: E402
from compilelint.verify.targets import load_module  # noqa: E402

pytestmark = pytest.mark.dynamo


@pytest.fixture(scope="module")
def hazards(data_dir: Path) -> ModuleType:
    return load_module(str(data_dir / "hazards.py"))


def _line_of(module: ModuleType, needle: str) -> int:
    source = Path(str(module.__file__)).read_text(encoding="utf-8").splitlines()
    return next(number for number, text in enumerate(source, 1) if needle in text)


def test_default_mode_records_the_break_at_the_user_line(hazards: ModuleType) -> None:
    recording = record(hazards.PrintModel(), [(torch.randn(2, 8),)], mode="default")
    line = _line_of(hazards, 'print("activations"')
    [event] = [e for e in recording.events if e.line == line]
    assert event.path == str(Path(str(hazards.__file__)).resolve())
    assert (event.gb_id, event.mode) == ("GB0059", "default")
    assert recording.error is None
    assert "log_graph_break" in recording.hook


def test_fullgraph_reports_the_first_break_as_an_error(hazards: ModuleType) -> None:
    recording = record(hazards.BranchModel(), [(torch.ones(4),)], mode="fullgraph")
    assert recording.error is not None
    assert recording.error.type == "torch._dynamo.exc.Unsupported"
    assert recording.error.line == _line_of(hazards, "if x.sum() > 0")
    assert recording.error.gb_id == "GB0170"


def test_scalar_capture_under_fullgraph(hazards: ModuleType) -> None:
    default = record(hazards.scalar_and_mask, [(torch.randn(16),)], mode="default")
    fullgraph = record(hazards.scalar_and_mask, [(torch.randn(16),)], mode="fullgraph")
    assert {e.gb_id for e in default.events} == {"GB0124", "GB0036"}
    assert fullgraph.error is None  # fullgraph=True turns on scalar and dynamic-shape capture


def test_helper_break_is_attributed_to_the_helper_once(tmp_path: Path) -> None:
    source = tmp_path / "helpers.py"
    source.write_text(
        "def helper(x):\n    print('hi')\n    return x + 1\n\n"
        "def f(x):\n    y = x * 2\n    y = helper(y)\n    return y * 3\n"
    )
    module = load_module(str(source))
    recording = record(module.f, [(torch.ones(3),)], user_roots=[str(tmp_path)])
    assert [(e.line, [f.line for f in e.stack]) for e in recording.events] == [(2, [7, 2])]


def test_recompile_limit_is_recorded() -> None:
    class Counter(torch.nn.Module):  # type: ignore[misc]
        def __init__(self) -> None:
            super().__init__()
            self.step = 0

        def forward(self, x: Any) -> Any:
            self.step += 1
            return x * self.step

    with torch._dynamo.config.patch(recompile_limit=2):
        recording = record(Counter(), [(torch.ones(2),)] * 5)
    assert recording.recompiles.limit_hit
    assert recording.recompiles.count == 1
    assert "self.step" in recording.recompiles.events[0].reason


def test_backend_failure_is_a_backend_error() -> None:
    def failing_backend(gm: Any, example_inputs: Any) -> Any:
        raise ValueError("backend says no")

    recording = record(lambda x: x.sin() + 1, [(torch.ones(2),)], backend=failing_backend)
    assert recording.error is not None and "BackendCompilerFailed" in recording.error.type


def test_classification_of_compile_failures() -> None:
    from torch._dynamo.exc import BackendCompilerFailed

    def failing_backend(gm: Any, example_inputs: Any) -> Any:
        raise torch.OutOfMemoryError("CUDA out of memory. Tried to allocate 64.00 TiB")

    with pytest.raises(BackendCompilerFailed) as caught:
        torch.compile(lambda x: x.cos() * 2, backend=failing_backend)(torch.ones(2))
    assert classify_compile_failure(caught.value) == statuses.CUDA_OOM
    assert classify_compile_failure(RuntimeError("CUDA error: device-side assert triggered")) == statuses.CUDA_ERROR
    assert classify_compile_failure(ValueError("x")) == statuses.COMPILE_ERROR


def test_suppress_errors_is_overridden() -> None:
    with torch._dynamo.config.patch(suppress_errors=True):
        assert override_suppress_errors() is True
        assert torch._dynamo.config.suppress_errors is False
    assert override_suppress_errors() is False


def test_a_break_in_a_library_frame_python_runs_is_the_calling_user_line(tmp_path: Path) -> None:
    """A library frame Python runs on its own (``Optimizer.step``'s wrapper resumes after its
    first ``graph_break()`` and breaks again in its ``finally``) holds no user frame in the
    stack Dynamo reports: the break is the user line whose call is running, not the
    library's line."""
    source = tmp_path / "train.py"
    source.write_text(
        "import torch\n"
        "MODEL = torch.nn.Linear(3, 3)\n"
        "OPT = torch.optim.SGD(MODEL.parameters(), lr=0.1)\n\n"
        "def step(x):\n"
        "    MODEL(x).sum().backward()\n"
        "    OPT.step()\n"
        "    return x\n"
    )
    module = load_module(str(source))
    recording = record(module.step, [(torch.ones(2, 3),)], user_roots=[str(tmp_path)])
    resolved = str(source.resolve())
    assert recording.events and all(e.path == resolved for e in recording.events)
    assert "GB0025" in {e.gb_id for e in recording.events if e.line == 7}
