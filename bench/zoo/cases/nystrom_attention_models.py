"""nystrom-attention (lucidrains): Nystromformer."""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom, sequence

PACKAGE = "nystrom_attention"


def _nystromformer():  # type: ignore[no-untyped-def]
    from nystrom_attention import Nystromformer

    return Nystromformer(dim=32, dim_head=16, heads=2, depth=1, num_landmarks=8, pinv_iterations=4)


def _attention():  # type: ignore[no-untyped-def]
    from nystrom_attention import NystromAttention

    return NystromAttention(dim=32, dim_head=16, heads=2, num_landmarks=8, pinv_iterations=4, residual=True)


def _masked(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b, n = [(2, 20), (3, 27), (4, 35)][v]
    return (torch.randn(b, n, 32, generator=g),), {"mask": torch.ones(b, n, dtype=torch.bool)}


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("nystromformer", _nystromformer, sequence(32), {}),
        ("nystrom_attention_masked", _attention, custom(_masked), {}),
    ])
