"""pretrainedmodels (Cadene): older ImageNet architectures, built without weights."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import images

PACKAGE = "pretrainedmodels"


def _model(name: str):
    def build():  # type: ignore[no-untyped-def]
        import pretrainedmodels

        return pretrainedmodels.__dict__[name](num_classes=1000, pretrained=None)

    return build


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("dpn68", _model("dpn68"), images(3, [(1, 128), (2, 128), (1, 160)]), {}),
        ("se_resnext50", _model("se_resnext50_32x4d"), images(3, [(1, 224), (2, 224), (1, 224)]), {}),
    ])
