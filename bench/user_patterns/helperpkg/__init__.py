from .layers import Block, GatedMLP, Router
from .utils import normalize, topk_mask, log_stats
