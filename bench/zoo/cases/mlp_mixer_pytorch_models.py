"""mlp-mixer-pytorch (lucidrains)."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import images

PACKAGE = "mlp_mixer_pytorch"


def _mixer():  # type: ignore[no-untyped-def]
    from mlp_mixer_pytorch import MLPMixer

    return MLPMixer(image_size=32, channels=3, patch_size=8, dim=32, depth=2, num_classes=10)


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [("mlp_mixer", _mixer, images(fixed=32), {})])
