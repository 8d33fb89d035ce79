"""timm models of the zoo: `timm.create_model(name, pretrained=False, ...)`, random weights.

Small variants (the smallest registered size of each family, fewer classes,
small images; ViT-like models get `img_size` so their position embeddings
match).  The same file runs against timm 1.x and 0.9.x: a model name the
installed release does not register, or a kwarg it rejects, becomes a
SkippedCase (missing names) or a build failure (recorded by record.py).

Input variants:
    conv   (batch, size) = (2, 64), (3, 96), (4, 128)   (any input size works)
    fixed  image size fixed by the model, batch 2, 3, 4
"""
from __future__ import annotations

from typing import Any

from zoo.case import ModelCase, SkippedCase, mark_extended

LIB = "timm"

CONV = [(2, 64), (3, 96), (4, 128)]
BATCH = [2, 3, 4]


def conv_inputs(sizes: list[tuple[int, int]] = CONV):
    def inputs(v: int) -> tuple[tuple, dict]:
        import torch

        b, s = sizes[v]
        g = torch.Generator().manual_seed(4321 + v)
        return (torch.randn(b, 3, s, s, generator=g),), {}

    return inputs


def fixed_inputs(size: int):
    return conv_inputs([(b, size) for b in BATCH])


def _builder(name: str, kwargs: dict[str, Any]):
    def build():  # type: ignore[no-untyped-def]
        import timm

        return timm.create_model(name, pretrained=False, num_classes=10, **kwargs)

    return build


def case(name: str, model_name: str, kwargs: dict[str, Any] | None = None, fixed: int | None = None,
         notes: str = "") -> ModelCase | SkippedCase:
    try:
        import timm
    except Exception as e:  # noqa: BLE001
        return SkippedCase(name, LIB, f"timm not importable: {type(e).__name__}: {e}")
    if not timm.is_model(model_name):
        return SkippedCase(name, LIB, f"{model_name!r} not registered in timm {timm.__version__}")
    inputs = fixed_inputs(fixed) if fixed else conv_inputs()
    return ModelCase(name=name, package=LIB, build=_builder(model_name, kwargs or {}), inputs=inputs, notes=notes)


# Run only with run_all.py --all (near-duplicates of a core case, or slow to compile).
EXTENDED = {
    "resnet26d", "densenet121", "cspresnet50", "rexnet", "resnest14d", "mobileone_s0",
    "poolformer_s12", "inception_v3", "hrnet_w18_small", "vit_small_reg", "beit_base", "coat_lite_tiny",
    "pvt_v2_b0", "cait_xxs24", "mixer_s16", "efficientformer_l1",
}


def models() -> list[ModelCase | SkippedCase]:
    C: list[ModelCase | SkippedCase] = []
    add = C.append
    # ---- convnets (any input size)
    add(case("resnet18", "resnet18"))
    add(case("resnet26d", "resnet26d"))
    add(case("efficientnet_b0", "efficientnet_b0"))
    add(case("mobilenetv3_small", "mobilenetv3_small_050"))
    add(case("convnext_atto", "convnext_atto"))
    add(case("regnetx_002", "regnetx_002"))
    add(case("densenet121", "densenet121"))
    add(case("dla34", "dla34"))
    add(case("ghostnet", "ghostnet_050"))
    add(case("cspresnet50", "cspresnet50"))
    add(case("rexnet", "rexnet_100"))
    add(case("resnest14d", "resnest14d"))
    add(case("dm_nfnet", "nf_resnet26"))
    add(case("mobileone_s0", "mobileone_s0"))
    add(case("fastvit_t8", "fastvit_t8"))
    add(case("edgenext_xx_small", "edgenext_xx_small"))
    add(case("poolformer_s12", "poolformer_s12"))
    add(case("inception_v3", "inception_v3", fixed=96, notes="needs >= 75 px"))
    add(case("hrnet_w18_small", "hrnet_w18_small"))
    add(case("mobilevit_xxs", "mobilevit_xxs", fixed=64))
    # ---- ViTs and friends (fixed image size)
    vit_kw = dict(img_size=64)
    add(case("vit_tiny", "vit_tiny_patch16_224", vit_kw, fixed=64))
    add(case("deit_tiny_distilled", "deit_tiny_distilled_patch16_224", vit_kw, fixed=64))
    add(case("vit_small_reg", "vit_small_patch16_224", dict(vit_kw, reg_tokens=4, depth=4), fixed=64))
    add(case("eva02_tiny", "eva02_tiny_patch14_224", dict(img_size=56), fixed=56))
    add(case("beit_base", "beit_base_patch16_224", dict(vit_kw, depth=2), fixed=64))
    add(case("swin_tiny", "swin_tiny_patch4_window7_224", dict(img_size=128, window_size=4, depths=(1, 1, 2, 1)),
             fixed=128))
    add(case("levit_128s", "levit_128s", dict(img_size=64), fixed=64))
    add(case("maxvit_nano", "maxvit_nano_rw_256", dict(img_size=64), fixed=64))
    add(case("coat_lite_tiny", "coat_lite_tiny", dict(img_size=64), fixed=64))
    add(case("crossvit_tiny", "crossvit_tiny_240", fixed=240))
    add(case("pvt_v2_b0", "pvt_v2_b0"))
    add(case("xcit_nano", "xcit_nano_12_p16_224", dict(img_size=64), fixed=64))
    add(case("cait_xxs24", "cait_xxs24_224", dict(img_size=64, depth=4), fixed=64))
    add(case("convit_tiny", "convit_tiny", dict(img_size=64), fixed=64))
    add(case("mixer_s16", "mixer_s16_224", dict(img_size=64), fixed=64))
    add(case("efficientformer_l1", "efficientformer_l1", fixed=224))
    # ---- sequence mixers (an nn.LSTM over rows and columns: issue 11's 2.2x slowdown)
    add(case("sequencer2d_s", "sequencer2d_s", dict(layers=[1, 1, 1, 1]), fixed=64))
    return mark_extended(C, EXTENDED)
