"""bottleneck-transformer-pytorch (lucidrains): BoTNet's attention bottleneck stack."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import images

PACKAGE = "bottleneck_transformer_pytorch"


def _stack():  # type: ignore[no-untyped-def]
    from bottleneck_transformer_pytorch import BottleStack

    return BottleStack(dim=16, fmap_size=16, dim_out=32, proj_factor=4, downsample=True, heads=2, dim_head=8,
                       rel_pos_emb=True)


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [("bottle_stack", _stack, images(16, fixed=16), {})])
