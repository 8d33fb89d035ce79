"""denoising-diffusion-pytorch (lucidrains): the U-Net, the training loss, and sampling."""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom, images

PACKAGE = "denoising_diffusion_pytorch"


def _unet():  # type: ignore[no-untyped-def]
    from denoising_diffusion_pytorch import Unet

    return Unet(dim=8, dim_mults=(1, 2), flash_attn=False, attn_dim_head=8, attn_heads=2)


def _diffusion(**kwargs: Any):
    def build():  # type: ignore[no-untyped-def]
        from denoising_diffusion_pytorch import GaussianDiffusion

        return GaussianDiffusion(_unet(), image_size=16, timesteps=4, **kwargs)

    return build


def _diffusion_1d():  # type: ignore[no-untyped-def]
    from denoising_diffusion_pytorch import GaussianDiffusion1D, Unet1D

    return GaussianDiffusion1D(Unet1D(dim=8, dim_mults=(1, 2), channels=2), seq_length=16, timesteps=4)


def _unet_inputs(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b, s = [(2, 16), (3, 16), (4, 32)][v]
    return (torch.randn(b, 3, s, s, generator=g), torch.randint(0, 4, (b,), generator=g)), {}


def _sample_inputs(v: int, g: Any) -> tuple[tuple, dict]:
    return (), {"batch_size": [1, 2, 3][v]}


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("unet", _unet, custom(_unet_inputs), {}),
        ("gaussian_diffusion_loss", _diffusion(), images(3, fixed=16), {}),
        ("gaussian_diffusion_sample", _diffusion(), custom(_sample_inputs), {"method": "sample", "train": False}),
        ("gaussian_diffusion_1d_loss", _diffusion_1d, custom(
            lambda v, g: ((__import__("torch").randn(2 + v, 2, 16, generator=g),), {})), {}),
    ])
