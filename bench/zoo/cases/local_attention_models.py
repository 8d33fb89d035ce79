"""local-attention (lucidrains): windowed attention and its transformer."""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom, tokens

PACKAGE = "local_attention"


def _attention():  # type: ignore[no-untyped-def]
    from local_attention import LocalAttention

    return LocalAttention(dim=16, window_size=8, causal=True, look_backward=1, look_forward=0, dropout=0.1,
                          autopad=True)


def _qkv(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b, n = [(2, 16), (3, 21), (4, 32)][v]
    q, k, val = (torch.randn(b, 2, n, 16, generator=g) for _ in range(3))
    return (q, k, val), {"mask": torch.ones(b, n, dtype=torch.bool)}


def _transformer():  # type: ignore[no-untyped-def]
    from local_attention import LocalTransformer

    return LocalTransformer(num_tokens=64, dim=32, depth=1, max_seq_len=64, causal=True, local_attn_window_size=8)


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("local_attention", _attention, custom(_qkv), {}),
        ("local_transformer", _transformer, tokens(64), {}),
    ])
