"""perceiver-pytorch (lucidrains): Perceiver and Perceiver IO."""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom

PACKAGE = "perceiver_pytorch"


def _perceiver():  # type: ignore[no-untyped-def]
    from perceiver_pytorch import Perceiver

    return Perceiver(input_channels=3, input_axis=2, num_freq_bands=4, max_freq=10.0, depth=2, num_latents=16,
                     latent_dim=32, cross_heads=1, latent_heads=2, cross_dim_head=16, latent_dim_head=16,
                     num_classes=10, self_per_cross_attn=1)


def _perceiver_io():  # type: ignore[no-untyped-def]
    from perceiver_pytorch import PerceiverIO

    return PerceiverIO(dim=16, queries_dim=16, logits_dim=10, depth=2, num_latents=16, latent_dim=32,
                       cross_heads=1, latent_heads=2, cross_dim_head=16, latent_dim_head=16)


def _channels_last(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b, s = [(2, 16), (3, 24), (4, 32)][v]
    return (torch.randn(b, s, s, 3, generator=g),), {}


def _io_inputs(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b, n = [(2, 16), (3, 24), (4, 32)][v]
    return (torch.randn(b, n, 16, generator=g),), {"queries": torch.randn(b, 8, 16, generator=g),
                                                   "mask": torch.ones(b, n, dtype=torch.bool)}


def models():  # type: ignore[no-untyped-def]
    specs = [
        ("perceiver", _perceiver, custom(_channels_last), {}),
        ("perceiver_io", _perceiver_io, custom(_io_inputs), {}),
    ]
    return package_cases(PACKAGE, specs)
