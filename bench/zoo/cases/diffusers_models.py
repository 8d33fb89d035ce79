"""diffusers models of the zoo: tiny configs (in the style of diffusers' own tests), random weights.

The same file runs against diffusers 0.4x and 0.2x: a class missing in the
installed release becomes a SkippedCase; a constructor that rejects a kwarg
is a build failure (recorded by record.py).

Timesteps are passed as tensors of shape (batch,), as in training and in most
pipelines (a Python number per step would add recompiles of the harness's own
making).  Variants change the batch size and the latent size together:
    latent (batch, size) = (2, 8), (3, 12), (4, 16)     (transformers, patch 2 / 1)
    unet   (batch, size) = (2, 32), (3, 48), (4, 64)
"""
from __future__ import annotations

from typing import Any, Callable

from zoo.case import ModelCase, SkippedCase, mark_extended

LIB = "diffusers"

LATENT = [(2, 8), (3, 12), (4, 16)]
UNET = [(2, 32), (3, 48), (4, 64)]
TXT = [6, 7, 8]  # text tokens


def _g(v: int):  # type: ignore[no-untyped-def]
    import torch

    return torch.Generator().manual_seed(777 + v)


def _randn(*shape: int, v: int):  # type: ignore[no-untyped-def]
    import torch

    return torch.randn(*shape, generator=_g(v))


def _t(b: int, v: int):  # type: ignore[no-untyped-def]
    import torch

    return torch.randint(1, 999, (b,), generator=_g(v + 50)).float()


def case(name: str, cls_name: str, cfg: dict[str, Any], inputs: Callable, notes: str = "",
         module: str = "diffusers") -> ModelCase | SkippedCase:
    try:
        import importlib

        mod = importlib.import_module(module)
        cls = getattr(mod, cls_name, None)
    except Exception as e:  # noqa: BLE001
        return SkippedCase(name, LIB, f"{module} not importable: {type(e).__name__}: {e}")
    if cls is None:
        import diffusers

        return SkippedCase(name, LIB, f"{cls_name} not in diffusers {diffusers.__version__}")

    def build():  # type: ignore[no-untyped-def]
        return cls(**cfg)

    return ModelCase(name=name, package=LIB, build=build, inputs=inputs, notes=notes)


# --------------------------------------------------------------------------- inputs
def unet2d_inputs(v: int) -> tuple[tuple, dict]:
    b, s = UNET[v]
    return (), {"sample": _randn(b, 3, s, s, v=v), "timestep": _t(b, v)}


def unet2d_cond_inputs(v: int) -> tuple[tuple, dict]:
    b, s = UNET[v]
    return (), {"sample": _randn(b, 4, s, s, v=v), "timestep": _t(b, v),
                "encoder_hidden_states": _randn(b, TXT[v], 32, v=v)}


def controlnet_inputs(v: int) -> tuple[tuple, dict]:
    b, s = UNET[v]
    kw = unet2d_cond_inputs(v)[1]
    kw["controlnet_cond"] = _randn(b, 3, s * 2, s * 2, v=v)
    return (), kw


def vae_inputs(v: int) -> tuple[tuple, dict]:
    b, s = UNET[v]
    return (), {"sample": _randn(b, 3, s, s, v=v)}


def dit_inputs(v: int) -> tuple[tuple, dict]:
    import torch

    b, s = LATENT[v]
    return (), {"hidden_states": _randn(b, 4, s, s, v=v), "timestep": _t(b, v),
                "class_labels": torch.randint(0, 10, (b,), generator=_g(v))}


def pixart_inputs(v: int) -> tuple[tuple, dict]:
    b, s = LATENT[v]
    return (), {"hidden_states": _randn(b, 4, s, s, v=v), "encoder_hidden_states": _randn(b, TXT[v], 32, v=v),
                "timestep": _t(b, v), "added_cond_kwargs": {"resolution": None, "aspect_ratio": None}}


def sd3_inputs(v: int) -> tuple[tuple, dict]:
    b, s = LATENT[v]
    return (), {"hidden_states": _randn(b, 4, s, s, v=v), "encoder_hidden_states": _randn(b, TXT[v], 32, v=v),
                "pooled_projections": _randn(b, 64, v=v), "timestep": _t(b, v)}


def flux_inputs(v: int) -> tuple[tuple, dict]:
    import torch

    b, s = LATENT[v]
    n_img = (s // 2) * (s // 2)
    img_ids = torch.zeros(s // 2, s // 2, 3)
    img_ids[..., 1] = torch.arange(s // 2)[:, None]
    img_ids[..., 2] = torch.arange(s // 2)[None, :]
    return (), {"hidden_states": _randn(b, n_img, 16, v=v), "encoder_hidden_states": _randn(b, TXT[v], 32, v=v),
                "pooled_projections": _randn(b, 32, v=v), "timestep": _t(b, v) / 1000,
                "img_ids": img_ids.reshape(-1, 3), "txt_ids": torch.zeros(TXT[v], 3)}


def sana_inputs(v: int) -> tuple[tuple, dict]:
    b, s = LATENT[v]
    return (), {"hidden_states": _randn(b, 4, s, s, v=v), "encoder_hidden_states": _randn(b, TXT[v], 32, v=v),
                "timestep": _t(b, v)}


def auraflow_inputs(v: int) -> tuple[tuple, dict]:
    b, s = LATENT[v]
    return (), {"hidden_states": _randn(b, 4, s, s, v=v), "encoder_hidden_states": _randn(b, TXT[v], 32, v=v),
                "timestep": _t(b, v)}


def wan_inputs(v: int) -> tuple[tuple, dict]:
    b, s = LATENT[v]
    return (), {"hidden_states": _randn(b, 4, 2, s, s, v=v), "timestep": _t(b, v),
                "encoder_hidden_states": _randn(b, TXT[v], 32, v=v)}


def prior_inputs(v: int) -> tuple[tuple, dict]:
    b = [2, 3, 4][v]
    return (), {"hidden_states": _randn(b, 8, v=v), "timestep": _t(b, v), "proj_embedding": _randn(b, 8, v=v),
                "encoder_hidden_states": _randn(b, 7, 8, v=v)}


def unet1d_inputs(v: int) -> tuple[tuple, dict]:
    b, n = [(2, 32), (3, 48), (4, 64)][v]
    return (), {"sample": _randn(b, 14, n, v=v), "timestep": _t(b, v)}


def hunyuan_inputs(v: int) -> tuple[tuple, dict]:
    import torch

    b, s = LATENT[v]
    return (), {"hidden_states": _randn(b, 4, s, s, v=v), "timestep": _t(b, v),
                "encoder_hidden_states": _randn(b, 77, 32, v=v),
                "text_embedding_mask": torch.ones(b, 77, dtype=torch.long),
                "encoder_hidden_states_t5": _randn(b, 256, 32, v=v),
                "text_embedding_mask_t5": torch.ones(b, 256, dtype=torch.long),
                "image_rotary_emb": _hunyuan_rope(s), **_hunyuan_style(b)}


def _hunyuan_style(b: int) -> dict[str, Any]:
    """diffusers < 0.30 has no use_style_cond_and_image_meta_size flag: style and sizes are required."""
    import inspect

    import torch
    from diffusers import HunyuanDiT2DModel

    if "use_style_cond_and_image_meta_size" in inspect.signature(HunyuanDiT2DModel.__init__).parameters:
        return {"image_meta_size": None, "style": None}
    return {"image_meta_size": torch.tensor([[64, 64, 64, 64, 0, 0]] * b, dtype=torch.float32),
            "style": torch.zeros(b, dtype=torch.long)}


def _hunyuan_flag() -> dict[str, Any]:
    import inspect

    try:
        from diffusers import HunyuanDiT2DModel
    except Exception:  # noqa: BLE001
        return {}
    if "use_style_cond_and_image_meta_size" in inspect.signature(HunyuanDiT2DModel.__init__).parameters:
        return {"use_style_cond_and_image_meta_size": False}
    return {}


def _hunyuan_rope(s: int):  # type: ignore[no-untyped-def]
    from diffusers.models.embeddings import get_2d_rotary_pos_embed

    grid = s // 2
    return get_2d_rotary_pos_embed(8, ((0, 0), (grid, grid)), (grid, grid))


# Run only with run_all.py --all (near-duplicates of a core case, or slow to compile).
EXTENDED = {
    "vq_model", "autoencoder_tiny", "unet1d", "prior_transformer",
}


# --------------------------------------------------------------------------- the zoo
def models() -> list[ModelCase | SkippedCase]:
    C: list[ModelCase | SkippedCase] = []
    add = C.append
    add(case("unet2d", "UNet2DModel", dict(
        sample_size=32, in_channels=3, out_channels=3, layers_per_block=1, block_out_channels=(16, 32),
        down_block_types=("DownBlock2D", "AttnDownBlock2D"), up_block_types=("AttnUpBlock2D", "UpBlock2D"),
        attention_head_dim=8, norm_num_groups=8), unet2d_inputs))
    unet_cond = dict(
        sample_size=32, in_channels=4, out_channels=4, layers_per_block=1, block_out_channels=(16, 32),
        down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
        cross_attention_dim=32, attention_head_dim=8, norm_num_groups=8)
    add(case("unet2d_condition", "UNet2DConditionModel", unet_cond, unet2d_cond_inputs))
    add(case("controlnet", "ControlNetModel", dict(
        {k: v for k, v in unet_cond.items() if k not in ("sample_size", "out_channels", "up_block_types")},
        conditioning_embedding_out_channels=(8, 16)), controlnet_inputs))
    add(case("autoencoder_kl", "AutoencoderKL", dict(
        in_channels=3, out_channels=3, block_out_channels=(16, 32), layers_per_block=1, latent_channels=4,
        norm_num_groups=8, down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"), sample_size=32), vae_inputs))
    add(case("vq_model", "VQModel", dict(
        in_channels=3, out_channels=3, block_out_channels=(16, 32), layers_per_block=1, latent_channels=3,
        norm_num_groups=8, num_vq_embeddings=32, down_block_types=("DownEncoderBlock2D", "DownEncoderBlock2D"),
        up_block_types=("UpDecoderBlock2D", "UpDecoderBlock2D"), sample_size=32), vae_inputs))
    add(case("autoencoder_tiny", "AutoencoderTiny", dict(
        encoder_block_out_channels=(16, 16), decoder_block_out_channels=(16, 16), num_encoder_blocks=(1, 1),
        num_decoder_blocks=(1, 1), latent_channels=4), vae_inputs))
    add(case("unet1d", "UNet1DModel", dict(
        sample_size=32, in_channels=14, out_channels=14, block_out_channels=(16, 32, 64), layers_per_block=1,
        down_block_types=("DownResnetBlock1D", "DownResnetBlock1D", "DownResnetBlock1D"),
        up_block_types=("UpResnetBlock1D", "UpResnetBlock1D"), mid_block_type="MidResTemporalBlock1D",
        out_block_type="OutConv1DBlock", use_timestep_embedding=True, time_embedding_type="positional",
        act_fn="mish", norm_num_groups=8, extra_in_channels=0, flip_sin_to_cos=False, freq_shift=1.0),
        unet1d_inputs, notes="value-function style 1D UNet (diffuser/RL)"))
    add(case("prior_transformer", "PriorTransformer", dict(
        num_attention_heads=2, attention_head_dim=4, num_layers=2, embedding_dim=8, num_embeddings=7,
        additional_embeddings=4), prior_inputs))
    add(case("dit", "DiTTransformer2DModel", dict(
        num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=8, num_layers=2, sample_size=8,
        patch_size=2, num_embeds_ada_norm=10, norm_num_groups=8), dit_inputs))
    add(case("pixart", "PixArtTransformer2DModel", dict(
        num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=8, num_layers=2, sample_size=8,
        patch_size=2, cross_attention_dim=16, caption_channels=32, norm_num_groups=8, attention_bias=True,
        use_additional_conditions=False), pixart_inputs))
    add(case("sd3_transformer", "SD3Transformer2DModel", dict(
        sample_size=8, patch_size=2, in_channels=4, num_layers=2, attention_head_dim=8, num_attention_heads=4,
        caption_projection_dim=32, joint_attention_dim=32, pooled_projection_dim=64, out_channels=4,
        pos_embed_max_size=16), sd3_inputs))
    add(case("flux_transformer", "FluxTransformer2DModel", dict(
        patch_size=1, in_channels=16, num_layers=1, num_single_layers=1, attention_head_dim=16,
        num_attention_heads=2, joint_attention_dim=32, pooled_projection_dim=32, axes_dims_rope=(4, 4, 8)),
        flux_inputs))
    add(case("sana_transformer", "SanaTransformer2DModel", dict(
        in_channels=4, out_channels=4, num_attention_heads=2, attention_head_dim=8, num_layers=2,
        num_cross_attention_heads=2, cross_attention_head_dim=8, cross_attention_dim=16, caption_channels=32,
        sample_size=8, patch_size=1), sana_inputs))
    add(case("auraflow_transformer", "AuraFlowTransformer2DModel", dict(
        sample_size=16, patch_size=2, in_channels=4, num_mmdit_layers=1, num_single_dit_layers=1,
        attention_head_dim=8, num_attention_heads=2, joint_attention_dim=32, caption_projection_dim=16,
        out_channels=4, pos_embed_max_size=64), auraflow_inputs))
    add(case("wan_transformer", "WanTransformer3DModel", dict(
        patch_size=(1, 2, 2), num_attention_heads=2, attention_head_dim=8, in_channels=4, out_channels=4,
        text_dim=32, freq_dim=32, ffn_dim=32, num_layers=2, rope_max_seq_len=32), wan_inputs))
    add(case("hunyuan_dit", "HunyuanDiT2DModel", dict(
        num_attention_heads=2, attention_head_dim=8, in_channels=4, patch_size=2, sample_size=8, hidden_size=16,
        num_layers=2, cross_attention_dim=32, cross_attention_dim_t5=32, pooled_projection_dim=16,
        text_len=77, text_len_t5=256, **_hunyuan_flag()), hunyuan_inputs))
    return mark_extended(C, EXTENDED)
