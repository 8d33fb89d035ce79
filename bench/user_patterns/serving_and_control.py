"""User patterns, part six (session 13, written before running the linter on them):
serving and control code: device and dtype checks, timing, try/except, kwargs plumbing,
dispatch by name, sampling, caches keyed by strings, small utilities."""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any, Optional

import torch
import torch.nn.functional as F
from torch import nn

log = logging.getLogger(__name__)


class DeviceAware(nn.Module):
    def forward(self, x):
        if x.is_cuda:
            x = x.half()
        if torch.cuda.is_available():
            x = x * 1.0
        return x + 1


class Timed(nn.Module):
    def forward(self, x):
        start = time.perf_counter()
        y = x.relu()
        self.elapsed = time.perf_counter() - start
        return y


class TryExcept(nn.Module):
    def forward(self, x):
        try:
            return torch.linalg.cholesky(x @ x.mT + torch.eye(x.shape[-1]))
        except RuntimeError:
            return x


class Suppressed(nn.Module):
    def forward(self, x):
        with contextlib.suppress(KeyError):
            x = x * 2
        return x


class KwargsPlumbing(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x, **kwargs: Any):
        scale = kwargs.get("scale", 1.0)
        if kwargs.get("residual", False):
            return self.lin(x) * scale + x
        return self.lin(x) * scale


class DispatchByName(nn.Module):
    def __init__(self, act: str = "gelu"):
        super().__init__()
        self.act = act

    def forward(self, x):
        return getattr(F, self.act)(x)


class SampleNext(nn.Module):
    def forward(self, logits, temperature: float = 1.0):
        probs = F.softmax(logits / temperature, -1)
        return torch.multinomial(probs, 1)


class StringKeyCache(nn.Module):
    def __init__(self):
        super().__init__()
        self.cache: dict[str, torch.Tensor] = {}

    def forward(self, x, key: str = "a"):
        if key not in self.cache:
            self.cache[key] = x.detach()
        return x + self.cache[key]


class OptionalMask(nn.Module):
    def forward(self, x, mask: Optional[torch.Tensor] = None):
        if mask is not None:
            x = x.masked_fill(~mask, 0.0)
        return x.sum(-1)


class IsTensorCheck(nn.Module):
    def forward(self, x, bias=0.0):
        if isinstance(bias, torch.Tensor):
            return x + bias
        return x + float(bias)


class LoggedShapes(nn.Module):
    def forward(self, x):
        log.debug("shape %s", tuple(x.shape))
        return x * 2


class DictOutput(nn.Module):
    def forward(self, x):
        out = {"mean": x.mean(-1), "max": x.amax(-1)}
        out["range"] = out["max"] - x.amin(-1)
        return out


class ManualSeedInForward(nn.Module):
    def forward(self, x):
        g = torch.Generator().manual_seed(0)
        return x + torch.randn(x.shape, generator=g)


class AnyOnTensorValues(nn.Module):
    def forward(self, x):
        if torch.isnan(x).any():
            x = torch.nan_to_num(x)
        return x


class ClampWithPythonBounds(nn.Module):
    def __init__(self, lo: float = -1.0, hi: float = 1.0):
        super().__init__()
        self.lo, self.hi = lo, hi

    def forward(self, x):
        return x.clamp(self.lo, self.hi)


class GatherByList(nn.Module):
    def forward(self, x, idx: list[int]):
        return x[:, idx]


class RepeatInterleave(nn.Module):
    def forward(self, x, counts):
        return torch.repeat_interleave(x, counts, dim=0)


class Cumulative(nn.Module):
    def forward(self, x):
        total = 0.0
        outs = []
        for row in x:
            total = total + row.sum()
            outs.append(total)
        return torch.stack(outs)


class ShapeAssert(nn.Module):
    def forward(self, x):
        assert x.dim() == 2, f"expected 2-D input, got {x.dim()}-D"
        b, d = x.shape
        return x.view(b, d // 2, 2).sum(-1)


class EinsumHeads(nn.Module):
    def forward(self, q, k):
        return torch.einsum("bhd,bkd->bhk", q, k).softmax(-1)
