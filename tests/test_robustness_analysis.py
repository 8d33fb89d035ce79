"""Files that used to sink the analysis: deep constructs, odd classes, budgets (issue 16)."""

from __future__ import annotations

import sys
from dataclasses import replace

import pytest

from compilelint import deep
from compilelint.config import DEFAULT_SETTINGS
from compilelint.engine import lint_source
from compilelint.fix.loop import fix_source

HEAD = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n"
TAIL = (
    "        return x\n\n\nclass N(torch.nn.Module):\n    def forward(self, x):\n"
    "        print(x)\n        return x\n"
)
DEEP = {
    "plus": "        y = " + " + ".join(["x"] * 340) + "\n",
    "attributes": "        y = x" + ".a" * 340 + "\n",
    "elif": "        if x > 0:\n            y = 1\n"
    + "".join(f"        elif x > {i}:\n            y = {i}\n" for i in range(260)),
    "strings": "        y = " + " + ".join(["'s'"] * 400) + "\n",
}


def codes(source: str, **settings: object) -> list[tuple[str, int]]:
    result = lint_source(source, "m.py", replace(DEFAULT_SETTINGS, **settings))
    return [(f.code, f.line) for f in result.findings]


@pytest.mark.parametrize("shape", sorted(DEEP))
def test_a_deep_construct_keeps_every_finding_of_the_file(shape: str) -> None:
    found = codes(HEAD + DEEP[shape] + TAIL)
    assert ("CL101", 6) in found and ("CL101", HEAD.count("\n") + DEEP[shape].count("\n") + 6) in found
    assert not [c for c, _ in found if c.startswith("CL9")]


def test_where_even_the_deep_stack_ends_only_that_function_stops(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(deep, "RECURSION_LIMIT", 1200)
    body = "        y = " + " + ".join(["x"] * 900) + "\n"
    result = lint_source(HEAD + body + TAIL, "m.py")
    stopped = [f for f in result.findings if f.code == "CL999"]
    assert len(stopped) == 1 and "M.forward" in stopped[0].message and stopped[0].line == 5
    assert ("CL101", 13) in [(f.code, f.line) for f in result.findings]  # N.forward still analysed


@pytest.mark.parametrize("shape", ["plus", "elif", "strings"])
def test_fix_works_on_the_rest_of_a_file_with_a_deep_construct(shape: str) -> None:
    result = fix_source((HEAD + DEEP[shape] + TAIL).encode(), "m.py", DEFAULT_SETTINGS, unsafe=False)
    assert result.error is None and result.fixed_count == 2


def test_a_deep_string_concatenation_outside_any_region_does_not_stop_fix() -> None:
    source = HEAD + TAIL + "\n\nS = " + " + ".join(["'s'"] * 400) + "\n"
    result = fix_source(source.encode(), "m.py", DEFAULT_SETTINGS, unsafe=False)
    assert result.error is None and result.fixed_count == 2


def test_a_long_elif_chain_converges_one_level_per_pass() -> None:
    chain = "        if x.sum() > 0:\n            y = x\n" + "".join(
        f"        elif x.sum() > {i}:\n            y = x * {i}\n" for i in range(24)
    ) + "        else:\n            y = x\n"
    result = fix_source((HEAD + chain + TAIL).encode(), "m.py", DEFAULT_SETTINGS, unsafe=True)
    assert result.error is None and result.passes > 20
    assert b"elif" not in result.fixed


def test_a_class_extending_its_own_name_keeps_the_first_class() -> None:
    source = (
        "import torch\n\n\nclass A(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n\n\n"
        "class A(A):\n    def forward(self, x):\n        return super().forward(x) + x.sum().item()\n"
    )
    found = codes(source)
    assert ("CL101", 6) in found and ("CL105", 12) in found


def test_forward_assigned_a_lambda_is_analysed() -> None:
    source = "import torch\n\n\nclass M(torch.nn.Module):\n    forward = lambda self, x: x * x.sum().item()\n"
    assert ("CL105", 5) in codes(source)


def test_a_subclass_chain_resolves_methods_through_every_level() -> None:
    classes = "".join(f"\n\nclass C{i}(C{i - 1}):\n    pass\n" for i in range(1, 400))
    source = (
        "import torch\n\n\nclass C0(torch.nn.Module):\n    def forward(self, x):\n        return self.helper(x)\n\n"
        "    def helper(self, x):\n        print(x)\n        return x\n" + classes
    )
    assert codes(source) == [("CL101", 9)]


def test_a_file_over_the_size_budget_is_skipped_with_cl999() -> None:
    found = lint_source(HEAD + TAIL, "m.py", replace(DEFAULT_SETTINGS, max_file_bytes=100)).findings
    assert [f.code for f in found] == ["CL999"] and "skipped" in found[0].message and "max-file-size" in found[0].message


def test_a_file_over_the_time_budget_is_skipped_with_cl999() -> None:
    found = lint_source(HEAD + TAIL, "m.py", replace(DEFAULT_SETTINGS, max_file_seconds=1e-9)).findings
    assert [f.code for f in found] == ["CL999"] and "max-file-seconds" in found[0].message


def test_fix_leaves_a_file_over_its_budget_alone_and_says_so() -> None:
    data = (HEAD + TAIL).encode()
    result = fix_source(data, "m.py", replace(DEFAULT_SETTINGS, max_fix_nodes=20), unsafe=False)
    assert result.fixed == data and "budget of --fix" in (result.error or "")


def test_instantiated_counts_calls_in_class_bodies_only() -> None:
    import ast

    from compilelint.analysis.module_index import build_index

    source = (
        "class Inner:\n    pass\n\n\nclass Outer:\n    def __init__(self):\n        self.a = Inner()\n\n\n"
        "class Alone:\n    pass\n\n\nclass MyAlone:\n    pass\n\n\nx = Alone()\n"
    )
    index = build_index(ast.parse(source), False, source)
    assert index.instantiated(index.classes["Inner"])
    assert not index.instantiated(index.classes["Alone"])  # a script builds it; MyAlone( is another name


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 grammar parses here")
def test_python_312_syntax_says_which_python_it_needs() -> None:
    found = lint_source("import torch\n\ntype Pair = tuple[int, int]\n", "m.py").findings
    assert [f.code for f in found] == ["CL900"] and "needs Python 3.12 or newer" in found[0].message


NEWER_GRAMMAR = [
    ('x = f"{d["k"]}"\n', "3.12", "PEP 701"),
    ('x = f"{"\\n".join(a)}"\n', "3.12", "PEP 701"),
    ('x = f"""{a  # a comment\n}"""\n', "3.12", "PEP 701"),
    ('x = f"{f"{f"{y}"}"}"\n', "3.12", "PEP 701"),
    ("class Box[T]:\n    pass\n", "3.12", "PEP 695"),
    ("def first[T = int](x: list[T]) -> T:\n    return x[0]\n", "3.13", "PEP 696"),
    ("type Pair = tuple[int, int]\ndef f[T = int](): pass\n", "3.13", "PEP 696"),  # the newest one counts
    ("try:\n    pass\nexcept ValueError, TypeError:\n    pass\n", "3.14", "PEP 758"),
    ('x = t"{a}"\n', "3.14", "PEP 750"),
]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12 grammar parses here")
@pytest.mark.parametrize(("code", "version", "pep"), NEWER_GRAMMAR)
def test_newer_grammar_says_precisely_which_python_it_needs(code: str, version: str, pep: str) -> None:
    found = lint_source("import torch\n" + code, "m.py").findings
    assert [f.code for f in found] == ["CL900"]
    assert found[0].message.startswith(f"needs Python {version} or newer for ") and pep in found[0].message


@pytest.mark.parametrize("code", [
    'x = f"{a}"\ndef f(:\n    pass\n',  # an f-string, and a real error elsewhere
    'x = f"{d["k"]}"\nreturn = 3\n',  # newer syntax, but invalid in every grammar
    'x = f"{a}" +\n',
    "except ValueError, TypeError:\n    pass\n",  # no try
])
def test_a_real_error_near_newer_spellings_stays_a_syntax_error(code: str) -> None:
    found = lint_source("import torch\n" + code, "m.py").findings
    assert [f.code for f in found] == ["CL900"] and found[0].message.startswith("SyntaxError"), found[0].message


def test_a_real_syntax_error_stays_a_syntax_error() -> None:
    found = lint_source("import torch\n\ndef f(:\n    pass\n", "m.py").findings
    assert [f.code for f in found] == ["CL900"] and found[0].message.startswith("SyntaxError")


def test_bytes_outside_the_fix_keep_their_semicolons_and_line_endings() -> None:
    source = (
        b"import torch\r\n\r\n\r\nclass M(torch.nn.Module):\r\n    def forward(self, x):\n"
        b"        print(x); y = x;\r\n        z = 1;\n        return x\r\n"
    )
    result = fix_source(source, "m.py", DEFAULT_SETTINGS, unsafe=False)
    assert result.error is None
    assert result.fixed.endswith(b"            print(x)\r\n        y = x;\r\n        z = 1;\n        return x\r\n")


def test_attribute_constructors_follow_subclasses_and_bases() -> None:
    import ast

    from compilelint.analysis.constructors import attribute_constructors
    from compilelint.analysis.module_index import build_index

    source = (
        "import torch\nfrom torch import nn\n\n\nclass Base(nn.Module):\n    def forward(self, x):\n        return self.rnn(x)\n\n\n"
        "class LSTM2d(Base):\n    def __init__(self):\n        super().__init__()\n        self.rnn = nn.LSTM(3, 3)\n\n\n"
        "class GRU2d(LSTM2d):\n    def __init__(self):\n        super().__init__()\n        self.rnn = nn.GRU(3, 3)\n"
    )
    index = build_index(ast.parse(source), False, source)
    assert attribute_constructors(index, index.classes["Base"], "rnn") == {"torch.nn.LSTM", "torch.nn.GRU"}
    assert attribute_constructors(index, index.classes["GRU2d"], "rnn") == {"torch.nn.LSTM", "torch.nn.GRU"}


def test_a_partial_rebound_to_its_own_name_is_not_followed_forever() -> None:
    # x_transformers: `norm_fn = partial(norm_fn, unit_offset=True)` sent call resolution
    # round the same partial until the memory ran out (11 GB, then CL999)
    source = (
        "import torch\nfrom functools import partial\n"
        "def scale(x, factor=1.0, unit_offset=False):\n"
        "    print(x)\n"
        "    return x * factor\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        fn = partial(scale, factor=2.0)\n"
        "        fn = partial(fn, unit_offset=True)\n"
        "        return fn(x)\n"
    )
    from compilelint.engine import lint_source

    codes = [f.code for f in lint_source(source, "m.py").findings]
    assert "CL999" not in codes
