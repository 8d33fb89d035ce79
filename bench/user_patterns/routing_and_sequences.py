"""User patterns, part seven (session 13, written before running the linter on them):
mixture-of-experts routing, sparse scatter and segment reductions, padding masks, decoding
bookkeeping, bucketing."""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn


class TopKRouter(nn.Module):
    def __init__(self, d: int = 8, experts: int = 4, k: int = 2):
        super().__init__()
        self.gate = nn.Linear(d, experts)
        self.experts = nn.ModuleList([nn.Linear(d, d) for _ in range(experts)])
        self.k = k

    def forward(self, x):
        scores = self.gate(x).softmax(-1)
        weights, idx = scores.topk(self.k, dim=-1)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            mask = (idx == e).any(-1)
            if mask.any():
                out[mask] += expert(x[mask]) * weights[mask][(idx[mask] == e)].unsqueeze(-1)
        return out


class DenseRouter(nn.Module):
    def __init__(self, d: int = 8, experts: int = 4):
        super().__init__()
        self.gate = nn.Linear(d, experts)
        self.experts = nn.ModuleList([nn.Linear(d, d) for _ in range(experts)])

    def forward(self, x):
        w = self.gate(x).softmax(-1)
        outs = torch.stack([expert(x) for expert in self.experts], -1)
        return (outs * w.unsqueeze(-2)).sum(-1)


class ScatterMean(nn.Module):
    def forward(self, src, index, n: int = 4):
        out = torch.zeros(n, src.shape[-1]).index_add_(0, index, src)
        count = torch.bincount(index, minlength=n).clamp(min=1)
        return out / count.unsqueeze(-1)


class SegmentMax(nn.Module):
    def forward(self, src, index):
        n = int(index.max()) + 1
        out = torch.full((n, src.shape[-1]), float("-inf"))
        return out.scatter_reduce(0, index.unsqueeze(-1).expand_as(src), src, reduce="amax")


class PaddingMask(nn.Module):
    def forward(self, x, lengths):
        t = x.shape[1]
        mask = torch.arange(t)[None, :] < lengths[:, None]
        return (x * mask.unsqueeze(-1)).sum(1) / lengths.unsqueeze(-1)


class TrimToLongest(nn.Module):
    def forward(self, x, lengths):
        longest = lengths.max()
        return x[:, :longest]


class GreedyCTC(nn.Module):
    def forward(self, logits):
        best = logits.argmax(-1)
        keep = torch.ones_like(best, dtype=torch.bool)
        keep[:, 1:] = best[:, 1:] != best[:, :-1]
        keep &= best != 0
        return best.masked_fill(~keep, -1)


class UniqueConsecutive(nn.Module):
    def forward(self, x):
        vals, counts = torch.unique_consecutive(x, return_counts=True)
        return vals.float().sum() + counts.sum()


class BeamBookkeeping(nn.Module):
    def forward(self, scores, beam: int = 3):
        flat = scores.flatten(1)
        top, idx = flat.topk(beam, -1)
        origin = idx // scores.shape[-1]
        token = idx % scores.shape[-1]
        return top, origin, token


class Bucketize(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("edges", torch.tensor([-1.0, 0.0, 1.0]))

    def forward(self, x):
        return torch.bucketize(x, self.edges)


class SearchSortedGather(nn.Module):
    def forward(self, cdf, u):
        idx = torch.searchsorted(cdf, u)
        return idx.clamp(max=cdf.shape[-1] - 1)


class OneHotDynamic(nn.Module):
    def forward(self, labels):
        return F.one_hot(labels).float().sum(0)


class NonzeroSelect(nn.Module):
    def forward(self, x):
        idx = (x > 0).nonzero(as_tuple=True)[0]
        return x.index_select(0, idx).sum()


class LoopUntilDone(nn.Module):
    def forward(self, x):
        steps = 0
        while (x.abs() > 1).any() and steps < 10:
            x = x / 2
            steps += 1
        return x


class CumsumPositions(nn.Module):
    def forward(self, mask):
        return (mask.long().cumsum(-1) - 1).clamp(min=0) * mask.long()


class TokensPerExpertList(nn.Module):
    def forward(self, idx, experts: int = 4):
        counts = torch.bincount(idx, minlength=experts).tolist()
        return torch.tensor(counts).float().mean()
