"""User patterns, part nine (session 14, written before running the linter on them): graph
message passing, point clouds (k-nearest neighbours, farthest point sampling, voxels),
tabular models (categorical embeddings by column name, running normalisation, binning),
time series (lags, windows, seasonality) and recommender heads (negative sampling,
in-batch contrastive losses)."""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn


class MeanAggregation(nn.Module):
    def __init__(self, d: int = 8):
        super().__init__()
        self.lin = nn.Linear(d, d)

    def forward(self, x, edge_index):
        src, dst = edge_index
        out = torch.zeros_like(x).index_add_(0, dst, self.lin(x)[src])
        deg = torch.zeros(x.shape[0]).index_add_(0, dst, torch.ones(dst.shape[0]))
        return out / deg.clamp(min=1).unsqueeze(-1)


class GraphAttention(nn.Module):
    def __init__(self, d: int = 8):
        super().__init__()
        self.q = nn.Linear(d, d)
        self.k = nn.Linear(d, d)

    def forward(self, x, edge_index):
        src, dst = edge_index
        score = (self.q(x)[dst] * self.k(x)[src]).sum(-1) / math.sqrt(x.shape[-1])
        score = score - score.max()
        w = score.exp()
        denom = torch.zeros(x.shape[0]).index_add_(0, dst, w)
        alpha = w / denom[dst]
        return torch.zeros_like(x).index_add_(0, dst, alpha.unsqueeze(-1) * x[src])


class AddSelfLoops(nn.Module):
    def forward(self, edge_index, num_nodes: int):
        loops = torch.arange(num_nodes).repeat(2, 1)
        edge_index = torch.cat([edge_index, loops], dim=1)
        return torch.unique(edge_index, dim=1)


class KnnGraph(nn.Module):
    def __init__(self, k: int = 3):
        super().__init__()
        self.k = k

    def forward(self, pos):
        dist = torch.cdist(pos, pos)
        dist.fill_diagonal_(float("inf"))
        nbr = dist.topk(self.k, largest=False).indices
        src = torch.arange(pos.shape[0]).repeat_interleave(self.k)
        return torch.stack([src, nbr.flatten()])


class RadiusGraph(nn.Module):
    def forward(self, pos, r: float = 0.5):
        dist = torch.cdist(pos, pos)
        adj = (dist < r) & ~torch.eye(pos.shape[0], dtype=torch.bool)
        return adj.nonzero().t()


class FarthestPointSampling(nn.Module):
    def forward(self, pos, m: int = 4):
        n = pos.shape[0]
        chosen = [0]
        dist = torch.full((n,), float("inf"))
        for _ in range(m - 1):
            dist = torch.minimum(dist, (pos - pos[chosen[-1]]).pow(2).sum(-1))
            chosen.append(int(dist.argmax()))
        return pos[chosen]


class Voxelize(nn.Module):
    def forward(self, pos, feats, size: float = 0.25):
        cells = torch.floor(pos / size).long()
        uniq, inverse = torch.unique(cells, dim=0, return_inverse=True)
        pooled = torch.zeros(uniq.shape[0], feats.shape[-1]).index_add_(0, inverse, feats)
        return uniq, pooled


class ColumnEmbeddings(nn.Module):
    def __init__(self, columns=("country", "device", "plan"), sizes=(5, 3, 4), d: int = 4):
        super().__init__()
        self.columns = columns
        self.embed = nn.ModuleDict({c: nn.Embedding(n, d) for c, n in zip(columns, sizes)})

    def forward(self, batch):
        parts = [self.embed[c](batch[c]) for c in self.columns]
        return torch.cat(parts, dim=-1)


class RunningNorm(nn.Module):
    def __init__(self, d: int = 6, momentum: float = 0.1):
        super().__init__()
        self.register_buffer("mean", torch.zeros(d))
        self.register_buffer("var", torch.ones(d))
        self.momentum = momentum
        self.seen = 0

    def forward(self, x):
        if self.training:
            self.seen += x.shape[0]
            self.mean.mul_(1 - self.momentum).add_(self.momentum * x.mean(0))
            self.var.mul_(1 - self.momentum).add_(self.momentum * x.var(0))
        return (x - self.mean) / (self.var + 1e-5).sqrt()


class MissingValueMask(nn.Module):
    def __init__(self, d: int = 6):
        super().__init__()
        self.fill = nn.Parameter(torch.zeros(d))

    def forward(self, x):
        missing = torch.isnan(x)
        if missing.any():
            x = torch.where(missing, self.fill.expand_as(x), x)
        return torch.cat([x, missing.float()], dim=-1)


class QuantileBins(nn.Module):
    def __init__(self, bins: int = 4):
        super().__init__()
        self.bins = bins
        self.embed = nn.Embedding(bins, 3)

    def forward(self, x):
        edges = torch.quantile(x, torch.linspace(0, 1, self.bins + 1)[1:-1])
        idx = torch.bucketize(x, edges)
        return self.embed(idx)


class LagFeatures(nn.Module):
    def __init__(self, lags=(1, 2, 7)):
        super().__init__()
        self.lags = list(lags)

    def forward(self, series):
        cols = [series]
        for lag in self.lags:
            cols.append(F.pad(series, (lag, 0))[..., : series.shape[-1]])
        return torch.stack(cols, -1)


class SlidingWindows(nn.Module):
    def forward(self, series, window: int = 4):
        windows = [series[..., i : i + window] for i in range(series.shape[-1] - window + 1)]
        return torch.stack(windows, -2).mean(-1)


class Seasonality(nn.Module):
    def __init__(self, period: int = 7, harmonics: int = 3):
        super().__init__()
        self.period = period
        self.harmonics = harmonics

    def forward(self, t):
        feats = []
        for k in range(1, self.harmonics + 1):
            feats.append(torch.sin(2 * math.pi * k * t / self.period))
            feats.append(torch.cos(2 * math.pi * k * t / self.period))
        return torch.stack(feats, -1)


class NegativeSampling(nn.Module):
    def __init__(self, items: int = 50, d: int = 8, negatives: int = 5):
        super().__init__()
        self.items = nn.Embedding(items, d)
        self.negatives = negatives

    def forward(self, user, pos_item):
        neg = torch.randint(0, self.items.num_embeddings, (user.shape[0], self.negatives))
        pos_score = (user * self.items(pos_item)).sum(-1)
        neg_score = torch.einsum("bd,bnd->bn", user, self.items(neg))
        return -(F.logsigmoid(pos_score) + F.logsigmoid(-neg_score).sum(-1)).mean()


class InBatchContrastive(nn.Module):
    def __init__(self, temperature: float = 0.07):
        super().__init__()
        self.temperature = temperature

    def forward(self, a, b, labels=None):
        logits = F.normalize(a, dim=-1) @ F.normalize(b, dim=-1).t() / self.temperature
        if labels is None:
            labels = torch.arange(a.shape[0])
        else:
            same = labels[:, None] == labels[None, :]
            logits = logits.masked_fill(same & ~torch.eye(len(labels), dtype=torch.bool), float("-inf"))
        return F.cross_entropy(logits, labels if labels.dim() == 1 else labels.argmax(-1))


class HashedFeatures(nn.Module):
    def __init__(self, buckets: int = 16, d: int = 4):
        super().__init__()
        self.buckets = buckets
        self.embed = nn.Embedding(buckets, d)

    def forward(self, ids, names):
        salt = torch.tensor([hash(n) % self.buckets for n in names])
        return self.embed((ids + salt) % self.buckets)
