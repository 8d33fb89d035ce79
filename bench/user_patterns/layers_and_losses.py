"""User patterns, part five (session 13, written before running the linter on them): layers,
losses and metrics, augmentation in forward, mixed precision, checkpointing, hooks, custom
autograd functions, configuration objects."""

from __future__ import annotations

import enum
import functools
import itertools
import math
import os
import random
import warnings
from collections import deque
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint


class Reduction(enum.Enum):
    MEAN = "mean"
    SUM = "sum"


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0, reduction: Reduction = Reduction.MEAN):
        super().__init__()
        self.gamma = gamma
        self.reduction = reduction

    def forward(self, logits, target):
        p = torch.sigmoid(logits)
        ce = F.binary_cross_entropy_with_logits(logits, target, reduction="none")
        loss = ce * ((1 - p) ** self.gamma)
        if self.reduction is Reduction.MEAN:
            return loss.mean()
        return loss.sum()


class DiceWithSmooth(nn.Module):
    def forward(self, pred, target):
        inter = (pred * target).sum()
        union = pred.sum() + target.sum()
        if union.item() == 0:
            return torch.zeros(())
        return 1 - 2 * inter / union


class AccuracyMetric(nn.Module):
    def __init__(self):
        super().__init__()
        self.correct = 0
        self.total = 0

    def forward(self, logits, labels):
        pred = logits.argmax(-1)
        self.correct += int((pred == labels).sum())
        self.total += labels.numel()
        return self.correct / max(self.total, 1)


class RandomFlip(nn.Module):
    def forward(self, x):
        if self.training and random.random() < 0.5:
            x = x.flip(-1)
        return x


class NoiseIfEnv(nn.Module):
    def forward(self, x):
        if os.environ.get("ADD_NOISE") == "1":
            x = x + torch.randn_like(x) * 0.01
        return x


class AutocastBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = self.lin(x)
        return y.float()


class CheckpointedStack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(8, 8) for _ in range(3)])

    def forward(self, x):
        for layer in self.layers:
            x = checkpoint(layer, x, use_reentrant=False)
        return x


class ScaleGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale):
        ctx.scale = scale
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.scale, None


class UsesScaleGrad(nn.Module):
    def forward(self, x):
        return ScaleGrad.apply(x, 0.5) * 2


class HookedModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)
        self.seen = []
        self.lin.register_forward_hook(self._hook)

    def _hook(self, module, inputs, output):
        self.seen.append(output.shape)

    def forward(self, x):
        return self.lin(x)


class Output(NamedTuple):
    logits: torch.Tensor
    loss: torch.Tensor


class NamedOutput(nn.Module):
    def forward(self, x):
        logits = x * 2
        return Output(logits=logits, loss=logits.mean())


@functools.lru_cache(maxsize=None)
def sinusoid(n: int, d: int) -> torch.Tensor:
    pos = torch.arange(n)[:, None]
    freq = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))
    return torch.cat([torch.sin(pos * freq), torch.cos(pos * freq)], -1)


class CachedPositions(nn.Module):
    def forward(self, x):
        return x + sinusoid(x.shape[1], x.shape[2])


class DequeHistory(nn.Module):
    def __init__(self):
        super().__init__()
        self.history = deque(maxlen=3)

    def forward(self, x):
        self.history.append(x.detach())
        return x + sum(self.history) / len(self.history)


class PairwiseLoop(nn.Module):
    def forward(self, x):
        total = x.new_zeros(())
        for a, b in itertools.combinations(range(x.shape[0]), 2):
            total = total + (x[a] - x[b]).pow(2).sum()
        return total


class WarnOnce(nn.Module):
    def forward(self, x):
        if x.dtype != torch.float32:
            warnings.warn("casting to float32")
            x = x.float()
        return x * 2


class NoGradStats(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(8))

    def forward(self, x):
        with torch.no_grad():
            self.running.mul_(0.9).add_(x.mean(0) * 0.1)
        return x - self.running


class DistributionSample(nn.Module):
    def forward(self, mu, log_std):
        dist = torch.distributions.Normal(mu, log_std.exp())
        z = dist.rsample()
        return z, dist.log_prob(z).sum(-1)


class ModuleDictByName(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({"cls": nn.Linear(8, 2), "reg": nn.Linear(8, 1)})

    def forward(self, x, task: str = "cls"):
        return self.heads[task](x)


class ClampByPercentile(nn.Module):
    def forward(self, x):
        hi = torch.quantile(x.flatten(), 0.99)
        return x.clamp(max=hi)


class TopKMask(nn.Module):
    def forward(self, x, k: int = 3):
        vals, idx = x.topk(k, dim=-1)
        mask = torch.zeros_like(x, dtype=torch.bool).scatter_(-1, idx, True)
        return x.masked_fill(~mask, 0.0)


class ListOfShapes(nn.Module):
    def forward(self, x):
        sizes = x.shape[-1] // 2, x.shape[-1] - x.shape[-1] // 2
        a, b = torch.split(x, list(sizes), dim=-1)
        return torch.cat([b, a], -1)


class BoolMaskSelect(nn.Module):
    def forward(self, x):
        keep = x.abs() > 0.5
        return x[keep].sum() / keep.sum().clamp(min=1)


class TensorToNumpyMetric(nn.Module):
    def forward(self, x):
        arr = x.detach().cpu().numpy()
        return x * float(arr.std())


class LabelSmoothing(nn.Module):
    def __init__(self, eps: float = 0.1):
        super().__init__()
        self.eps = eps

    def forward(self, logits, target):
        n = logits.size(-1)
        logp = F.log_softmax(logits, -1)
        nll = -logp.gather(-1, target[:, None]).squeeze(-1)
        smooth = -logp.mean(-1)
        return ((1 - self.eps) * nll + self.eps * smooth).mean() + 0 * n
