"""A name bound before a graph break reaches the resumed graph as an input (analysis.resumed_inputs)."""

from __future__ import annotations

import ast

from compilelint.analysis.resumed_inputs import read_after_break

SOURCE = """
def f(self, t):
    a, index = self.breaks(t)
    x = self.grid[index]
    peak = self.breaks(t).argmax()
    y = self.grid[peak]
    j = t.argmax()
    print(j)
    z = self.grid[j] + self.grid[t]
    k = t.argmin()
    return self.grid[k]
"""


def _setup() -> tuple[ast.FunctionDef, dict[int, ast.Name], list[ast.AST]]:
    function = ast.parse(SOURCE).body[0]
    assert isinstance(function, ast.FunctionDef)
    uses = {
        n.lineno: n
        for n in ast.walk(function)
        if isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Name) and n.slice.id != "t"
        for n in [n.slice]
    }
    calls = [n for n in ast.walk(function) if isinstance(n, ast.Call) and ast.unparse(n) == "self.breaks(t)"]
    printed = [n for n in ast.walk(function) if isinstance(n, ast.Call) and ast.unparse(n.func) == "print"]
    return function, uses, [*calls, *printed]


def test_a_value_that_is_the_breaking_call_or_bound_before_a_break_is_an_input() -> None:
    function, uses, points = _setup()
    assert read_after_break(function, uses[4], points)  # index came back from the breaking call
    assert read_after_break(function, uses[9], points)  # j was computed before print broke


def test_a_value_computed_after_the_break_or_with_no_break_before_it_is_not() -> None:
    function, uses, points = _setup()
    assert not read_after_break(function, uses[6], points)  # .argmax() runs in the resumed graph
    assert not read_after_break(function, uses[11], points)  # no break after k is bound
    parameter = next(n for n in ast.walk(function) if isinstance(n, ast.Name) and n.id == "t" and n.lineno == 9)
    assert read_after_break(function, parameter, points)  # a parameter, with breaks since the def
    assert not read_after_break(function, parameter, [])
