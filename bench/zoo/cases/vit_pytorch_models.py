"""vit-pytorch (lucidrains): the ViT variants people copy into research code."""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom, images

PACKAGE = "vit_pytorch"
SMALL = dict(dim=32, depth=2, heads=2, mlp_dim=64)


def _make(module: str, cls: str, **kwargs: Any):
    def build():  # type: ignore[no-untyped-def]
        import importlib

        return getattr(importlib.import_module(f"vit_pytorch.{module}"), cls)(**kwargs)

    return build


def _navit_inputs(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    sizes = [[[32, 16], [24]], [[16], [32, 24], [8]], [[32], [16, 16], [24, 8]]][v]
    return ([[torch.randn(3, s, s, generator=g) for s in group] for group in sizes],), {}


def models():  # type: ignore[no-untyped-def]
    fixed = images(fixed=32)
    vit = dict(image_size=32, patch_size=8, num_classes=10, **SMALL)
    specs = [
        ("vit", _make("vit", "ViT", **vit), fixed, {}),
        ("simple_vit", _make("simple_vit", "SimpleViT", **vit), fixed, {}),
        ("simple_vit_registers", _make("simple_vit_with_register_tokens", "SimpleViT", num_register_tokens=4, **vit),
         fixed, {}),
        ("vit_patch_dropout", _make("vit_with_patch_dropout", "ViT", patch_dropout=0.25, **vit), fixed, {}),
        ("vit_small_dataset", _make("vit_for_small_dataset", "ViT", **vit), fixed, {}),
        ("cait", _make("cait", "CaiT", image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, cls_depth=1,
                       heads=2, mlp_dim=64, layer_dropout=0.1), fixed, {}),
        ("deepvit", _make("deepvit", "DeepViT", **vit), fixed, {}),
        ("pit", _make("pit", "PiT", image_size=32, patch_size=4, dim=32, num_classes=10, depth=(1, 1), heads=2,
                      mlp_dim=64), fixed, {}),
        ("cct", _make("cct", "CCT", img_size=(32, 32), embedding_dim=32, n_conv_layers=1, kernel_size=3, stride=2,
                      padding=1, pooling_kernel_size=3, pooling_stride=2, pooling_padding=1, num_layers=2,
                      num_heads=2, mlp_ratio=2.0, num_classes=10, positional_embedding="learnable"), fixed, {}),
        ("t2t_vit", _make("t2t", "T2TViT", dim=32, image_size=32, depth=2, heads=2, mlp_dim=64, num_classes=10,
                          t2t_layers=((7, 4), (3, 2))), fixed, {}),
        ("ats_vit", _make("ats_vit", "ViT", max_tokens_per_depth=(12, 8), **vit), fixed, {}),
        ("navit", _make("na_vit", "NaViT", token_dropout_prob=0.1, **vit), custom(_navit_inputs), {}),
        ("maxvit", _make("max_vit", "MaxViT", num_classes=10, dim_conv_stem=16, dim=16, dim_head=8, depth=(1, 1),
                         window_size=4), images(fixed=32), {}),
    ]
    return package_cases(PACKAGE, specs)
