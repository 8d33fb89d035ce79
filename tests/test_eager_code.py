"""Where Dynamo gives code back to Python (analysis/eager_code.py), and what comprehensions
there iterate (analysis/comprehension_frames.py); the rules CL123 and CL124 built on them."""

from __future__ import annotations

import ast
import sys
import textwrap

import pytest

from compilelint.analysis.call_conditions import parent_map
from compilelint.analysis.comprehension_frames import Iterates, iterates
from compilelint.analysis.eager_code import eager_after
from compilelint.analysis.module_index import build_index
from compilelint.engine import lint_source

HEADER = "import torch\nfrom torch import nn\n\n\ndef brk(x):\n    return x * x.sum().item()\n\n\n"


def _eager(body: str) -> int | None:
    """``eager_after`` of ``f`` with every ``brk(...)`` call as its break points."""
    function = ast.parse(textwrap.dedent(body)).body[0]
    points = [n for n in ast.walk(function) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "brk"]
    return eager_after(function, points, parent_map(function))


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("def f(x):\n    y = x + 1\n    for i in range(2):\n        x = brk(x)\n    return x\n", 0),
        ("def f(x):\n    x = brk(x)\n    y = x + 1\n    for i in range(2):\n        x = brk(x)\n    return x\n", 2),
        ("def f(x):\n    y = x + 1\n    try:\n        x = brk(x)\n    except ValueError:\n        pass\n    return x\n", 2),
        ("def f(x):\n    try:\n        try:\n            x = brk(x)\n        finally:\n            pass\n    except E:\n        pass\n", 1),
        ("def f(x):\n    y = x + 1\n    x = brk(x)\n    return [t for t in x]\n", None),  # resumes
        ("def f(x):\n    try:\n        y = x + 1\n    finally:\n        x = brk(x)\n    return x\n", None),
        ("def f(x):\n    try:\n        y = x + 1\n    except E:\n        x = brk(x)\n    return x\n", None),
        ("def f(x, flag):\n    for i in range(2):\n        if flag:\n            x = brk(x)\n    return x\n", None),
        ("def f(x, flag):\n    for i in range(2):\n        x = flag and brk(x)\n    return x\n", None),
        ("def f(x):\n    for i in range(2):\n        if brk(x):\n            pass\n    return x\n", 0),
    ],
    ids=["loop", "loop after a resumed break", "try", "nested try", "resumed", "finally", "except", "if arm", "and operand", "if test"],
)
def test_eager_after(body: str, expected: int | None) -> None:
    assert _eager(body) == expected


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("parts", Iterates.LIST),
        ("pair", None),
        ("order", Iterates.LIST),
        ("[x, x]", None),  # a list display in a `for` is a tuple to CPython
        ("[*parts]", Iterates.LIST),
        ("(x, x)", None),
        ("range(2)", None),
        ("x", None),
        ("x.shape", None),
        ("'ab'", Iterates.LIST),
        ("{1, 2}", Iterates.OTHER),
        ("feats", Iterates.OTHER),
        ("feats.items()", Iterates.OTHER),
        ("zip(parts, parts)", Iterates.OTHER),
        ("enumerate(pair)", Iterates.OTHER),
        ("sorted(parts)", Iterates.LIST),
        ("filter(callable, parts)", Iterates.LIST),  # stepped when the comprehension breaks inside
        ("map(torch.relu, parts)", Iterates.OTHER),
        ("iter(parts)", Iterates.LIST),
        ("iter(pair)", None),
        ("self.layers", Iterates.OTHER),
        ("self.names", Iterates.LIST),
        ("self.pair", None),
        ("self.parameters()", Iterates.OTHER),
        ("unpacked", None),
    ],
)
def test_iterates(expression: str, expected: Iterates | None) -> None:
    source = HEADER + textwrap.dedent(f"""\
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.layers = nn.ModuleList([nn.Linear(4, 4)])
                self.names = ["a", "b"]
                self.pair = ("a", "b")

            def forward(self, x):
                parts = [x, x + 1]
                pair = (x, x + 1)
                order = list(range(2))
                feats = {{"a": x}}
                unpacked, _ = parts
                return [t for t in {expression}]
        """)
    index = build_index(ast.parse(source), find_compile_calls=False)
    forward = index.classes["Net"].methods["forward"]
    returned = forward.node.body[-1]
    assert isinstance(returned, ast.Return) and isinstance(returned.value, ast.ListComp)
    assert iterates(returned.value.generators[0].iter, forward, index.qualname) == expected


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("NAMES", Iterates.LIST),
        ("TABLE", Iterates.OTHER),
        ("PAIRS", None),
        ("TWICE", None),  # bound twice at the top level: which one is not known
        ("COUNTER", None),  # rebound by a function's `global` statement
        ("LOOPED", None),  # bound by a top-level `for`
        ("kwargs", Iterates.OTHER),
        ("args", None),
        ("listed", Iterates.LIST),
        ("mapped", Iterates.OTHER),
        ("typed", Iterates.LIST),
        ("tupled", None),
        ("optional", None),  # Optional[list]: may be None, or whatever it wraps
    ],
)
def test_iterates_names_bound_outside_the_function(expression: str, expected: Iterates | None) -> None:
    source = HEADER + textwrap.dedent(f"""\
        import typing
        from typing import Optional

        NAMES = ["a", "b"]
        TABLE = {{"a": 1}}
        PAIRS = ("a", "b")
        TWICE = ["a"]
        TWICE = ("a",)
        COUNTER = [0]
        for LOOPED in ([1], [2]):
            pass


        def bump():
            global COUNTER
            COUNTER = (1,)


        class Net(nn.Module):
            def forward(self, x, *args, listed: list[str], mapped: typing.Dict[str, int], typed: typing.List[int],
                        tupled: tuple[int, ...], optional: Optional[list[int]] = None, **kwargs):
                return [t for t in {expression}]
        """)
    index = build_index(ast.parse(source), find_compile_calls=False)
    forward = index.classes["Net"].methods["forward"]
    returned = forward.node.body[-1]
    assert isinstance(returned, ast.Return) and isinstance(returned.value, ast.ListComp)
    assert iterates(returned.value.generators[0].iter, forward, index.qualname, module=index) == expected
    assert expected is None or expression not in {"NAMES", "TABLE"} or iterates(
        returned.value.generators[0].iter, forward, index.qualname
    ) is None  # without the file's index, a top-level name is not known


def _codes(body: str) -> list[tuple[int, str]]:
    source = HEADER + textwrap.dedent(body)
    offset = HEADER.count("\n")
    return sorted((f.line - offset, f.code) for f in lint_source(source, "m.py").findings)


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="Python 3.12 inlines comprehensions (PEP 709)")
def test_comprehension_touching_tensors_after_a_loop_break() -> None:
    assert _codes("""\
        class Net(nn.Module):
            def forward(self, x):
                parts = [x, x + 1]
                for _ in range(2):
                    x = brk(x)
                a = [torch.relu(t) for t in parts]
                b = [t * 2 for t in parts]
                c = [t + x for t in parts]
                return a, b, c
        """) == [(-2, "CL105"), (6, "CL123"), (8, "CL123")]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="Python 3.12 inlines comprehensions (PEP 709)")
def test_comprehension_after_a_conditional_break_is_not_claimed() -> None:
    assert _codes("""\
        class Net(nn.Module):
            def forward(self, x, verbose: bool = False):
                parts = [x, x + 1]
                for _ in range(2):
                    if verbose:
                        x = brk(x)
                return [torch.relu(t) for t in parts]
        """) == [(-2, "CL105")]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="Python 3.12 inlines comprehensions (PEP 709)")
def test_comprehension_after_a_break_under_a_context_manager_of_ones_own() -> None:
    # measured on torch 2.13: GB0066 and GB0124 at the break, GB4347 at the comprehension;
    # under `torch.no_grad()` Dynamo resumes after the break (no GB4347)
    assert _codes("""\
        class Timing:
            def __enter__(self):
                return self

            def __exit__(self, *exc):
                return False


        class Net(nn.Module):
            def forward(self, x):
                parts = [x, x + 1]
                with Timing():
                    x = brk(x)
                return [torch.relu(t) for t in parts]


        class Resumed(nn.Module):
            def forward(self, x):
                parts = [x, x + 1]
                with torch.no_grad():
                    x = brk(x)
                return [torch.relu(t) for t in parts]
        """) == [(-2, "CL105"), (14, "CL123")]


def test_breaking_method_of_a_new_object() -> None:
    assert _codes("""\
        class Solver:
            def __init__(self, y0):
                self.y0 = y0

            def integrate(self, t):
                return brk(t) * self.y0


        class Net(nn.Module):
            def forward(self, x):
                solver = Solver(x + 1)
                a = Solver.integrate(solver, x)
                for _ in range(2):
                    x = solver.integrate(x)
                return a + x
        """) == [(-2, "CL105")]  # through the class, or in a loop: no GB0092


def test_breaking_method_of_a_module_built_in_compiled_code() -> None:
    # measured on torch 2.13: GB0092 at the call, as for a plain class
    assert _codes("""\
        class Stepper(nn.Module):
            def __init__(self, y):
                super().__init__()
                self.y = y

            def run(self, t):
                return brk(t) * self.y


        def integrate(x):
            stepper = Stepper(x + 1)
            return stepper.run(x) + 1


        @torch.compile
        def f(x):
            return integrate(x)
        """) == [(-2, "CL105"), (12, "CL124")]


def test_breaking_argument_of_a_method_of_an_imported_class() -> None:
    # measured on torch 2.13 (the class in a file of its own): GB0092 at the call
    assert _codes("""\
        from odes.solvers import Solver


        class Net(nn.Module):
            def forward(self, x):
                solver = Solver(x + 1)
                return solver.scale(brk(x))
        """) == [(-2, "CL105"), (7, "CL124")]


def test_a_module_built_after_a_bound_method_break_is_built_in_python() -> None:
    # measured on torch 2.13: Dynamo compiles up to the statement of `stepper.run(x)` (GB0092)
    # and runs the rest in Python, so `Box.__init__` is a frame of its own (GB0119 there);
    # `Stepper`, built before that statement, is traced
    assert _codes("""\
        class Stepper(nn.Module):
            def __init__(self, y):
                super().__init__()
                self.y = y

            def run(self, t):
                return brk(t) * self.y


        class Box(nn.Module):
            def __init__(self):
                super().__init__()


        @torch.compile
        def integrate(x):
            stepper = Stepper(x + 1)
            out = stepper.run(x) + 1
            box = Box()
            return out + len(box._modules)
        """) == [(-2, "CL105"), (12, "CL125"), (18, "CL124")]


def test_eval_mode_decides_a_test_on_self_training() -> None:
    # the else arm of `if self.checkpointing and self.training:` runs in eval mode whatever
    # the flag; `if self.training:` alone is train mode only: a condition on the finding
    found = {(f.code, f.only_when != ()) for f in lint_source(HEADER + textwrap.dedent("""\
        class Cache(nn.Module):
            def __init__(self):
                super().__init__()


        class TrainOnly(nn.Module):
            def forward(self, x):
                cache = Cache()
                for step in range(2):
                    if self.training:
                        x = brk(x)
                return x
        """), "m.py").findings}
    assert ("CL125", True) in found
