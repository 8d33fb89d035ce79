"""--dynamic, --compile-time, --format markdown / --summary and --plot, on the CPU.

One CLI run over data/advisor_targets.py with the eager backend (no Inductor: cheap, and
the cache variants of --compile-time then do not apply, which is checked too).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

pytest.importorskip("torch")

from compilelint.verify import command  # noqa: E402
from compilelint.verify.advice import compile_time_lines  # noqa: E402
from compilelint.verify.model import TargetRun  # noqa: E402
from compilelint.verify.plot import bars  # noqa: E402

pytestmark = pytest.mark.dynamo


@pytest.fixture(scope="module")
def advised(data_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, Any], Path]]:
    out = tmp_path_factory.mktemp("advised")
    arguments = ["--targets", str(data_dir / "advisor_targets.py"), "--measure", "--warmup", "1", "--repeats", "3",
                 "--dynamic", "--compile-time", "--format", "json", "-o", str(out / "report.json"),
                 "--summary", str(out / "summary.md"), "--plot", str(out / "plot.png"), "-q"]  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(command, "lint_findings", lambda paths, ran=None: ([], ""))
        result = CliRunner().invoke(command.verify_command, arguments)
    assert result.exit_code in (0, 1), result.output
    yield json.loads((out / "report.json").read_text()), out


def _target(report: dict[str, Any], name: str) -> dict[str, Any]:
    return next(t for t in report["targets"] if t["target"] == name)


def test_schema_4(advised: tuple[dict[str, Any], Path]) -> None:
    assert advised[0]["schema"] == 4


def test_dynamic_true_removes_the_size_recompile(advised: tuple[dict[str, Any], Path]) -> None:
    stack = _target(advised[0], "target_stack")
    assert stack["recompiles"]["count"] >= 1  # default mode: the batch changes
    assert stack["dynamic"]["recompiles"]["count"] == 0 and stack["dynamic"]["error"] is None


def test_dynamic_true_keeps_the_module_state_recompiles(advised: tuple[dict[str, Any], Path]) -> None:
    # dynamic=True makes sizes symbolic; an int attribute of a module stays specialised (torch 2.13)
    counter = _target(advised[0], "target_counter")
    assert counter["recompiles"]["count"] == 3
    assert counter["dynamic"]["recompiles"]["count"] == 3


def test_compile_time_regional_finds_the_repeated_block(advised: tuple[dict[str, Any], Path]) -> None:
    measured = _target(advised[0], "target_stack")["compile_time"]
    assert measured["cold"]["first_call_s"] > 0
    assert measured["regional"]["block"] == "Block ×3" and measured["regional"]["first_call_s"] > 0
    assert "warm-artifacts" not in measured and "warm-disk" not in measured  # backend eager: no caches


def test_compile_time_without_a_repeated_block_says_regional_does_not_apply(
        advised: tuple[dict[str, Any], Path]) -> None:  # fmt: skip
    measured = _target(advised[0], "target_counter")["compile_time"]
    assert "no repeated block" in measured["regional"]["error"]


def test_markdown_summary_has_a_row_per_target_and_the_compile_times(advised: tuple[dict[str, Any], Path]) -> None:
    text = (advised[1] / "summary.md").read_text()
    assert text.startswith("## compilelint verify: 2 targets")
    assert "| `target_stack` | ok |" in text and "| `target_counter` | ok |" in text
    assert "regional compilation of Block ×3" in text


def test_plot_is_a_png(advised: tuple[dict[str, Any], Path]) -> None:
    pytest.importorskip("matplotlib")
    assert (advised[1] / "plot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bars_put_a_fixed_target_beside_the_one_it_fixes() -> None:
    def report(*names: str) -> dict[str, Any]:
        return {"targets": [{"target": n, "timing": {"eager_ms": 2.0, "compiled_ms": 1.0}} for n in names]}

    drawn = bars([("before", report("target_a", "target_b", "target_a_fixed")), ("after", report("target_a"))])
    assert [bar.label for bar in drawn] == ["a (before)", "a (after)", "a_fixed (before)", "b (before)"]


def test_compile_time_lines_say_what_each_remedy_saves() -> None:
    run = TargetRun("ok", compile_time={
        "cold": {"first_call_s": 10.0}, "regional": {"first_call_s": 4.0, "block": "Layer ×12"},
        "warm-artifacts": {"first_call_s": 12.0}, "warm-disk": {"error": "boom"}})  # fmt: skip
    lines = compile_time_lines(run)
    assert lines[0] == "first compiled call, cold (fresh process, empty caches): 10.00 s"
    assert lines[1] == "regional compilation of Layer ×12: 4.00 s, saves 6.00 s (60%)"
    assert "costs 2.00 s more" in lines[2] and lines[3].endswith("boom")
    assert compile_time_lines(TargetRun("ok")) == []


def test_repeated_blocks_is_the_outermost_class_with_the_most_parameters() -> None:
    import torch

    from compilelint.verify.compile_time import repeated_blocks

    class Layer(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.mlp = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.GELU(), torch.nn.Linear(16, 4))
            self.norm = torch.nn.LayerNorm(4)

    class Model(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = torch.nn.Linear(4, 4)
            self.layers = torch.nn.ModuleList(Layer() for _ in range(3))

    model = Model()
    name, blocks = repeated_blocks(model)
    assert name == "Layer ×3" and blocks == list(model.layers)
    assert repeated_blocks(torch.nn.Linear(2, 2)) == ("", [])
    assert repeated_blocks(lambda x: x) == ("", [])


def test_repeated_blocks_go_by_structure_not_by_container_class() -> None:
    import torch

    from compilelint.verify.compile_time import repeated_blocks

    def block() -> torch.nn.Module:
        return torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.GELU())

    class Model(torch.nn.Module):  # stages of different contents, blocks of one structure
        def __init__(self) -> None:
            super().__init__()
            self.stages = torch.nn.Sequential(torch.nn.Sequential(block(), block()),
                                              torch.nn.Sequential(block(), torch.nn.Linear(4, 4), block()))  # fmt: skip

    model = Model()
    name, blocks = repeated_blocks(model)
    assert name == "Sequential ×4" and all(len(b) == 2 and isinstance(b[1], torch.nn.GELU) for b in blocks)


def test_compile_in_place_compiles_torch_containers_too() -> None:
    import torch
    from torch._dynamo.utils import counters

    from compilelint.verify.compile_time import compile_in_place, repeated_blocks

    model = torch.nn.Sequential(*(torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.GELU()) for _ in range(3)))
    _, blocks = repeated_blocks(model)
    torch._dynamo.reset()
    counters.clear()
    compile_in_place(model, blocks, {"backend": "eager"})
    model(torch.randn(2, 4))
    assert int(counters["stats"]["unique_graphs"]) >= 1  # Sequential.compile() would give 0
    torch._dynamo.reset()


def test_a_first_call_without_a_graph_is_said() -> None:
    run = TargetRun("ok", compile_time={"cold": {"first_call_s": 0.2, "graphs": 0}})
    assert compile_time_lines(run) == [
        "first compiled call, cold (fresh process, empty caches): 0.20 s (Dynamo compiled no graph: nothing to save)"]
