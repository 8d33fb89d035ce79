"""Many kinds of graph break in one model: the flake8 plugin must match the CLI on it."""

import logging
import time
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger(__name__)


@torch.compiler.disable
def debug_dump(x):
    print(x)
    return x


class Block(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.fc = nn.Linear(dim, dim)

    def forward(self, x, use_cache: bool = False):
        h = self.fc(x)
        if h.sum() > 0:
            h = h * 2
        if use_cache and self.training:
            h = h + 1
        s = h.mean().item()
        logger.info("step")
        warnings.warn("slow path")
        started = time.time()
        kept = h[h > 0]
        index = h.nonzero()
        assert (h > -1e9).all(), f"bad {h.shape}"
        debug_dump(h)
        z = F.relu(h) if h.any() else h
        return self._finish(z) * s, started, kept, index

    def _finish(self, y):
        while y.norm() > 10:
            y = y / 2
        return y[: y.sum().long()]
