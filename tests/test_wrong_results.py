"""What each CL3xx rule claims is what torch.compile does on the installed torch: the
flagged fixture's targets compile without a break and compute other values than eager, the
clean fixture's compute the same.

Each target is compiled with backend="eager" in the default mode and with
fullgraph=True; its outputs for the fixture's input sets are compared with eager's.
"""

from __future__ import annotations

from typing import Any

import pytest
from fixture_support import load_module, rule_fixture_folders, targets

from compilelint.engine import lint_file

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.dynamo
FIXTURES = [f for f in rule_fixture_folders() if f.folder.name.startswith("CL3")]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, torch.Tensor) and isinstance(b, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype and bool(torch.equal(a, b))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return bool(a == b)


def _differs(fn: Any, inputs: list[tuple[Any, ...]], fullgraph: bool) -> bool:
    torch._dynamo.reset()
    compiled = torch.compile(fn, backend="eager", fullgraph=fullgraph)
    return any(not _same(fn(*args), compiled(*args)) for args in inputs)


def test_there_are_wrong_result_fixtures() -> None:
    assert FIXTURES


@pytest.mark.parametrize("fixtures", FIXTURES, ids=[f.folder.name for f in FIXTURES])
@pytest.mark.parametrize("fullgraph", [False, True], ids=["default", "fullgraph"])
def test_flagged_targets_compute_other_values(fixtures: Any, fullgraph: bool) -> None:
    module = load_module(fixtures.flagged.resolve())
    flagged_lines = {f.line for f in lint_file(str(fixtures.flagged.resolve()), fixtures.settings).findings}
    assert flagged_lines, "the flagged fixture has findings"
    same = [name for name, fn, inputs in targets(module) if not _differs(fn, inputs, fullgraph)]
    assert same == []


@pytest.mark.parametrize("fixtures", FIXTURES, ids=[f.folder.name for f in FIXTURES])
@pytest.mark.parametrize("fullgraph", [False, True], ids=["default", "fullgraph"])
def test_clean_targets_compute_what_eager_does(fixtures: Any, fullgraph: bool) -> None:
    module = load_module(fixtures.clean.resolve())
    differ = [name for name, fn, inputs in targets(module) if _differs(fn, inputs, fullgraph)]
    assert differ == []
