"""Python features in model code: dataclasses, context variables, globals, containers,
generators, closures (bench/user_patterns.py)."""

import collections
import contextvars
import dataclasses
import enum
import itertools
import threading
import typing
import weakref

import torch
import torch.nn.functional as F
from torch import nn

_STATE = contextvars.ContextVar("state", default=None)
_LOCAL = threading.local()


@dataclasses.dataclass
class Output:
    logits: torch.Tensor
    loss: typing.Optional[torch.Tensor] = None


class Pair(typing.NamedTuple):
    a: torch.Tensor
    b: torch.Tensor


class Mode(enum.Enum):
    FAST = 1
    SLOW = 2


class DataclassOut(nn.Module):
    def forward(self, x):
        out = Output(logits=x * 2)
        out.loss = out.logits.sum()
        return dataclasses.asdict(out)


class NamedTupleOut(nn.Module):
    def forward(self, x):
        p = Pair(x, x + 1)
        return p._replace(a=p.a * 2)


class EnumBranch(nn.Module):
    def __init__(self):
        super().__init__()
        self.mode = Mode.FAST

    def forward(self, x):
        if self.mode is Mode.FAST:
            return x * 2
        return x


class ContextVarRead(nn.Module):
    def forward(self, x):
        token = _STATE.set({"k": 1})
        try:
            return x + 1
        finally:
            _STATE.reset(token)


class ThreadLocal(nn.Module):
    def forward(self, x):
        _LOCAL.value = 3
        return x * _LOCAL.value


class DefaultDict(nn.Module):
    def forward(self, x):
        groups = collections.defaultdict(list)
        for i, row in enumerate(x.unbind(0)):
            groups[i % 2].append(row)
        return torch.stack([torch.stack(v).sum(0) for v in groups.values()])


class ItertoolsChain(nn.Module):
    def forward(self, x):
        parts = list(itertools.chain([x], [x + 1]))
        return sum(parts)


class ZipStrict(nn.Module):
    def forward(self, x, y):
        return sum(a * b for a, b in zip(x.unbind(0), y.unbind(0), strict=True))


class WeakRefSelf(nn.Module):
    def forward(self, x):
        ref = weakref.ref(self)
        return x * (2 if ref() is self else 1)


class Generator(nn.Module):
    def chunks(self, x):
        for part in x.split(2):
            yield part * 2

    def forward(self, x):
        return torch.cat(list(self.chunks(x)))


class TryExceptKeyError(nn.Module):
    def forward(self, x, table: dict):
        try:
            return x * table["scale"]
        except KeyError:
            return x


class GradEnabledBranch(nn.Module):
    def forward(self, x):
        if torch.is_grad_enabled():
            return x * 2
        return x


class SetGradEnabled(nn.Module):
    def forward(self, x):
        with torch.set_grad_enabled(False):
            y = x * 2
        return y + 1


class AutocastInside(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = self.lin(x)
        return y.float()


class NonlocalCounter(nn.Module):
    def forward(self, x):
        count = 0

        def bump(t):
            nonlocal count
            count += 1
            return t * 2

        y = bump(bump(x))
        return y * count


class GlobalCounter(nn.Module):
    def forward(self, x):
        global _CALLS
        _CALLS = globals().get("_CALLS", 0) + 1
        return x * 2


class ClassAttrCache(nn.Module):
    cache = {}

    def forward(self, x):
        key = x.shape[0]
        if key not in self.cache:
            self.cache[key] = torch.ones(key)
        return x * self.cache[key]


class InferenceMode(nn.Module):
    def forward(self, x):
        with torch.inference_mode():
            y = x * 2
        return y


class DistributedCheck(nn.Module):
    def forward(self, x):
        if torch.distributed.is_available() and torch.distributed.is_initialized():
            return x * 2
        return x + 1


class DictGetTensorKey(nn.Module):
    def forward(self, x):
        table = {0: 1.0, 1: 2.0}
        k = int(x.argmax())
        return x * table.get(k, 0.0)


class SetOfSizes(nn.Module):
    def forward(self, x, y):
        sizes = {x.shape[0], y.shape[0]}
        return x.sum() * len(sizes)


class IdKey(nn.Module):
    def forward(self, x):
        memo = {id(x): x * 2}
        return memo[id(x)]


class TypeCheckTensor(nn.Module):
    def forward(self, x):
        if type(x) is torch.Tensor:
            return x * 2
        return x


class HasattrModule(nn.Module):
    def forward(self, x):
        if hasattr(self, "missing"):
            return x
        return x + 1


class FunctionalDropout(nn.Module):
    def forward(self, x):
        return F.dropout(x, 0.1, self.training)


class LayerLoop(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(4, 4) for _ in range(3))

    def forward(self, x):
        hiddens = []
        for i, layer in enumerate(self.layers):
            x = layer(x)
            if i % 2 == 0:
                hiddens.append(x)
        return x, tuple(hiddens)


class StringOps(nn.Module):
    def __init__(self):
        super().__init__()
        self.names = ["a", "b"]

    def forward(self, x):
        key = "_".join(self.names).upper()
        return x * len(key)


class TensorInList(nn.Module):
    def forward(self, x):
        parts = [x, x + 1]
        return x * (1 if x in parts else 0)


class ChunkLoopBreak(nn.Module):
    def forward(self, x):
        out = []
        for chunk in x.chunk(4):
            if chunk.numel() == 0:
                break
            out.append(chunk * 2)
        return torch.cat(out)


class ScalarTensorArith(nn.Module):
    def forward(self, x):
        n = torch.tensor(x.shape[0])
        return x / n.sqrt()


class TorchCond(nn.Module):
    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda t: t * 2, lambda t: t - 1, (x,))


class CustomFunctionApply(nn.Module):
    def forward(self, x):
        return _Square.apply(x) + 1


class _Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


class GetattrString(nn.Module):
    def __init__(self):
        super().__init__()
        self.act = "relu"

    def forward(self, x):
        return getattr(F, self.act)(x)


class ParametersIteration(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        reg = sum(p.pow(2).sum() for p in self.parameters())
        return self.lin(x) + reg


class DeviceOfParams(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    @property
    def device(self):
        return next(self.parameters()).device

    def forward(self, x):
        return self.lin(x.to(self.device))


class NamedModulesLoop(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 4)

    def forward(self, x):
        for name, mod in self.named_modules():
            if isinstance(mod, nn.Linear):
                x = mod(x)
        return x
