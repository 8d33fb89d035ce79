"""Module hooks are compiled code (analysis.hook_roots).

Each snippet registers hooks the way users do; running the model under Dynamo gives the
breaks, and the linter must find exactly those lines.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from fixture_support import load_module

from compilelint.engine import lint_source
from compilelint.findings import Mode

SNIPPET = textwrap.dedent(
    '''
    import torch
    from torch import nn


    def log_shapes(module, inputs, output):
        print("shape", tuple(output.shape))  # breaks: registered on a submodule below


    def never_registered(module, inputs, output):
        print("unused")


    class Tracked(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(4, 4)
            self.act = nn.ReLU()
            self.peaks = {}
            self.fc.register_forward_hook(log_shapes)
            self.fc.register_forward_pre_hook(self._check_width)
            self.act.register_forward_hook(self._make_peak("act"))
    
        def _check_width(self, module, inputs):
            width = module.in_features
            return (inputs[0] * width,)

        def _make_peak(self, name):
            def hook(module, inputs, output):
                self.peaks[name] = output.max().item()  # breaks

            return hook

        def _backward(self, module, grad_input, grad_output):
            print("backward")

        def forward(self, x):
            return self.act(self.fc(x))


    def target_tracked():
        return Tracked(), [(torch.randn(2, 4),)]
    '''
)


def _lines(source: str, code: str) -> list[int]:
    return sorted(f.line for f in lint_source(source, "hooks.py").findings if f.code == code)


def test_registered_hooks_are_compiled_and_others_are_not() -> None:
    assert _lines(SNIPPET, "CL101") == [7]  # log_shapes; never_registered (line 11) is not
    assert _lines(SNIPPET, "CL105") == [30]


def test_a_hooks_first_parameters_are_the_module_and_its_inputs() -> None:
    """``module.in_features`` is a module's attribute and ``inputs[0] * width`` a tensor
    product: nothing there is read from tensor data."""
    findings = lint_source(SNIPPET, "hooks.py").findings
    assert not [f for f in findings if 24 <= f.line <= 26]  # _check_width


def test_hooks_registered_at_module_level_and_by_nested_defs() -> None:
    source = textwrap.dedent(
        """
        import torch
        from torch import nn
        from torch.nn.modules.module import register_module_forward_hook


        def everywhere(module, inputs, output):
            print("any module")


        register_module_forward_hook(everywhere)


        def attach(model):
            def local(module, inputs):
                print("pre")

            def back(module, grad_input, grad_output):
                print("autograd runs backward hooks, not Dynamo's forward trace")

            model.register_forward_pre_hook(local)
            model.register_forward_hook(lambda m, i, o: None)
            model.register_full_backward_hook(back)
        """
    )
    assert _lines(source, "CL101") == [8, 16]


torch = pytest.importorskip("torch")


@pytest.mark.dynamo
def test_dynamo_breaks_where_the_hook_findings_are(tmp_path: Path) -> None:
    from dynamo_recorder import record

    path = tmp_path / "hooks.py"
    path.write_text(SNIPPET)
    module = load_module(path)
    model, inputs = module.target_tracked()
    default = record(model, inputs, str(path), fullgraph=False)
    assert sorted({line for _, line, _ in default.breaks}) == [7, 30]
    findings = lint_source(SNIPPET, str(path)).findings
    claimed = {f.line for f in findings if Mode.DEFAULT in f.breaks}
    assert {7, 30} <= claimed
