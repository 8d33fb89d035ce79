"""Reductions behind the `measured = true` notes of compilelint/data/graph_break_classes.toml.

Each probe is a few lines of source with the GB id its note claims (or "-" for "compiles
in one graph"). The script runs each through Dynamo (backend eager; default mode and
fullgraph=True) and prints a table of what Dynamo reported, so the claims can be re-checked
on another torch:

    .venv/bin/python bench/graph_break_probes.py            # all probes
    .venv/bin/python bench/graph_break_probes.py GB0014     # the probes claiming one id
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import sys
import typing
import unittest
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from compilelint.verify.recorder import record

PROBES: list[tuple[str, str, Callable[[], Any]]] = []  # (claimed id, what, factory of the callable)


def probe(gb_id: str, what: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(fn: Callable[..., Any]) -> Callable[..., Any]:
        factory = fn if isinstance(fn, type) else (lambda: fn)
        PROBES.append((gb_id, what, factory))
        return fn

    return register


@probe("GB0014", "nn.LSTM submodule called in forward")
class LSTMNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lstm = nn.LSTM(4, 4, batch_first=True)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.lstm(x.view(1, 1, 4))[0].view(4)


@probe("GB0264", "nn.Linear(4, 4) built in forward")
class ModuleInForward(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return nn.Linear(4, 4)(x)


@probe("GB0124", "ModuleList indexed with a 0-d tensor")
class ExpertByTensor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.experts = nn.ModuleList(nn.Linear(4, 4) for _ in range(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.experts[x.argmax() % 3](x)


@probe("-", "module __getattribute__ override calling super()")
class CustomGetattribute(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.k = 2

    def __getattribute__(self, name: str) -> Any:
        return super().__getattribute__(name)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x * self.k


@probe("GB4695", "torch.jit.script submodule")
class ScriptedSub(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.sub = torch.jit.script(nn.Linear(4, 4))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.sub(x)


@probe("GB4198", "copy.deepcopy of a submodule")
class DeepcopyModule(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return copy.deepcopy(self.lin)(x)


@probe("GB0015", "x.to_sparse()")
def to_sparse(x: torch.Tensor) -> torch.Tensor:
    return x.to_sparse().to_dense() + 1


@probe("GB0015", "torch.sparse_coo_tensor(...)")
def sparse_ctor(x: torch.Tensor) -> torch.Tensor:
    return torch.sparse_coo_tensor(torch.tensor([[0, 1]]), x[:2], (4,)).to_dense() + x


@probe("GB0206", "t.requires_grad = True")
def set_requires_grad(x: torch.Tensor) -> torch.Tensor:
    y = x * 2
    y.requires_grad = True
    return y


@probe("GB0125", "requires_grad_() on an input")
def requires_grad_input(x: torch.Tensor) -> torch.Tensor:
    x.requires_grad_()
    return x * 2


@probe("GB8985", "requires_grad_() on a returned intermediate")
def requires_grad_intermediate(x: torch.Tensor) -> torch.Tensor:
    y = x * 2
    y.requires_grad_()
    return y


@probe("GB0225", "torch.zeros(..., requires_grad=True)")
def factory_requires_grad(x: torch.Tensor) -> torch.Tensor:
    return x + torch.zeros(4, requires_grad=True)


@probe("GB0025", "torch._dynamo.graph_break()")
def explicit_break(x: torch.Tensor) -> torch.Tensor:
    x = x + 1
    torch._dynamo.graph_break()
    return x * 2


@probe("GB0030", "comptime.graph_break()")
def comptime_break(x: torch.Tensor) -> torch.Tensor:
    from torch._dynamo.comptime import comptime

    x = x + 1
    comptime.graph_break()
    return x * 2


@probe("GB4297", "torch._dynamo.skip_frame()")
def skip_frame(x: torch.Tensor) -> torch.Tensor:
    x = x + 1
    torch._dynamo.skip_frame()
    return x * 2


@probe("GB0275", "torch._dynamo.step_unsupported()")
def step_unsupported(x: torch.Tensor) -> torch.Tensor:
    x = x + 1
    torch._dynamo.step_unsupported()
    return x * 2


@probe("-", "copy.deepcopy of a dict of constants")
def deepcopy_dict(x: torch.Tensor) -> torch.Tensor:
    return x + copy.deepcopy({"a": [1]})["a"][0]


@probe("-", "getattr with a name chosen by a shape test")
def getattr_by_shape(x: torch.Tensor) -> torch.Tensor:
    return getattr(x, "sum" if x.shape[0] > 2 else "mean")()


@probe("GB0207", "sorted() over tensors")
def sorted_tensors(x: torch.Tensor) -> torch.Tensor:
    return sorted([x[0], x[1]])[0] + x


@probe("-", "next(iter(d.keys())) on a local dict")
def next_local_keys(x: torch.Tensor) -> torch.Tensor:
    d = {"a": x, "b": x * 2}
    return d[next(iter(d.keys()))] + 1


@probe("GB8977", "class statement in compiled code")
def class_statement(x: torch.Tensor) -> torch.Tensor:
    class Scale:
        factor = 2

    return x * Scale.factor


@probe("GB0123", "loss.backward()")
def backward(x: torch.Tensor) -> torch.Tensor | None:
    w = x.detach().requires_grad_()
    (w * 2).sum().backward()
    return w.grad


@probe("GB9186", "torch.autograd.grad")
def autograd_grad(x: torch.Tensor) -> torch.Tensor:
    w = x.detach().requires_grad_()
    return torch.autograd.grad((w * w).sum(), w)[0]


@probe("GB0246", "F.one_hot without num_classes")
def one_hot(x: torch.Tensor) -> torch.Tensor:
    return F.one_hot(x.long().abs() % 3)


@probe("GB0090", "torch.nested.nested_tensor without layout")
def nested(x: torch.Tensor) -> torch.Tensor:
    return torch.nested.nested_tensor([x, x])


@probe("GB0363", "torch.Generator() built in compiled code")
def generator_ctor(x: torch.Tensor) -> torch.Tensor:
    return x + torch.rand(4, generator=torch.Generator())


_GENERATOR = torch.Generator()


@probe("GB7650", "Generator.get_state()")
def generator_get_state(x: torch.Tensor) -> torch.Tensor:
    _GENERATOR.get_state()
    return x + 1


@probe("GB0124", "x.shape indexed with a 0-d tensor")
def size_by_tensor(x: torch.Tensor) -> torch.Tensor:
    return x * x.shape[torch.tensor(0)]


@probe("-", "tensor assert inside torch.no_grad()")
def assert_in_with(x: torch.Tensor) -> torch.Tensor:
    with torch.no_grad():
        assert x.sum() > -1000
    return x + 1


@probe("TypeError", "tensor assert with a tuple message")
def assert_tuple_message(x: torch.Tensor) -> torch.Tensor:
    assert x.sum() > -1000, ("bad", 2)
    return x + 1


@probe("GB0045", "tensor.is_inference()")
def is_inference(x: torch.Tensor) -> torch.Tensor:
    return x + 1 if x.is_inference() else x


@probe("GB0046", "torch.is_inference_mode_enabled()")
def inference_mode_enabled(x: torch.Tensor) -> torch.Tensor:
    return x + 1 if torch.is_inference_mode_enabled() else x


@probe("GB0108", "retain_grad()")
def retain_grad(x: torch.Tensor) -> torch.Tensor:
    w = x.detach().requires_grad_()
    y = w * 2
    y.retain_grad()
    return y.detach()


@probe("GB0104", "reading .grad_fn")
def grad_fn(x: torch.Tensor) -> torch.Tensor:
    y = x.detach().requires_grad_() * 2
    return y + (0 if y.grad_fn is None else 1)


@probe("GB0126", "resize_()")
def resize(x: torch.Tensor) -> torch.Tensor:
    return x.clone().resize_(2, 2)


@probe("GB0127", "resize_as_()")
def resize_as(x: torch.Tensor) -> torch.Tensor:
    return x.clone().resize_as_(torch.ones(2, 2))


@probe("GB0128", "set_(storage, offset, size, stride)")
def set_storage(x: torch.Tensor) -> torch.Tensor:
    return torch.empty(0).set_(x.untyped_storage(), 0, (2,), (1,)) + 1


@probe("GB0107", "random_()")
def random_(x: torch.Tensor) -> torch.Tensor:
    return x.clone().random_(0, 10)


@probe("GB0110", "uniform_(**{'from': ...})")
def uniform_from(x: torch.Tensor) -> torch.Tensor:
    return x.clone().uniform_(**{"from": 0.0, "to": 1.0})


@probe("GB0148", "x.unsqueeze_(0) on an input")
def unsqueeze_input(x: torch.Tensor) -> torch.Tensor:
    x.unsqueeze_(0)
    return x + 1


@probe("GB0072", "torch.Tensor.unsqueeze_(x, 0) on an input")
def torch_unsqueeze_input(x: torch.Tensor) -> torch.Tensor:
    torch.Tensor.unsqueeze_(x, 0)
    return x + 1


@probe("GB0117", "share_memory_()")
def share_memory(x: torch.Tensor) -> torch.Tensor:
    return x.clone().share_memory_()


@probe("GB5976", "data_ptr() comparison")
def data_ptr_compare(x: torch.Tensor) -> torch.Tensor:
    return x + 1 if x.data_ptr() == x.view(-1).data_ptr() else x


@probe("GB0135", "attribute set on a caught exception")
def exception_attribute(x: torch.Tensor) -> torch.Tensor:
    try:
        raise ValueError("x")
    except ValueError as error:
        error.detail = 3
    return x + 1


@probe("GB9840", "torch._check with a string message")
def check_string_message(x: torch.Tensor) -> torch.Tensor:
    torch._check(x.shape[0] > 0, "positive")
    return x + 1


@probe("GB9158", "torch._check message closing over a tensor")
def check_closure_message(x: torch.Tensor) -> torch.Tensor:
    torch._check(x.shape[0] > 0, lambda: f"bad {x}")
    return x + 1


@probe("-", "returning a closure over a tensor argument")
def return_closure(x: torch.Tensor) -> Callable[[torch.Tensor], torch.Tensor]:
    return lambda y: y + x


@probe("GB0262", "contextlib.redirect_stdout")
def redirect_stdout(x: torch.Tensor) -> torch.Tensor:
    with contextlib.redirect_stdout(io.StringIO()):
        return x + 1


@probe("GB0257", "TypedDict with total=False")
def typed_dict(x: torch.Tensor) -> torch.Tensor:
    return x + _Options(a=1)["a"]


class _Options(typing.TypedDict, total=False):
    a: int


@probe("GB0058", "t.real = ...")
def set_real(x: torch.Tensor) -> torch.Tensor:
    y = torch.complex(x, x)
    y.real = x
    return y


@probe("GB0056", "t.data = ... on an intermediate")
def set_data(x: torch.Tensor) -> torch.Tensor:
    y = x * 2
    y.data = torch.ones(4)
    return y + 1


@probe("GB0008", "unittest.TestCase().assertTrue")
def unittest_assert(x: torch.Tensor) -> torch.Tensor:
    unittest.TestCase().assertTrue(True)
    return x + 1


_GLOBAL = 0


@probe("GB0082", "del of a global")
def delete_global(x: torch.Tensor) -> torch.Tensor:
    global _GLOBAL
    _GLOBAL = 1
    del _GLOBAL
    return x + 1


@probe("GB0109", ".tolist() of a float tensor")
def float_tolist(x: torch.Tensor) -> torch.Tensor:
    return x + sum(x.tolist())


@probe("GB0250", "ndarray.astype(object)")
def astype_object(x: torch.Tensor) -> torch.Tensor:
    return torch.from_numpy(x.numpy().astype(object).astype(np.float32))


@probe("GB9625", "traceback.tb_lasti")
def tb_lasti(x: torch.Tensor) -> torch.Tensor:
    try:
        raise ValueError("a")
    except ValueError as error:
        assert error.__traceback__ is not None
        error.__traceback__.tb_lasti
    return x + 1


@probe("GB0078", "nonstrict_trace function defined inside")
def nonstrict_nested(x: torch.Tensor) -> torch.Tensor:
    @torch._dynamo.nonstrict_trace
    def inner(y: torch.Tensor) -> torch.Tensor:
        return y + 1

    return inner(x)


_HANDLE = None


@probe("GB0100", "hook handle stored in a global")
def global_hook_handle(x: torch.Tensor) -> torch.Tensor:
    global _HANDLE
    w = x.detach().requires_grad_()
    _HANDLE = w.register_hook(lambda g: g)
    return (w * 2).detach()


class _Dirty(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: torch.Tensor) -> torch.Tensor:
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> torch.Tensor:
        return grad


@probe("GB2019", "autograd.Function forward calling ctx.mark_dirty")
def mark_dirty(x: torch.Tensor) -> torch.Tensor:
    return _Dirty.apply(x.clone())


def _store_hook_handle(w: torch.Tensor) -> None:
    global _HANDLE
    _HANDLE = w.register_hook(lambda g: g)


@probe("GB0100", "hook handle stored in a global by a helper (GB0101's case)")
def global_hook_handle_in_helper(x: torch.Tensor) -> torch.Tensor:
    w = x.detach().requires_grad_()
    _store_hook_handle(w)
    return (w * 2).detach()


class _Base:
    def value(self) -> int:
        return 2


class _Child(_Base):
    def value_through_one_arg_super(self) -> int:
        return super(_Child).__get__(self).value()


@probe("GB0193", "one-argument super(Cls) (GB0280's case)")
def one_arg_super(x: torch.Tensor) -> torch.Tensor:
    return x * _Child().value_through_one_arg_super()


def _loop_break(x: torch.Tensor) -> torch.Tensor:
    return x * x.sum().item()


@probe("GB4347", "comprehension over a list of tensors in a frame skipped by a break in a loop")
def comprehension_in_skipped_frame(x: torch.Tensor) -> torch.Tensor:
    parts = [x, x + 1]
    scaled = [torch.relu(t) for t in parts]
    for _ in range(2):
        x = _loop_break(x)
    return scaled[0] + x


@probe("GB4347", "comprehension over zip that breaks itself (GB0124 inside)")
def comprehension_breaking_over_zip(x: torch.Tensor) -> list[float]:
    parts = [x, x + 1]
    return [torch.relu(a).sum().item() for a, b in zip(parts, parts)]


class _Solver:
    def __init__(self, y0: torch.Tensor) -> None:
        self.y0 = y0

    def integrate(self, t: torch.Tensor) -> torch.Tensor:
        return self.y0 * t.sum().item()


@probe("GB0092", "method of an object built in compiled code, the call breaking")
def new_object_method_breaks(x: torch.Tensor) -> torch.Tensor:
    solver = _Solver(x + 1)
    return solver.integrate(x) + 1


def _generator(x: torch.Tensor) -> typing.Iterator[torch.Tensor]:
    yield x + 1


probe("GB0003", "torch.compile of a generator function")(_generator)


@probe("GB0290", "a ufunc method, np.add.reduce, on a Python list")
def _ufunc_method(x: torch.Tensor) -> torch.Tensor:
    return x * np.add.reduce([1, 2, 3])


@probe("GB0157", "the dtype of an array a NumPy function returned, np.arange(4).dtype")
def _array_dtype(x: torch.Tensor) -> torch.Tensor:
    return x * (2 if np.arange(4).dtype == np.int64 else 3)


@probe("GB0158", "arr.tobytes() of an array a NumPy function returned")
def _array_tobytes(x: torch.Tensor) -> torch.Tensor:
    return x * len(np.zeros(3).tobytes())


class _Nodes(torch.autograd.Function):
    @staticmethod
    @functools.cache
    def static_over_cache(n: int) -> torch.Tensor:
        return torch.linspace(0, 1, n)

    @functools.cache
    @staticmethod
    def cache_over_static(n: int) -> torch.Tensor:
        return torch.linspace(0, 1, n)

    @classmethod
    @functools.lru_cache(maxsize=None)
    def class_over_cache(cls, n: int) -> torch.Tensor:
        return torch.linspace(0, 1, n)


@probe("GB0007", "a @staticmethod over functools.cache on an autograd.Function, called")
def _cached_static(x: torch.Tensor) -> torch.Tensor:
    return x * _Nodes.static_over_cache(4)


@probe("GB0140", "functools.cache over a @staticmethod on an autograd.Function, called")
def _cache_over_static(x: torch.Tensor) -> torch.Tensor:
    return x * _Nodes.cache_over_static(4)


@probe("GB0177", "a @classmethod over functools.lru_cache on an autograd.Function, called")
def _cached_class(x: torch.Tensor) -> torch.Tensor:
    return x * _Nodes.class_over_cache(4)


def reported(fn: Callable[..., Any], mode: str) -> str:
    try:
        recording = record(fn, [(torch.randn(4),)], mode=mode)
    except Exception as error:  # the compiled call itself raised
        return f"raised {type(error).__name__}"
    ids = sorted({event.gb_id or event.gb_type for event in recording.events})
    if recording.error is not None:
        ids.append(f"error {recording.error.gb_id or recording.error.type}")
    return ", ".join(ids) or "-"


def main(wanted: list[str]) -> None:
    warnings.filterwarnings("ignore")
    print(f"torch {torch.__version__}, backend eager")
    print("| claimed | probe | default | fullgraph=True |")
    print("|---|---|---|---|")
    for gb_id, what, factory in PROBES:
        if wanted and gb_id not in wanted:
            continue
        fn = factory()
        print(f"| {gb_id} | {what} | {reported(fn, 'default')} | {reported(fn, 'fullgraph')} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
