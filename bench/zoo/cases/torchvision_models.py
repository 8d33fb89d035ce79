"""torchvision models (pure-Python part beside the CPU torch, via zoo/tv_shim.py).

Classification, segmentation and optical flow.  Detection models are left out:
their box heads call torchvision's C ops (nms, roi_align), absent here.
"""
from __future__ import annotations

from typing import Any, Callable

from zoo.case import package_cases
from zoo.inputs import custom, images

PACKAGE = "torchvision"


def _model(name: str, **kwargs: Any) -> Callable[[], Any]:
    def build():  # type: ignore[no-untyped-def]
        import torchvision.models as models

        return models.get_model(name, weights=None, **kwargs)

    return build


def _segmentation(name: str) -> Callable[[], Any]:
    return _model(name, num_classes=3, weights_backbone=None)


def _vit() -> Any:
    from torchvision.models.vision_transformer import VisionTransformer

    return VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64,
                             num_classes=10)


def _flow_inputs(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b, s = [(1, 128), (2, 128), (1, 160)][v]
    return (torch.randn(b, 3, s, s, generator=g), torch.randn(b, 3, s, s, generator=g)), {"num_flow_updates": 2}


def models():  # type: ignore[no-untyped-def]
    rgb = images()
    return package_cases(PACKAGE, [
        ("resnet18", _model("resnet18", num_classes=10), rgb, {}),
        ("mobilenet_v3_small", _model("mobilenet_v3_small", num_classes=10), rgb, {}),
        ("shufflenet_v2_x0_5", _model("shufflenet_v2_x0_5", num_classes=10), rgb, {}),
        ("squeezenet1_1", _model("squeezenet1_1", num_classes=10), images(3, [(2, 64), (3, 80), (4, 96)]), {}),
        ("efficientnet_b0", _model("efficientnet_b0", num_classes=10), rgb, {}),
        ("regnet_y_400mf", _model("regnet_y_400mf", num_classes=10), rgb, {}),
        ("googlenet", _model("googlenet", num_classes=10, aux_logits=False, init_weights=False),
         images(3, [(2, 64), (3, 80), (4, 96)]), {}),
        ("vit_small", _vit, images(fixed=32), {}),
        ("lraspp_mobilenet_v3", _segmentation("lraspp_mobilenet_v3_large"), rgb, {}),
        ("deeplabv3_mobilenet_v3", _segmentation("deeplabv3_mobilenet_v3_large"), rgb, {}),
        ("raft_small", _model("raft_small"), custom(_flow_inputs), {}),
    ])
