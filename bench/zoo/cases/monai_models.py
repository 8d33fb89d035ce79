"""MONAI: medical-imaging networks (2-D, one channel, small feature counts)."""
from __future__ import annotations

from typing import Any, Callable

from zoo.case import package_cases
from zoo.inputs import images

PACKAGE = "monai"


def _net(cls: str, **kwargs: Any) -> Callable[[], Any]:
    def build():  # type: ignore[no-untyped-def]
        import monai.networks.nets as nets

        return getattr(nets, cls)(**kwargs)

    return build


def models():  # type: ignore[no-untyped-def]
    mono = images(1)
    two_d = dict(spatial_dims=2, in_channels=1, out_channels=2)
    return package_cases(PACKAGE, [
        ("unet", _net("UNet", channels=(8, 16, 32), strides=(2, 2), num_res_units=1, **two_d), mono, {}),
        ("basic_unet", _net("BasicUNet", features=(8, 8, 16, 32, 64, 8), **two_d), mono, {}),
        ("segresnet", _net("SegResNet", init_filters=8, blocks_down=(1, 1, 1), blocks_up=(1, 1), **two_d), mono, {}),
        ("attention_unet", _net("AttentionUnet", channels=(8, 16, 32), strides=(2, 2), **two_d), mono, {}),
        ("dynunet", _net("DynUNet", kernel_size=[3, 3, 3], strides=[1, 2, 2], upsample_kernel_size=[2, 2],
                         deep_supervision=False, **two_d), mono, {}),
        ("unetr", _net("UNETR", img_size=(32, 32), feature_size=8, hidden_size=32, mlp_dim=64, num_heads=2,
                       **two_d), images(1, fixed=32), {}),
        ("densenet121", _net("DenseNet121", spatial_dims=2, in_channels=1, out_channels=3), mono, {}),
        ("swin_unetr", _net("SwinUNETR", feature_size=12, depths=(1, 1, 1, 1), num_heads=(1, 1, 1, 1), **two_d),
         images(1, [(2, 64), (3, 64), (2, 96)]), {}),
    ])
