"""segmentation_models_pytorch: encoder-decoder segmentation models (random encoder weights)."""
from __future__ import annotations

from typing import Any, Callable

from zoo.case import package_cases
from zoo.inputs import images

PACKAGE = "segmentation_models_pytorch"
SIZES = [(2, 32), (3, 64), (2, 96)]  # multiples of 32


def _model(cls: str, encoder: str = "resnet18", **kwargs: Any) -> Callable[[], Any]:
    def build():  # type: ignore[no-untyped-def]
        import segmentation_models_pytorch as smp

        return getattr(smp, cls)(encoder_name=encoder, encoder_weights=None, classes=2, **kwargs)

    return build


def models():  # type: ignore[no-untyped-def]
    rgb = images(3, SIZES)
    return package_cases(PACKAGE, [
        ("unet_resnet18", _model("Unet"), rgb, {}),
        ("fpn_resnet18", _model("FPN"), rgb, {}),
        ("deeplabv3plus_resnet18", _model("DeepLabV3Plus"), rgb, {}),
        ("linknet_resnet18", _model("Linknet"), rgb, {}),
        ("unetplusplus_resnet18", _model("UnetPlusPlus", encoder_depth=4, decoder_channels=(64, 32, 16, 8)), rgb, {}),
        ("segformer_mit_b0", _model("Segformer", encoder="mit_b0"), rgb, {}),
    ])
