"""vector-quantize-pytorch (lucidrains): codebooks with EMA updates, k-means init, dead-code expiry.

Train mode matters here: codebook updates run only in training.
"""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import sequence

PACKAGE = "vector_quantize_pytorch"


def _make(cls: str, **kwargs: Any):
    def build():  # type: ignore[no-untyped-def]
        import vector_quantize_pytorch

        return getattr(vector_quantize_pytorch, cls)(**kwargs)

    return build


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("vq_ema", _make("VectorQuantize", dim=32, codebook_size=64, decay=0.8, commitment_weight=1.0),
         sequence(32), {}),
        ("vq_kmeans_cosine_dead_codes", _make("VectorQuantize", dim=32, codebook_size=64, kmeans_init=True,
                                              kmeans_iters=2, use_cosine_sim=True, threshold_ema_dead_code=2),
         sequence(32), {}),
        ("residual_vq", _make("ResidualVQ", dim=32, num_quantizers=2, codebook_size=64), sequence(32), {}),
        ("fsq", _make("FSQ", levels=[8, 5, 5]), sequence(3), {}),
        ("lfq", _make("LFQ", codebook_size=64, dim=6, entropy_loss_weight=0.1), sequence(6), {}),
    ])
