"""g-mlp-pytorch (lucidrains): gated MLPs for tokens and images."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import images, tokens

PACKAGE = "g_mlp_pytorch"


def _lm():  # type: ignore[no-untyped-def]
    from g_mlp_pytorch import gMLP

    return gMLP(num_tokens=64, dim=32, depth=2, seq_len=32, causal=True, circulant_matrix=True)


def _vision():  # type: ignore[no-untyped-def]
    from g_mlp_pytorch import gMLPVision

    return gMLPVision(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, prob_survival=0.9)


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("gmlp_lm_circulant", _lm, tokens(64, [(2, 32), (3, 32), (4, 32)]), {}),
        ("gmlp_vision", _vision, images(fixed=32), {}),
    ])
