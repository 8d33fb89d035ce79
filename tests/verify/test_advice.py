"""The advisor: verdicts, causes, recompile remedies, and a backend failure that keeps breaks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from compilelint.verify import command, statuses
from compilelint.verify.advice import advise, remedy
from compilelint.verify.backend_failure import BackendFailure, backend_failure
from compilelint.verify.matching import TargetMatch
from compilelint.verify.model import DEFAULT, BreakEvent, Recompile, Recompiles, TargetRun, Timing

DATA = Path(__file__).parent / "data"


def run(eager: float | None, compiled: float | None, **changes: object) -> TargetRun:
    return TargetRun(statuses.OK, timing=Timing(eager_ms=eager, compiled_ms=compiled), **changes)  # type: ignore[arg-type]


def test_slower_compiled_is_said_first_with_its_causes() -> None:
    events = (BreakEvent(DEFAULT, "m.py", 10, "Failed to trace builtin operator", "GB0059"),)
    advice = advise(run(1.0, 2.17, events=events, graphs=9), TargetMatch((), ()))
    assert advice.verdict == "slower"
    assert advice.headline.startswith("compiling makes this target slower: 0.46× eager")
    assert any("1 graph break(s)" in cause and "9 graphs" in cause for cause in advice.causes)


def test_breaks_are_counted_as_the_missed_ones_are() -> None:
    """A call into a package that breaks two ways inside is two breaks at one line, and
    both are unflagged (the count once said "1 graph break site(s), 2 of them ...")."""
    from compilelint.verify.matching import match_target

    events = (BreakEvent(DEFAULT, "m.py", 12, "Read uninitialized cell", "GB0091"),
              BreakEvent(DEFAULT, "m.py", 12, "Missing tp_iternext", "GB4347"),
              BreakEvent("fullgraph", "m.py", 12, "Read uninitialized cell", "GB0091"))  # fmt: skip
    target = run(1.0, 2.0, events=events, graphs=20, coverage={"m.py": (12,)}, callable_files=("m.py",))
    advice = advise(target, match_target(target, []))
    assert any(cause.startswith("2 graph break(s) at 1 line(s), 2 of them not flagged by the linter: 20 graphs")
               for cause in advice.causes)  # fmt: skip


def test_an_rnn_break_points_at_allow_rnn() -> None:
    events = (BreakEvent(DEFAULT, "timm/models/sequencer.py", 137, "Attempted to wrap RNN, GRU, or LSTM", "GB0014"),)
    advice = advise(run(27.0, 29.6, events=events, graphs=21), TargetMatch((), ()))
    assert any(cause.startswith("an nn.LSTM/GRU/RNN breaks the graph at timm/models/sequencer.py:137: "
                                "torch._dynamo.config.allow_rnn = True") for cause in advice.causes)  # fmt: skip
    assert not any("allow_rnn" in cause for cause in advise(run(1.0, 2.0), TargetMatch((), ())).causes)


def test_gains_under_five_percent_and_real_gains() -> None:
    assert advise(run(1.0, 0.97), TargetMatch((), ())).verdict == "no-gain"
    assert advise(run(1.0, 0.5), TargetMatch((), ())).headline == "compiled runs 2.00× faster than eager"
    assert advise(run(None, None), TargetMatch((), ())).verdict == "not-measured"


def test_a_break_in_a_loop_that_compiled_nothing_says_so() -> None:
    events = (BreakEvent(DEFAULT, "m.py", 10, "Failed to trace builtin operator", "GB0059",
                         wrapped_by="graph break in loop"),)  # fmt: skip
    advice = advise(run(2.53, 2.58, events=events, graphs=0), TargetMatch((), ()))
    assert advice.verdict == "slower"
    assert "no graph compiled: a break inside a loop makes Dynamo skip the whole function" in advice.causes[0]


def test_a_graph_traced_from_a_package_names_the_package_line() -> None:
    inner = LoweringException("LoweringException: DynamicOutputShapeException: aten._unique2.default\n"
                              "  target: aten._unique2.default\nFound from : \n"
                              '   File "/site/torchdiffeq/_impl/misc.py", line 60, in _check_timelike\n')
    failure = backend_failure(BackendCompilerFailed(inner), "inductor", lambda path: path.startswith("/proj/"))
    assert (failure.path, failure.line, failure.op) == ("/site/torchdiffeq/_impl/misc.py", 60, "aten._unique2.default")


def test_cudagraph_skips_are_a_cause() -> None:
    advice = advise(run(1.0, 1.01, cudagraph_skips=("skipping cudagraphs due to cpu device (arg1_1)",),
                        compile_mode="reduce-overhead"), TargetMatch((), ()))
    assert any(c.startswith("CUDA graphs skipped (reduce-overhead)") for c in advice.causes)


@pytest.mark.parametrize(("reason", "expected"), [
    ("tensor 'x' size mismatch at index 0. expected 4, actual 8", "torch._dynamo.mark_dynamic(x, 0)"),
    ("self.step == 3", "module state `self.step`"),
    ("L['temperature'] == 0.7", "the Python number `temperature`"),
    ("tensor 'x' dtype mismatch. expected Float, actual Half", "changes dtype"),
    ("index[1] == 0", "the Python number `index[1]`"),  # torchdiffeq's rk_common.py, measured on the H200
    ("___check_type_id(self._modules['drop_path'], 94)", "regional compilation"),  # timm sequencer2d_s
    ("tensor 'value' stride mismatch at index 0. expected 64, actual 448", "x.contiguous()"),  # torchdiffeq, H200
])  # fmt: skip
def test_every_recompile_gets_a_remedy(reason: str, expected: str) -> None:
    assert expected in remedy(Recompile("forward", "m.py", 3, reason, 1))


def test_the_recompile_limit_has_its_own_remedy() -> None:
    assert "recompile_limit" in remedy(Recompile("forward", "m.py", 3, "x == 9", 9, limit_hit=True))


class LoweringException(Exception):
    pass


class BackendCompilerFailed(Exception):
    def __init__(self, inner: Exception) -> None:
        super().__init__(f"backend='inductor' raised:\n{type(inner).__name__}: {inner}")
        self.inner_exception = inner


def test_an_inductor_lowering_failure_names_the_op_and_the_user_line() -> None:
    inner = LoweringException(
        "NotImplementedError: could not find kernel for aten._unique2.default\n  target: aten._unique2.default\n"
        "  args[0]: TensorBox(...)\nFound from : \n"
        '   File "/proj/model.py", line 31, in forward\n    return odeint(self.f, y, t)\n'
        '   File "/site-packages/torchdiffeq/_impl/misc.py", line 12, in _check\n    torch.unique(t)\n'
    )
    failure = backend_failure(BackendCompilerFailed(inner), "inductor", lambda path: path.startswith("/proj/"))
    assert failure == BackendFailure("inductor", "aten._unique2.default",
                                     "NotImplementedError: could not find kernel for aten._unique2.default",
                                     "/proj/model.py", 31)  # fmt: skip
    assert failure.describe().startswith("backend 'inductor' cannot compile `aten._unique2.default`")


@pytest.mark.dynamo
def test_a_failing_backend_keeps_every_break_and_reports_itself() -> None:
    pytest.importorskip("torch")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(command, "lint_findings", lambda paths, ran=None: ([], ""))
        result = CliRunner().invoke(command.verify_command, [
            "--targets", str(DATA / "backend_failure.py"), "--backend", "fails_on_sin", "--measure",
            "--warmup", "1", "--repeats", "2", "--format", "json", "--timeout", "120", "-q"])  # fmt: skip
    target = json.loads(result.stdout)["targets"][0]
    assert target["status"] == statuses.BACKEND_ERROR
    assert target["backend_failure"]["op"] == "aten.sin.default"
    source = (DATA / "backend_failure.py").read_text().splitlines()
    sin_line = next(i for i, line in enumerate(source, 1) if "torch.sin(y)" in line)
    print_line = next(i for i, line in enumerate(source, 1) if 'print("scale"' in line)
    assert target["backend_failure"]["line"] == sin_line
    missed = {(m["line"], m["gb_type"].split(" (")[0]) for m in target["missed"]}
    assert (print_line, "Failed to trace builtin operator") in missed  # from the run with backend="eager"
    assert (sin_line, "Backend compiler failed") in missed
    assert target["timing"]["eager_ms"] and target["timing"]["compiled_ms"] is None
    assert target["advice"]["verdict"] == "backend-failed"
