"""User patterns, part ten (session 14, written before running the linter on them): text
generation helpers (repetition penalty, top-p, stop tokens), positional caches, adapters
switched by name, fake quantisation and pruning, stochastic depth, spectral norm, EMA
weights, patch embeddings and token merging."""

from __future__ import annotations

import math
import random

import torch
import torch.nn.functional as F
from torch import nn


class RepetitionPenalty(nn.Module):
    def __init__(self, penalty: float = 1.2):
        super().__init__()
        self.penalty = penalty

    def forward(self, logits, generated):
        for b in range(logits.shape[0]):
            seen = set(generated[b].tolist())
            for token in seen:
                score = logits[b, token]
                logits[b, token] = score / self.penalty if score > 0 else score * self.penalty
        return logits


class TopPFilter(nn.Module):
    def __init__(self, p: float = 0.9):
        super().__init__()
        self.p = p

    def forward(self, logits):
        sorted_logits, order = logits.sort(descending=True, dim=-1)
        probs = sorted_logits.softmax(-1).cumsum(-1)
        remove = probs > self.p
        remove[..., 1:] = remove[..., :-1].clone()
        remove[..., 0] = False
        mask = remove.scatter(-1, order, remove)
        return logits.masked_fill(mask, float("-inf"))


class StopOnToken(nn.Module):
    def __init__(self, vocab: int = 12, d: int = 8, stop: int = 3):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.head = nn.Linear(d, vocab)
        self.stop = stop

    def forward(self, tokens, max_new: int = 4):
        for _ in range(max_new):
            logits = self.head(self.embed(tokens[:, -1]))
            nxt = logits.argmax(-1, keepdim=True)
            tokens = torch.cat([tokens, nxt], dim=1)
            if (nxt == self.stop).all():
                break
        return tokens


class SinusoidCache(nn.Module):
    def __init__(self, d: int = 8):
        super().__init__()
        self.d = d
        self.cache = {}

    def forward(self, x):
        n = x.shape[1]
        if n not in self.cache:
            pos = torch.arange(n, dtype=torch.float32)[:, None]
            div = torch.exp(torch.arange(0, self.d, 2).float() * (-math.log(10000.0) / self.d))
            self.cache[n] = torch.cat([torch.sin(pos * div), torch.cos(pos * div)], -1)
        return x + self.cache[n]


class RotaryCache(nn.Module):
    def __init__(self, d: int = 8, max_len: int = 32):
        super().__init__()
        inv = 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))
        t = torch.arange(max_len).float()
        freqs = torch.outer(t, inv)
        self.register_buffer("cos", freqs.cos(), persistent=False)
        self.register_buffer("sin", freqs.sin(), persistent=False)

    def forward(self, x):
        n = x.shape[1]
        x1, x2 = x[..., ::2], x[..., 1::2]
        cos, sin = self.cos[:n], self.sin[:n]
        return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1).flatten(-2)


class NamedAdapters(nn.Module):
    def __init__(self, d: int = 8, names=("en", "de", "fr")):
        super().__init__()
        self.base = nn.Linear(d, d)
        self.adapters = nn.ModuleDict({n: nn.Linear(d, d, bias=False) for n in names})
        self.active = "en"

    def set_adapter(self, name: str):
        self.active = name

    def forward(self, x, language: str | None = None):
        name = language or self.active
        return self.base(x) + 0.1 * self.adapters[name](x)


class FakeQuant(nn.Module):
    def __init__(self, bits: int = 8):
        super().__init__()
        self.bits = bits

    def forward(self, x):
        qmax = 2 ** (self.bits - 1) - 1
        scale = x.abs().max().item() / qmax
        if scale == 0:
            return x
        return torch.clamp(torch.round(x / scale), -qmax - 1, qmax) * scale


class PerChannelFakeQuant(nn.Module):
    def __init__(self, bits: int = 8):
        super().__init__()
        self.qmax = 2 ** (bits - 1) - 1

    def forward(self, w):
        scale = w.abs().amax(dim=1, keepdim=True).clamp(min=1e-8) / self.qmax
        q = torch.clamp(torch.round(w / scale), -self.qmax - 1, self.qmax)
        return w + (q * scale - w).detach()


class MagnitudePrune(nn.Module):
    def __init__(self, d: int = 8, sparsity: float = 0.5):
        super().__init__()
        self.lin = nn.Linear(d, d)
        self.sparsity = sparsity

    def forward(self, x):
        w = self.lin.weight
        k = int(w.numel() * self.sparsity)
        threshold = w.abs().flatten().kthvalue(k).values
        mask = w.abs() > threshold
        return F.linear(x, w * mask, self.lin.bias)


class StochasticDepth(nn.Module):
    def __init__(self, d: int = 8, p: float = 0.2):
        super().__init__()
        self.block = nn.Linear(d, d)
        self.p = p

    def forward(self, x):
        if self.training and random.random() < self.p:
            return x
        return x + self.block(x)


class SpectralNormLinear(nn.Module):
    def __init__(self, d: int = 8, iterations: int = 2):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(d, d))
        self.register_buffer("u", F.normalize(torch.randn(d), dim=0))
        self.iterations = iterations

    def forward(self, x):
        u = self.u
        with torch.no_grad():
            for _ in range(self.iterations):
                v = F.normalize(self.weight.t() @ u, dim=0)
                u = F.normalize(self.weight @ v, dim=0)
            self.u.copy_(u)
        sigma = u @ self.weight @ v
        return x @ (self.weight / sigma).t()


class EMAWrapper(nn.Module):
    def __init__(self, d: int = 8, decay: float = 0.99):
        super().__init__()
        self.model = nn.Linear(d, d)
        self.shadow = {k: v.detach().clone() for k, v in self.model.state_dict().items()}
        self.decay = decay

    def forward(self, x):
        out = self.model(x)
        with torch.no_grad():
            for k, v in self.model.state_dict().items():
                self.shadow[k].mul_(self.decay).add_(v, alpha=1 - self.decay)
        return out


class PatchEmbed(nn.Module):
    def __init__(self, patch: int = 4, c: int = 3, d: int = 8):
        super().__init__()
        self.patch = patch
        self.proj = nn.Linear(patch * patch * c, d)

    def forward(self, img):
        b, c, h, w = img.shape
        assert h % self.patch == 0 and w % self.patch == 0, f"image {h}x{w} not divisible by {self.patch}"
        p = self.patch
        x = img.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 3, 5, 1).reshape(b, (h // p) * (w // p), -1)
        return self.proj(x)


class TokenMerging(nn.Module):
    def forward(self, x, r: int = 2):
        a, b = x[:, ::2], x[:, 1::2]
        scores = F.normalize(a, dim=-1) @ F.normalize(b, dim=-1).transpose(1, 2)
        best, idx = scores.max(-1)
        order = best.argsort(-1, descending=True)
        merged, kept = order[:, :r], order[:, r:]
        dst = idx.gather(1, merged)
        src = a.gather(1, merged[..., None].expand(-1, -1, a.shape[-1]))
        b = b.scatter_reduce(1, dst[..., None].expand(-1, -1, b.shape[-1]), src, reduce="mean")
        unmerged = a.gather(1, kept[..., None].expand(-1, -1, a.shape[-1]))
        return torch.cat([unmerged, b], 1)
