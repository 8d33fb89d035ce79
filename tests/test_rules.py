"""Every rule's fixtures and docstring examples, checked statically."""

from __future__ import annotations

import re

import pytest
from fixture_support import RuleFixtures, expected_findings, rule_fixture_folders

from compilelint.config import DEFAULT_SETTINGS
from compilelint.engine import lint_file, lint_source
from compilelint.registry import all_rules

FIXTURES = rule_fixture_folders()
EXAMPLE_HEADER = (
    "import copy, datetime, logging, math, os, random, sys, time, warnings\n"
    "import numpy as np\nimport torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
    "logger = logging.getLogger(__name__)\n"
)


def _ids(fixtures: list[RuleFixtures]) -> list[str]:
    return [f.folder.name for f in fixtures]


def test_every_rule_has_fixtures() -> None:
    codes = {rule.code for rule in all_rules()}
    assert codes == {f.code for f in FIXTURES}


@pytest.mark.parametrize("fixtures", FIXTURES, ids=_ids(FIXTURES))
def test_flagged_fixture_matches_markers(fixtures: RuleFixtures) -> None:
    findings = lint_file(str(fixtures.flagged), fixtures.settings).findings
    found = {(f.line, f.code) for f in findings}
    assert found == expected_findings(fixtures.flagged)
    assert any(f.code == fixtures.code for f in findings)


@pytest.mark.parametrize("fixtures", FIXTURES, ids=_ids(FIXTURES))
def test_clean_fixture_is_silent(fixtures: RuleFixtures) -> None:
    assert [f"{f.line}: {f.code} {f.message}" for f in lint_file(str(fixtures.clean), fixtures.settings).findings] == []


@pytest.mark.parametrize("fixtures", FIXTURES, ids=_ids(FIXTURES))
def test_fixture_folder_is_named_after_the_rule(fixtures: RuleFixtures) -> None:
    rule = all_rules().by_code()[fixtures.code]
    assert fixtures.folder.name == f"{rule.code}_{rule.name.replace('-', '_')}"


def _code_blocks(doc: str, section: str) -> list[str]:
    body = doc.split(section, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", body, flags=re.S)


@pytest.mark.parametrize("rule", list(all_rules()), ids=lambda r: r.code)
def test_docstring_example_is_flagged_and_alternative_is_clean(rule: object) -> None:
    doc = rule.doc()  # type: ignore[attr-defined]
    code = rule.code  # type: ignore[attr-defined]
    settings = next((f.settings for f in FIXTURES if f.code == code), None)
    examples = _code_blocks(doc, "## Example")
    alternatives = _code_blocks(doc, "## Use instead")
    assert examples and alternatives
    for example in examples:
        codes = {f.code for f in lint_source(EXAMPLE_HEADER + example, "example.py", settings or DEFAULT_SETTINGS).findings}
        assert code in codes, example
    for alternative in alternatives:
        findings = lint_source(EXAMPLE_HEADER + alternative, "alternative.py", settings or DEFAULT_SETTINGS).findings
        assert [f.code for f in findings] == [], alternative


def test_number_text_in_an_error_message_or_a_second_part_is_not_flagged_again() -> None:
    # CL145: a `raise`/`assert` message is built only when the check fails (PyG's
    # Aggregation.__call__ raises with f"...'{dim}'..."); one f-string with two number
    # parts (`f"{patch_size}-{f_patch_size}"`, diffusers' Z-Image) fails at its first part
    source = (
        "import torch\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x, dim: int = -1, p: int = 2, q: int = 1):\n"
        "        if dim >= x.dim():\n"
        "            raise ValueError(f'bad dim {dim}')\n"
        "        assert p > 0, f'bad {p}'\n"
        "        return x.sum(dim) * len(f'{p}-{q}')\n"
    )
    assert [(f.line, f.code) for f in lint_source(source, "m.py").findings] == [(7, "CL145")]


def _cl145(source: str) -> list[tuple[int, tuple[str, ...]]]:
    return [(f.line, tuple(m.value for m in f.breaks)) for f in lint_source(source, "m.py").findings if f.code == "CL145"]


def test_floats_from_the_surroundings_are_text_under_dynamic_only() -> None:
    # CL145 (measured on torch 2.13): float attributes and globals break under dynamic=True
    # only; int attributes, values computed from the float and attributes that also hold
    # something else stay constants; a helper's parameter keeps its caller's number
    source = (
        "import torch\n"
        "EPS = 1e-6\n"
        "STEP = 0.5\n"
        "def bump():\n"
        "    global STEP\n"
        "    STEP = 1.0\n"
        "def describe(value):\n"
        "    return 'v=%s' % value\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self, low: float = 0.1, k: int = 3, gain=None):\n"
        "        super().__init__()\n"
        "        self.low, self.k = low, k\n"
        "        self.high = 0.2\n"
        "        self.gain = gain if gain is not None else 1.0\n"
        "        self.scale = 0.5\n"
        "    def reset(self):\n"
        "        self.scale = None\n"
        "    def forward(self, x, n: int = 2):\n"
        "        high = self.high\n"
        "        doubled = self.high * 2\n"
        "        a = f'{self.k} {doubled} {self.gain} {self.scale} {STEP} {self.low}'\n"
        "        b = str(high) + repr(EPS) + describe(n)\n"
        "        return x * len(a + b)\n"
    )
    # on line 21 the first part that fails is `self.low` (a tuple assignment pairs it with
    # `low: float`); `self.gain` may be the argument, `self.scale` is also None, `STEP` is rebound
    assert _cl145(source) == [(8, ("default", "fullgraph")), (21, ("dynamic",)), (22, ("dynamic",)), (22, ("dynamic",))]
    flagged = [f for f in lint_source(source, "m.py").findings if f.line == 21]
    assert "`self.low`" in flagged[0].message


def test_a_helper_given_a_literal_or_a_rebound_parameter_is_not_flagged() -> None:
    source = (
        "import torch\n"
        "def label(v: float):\n"
        "    return f'{v}'\n"
        "def shifted(v: float):\n"
        "    v = v + 1\n"
        "    return str(v)\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self, low: float = 0.1):\n"
        "        super().__init__()\n"
        "        self.low = low\n"
        "    def forward(self, x):\n"
        "        return x * len(label(0.3) + shifted(self.low))\n"
    )
    assert _cl145(source) == []
