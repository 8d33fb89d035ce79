"""How the file compiles (analysis.dynamo_config, analysis.compile_modes): what Dynamo then
traces is no finding.

Each ``test_*`` function of the snippets compiles its closure the way PyTorch's Dynamo tests
and user scripts do; run under Dynamo's hooks, the breaks must be exactly the findings.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from fixture_support import load_module

from compilelint.engine import lint_source
from compilelint.findings import Finding, Mode

PATCHED = textwrap.dedent(
    '''
    from unittest import mock
    from unittest.mock import patch

    import torch
    import torch._dynamo
    from torch._dynamo import config as dynamo_config


    @torch._dynamo.config.patch(capture_scalar_outputs=True)
    def test_decorator():
        def fn(x):
            return x * x.sum().item()  # traced

        torch.compile(fn, backend="eager")(torch.ones(3))


    def test_with_block():
        def fn(x):
            return torch.ones(int(x.sum()))  # traced

        with dynamo_config.patch("capture_scalar_outputs", True):
            torch.compile(fn, backend="eager")(torch.ones(3))


    @torch._dynamo.config.patch({"capture_dynamic_output_shape_ops": True})
    def test_dict_patch():
        def fn(x):
            return x.nonzero() + 1  # traced

        torch.compile(fn, backend="eager")(torch.ones(3))


    @torch._dynamo.config.patch(capture_dynamic_output_shape_ops=True)
    def test_other_flag():
        def fn(x):
            return x * x.sum().item()  # still breaks: this flag is for output shapes

        torch.compile(fn, backend="eager")(torch.ones(3))


    class TestCase:
        @torch._dynamo.config.patch(capture_scalar_outputs=True)
        def test_method(self):
            @torch.compile(backend="eager")
            def fn(x):
                return x + len(x.long().tolist())  # traced

            fn(torch.ones(2))


    def test_unpatched():
        def fn(x):
            return x * x.sum().item()  # breaks

        torch.compile(fn, backend="eager")(torch.ones(3))


    @patch.object(torch._dynamo.config, "capture_scalar_outputs", True)
    def test_mock_patch_object():
        def fn(x):
            return x * x.sum().item()  # traced

        torch.compile(fn, backend="eager")(torch.ones(3))


    @mock.patch("torch._dynamo.config.capture_scalar_outputs", True)
    def test_mock_patch_string():
        def fn(x):
            return x * x.sum().item()  # traced

        torch.compile(fn, backend="eager")(torch.ones(3))


    @patch.object(torch._dynamo.config, "capture_scalar_outputs", False)
    def test_mock_patch_false():
        def fn(x):
            return x * x.sum().item()  # still breaks: patched off

        torch.compile(fn, backend="eager")(torch.ones(3))
    '''
)

MODULE_LEVEL = textwrap.dedent(
    '''
    import torch
    import torch._dynamo.config

    torch._dynamo.config.capture_scalar_outputs = True


    def test_module_level():
        def fn(x):
            return x * x.sum().item()  # traced

        torch.compile(fn, backend="eager")(torch.ones(3))


    def test_still_breaks():
        def fn(x):
            return x.nonzero() + 1  # breaks

        torch.compile(fn, backend="eager")(torch.ones(3))
    '''
)


FULLGRAPH = textwrap.dedent(
    '''
    import torch
    import torch._dynamo


    def test_fullgraph_call():
        def fn(x):
            return x * x.sum().item()  # traced: fullgraph=True captures it

        torch.compile(fn, backend="eager", fullgraph=True)(torch.ones(3))


    def test_nopython():
        def fn(x):
            return x.nonzero() + 1  # traced

        torch._dynamo.optimize("eager", nopython=True)(fn)(torch.ones(3))


    @torch.compile(backend="eager", fullgraph=True)
    def decorated(x):
        return torch.ones(int(x.sum()))  # traced


    def test_decorated():
        decorated(torch.ones(3))


    def test_both_modes():
        def fn(x):
            return x * x.sum().item()  # breaks in the default-mode compile

        torch.compile(fn, backend="eager")(torch.ones(3))
        torch.compile(fn, backend="eager", fullgraph=True)(torch.ones(3))
    '''
)


def _line(source: str, text: str) -> int:
    return next(i for i, line in enumerate(source.splitlines(), 1) if text in line)


def _default_lines(source: str, path: Path) -> set[int]:
    return {f.line for f in lint_source(source, str(path)).findings if Mode.DEFAULT in f.breaks}


def test_patched_breaks_are_not_claimed(tmp_path: Path) -> None:
    lines = _default_lines(PATCHED, tmp_path / "test_patched.py")
    marked = {i for i, line in enumerate(PATCHED.splitlines(), 1) if "still breaks" in line or "# breaks" in line}
    assert len(marked) == 3 and lines == marked


def test_module_level_config(tmp_path: Path) -> None:
    lines = _default_lines(MODULE_LEVEL, tmp_path / "test_module_level.py")
    assert lines == {_line(MODULE_LEVEL, "# breaks")}


def test_fullgraph_only_functions(tmp_path: Path) -> None:
    lines = _default_lines(FULLGRAPH, tmp_path / "test_fullgraph.py")
    assert lines == {_line(FULLGRAPH, "# breaks")}


def _dynamo_breaks(source: str, path: Path, tmp_path: Path) -> tuple[set[int], list[Finding]]:
    torch = pytest.importorskip("torch")
    from compilelint.verify.attribution import UserFiles
    from compilelint.verify.dynamo_hooks import DynamoHooks

    path.write_text(source)
    findings = list(lint_source(source, str(path)).findings)
    saved = torch._dynamo.config.capture_scalar_outputs
    try:
        module = load_module(path)
        tests = [getattr(module, n) for n in dir(module) if n.startswith("test_")]
        if hasattr(module, "TestCase"):
            tests.append(module.TestCase().test_method)
        broken: set[int] = set()
        for test in tests:
            torch._dynamo.reset()
            with DynamoHooks(UserFiles([str(tmp_path)])) as hooks:
                test()
            broken |= {e.line for e in hooks.events if e.path == str(path.resolve())}
    finally:
        torch._dynamo.config.capture_scalar_outputs = saved
    return broken, findings


@pytest.mark.parametrize("source", [PATCHED, MODULE_LEVEL, FULLGRAPH], ids=["patched", "module_level", "fullgraph"])
def test_findings_are_what_dynamo_does(source: str, tmp_path: Path) -> None:
    broken, findings = _dynamo_breaks(source, tmp_path / "test_config_snippet.py", tmp_path)
    claimed = {f.line for f in findings if Mode.DEFAULT in f.breaks}
    assert claimed == broken
