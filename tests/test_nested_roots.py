"""Functions compiled where they are defined, inside other functions (analysis.nested_roots).

The snippet is what PyTorch's own Dynamo tests and training scripts look like. Each
``test_*`` function in it compiles its own closures; running them under Dynamo's hooks
gives the breaks, and the linter must find exactly those lines, no more.
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
    import functools
    import math

    import torch
    import torch._dynamo
    from torch._dynamo.testing import CompileCounter


    def fn(x):  # module-level, never compiled: the tests' own ``fn`` are other functions
        print("not compiled")
        return x


    def test_compile_call():
        def fn(x):
            print("traced")  # breaks
            return x + 1

        cnt = CompileCounter()
        opt_fn = torch.compile(fn, backend=cnt)
        opt_fn(torch.ones(3))


    def test_optimize_factory():
        def helper(t):
            return int(t.sum().item())  # breaks: reached from the compiled sibling

        def fn(x):
            return x + helper(x)

        torch._dynamo.optimize("eager")(fn)(torch.ones(3))


    def test_decorated():
        @torch.compile(backend="eager")
        def f(x):
            if x.sum() > 0:  # breaks
                return x
            return -x

        f(torch.ones(2))


    def test_bound_compiler():
        opt = torch._dynamo.optimize("eager")

        @opt
        def g(x):
            return x * len(x.nonzero())  # breaks

        g(torch.ones(2))


    def test_enclosing_def():
        def fn(x):
            print("outer def")  # breaks
            return x

        def run():
            return torch.compile(fn, backend="eager")(torch.ones(2))

        run()


    def test_literal_argument():
        def fn(x, flag):
            if flag:  # a literal at every call in this test: no break
                return x + 1
            return x

        opt_fn = torch.compile(fn, backend="eager")
        opt_fn(torch.ones(2), True)
        opt_fn(torch.ones(2), False)


    def test_literal_names():
        def fn(shape, y):
            if y == y:  # a Python float at the only call: no break
                return torch.randn(shape)  # a list of ints: no break
            return torch.zeros(shape)

        shape = [2, 3]
        torch.compile(fn, backend="eager")(shape, math.nan)


    def test_not_compiled():
        def fn(x):
            print("eager only")
            return x

        fn(torch.ones(2))


    def test_lambda():
        f = torch.compile(lambda x: x.item() + 1, backend="eager")  # breaks
        f(torch.ones(1))


    def test_named_lambda():
        g = lambda x: x + len(x.tolist())  # breaks
        torch._dynamo.optimize("eager")(g)(torch.arange(2))


    def test_partial_compiler():
        def fn(x):
            print("partial")  # breaks
            return x

        compile_eager = functools.partial(torch.compile, backend="eager")
        compile_eager(fn)(torch.ones(1))


    @functools.partial(torch.compile, backend="eager")
    def decorated_through_partial(x):
        print("decorated")  # breaks
        return x


    def test_decorated_through_partial():
        decorated_through_partial(torch.ones(1))


    def test_python_values_passed():
        funcs = frozenset([torch.add])

        def fn(x, func, inputs):
            total = x
            for k in inputs.keys():
                if k in inputs:  # a dict at the only call: no break
                    total = total + inputs[k]
            if func in funcs:  # a torch function: no break
                total = total + 1
            return total

        torch.compile(fn, backend="eager")(torch.ones(1), torch.add, {"a": torch.ones(1)})


    def test_local_module_called_with_an_id():
        class M(torch.nn.Module):
            def forward(self, x, ref_id):
                if id(self) == ref_id:  # an int from id(): no break
                    return x + 1
                return x - 1

        m = M()
        ref = id(m) + 0
        opt = torch.compile(m, backend="eager")
        opt(torch.ones(1), ref)


    class TestCase:
        def test_method(self):
            def fn(x):
                return x.tolist()  # breaks

            torch.compile(fn, backend="eager")(torch.arange(3))
    '''
)


def _lint(tmp_path: Path) -> tuple[Path, list[Finding]]:
    path = tmp_path / "test_snippet.py"
    path.write_text(SNIPPET)
    return path, lint_source(SNIPPET, str(path)).findings


def _line(text: str) -> int:
    return next(i for i, line in enumerate(SNIPPET.splitlines(), 1) if text in line)


def test_each_spelling_of_a_nested_compile_is_a_root(tmp_path: Path) -> None:
    _, findings = _lint(tmp_path)
    flagged = {f.line for f in findings if Mode.DEFAULT in f.breaks}
    expected = {_line(t) for t in ('print("traced")', "int(t.sum()", "if x.sum() > 0", "len(x.nonzero())",
                                   'print("outer def")', "return x.tolist()", "x.item() + 1", "len(x.tolist())",
                                   'print("partial")', 'print("decorated")')}
    assert expected <= flagged
    assert _line('print("not compiled")') not in flagged
    assert _line('print("eager only")') not in flagged
    assert _line("if flag:") not in {f.line for f in findings}
    assert not {_line("if y == y"), _line("torch.randn(shape)")} & {f.line for f in findings}
    python_values = {_line("a dict at the only call"), _line("a torch function"), _line("an int from id()")}
    assert not python_values & {f.line for f in findings}


def test_findings_are_what_dynamo_does(tmp_path: Path) -> None:
    torch = pytest.importorskip("torch")
    from compilelint.verify.attribution import UserFiles
    from compilelint.verify.dynamo_hooks import DynamoHooks

    path, findings = _lint(tmp_path)
    module = load_module(path)
    broken: set[int] = set()
    tests = [getattr(module, n) for n in dir(module) if n.startswith("test_")]
    tests.append(module.TestCase().test_method)
    for test in tests:
        torch._dynamo.reset()
        with DynamoHooks(UserFiles([str(tmp_path)])) as hooks:
            test()
        broken |= {e.line for e in hooks.events if e.path == str(path.resolve())}
    claimed = {f.line for f in findings if Mode.DEFAULT in f.breaks and not f.only_when}
    spans = [range(f.statement_lines[0], f.statement_lines[1] + 1) for f in findings]
    assert all(any(line in span for span in spans) for line in broken), (sorted(broken), sorted(claimed))
    assert claimed <= broken, (sorted(claimed), sorted(broken))


def test_torch_reexported_by_a_common_file(tmp_path: Path) -> None:
    """PyTorch's Dynamo tests import ``torch`` and ``nn`` from a shared file
    (``from ._repros_common import torch, nn``): those names are still torch's."""
    source = textwrap.dedent(
        """
        try:
            from ._common import nn, np, torch
        except ImportError:
            from _common import nn, np, torch


        class Tests:
            def test_backward(self):
                def f(a):
                    loss = (a * 2).sum()
                    loss.backward()
                    return loss

                torch.compile(f, backend="eager")(torch.ones(2, requires_grad=True))

            def test_parameter(self):
                def g(x):
                    return nn.Parameter(x) + np.float32(1.0)

                torch.compile(g, backend="eager")(torch.ones(2))
        """
    )
    findings = lint_source(source, str(tmp_path / "test_reexported.py")).findings
    assert {(f.code, f.line) for f in findings} >= {("CL114", _line_in(source, "loss.backward()")), ("CL112", _line_in(source, "nn.Parameter"))}


def _line_in(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)
