"""lint_source: bad input becomes findings, a crashing rule loses nothing else."""

from __future__ import annotations

import pytest

from compilelint.config import Selection, Settings
from compilelint.engine import lint_source
from compilelint.registry import all_rules

MODEL = "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n        return x.sum().item()\n"


def codes(source: str | bytes) -> list[tuple[int, str]]:
    return [(f.line, f.code) for f in lint_source(source, "m.py").findings]


def test_findings_on_a_small_model() -> None:
    assert codes(MODEL) == [(4, "CL101"), (5, "CL105")]


def test_syntax_error_is_cl900_with_its_position() -> None:
    findings = lint_source("import torch\ndef f(:\n", "bad.py").findings
    assert [(f.code, f.line) for f in findings] == [("CL900", 2)]
    assert "SyntaxError" in findings[0].message


def test_undecodable_file_is_cl900() -> None:
    findings = lint_source(b"import torch\nx = '\xff\xfe'\n", "bad.py").findings
    assert [f.code for f in findings] == ["CL900"]


def test_bom_and_coding_cookie_are_honoured() -> None:
    assert codes(b"\xef\xbb\xbf" + MODEL.encode()) == [(4, "CL101"), (5, "CL105")]
    latin = "# -*- coding: latin-1 -*-\n" + MODEL.replace("print(x)", "print('caf\xe9', x)")
    assert codes(latin.encode("latin-1")) == [(5, "CL101"), (6, "CL105")]


def test_columns_count_characters_not_bytes() -> None:
    source = MODEL.replace("        return x.sum().item()", "        y = 'ééé'; z = x.sum().item()\n        return z")
    finding = [f for f in lint_source(source, "m.py").findings if f.code == "CL105"][0]
    assert finding.column == len("        y = 'ééé'; z = ") + 1


def test_files_without_torch_are_skipped_before_parsing() -> None:
    result = lint_source("def forward(self, x:\n", "no_torch.py")
    assert result.skipped and result.findings == ()


def test_noqa_suppresses_all_or_listed_codes() -> None:
    bare = MODEL.replace("print(x)", "print(x)  # noqa")
    listed = MODEL.replace("print(x)", "print(x)  # noqa: CL105, CL101")
    other = MODEL.replace("print(x)", "print(x)  # noqa: CL105")
    assert codes(bare) == [(5, "CL105")]
    assert codes(listed) == [(5, "CL105")]
    assert codes(other) == [(4, "CL101"), (5, "CL105")]


def test_selection_resolves_by_specificity() -> None:
    from compilelint.config import Selection

    settings = Settings(layers=(Selection(select=("CL1",), ignore=("CL101",)),))
    assert [f.code for f in lint_source(MODEL, "m.py", settings).findings] == ["CL105"]
    settings = Settings(layers=(Selection(select=("CL101",), ignore=("CL1",)),))
    assert [f.code for f in lint_source(MODEL, "m.py", settings).findings] == ["CL101"]


def test_a_crashing_rule_becomes_cl999_and_other_findings_survive(monkeypatch: pytest.MonkeyPatch) -> None:
    rule = all_rules().by_code()["CL101"]

    def explode(node: object, ctx: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(rule, "check", explode)
    found = lint_source(MODEL, "m.py").findings
    assert [f.code for f in found] == ["CL999", "CL105"]
    assert "CL101" in found[0].message and "boom" in found[0].message


def test_deeply_nested_code_does_not_crash_the_run() -> None:
    deep = "import torch\nx = " + "(" * 5000 + "1" + ")" * 5000 + "\n"
    assert [f.code for f in lint_source(deep, "deep.py").findings] in (["CL900"], [])


LOOPS = """
import torch
from torch import nn

class Net(nn.Module):
    def forward(self, x):
        for i in range(x.size(0)):
            x = x + x[i].sum().item()
        for i in range(x.size(1)):
            x = x + i
        return x
"""


def test_a_loop_whose_body_breaks_the_graph_is_not_reported_as_unrolled() -> None:
    # Dynamo skips the frame on a graph break in a loop: the break is the hazard (CL105),
    # and the later loop, in the same skipped frame, is never compiled either
    found = [(f.line, f.code) for f in lint_source(LOOPS, "m.py").findings]
    assert found == [(8, "CL105")]


FRAMES = """
import numpy as np
import torch
from torch import nn

def cache_key(ids, mask):
    return tuple(ids[mask != 0].tolist())

def scaled(x, verbose=False):
    if verbose:
        print("scaling")
    return x * 2




class Resumed(nn.Module):
    def forward(self, x):
        if x.shape[0] > 4:
            x = x + 1
        print("resume point")
        if x.shape[0] > 5:
            x = x - 1
        for i in range(2):
            x = x + float(np.random.uniform(0, 1))
        return x

class CallsABreakingHelper(nn.Module):
    def forward(self, ids, mask):
        keys = [cache_key(ids[i], mask[i]) for i in range(2)]
        for i in range(ids.shape[0]):
            ids = ids + len(cache_key(ids[i], mask[i]))
        return ids

class CallsAQuietHelper(nn.Module):
    def forward(self, x):
        for i in range(x.shape[0]):
            x = x + scaled(x[i])
        return x

def grid_shape(size):
    if not isinstance(size, (list, tuple)):
        size = size.tolist()
    return size[0] // 2, size[1] // 2

class CallsAConvertingHelper(nn.Module):
    def forward(self, x, sizes):
        for i in range(x.shape[0]):
            h, w = grid_shape(sizes[i])
            x = x + h * w
        return x

class Generator(nn.Module):
    def forward(self, x):
        parts = list(t[k] for t, k in zip(x, x > 0))
        for i in range(x.shape[0]):
            x = x + parts[i].sum()
        return x
"""


def test_recompile_findings_in_a_frame_dynamo_skips_are_dropped() -> None:
    # each measured on torch 2.13: a break in a loop (or a generator expression, or a
    # call of a helper that always breaks) skips the frame from the last break outside a
    # loop on; a helper that breaks only on a path these calls do not take does not
    found = {(f.line, f.code) for f in lint_source(FRAMES, "m.py").findings}
    assert (19, "CL201") in found  # traced into the graph before the resume point
    assert (22, "CL201") not in found  # in the skipped resume frame
    assert (31, "CL201") not in found  # the helper breaks on every call, in a loop
    assert (37, "CL201") in found  # the helper breaks only when asked to be verbose
    assert (56, "CL201") not in found  # the generator expression breaks: frame skipped
    assert (48, "CL201") not in found  # the helper takes a value from tensor data, if only for tensors
    selected_only = {(f.line, f.code) for f in lint_source(FRAMES, "m.py", Settings(layers=(Selection(select=("CL201",)),))).findings}
    assert selected_only == {(line, code) for line, code in found if code == "CL201"}


SHORT_CIRCUIT = (
    "import random\nimport torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
    "        if self.cond and random.random() < 0.5:\n            x = x * 2\n"
    "        n = x.sum().item() if self.cond else 0\n"
    "        m = self.flag or x.max().item()\n"
    "        return x.mean().item() + n + m\n"
)


def test_a_finding_python_may_short_circuit_away_names_what_lets_it_run() -> None:
    found = {f.line: f.only_when for f in lint_source(SHORT_CIRCUIT, "m.py").findings}
    assert found == {5: ("self.cond",), 7: ("self.cond",), 8: ("not self.flag",), 9: ()}


def test_imported_names_says_which_names_the_file_calls_or_reads_through() -> None:
    """Only names called (``g(``) or read through (``F.relu``) are worth a second round
    once a re-export says what they are; a bare use, an annotation subscript and a method
    of the same name on another object (``obj.k(``) are not."""
    import ast

    from compilelint.analysis.module_index import build_index
    from compilelint.engine import _CallerModule, _imported_names

    text = (
        "import torch.nn.functional as F\n"
        "from pkg.mod import g, h, k, Unpack, spaced\n"
        "def f(x, obj):\n"
        "    y = F.relu(x) + g(x)\n"
        "    z: Unpack[int] = h\n"
        "    obj.k(y)\n"
        "    return spaced (y)\n"
    )
    index = build_index(ast.parse(text), find_compile_calls=False, text=text)
    found = _imported_names(index, _CallerModule("pkg.user", False))
    assert {name: used for name, (_, used) in found.items()} == {
        "F": True, "g": True, "h": False, "k": False, "Unpack": False, "spaced": True,
    }
    assert found["g"][0] == "pkg.mod.g"
