"""What each rule claims is what Dynamo does on the installed torch (default and fullgraph).

Every ``target_*`` of a rule's fixtures is compiled with backend="eager", once in the
default mode and once with fullgraph=True. In ``flagged.py`` every graph break must lie on
a finding that claims that mode, and every finding must break in each mode it claims; in
``clean.py`` nothing may break.
"""

from __future__ import annotations

import importlib
import inspect
import json
import os
import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from fixture_support import RuleFixtures, load_module, rebuilt, rule_fixture_folders, targets

from compilelint.engine import lint_file, lint_source
from compilelint.findings import Finding, Mode

torch = pytest.importorskip("torch")
from dynamo_recorder import count_compiles, count_recompiles, record  # noqa: E402

pytestmark = pytest.mark.dynamo
FIXTURES = rule_fixture_folders()


def _gb_ids_by_type() -> dict[str, set[str]]:
    path = Path(os.path.dirname(torch._dynamo.__file__)) / "graph_break_registry.json"
    registry = json.loads(path.read_text())
    ids: dict[str, set[str]] = {}
    for gb_id, entries in registry.items():
        for entry in entries:
            ids.setdefault(entry["Gb_type"], set()).add(gb_id)
    return ids


GB_IDS = _gb_ids_by_type()


def _covering(findings: Iterable[Finding], line: int) -> list[Finding]:
    return [f for f in findings if f.statement_lines[0] <= line <= f.statement_lines[1]]


@pytest.mark.parametrize("fixtures", FIXTURES, ids=[f.folder.name for f in FIXTURES])
def test_flagged_fixture_breaks_as_claimed(fixtures: RuleFixtures, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(fixtures.flagged.resolve())
    findings = lint_file(path, fixtures.settings).findings
    if fixtures.settings.package_paths:  # the packages its code calls into (CL150)
        monkeypatch.syspath_prepend(fixtures.settings.package_paths[0])
    module = load_module(fixtures.flagged.resolve())
    default_lines: set[int] = set()
    fullgraph_lines: set[int] = set()
    package_files: dict[Mode, set[str]] = {Mode.DEFAULT: set(), Mode.FULLGRAPH: set()}
    problems: list[str] = []
    for name, fn, inputs in targets(module):
        default = record(fn, inputs, path, fullgraph=False)
        package_files[Mode.DEFAULT].update(site for site, _ in default.package_sites)
        for _, line, gb_type in default.breaks:
            default_lines.add(line)
            covering = [f for f in _covering(findings, line) if Mode.DEFAULT in f.breaks]
            if not covering:
                problems.append(f"{name}: default-mode break at line {line} ({gb_type}) no finding claims")
            declared = {gb for f in covering for gb in f.gb_ids}
            if covering and declared and not GB_IDS.get(gb_type, set()) & declared:
                problems.append(f"{name}: line {line} broke with {gb_type}, findings declare {sorted(declared)}")
        for _, line in default.error_sites:  # a compile that fails outright (CL118)
            default_lines.add(line)
            if not any(Mode.DEFAULT in f.breaks for f in _covering(findings, line)):
                problems.append(f"{name}: default mode failed at line {line} ({default.error}) no finding claims")
        fullgraph = record(*rebuilt(module, name), path, fullgraph=True)
        package_files[Mode.FULLGRAPH].update(site for site, _ in fullgraph.package_sites)
        for _, line in fullgraph.error_sites:
            fullgraph_lines.add(line)
            if not any(Mode.FULLGRAPH in f.breaks for f in _covering(findings, line)):
                problems.append(f"{name}: fullgraph failed at line {line} ({fullgraph.error}) no finding claims")
    for finding in findings:
        span = range(finding.statement_lines[0], finding.statement_lines[1] + 1)
        for mode, lines in ((Mode.DEFAULT, default_lines), (Mode.FULLGRAPH, fullgraph_lines)):
            if finding.reaches and package_files[mode] & {os.path.realpath(p) for p in finding.reaches}:
                continue  # it broke inside the package files the call runs into
            if mode in finding.breaks and not lines.intersection(span):
                problems.append(f"line {finding.line} {finding.code} claims {mode.value} but did not break there")
    assert problems == []


@pytest.mark.parametrize("fixtures", FIXTURES, ids=[f.folder.name for f in FIXTURES])
def test_clean_fixture_compiles_in_one_graph(fixtures: RuleFixtures, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(fixtures.clean.resolve())
    if fixtures.settings.package_paths:
        monkeypatch.syspath_prepend(fixtures.settings.package_paths[0])
    module = load_module(fixtures.clean.resolve())
    problems = []
    for name, fn, inputs in targets(module):
        default = record(fn, inputs, path, fullgraph=False)
        problems += [f"{name}: break at line {line}: {gb}" for _, line, gb in default.breaks]
        fullgraph = record(*rebuilt(module, name), path, fullgraph=True)
        if fullgraph.error:
            problems.append(f"{name}: fullgraph failed: {fullgraph.error}")
    assert problems == []


def _claims_inductor(fixtures: RuleFixtures) -> bool:
    return any(Mode.INDUCTOR in f.breaks for f in lint_file(str(fixtures.flagged.resolve())).findings)


INDUCTOR_FIXTURES = [f for f in FIXTURES if _claims_inductor(f)]


def _source_span(fn: object) -> range:
    code = type(fn) if isinstance(fn, torch.nn.Module) else fn
    lines, start = inspect.getsourcelines(code)  # type: ignore[arg-type]
    return range(start, start + len(lines))


@pytest.mark.parametrize("fixtures", INDUCTOR_FIXTURES, ids=[f.folder.name for f in INDUCTOR_FIXTURES])
def test_inductor_claims_fail_under_inductor(fixtures: RuleFixtures) -> None:
    """A finding that claims mode "inductor" is where torch.compile with Inductor fails (CPU,
    default mode) although Dynamo did not break; only the targets holding such a finding run."""
    path = str(fixtures.flagged.resolve())
    claimed = [f for f in lint_file(path).findings if Mode.INDUCTOR in f.breaks]
    module = load_module(fixtures.flagged.resolve())
    problems, failed = [], set()
    for name, fn, inputs in targets(module):
        span = _source_span(fn)
        mine = [f for f in claimed if f.line in span]
        if not mine:
            continue
        result = record(fn, inputs, path, fullgraph=False, backend="inductor")
        lines = {line for _, line in result.error_sites}
        failed |= lines
        if not any(f.statement_lines[0] <= line <= f.statement_lines[1] for f in mine for line in lines):
            problems.append(f"{name}: inductor did not fail on a claimed line ({result.error})")
    problems += [f"line {f.line} claims inductor but did not fail there" for f in claimed if f.line not in failed]
    assert problems == []


CALL_ARGUMENTS = {
    "time.sleep": "0",
    "random.choice": "[1]",
    "random.shuffle": "[1, 2]",
    "random.seed": "0",
    "os.urandom": "2",
    "os.system": "'true'",
    "subprocess.run": "['true']",
    "subprocess.check_output": "['true']",
    "subprocess.Popen": "['true']",
    "torch.manual_seed": "0",
    "numpy.random.uniform": "0, 1",
    "numpy.random.randint": "0, 5",
    "numpy.random.choice": "5, 2",
    "numpy.random.permutation": "5",
    "numpy.random.binomial": "3, 0.5, 3",
    "numpy.random.poisson": "1.0, 3",
    "numpy.random.beta": "1.0, 1.0, 3",
    "numpy.random.exponential": "1.0, 3",
    "json.dumps": "{'a': 1}",
    "json.loads": "'{}'",
    "sys.getsizeof": "[1]",
    **{f"bisect.{name}": "[1, 3, 7], 2" for name in ("bisect", "bisect_left", "bisect_right", "insort", "insort_left", "insort_right")},
}
NOT_RUN = {"pdb.set_trace", "ipdb.set_trace"}  # would stop the test run in a debugger


def _untraceable_table() -> list[str]:
    table = importlib.import_module("compilelint.rules.untraceable_call").UNTRACEABLE
    return sorted(set(table) - NOT_RUN)


@pytest.mark.parametrize("qualname", _untraceable_table())
def test_every_untraceable_call_in_the_table_breaks(qualname: str, tmp_path: Path) -> None:
    module_name = qualname.split(".", 1)[0]
    call = f"{qualname}({CALL_ARGUMENTS.get(qualname, '')})"
    source = f"import torch\nimport {module_name}\n\n\ndef f(x):\n    {call}\n    return x + 1\n\n\ncompiled = torch.compile(f)\n"
    path = tmp_path / "probe.py"
    path.write_text(source)
    findings = [f for f in lint_source(source, str(path)).findings if f.code == "CL107"]
    assert len(findings) == 1, f"CL107 does not flag {qualname}"
    function = load_module(path).f
    default = record(function, [(torch.randn(2),)], str(path), fullgraph=False)
    assert 6 in {line for _, line, _ in default.breaks}
    fullgraph = record(function, [(torch.randn(2),)], str(path), fullgraph=True)
    assert (fullgraph.error is not None) == (Mode.FULLGRAPH in findings[0].breaks)


RECOMPILES = re.compile(r"^def (target_\w+|run_\w+)\(\):\s*#\s*(recompiles|compiles):\s*(\d+)", re.M)
COUNTED_FIXTURES = [
    p for f in FIXTURES for p in (f.flagged, f.clean) if RECOMPILES.search(p.read_text(encoding="utf-8"))
]


@pytest.mark.parametrize("path", COUNTED_FIXTURES, ids=[f"{p.parent.name}/{p.name}" for p in COUNTED_FIXTURES])
def test_recompile_counts_are_what_dynamo_measures(path: Path) -> None:
    """Fixtures state the recompiles Dynamo produces over their input sets (4 or more)."""
    expected = {name: (what, int(n)) for name, what, n in RECOMPILES.findall(path.read_text())}
    module = load_module(path.resolve())
    measured = {}
    for name, (what, _) in expected.items():
        if what == "compiles":
            measured[name] = (what, count_compiles(getattr(module, name)))
        else:
            fn, inputs = getattr(module, name)()
            assert len(inputs) >= 4, f"{name}: recompile expectations need 4 or more input sets"
            measured[name] = (what, count_recompiles(fn, inputs))
    assert measured == expected


ASSERT_WITH_TUPLE_MESSAGE = '''
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        assert (x > -100).all(), ("out of range", 1)
        return x + 1
'''


FLOAT_OF_PERCENTILE = '''
import numpy as np
import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        q = np.percentile(x.detach().numpy(), 90)
        return x.clamp(max=float(q))
'''


def test_float_of_a_whole_array_percentile_raises_type_error_in_the_default_mode(tmp_path: Path) -> None:
    """CL120's claim for ``float(np.percentile(a, 90))``: the default mode breaks at
    ``float()`` (GB0033), and the code resumed there raises TypeError on the one-element
    array Dynamo hands it; ``fullgraph=True`` captures the scalar and compiles."""
    path = tmp_path / "percentile.py"
    path.write_text(FLOAT_OF_PERCENTILE)
    findings = [f for f in lint_source(FLOAT_OF_PERCENTILE, str(path)).findings if f.code == "CL120"]
    assert [(f.line, "raises TypeError" in f.message) for f in findings] == [(10, True)]
    module = load_module(path)
    torch._dynamo.reset()
    with pytest.raises(TypeError, match="0-dimensional"):
        torch.compile(module.Net(), backend="eager")(torch.randn(6))
    torch._dynamo.reset()
    x = torch.randn(6)
    assert torch.equal(torch.compile(module.Net(), backend="eager", fullgraph=True)(x), module.Net()(x))
    torch._dynamo.reset()


def test_an_assert_message_that_is_no_string_raises_type_error_in_both_modes(tmp_path: Path) -> None:
    """CL104's claim for ``assert ok, (a, b)``: no graph break, but the compiled call raises
    TypeError (``_assert_async`` gets the tuple); the error comes from the graph, with no
    source line the fixture harness could match, so it is checked here."""
    path = tmp_path / "tuple_message.py"
    path.write_text(ASSERT_WITH_TUPLE_MESSAGE)
    findings = [f for f in lint_source(ASSERT_WITH_TUPLE_MESSAGE, str(path)).findings if f.code == "CL104"]
    assert [(f.line, "TypeError" in f.message) for f in findings] == [(8, True)]
    module = load_module(path)
    for fullgraph in (False, True):
        torch._dynamo.reset()
        compiled = torch.compile(module.Net(), backend="eager", fullgraph=fullgraph)
        with pytest.raises(TypeError, match="assert_msg"):
            compiled(torch.randn(4))
    torch._dynamo.reset()


def _claims_dynamic(fixtures: RuleFixtures) -> bool:
    return any(Mode.DYNAMIC in f.breaks for f in lint_file(str(fixtures.flagged.resolve())).findings)


DYNAMIC_FIXTURES = [f for f in FIXTURES if _claims_dynamic(f)]


@pytest.mark.parametrize("fixtures", DYNAMIC_FIXTURES, ids=[f.folder.name for f in DYNAMIC_FIXTURES])
def test_dynamic_claims_break_under_dynamic(fixtures: RuleFixtures) -> None:
    """A finding that claims mode "dynamic" breaks under torch.compile(dynamic=True) where the
    default mode did not (test_flagged_fixture_breaks_as_claimed holds it to that), and the
    clean fixture of such a rule stays whole under dynamic=True too."""
    path = str(fixtures.flagged.resolve())
    findings = lint_file(path).findings
    claimed = [f for f in findings if Mode.DYNAMIC in f.breaks]
    module = load_module(fixtures.flagged.resolve())
    problems, broke = [], set()
    for name, fn, inputs in targets(module):
        result = record(fn, inputs, path, fullgraph=False, dynamic=True)
        for _, line, gb_type in result.breaks:
            broke.add(line)
            if not _covering(findings, line):
                problems.append(f"{name}: dynamic=True break at line {line} ({gb_type}) no finding covers")
    problems += [f"line {f.line} claims dynamic but did not break there" for f in claimed
                 if not broke.intersection(range(f.statement_lines[0], f.statement_lines[1] + 1))]
    clean = str(fixtures.clean.resolve())
    clean_module = load_module(fixtures.clean.resolve())
    for name, fn, inputs in targets(clean_module):
        problems += [f"clean {name}: dynamic=True break at line {line}: {gb}"
                     for _, line, gb in record(fn, inputs, clean, fullgraph=False, dynamic=True).breaks]
    assert problems == []
