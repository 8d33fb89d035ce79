"""analysis.injected: what a class's constructor stores from its parameters."""

from __future__ import annotations

import ast
import textwrap

from compilelint.analysis.injected import Injected, injected
from compilelint.analysis.module_index import build_index

SOURCE = '''
import functools
from torch import nn
from pkg.layers import Gate


def helper(x):
    return x


class Solver:
    def __init__(self, y0):
        self.y0 = y0


class Block(nn.Module):
    def __init__(self, act=None, norm=nn.LayerNorm, make=Solver, hook=None):
        super().__init__()
        self.act = act
        self.norm = norm(3)
        self.make = make
        self.hook = hook


class Sub(Block):
    def __init__(self, gate, hook=helper):
        super().__init__(act=gate, hook=hook)


class Net(nn.Module):
    def __init__(self, cheap: bool):
        super().__init__()
        self.a = Block(act=Gate(), norm=functools.partial(nn.BatchNorm1d, eps=1e-5), hook=self.scale)
        self.b = Sub(Solver(1) if cheap else nn.ReLU())
        self.c = Block(make=functools.partial(Solver, 2))

    def scale(self, x):
        return x * 2


class Twice(nn.Module):
    def __init__(self, act):
        super().__init__()
        self.act = act
        if act is None:
            self.act = nn.Identity()
'''


def _injected(cls: str, attr: str) -> Injected:
    source = textwrap.dedent(SOURCE)
    index = build_index(ast.parse(source), True, source)
    return injected(index, index.classes[cls], attr)


def test_instances_passed_at_every_construction_and_through_a_subclass() -> None:
    assert set(_injected("Block", "act").instances) == {"pkg.layers.Gate", "@Solver", "torch.nn.ReLU"}


def test_a_parameter_called_in_init_holds_instances_of_its_default_and_of_what_is_passed() -> None:
    # functools.partial with keywords only still builds the class it wraps
    assert set(_injected("Block", "norm").instances) == {"torch.nn.LayerNorm", "torch.nn.BatchNorm1d"}
    assert _injected("Block", "norm").callables == ()


def test_callables_are_classes_functions_and_bound_methods() -> None:
    # a partial with positional arguments would shift what each parameter receives: left out
    assert _injected("Block", "make").callables == ("@Solver",)
    assert set(_injected("Block", "hook").callables) == {"@Net.scale", "@helper"}


def test_an_attribute_stored_twice_is_not_a_parameter_s_alone() -> None:
    assert _injected("Twice", "act") == Injected()
