"""efficientnet_pytorch (lukemelas): EfficientNet with its memory-efficient swish (a custom autograd Function)."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import images

PACKAGE = "efficientnet_pytorch"


def _b0(memory_efficient: bool):
    def build():  # type: ignore[no-untyped-def]
        from efficientnet_pytorch import EfficientNet

        model = EfficientNet.from_name("efficientnet-b0", num_classes=10)
        model.set_swish(memory_efficient=memory_efficient)
        return model

    return build


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("efficientnet_b0", _b0(True), images(), {}),
        ("efficientnet_b0_extract_features", _b0(False), images(), {"method": "extract_features"}),
    ])
