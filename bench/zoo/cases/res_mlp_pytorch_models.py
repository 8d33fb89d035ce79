"""res-mlp-pytorch (lucidrains): ResMLP."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import images

PACKAGE = "res_mlp_pytorch"


def _resmlp():  # type: ignore[no-untyped-def]
    from res_mlp_pytorch import ResMLP

    return ResMLP(image_size=32, patch_size=8, dim=32, depth=2, num_classes=10)


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [("resmlp", _resmlp, images(fixed=32), {})])
