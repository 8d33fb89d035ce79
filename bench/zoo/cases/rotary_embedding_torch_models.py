"""rotary-embedding-torch (lucidrains): rotary embeddings applied inside a small attention block.

The attention block is the user's code (in this file); the rotary functions it calls
are the package's.
"""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import sequence

PACKAGE = "rotary_embedding_torch"


def _attention(**rotary: Any):
    def build():  # type: ignore[no-untyped-def]
        import torch
        from rotary_embedding_torch import RotaryEmbedding

        class RotaryAttention(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.qkv = torch.nn.Linear(32, 96)
                self.rotary = RotaryEmbedding(dim=8, **rotary)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                b, n, _ = x.shape
                q, k, v = self.qkv(x).view(b, n, 3, 2, 16).permute(2, 0, 3, 1, 4)
                if rotary.get("use_xpos"):
                    q, k = self.rotary.rotate_queries_and_keys(q, k)
                else:
                    q, k = self.rotary.rotate_queries_or_keys(q), self.rotary.rotate_queries_or_keys(k)
                out = torch.nn.functional.scaled_dot_product_attention(q, k, v)
                return out.transpose(1, 2).reshape(b, n, 32)

        return RotaryAttention()

    return build


def models():  # type: ignore[no-untyped-def]
    specs = [
        ("rotary_attention", _attention(), sequence(32), {}),
        ("rotary_xpos_attention", _attention(use_xpos=True), sequence(32), {}),
    ]
    return package_cases(PACKAGE, specs)
