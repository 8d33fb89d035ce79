"""halonet-pytorch (lucidrains): blocked local self-attention with halos."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import images

PACKAGE = "halonet_pytorch"


def _halo():  # type: ignore[no-untyped-def]
    from halonet_pytorch import HaloAttention

    return HaloAttention(dim=16, block_size=4, halo_size=1, dim_head=8, heads=2)


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [("halo_attention", _halo, images(16, [(2, 8), (3, 12), (4, 16)]), {})])
