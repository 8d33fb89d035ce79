import logging
import math

import torch

logger = logging.getLogger(__name__)


def normalize(x, eps=1e-6):
    norm = x.norm(dim=-1, keepdim=True)
    if (norm < eps).any():
        norm = norm.clamp(min=eps)
    return x / norm


def topk_mask(scores, k):
    idx = scores.topk(k, dim=-1).indices
    mask = torch.zeros_like(scores, dtype=torch.bool)
    return mask.scatter(-1, idx, True)


def log_stats(x):
    logger.debug("mean %s", x.mean())
    return x


def scale_for(dim):
    return 1.0 / math.sqrt(dim)


def capacity(tokens, experts, factor=1.25):
    return int(math.ceil(tokens / experts * factor))


def decorate(fn):
    def wrapper(*args, **kwargs):
        out = fn(*args, **kwargs)
        return out
    return wrapper
