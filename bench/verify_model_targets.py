"""Verifier target for bench/verify_model.py: big enough on a GPU that compute dominates
(4 blocks, dim 2048, 8 x 1024 tokens, bf16: about 3.6 TFLOP a call); tiny on CPU."""

import torch
from verify_model import TinyTransformer


def target_transformer(device: str = "cpu"):
    big = device.startswith("cuda")
    dim, heads, layers, batch, length = (2048, 16, 4, 8, 1024) if big else (64, 4, 2, 2, 16)
    dtype = torch.bfloat16 if big else torch.float32
    torch.manual_seed(0)
    model = TinyTransformer(dim, heads, layers).to(device=device, dtype=dtype).eval()
    model.requires_grad_(False)  # inference: no backward graph to compile or save for
    # Two input sets of one shape: the second must hit the cache (no recompile).
    inputs = [(torch.randn(batch, length, dim, device=device, dtype=dtype),) for _ in range(2)]
    return model, inputs
