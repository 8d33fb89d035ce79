"""What compiled closures read from the functions that define them (analysis.closures).

Each ``test_*`` function of the snippet defines a function, compiles it and runs it, as
PyTorch's Dynamo tests and training scripts do; the compiled function reads names the
test bound. Running them under Dynamo's hooks gives the breaks, and the linter must find
exactly those lines, no more.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from fixture_support import load_module

from compilelint.engine import lint_source
from compilelint.findings import Finding, Mode

SNIPPET = textwrap.dedent(
    '''
    import torch
    import torch.nn as nn
    from torch.nn import LSTM


    def make():
        return torch.ones(3)


    class Helper:
        def step(self, x):
            return x * int(x.sum().item())  # breaks: h.step(x) runs it traced


    def test_lstm():
        mod = nn.LSTM(4, 4)

        def fn(x):
            return mod(x)[0] + 1  # breaks: GB0014

        torch.compile(fn, backend="eager")(torch.randn(2, 3, 4))


    def test_gru_attribute():
        rnn = nn.GRU(4, 4).to("cpu")

        def fn(x):
            return x * rnn.hidden_size  # breaks: GB0014

        torch.compile(fn, backend="eager")(torch.randn(3))


    def test_alias():
        mod = LSTM(4, 4)

        def fn(x):
            m = mod  # no break: the value is wrapped where it is used
            y = x * 2
            return m(y)[0]  # breaks: GB0014

        torch.compile(fn, backend="eager")(torch.randn(2, 3, 4))


    def test_local_subclass():
        class Recurrent(nn.GRU):
            pass

        mod = Recurrent(4, 4)

        def fn(x):
            return mod(x)[0]  # breaks: GB0014, a GRU of the test's own class

        torch.compile(fn, backend="eager")(torch.randn(2, 3, 4))


    def test_cell():
        cell = nn.LSTMCell(4, 4)

        def fn(x):
            return cell(x)[0]  # a cell traces

        torch.compile(fn, backend="eager")(torch.randn(3, 4))


    def test_tensor_branch():
        w = torch.randn(3)

        def fn(x):
            if w.sum() > 0:  # breaks: GB0170
                return x + 1
            return x - 1

        torch.compile(fn, backend="eager")(torch.randn(3))


    def test_item():
        w = torch.ones(3)

        def fn(x):
            return x * w.sum().item()  # breaks: GB0124

        torch.compile(fn, backend="eager")(torch.randn(3))


    def test_mask():
        y = torch.randn(3)
        mask = y > 0

        def fn(x):
            return x[mask] + 1  # breaks: GB0036

        torch.compile(fn, backend="eager")(torch.randn(3))


    def test_tensor_list():
        ts = [torch.ones(2), torch.zeros(2)]

        def fn(x):
            if ts[0].max() > 0:  # breaks: GB0170
                return x + ts[1]
            return x

        torch.compile(fn, backend="eager")(torch.randn(2))


    def test_python_values():
        n = 3
        xs = [1, 2]
        scale = 0.5
        y = torch.randn(4, 5)
        size = y.shape[0]
        total = y.sum().item()

        def fn(x):
            if n > 2 and scale > 0.1:  # Python numbers: no break
                x = x + torch.ones(n)
            for v in xs:
                if v > 1:  # no break
                    x = x + v
            if size > 2:  # read from a tensor, but in Python: a number, no break
                x = x + 1
            if total == total:  # likewise
                x = x * 2
            return x

        torch.compile(fn, backend="eager")(torch.randn(3))


    def test_instance():
        h = Helper()

        def fn(x):
            return h.step(x) + 1

        torch.compile(fn, backend="eager")(torch.randn(3))


    def test_distribution():
        beta = torch.distributions.Beta(torch.tensor(0.5), torch.tensor(0.5))

        def fn(x):
            return x * beta.sample((x.shape[0],))  # breaks: GB0090 once the size is dynamic

        opt_fn = torch.compile(fn, backend="eager")
        for size in (3, 4, 5):
            opt_fn(torch.randn(size))


    def test_lambda():
        w = torch.ones(3)
        n = 3
        f = torch.compile(lambda x: x * w.sum().item(), backend="eager")  # breaks: GB0124
        g = torch.compile(lambda x: x * n if n > 2 else x, backend="eager")  # a number: no break
        g(f(torch.randn(3)))


    def test_rebound():
        v = 3
        v = torch.ones(1)

        def fn(x):
            if v > 0:  # breaks: the tensor is what the closure reads
                return x
            return -x

        torch.compile(fn, backend="eager")(torch.randn(3))


    def test_bound_after_the_def():
        def fn(x):
            if late.max() > 0:  # breaks: bound before the call runs it
                return x
            return -x

        late = torch.ones(2)
        torch.compile(fn, backend="eager")(torch.randn(3))


    def test_own_local():
        w = torch.ones(3)

        def fn(x):
            w = 2  # the function's own local, not the closure's tensor
            if w > 1:  # no break
                return x + w
            return x

        torch.compile(fn, backend="eager")(torch.randn(3))


    def test_unknown_value():
        w = make()

        def fn(x):
            if w.sum() > 0:  # not claimed: what make() returns is not followed here
                return x
            return -x

        torch.compile(fn, backend="eager")(torch.randn(3))


    def test_sibling(w: torch.Tensor = torch.ones(3)):
        def helper(x):
            if w.max() > 0:  # breaks: an annotated parameter of the test, read by a sibling
                return x
            return -x

        def fn(x):
            return helper(x) * 2

        torch.compile(fn, backend="eager")(torch.randn(3))
    '''
)
UNCLAIMED = ("# not claimed",)  # breaks the linter does not see, on purpose (see each)


def _lint(tmp_path: Path) -> tuple[Path, list[Finding]]:
    path = tmp_path / "test_closure_snippet.py"
    path.write_text(SNIPPET)
    return path, lint_source(SNIPPET, str(path)).findings


def _line(text: str) -> int:
    return next(i for i, line in enumerate(SNIPPET.splitlines(), 1) if text in line)


def test_closure_variables_take_the_enclosing_bindings(tmp_path: Path) -> None:
    _, findings = _lint(tmp_path)
    flagged = {(f.code, f.line) for f in findings}
    assert {("CL109", _line("return mod(x)[0] + 1")), ("CL109", _line("rnn.hidden_size")), ("CL109", _line("return m(y)[0]")),
            ("CL103", _line("if w.sum() > 0:  # breaks")), ("CL105", _line("w.sum().item()")), ("CL106", _line("x[mask]")),
            ("CL103", _line("ts[0].max()")), ("CL105", _line("int(x.sum().item())")), ("CL103", _line("if v > 0")),
            ("CL103", _line("w.max() > 0")), ("CL103", _line("late.max() > 0")),
            ("CL136", _line("beta.sample(")), ("CL109", _line("return mod(x)[0]  # breaks: GB0014, a GRU")),
            ("CL105", _line("lambda x: x * w.sum().item()"))} <= flagged
    quiet = {_line(t) for t in ("m = mod", "cell(x)", "n > 2", "if v > 1", "size > 2", "total == total", "if w > 1", "if n > 2 else x")}
    assert not quiet & {f.line for f in findings}


def test_findings_are_what_dynamo_does(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from compilelint.verify.attribution import UserFiles
    from compilelint.verify.dynamo_hooks import DynamoHooks

    path, findings = _lint(tmp_path)
    module = load_module(path)
    broken: set[int] = set()
    for name in [n for n in dir(module) if n.startswith("test_")]:
        torch._dynamo.reset()
        with DynamoHooks(UserFiles([str(tmp_path)])) as hooks:
            getattr(module, name)()
        broken |= {e.line for e in hooks.events if e.path == str(path.resolve())}
    claimed = {f.line for f in findings if Mode.DEFAULT in f.breaks and not f.only_when}
    spans = [range(f.statement_lines[0], f.statement_lines[1] + 1) for f in findings]
    unclaimed = {_line(t) for t in UNCLAIMED}
    assert unclaimed <= broken
    assert all(any(line in span for span in spans) for line in broken - unclaimed), (sorted(broken), sorted(claimed))
    assert claimed <= broken, (sorted(claimed), sorted(broken))
