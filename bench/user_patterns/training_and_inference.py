"""Training steps and inference loops: optimizers in compiled code, decoding, caches, masks,
post-processing (bench/user_patterns.py)."""

import math

import torch
import torch.nn.functional as F
from torch import nn


class Tiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return self.lin(x)


MODEL = Tiny()
OPT = torch.optim.SGD(MODEL.parameters(), lr=0.1)


@torch.compile
def train_step(x, y):
    loss = F.mse_loss(MODEL(x), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(MODEL.parameters(), 1.0)
    OPT.step()
    OPT.zero_grad()
    return loss.detach()


@torch.compile
def greedy_decode(logits_fn, start, steps: int, eos: int):
    tokens = start
    for _ in range(steps):
        nxt = logits_fn(tokens)[:, -1].argmax(-1, keepdim=True)
        tokens = torch.cat([tokens, nxt], dim=1)
        if (nxt == eos).all():
            break
    return tokens


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(16, 8)
        self.out = nn.Linear(8, 16)

    def forward(self, tokens):
        return self.out(self.emb(tokens))

    def generate(self, start, steps: int = 4):
        tokens = start
        for _ in range(steps):
            nxt = self(tokens)[:, -1].argmax(-1, keepdim=True)
            tokens = torch.cat([tokens, nxt], dim=1)
            if nxt.item() == 0:
                break
        return tokens


class TopP(nn.Module):
    def forward(self, logits, p: float = 0.9):
        sorted_logits, idx = logits.sort(descending=True)
        probs = sorted_logits.softmax(-1).cumsum(-1)
        mask = probs > p
        sorted_logits[mask] = float("-inf")
        return sorted_logits.gather(-1, idx.argsort(-1))


class NMSLike(nn.Module):
    def forward(self, boxes, scores):
        keep = []
        order = scores.argsort(descending=True)
        while order.numel() > 0:
            i = order[0]
            keep.append(i)
            order = order[1:]
        return torch.stack(keep)


class ScatterAdd(nn.Module):
    def forward(self, src, index):
        out = torch.zeros(int(index.max()) + 1, src.shape[1])
        return out.index_add(0, index, src)


class MaskedMean(nn.Module):
    def forward(self, x, mask):
        return (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1)


class PadToMultiple(nn.Module):
    def forward(self, x):
        pad = (8 - x.shape[-1] % 8) % 8
        return F.pad(x, (0, pad))


class CausalMaskCache(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mask", torch.ones(16, 16).tril().bool(), persistent=False)

    def forward(self, x):
        t = x.shape[1]
        if t > self.mask.shape[0]:
            self.mask = torch.ones(t, t, device=x.device).tril().bool()
        return x.masked_fill(~self.mask[:t, :t], 0.0)


class RotaryCache(nn.Module):
    def __init__(self):
        super().__init__()
        self.cached_len = 0
        self.cos = None

    def forward(self, x):
        t = x.shape[1]
        if t > self.cached_len:
            pos = torch.arange(t, dtype=torch.float32)
            self.cos = torch.cos(pos)[None, :, None]
            self.cached_len = t
        return x * self.cos[:, :t]


class Label(nn.Module):
    def forward(self, logits, labels):
        valid = labels != -100
        if not valid.any():
            return logits.sum() * 0
        return F.cross_entropy(logits[valid], labels[valid])


class EinsumAttention(nn.Module):
    def forward(self, q, k, v):
        att = torch.einsum("bhqd,bhkd->bhqk", q, k) / math.sqrt(q.shape[-1])
        return torch.einsum("bhqk,bhkd->bhqd", att.softmax(-1), v)


class NumpyInterop(nn.Module):
    def forward(self, x):
        arr = x.detach().cpu().numpy()
        return torch.from_numpy(arr * 2).to(x.device)


class RandomAugment(nn.Module):
    def forward(self, x):
        if torch.rand(1).item() < 0.5:
            x = x.flip(-1)
        return x


class GumbelTopk(nn.Module):
    def forward(self, logits, k: int = 2):
        g = -torch.log(-torch.log(torch.rand_like(logits)))
        return (logits + g).topk(k, -1).indices


class Histogram(nn.Module):
    def forward(self, x):
        return torch.histc(x, bins=10, min=float(x.min()), max=float(x.max()))
