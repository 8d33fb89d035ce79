"""A user model calling a helper package (helperpkg/): calls followed across files,
recompiles from module state (bench/user_patterns.py)."""

import torch
from torch import nn

import helperpkg as pkg
from helperpkg.utils import topk_mask


class UsesBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.block = pkg.Block(8)

    def forward(self, x):
        return self.block(x)


class UsesTopk(nn.Module):
    def forward(self, x, k: int):
        return x * topk_mask(x, k)


class UsesNormalize(nn.Module):
    def forward(self, x):
        return pkg.normalize(x) * 2


class ShapeBucket(nn.Module):
    def forward(self, x):
        if x.shape[0] > 4:
            return x[:4] * 2
        return x * 3


class TemperatureArg(nn.Module):
    def forward(self, x, temperature: float):
        return (x / temperature).softmax(-1)


class ListArg(nn.Module):
    def forward(self, x, sizes):
        return torch.split(x, sizes)


class DictArgKeys(nn.Module):
    def forward(self, batch):
        return batch["x"] * batch["scale"]


class CounterInForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        if self.calls % 2:
            return x * 2
        return x


class ListAppendState(nn.Module):
    def __init__(self):
        super().__init__()
        self.history = []

    def forward(self, x):
        self.history.append(x.detach())
        return x + len(self.history)
