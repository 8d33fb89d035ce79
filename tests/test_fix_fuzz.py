"""Fuzzing the fixer, small (reliability F1): the full run is ``bench/fix_safety.py``.

hypothesmith programs go in the middle of a ``forward`` that has fixable hazards around
them; every output must compile, a second fix must change nothing, and nothing may raise.
Generated code is compiled, never run.
"""

from __future__ import annotations

import textwrap
import warnings

import pytest

from compilelint.config import DEFAULT_SETTINGS
from compilelint.fix.loop import applicable, fix_source

hypothesmith = pytest.importorskip("hypothesmith")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

TEMPLATE = """import torch
from torch import nn


class Generated(nn.Module):
    def forward(self, x):
        print("start", x.shape)
        if x.sum() > 0:
            y = x * 2
        else:
            y = -x
{body}
        print("done"); z = y if y.mean() > 0 else x
        return y, z
"""


def _compiles(data: bytes) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(data, "<generated>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True


@settings(max_examples=30, derandomize=True, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(st.one_of(hypothesmith.from_grammar(), hypothesmith.from_node()))
def test_fixing_generated_code_inside_forward_is_safe_and_idempotent(source: str) -> None:
    body = textwrap.indent(source if source.endswith("\n") else source + "\n", " " * 8, lambda line: True)
    data = TEMPLATE.format(body=body.rstrip("\n")).encode("utf-8", "surrogatepass")
    if not _compiles(data):
        return  # `from __future__`, `nonlocal` ... cannot sit in a function
    result = fix_source(data, "generated.py", DEFAULT_SETTINGS, unsafe=True)
    if result.error is not None:
        assert result.fixed == data
        assert result.error.startswith("fix unavailable"), result.error  # libcst's limits, never ours
        return
    assert _compiles(result.fixed)
    assert result.fixed_count >= 4 and not any(applicable(f, True) for f in result.findings)
    again = fix_source(result.fixed, "generated.py", DEFAULT_SETTINGS, unsafe=True)
    assert again.fixed == result.fixed and again.error is None
