import torch
import torch.nn.functional as F
from torch import nn

from .utils import capacity, decorate, log_stats, normalize, scale_for


class GatedMLP(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.up = nn.Linear(dim, 2 * dim)
        self.down = nn.Linear(dim, dim)

    def forward(self, x):
        a, b = self.up(x).chunk(2, dim=-1)
        return self.down(F.silu(a) * b)


class Router(nn.Module):
    def __init__(self, dim, experts):
        super().__init__()
        self.gate = nn.Linear(dim, experts)
        self.experts = experts

    def forward(self, x):
        logits = self.gate(x)
        cap = capacity(x.shape[0], self.experts)
        counts = torch.bincount(logits.argmax(-1), minlength=self.experts)
        overflow = counts.max().item() > cap
        return logits.softmax(-1), overflow


class Block(nn.Module):
    def __init__(self, dim, experts=4):
        super().__init__()
        self.router = Router(dim, experts)
        self.mlps = nn.ModuleList(GatedMLP(dim) for _ in range(experts))
        self.scale = scale_for(dim)
        self.steps = 0

    @decorate
    def mix(self, x, probs):
        out = torch.zeros_like(x)
        for i, mlp in enumerate(self.mlps):
            out = out + probs[:, i : i + 1] * mlp(x)
        return out

    def forward(self, x):
        x = normalize(x)
        probs, overflow = self.router(x)
        if overflow:
            probs = probs.detach()
        self.steps += 1
        return log_stats(self.mix(x, probs) * self.scale)
