"""pytorch-wavelets (fbcotter): discrete and dual-tree complex wavelet transforms, scattering.

Chosen by h-pkgs2's rule, fixed before recording: pure-PyTorch packages on PyPI from
model families the zoo lacked (tabular, normalizing flows, temporal convolutions,
wavelet transforms), installing beside torch 2.13 CPU; in each, every exported
network class that builds from its documented defaults.  Here: every transform of
pytorch_wavelets.__all__ (forward ones on images or signals, inverse ones
round-tripping the forward's output) and SWTForward, with the README's wavelets
and padding modes.
"""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import images, sequence

PACKAGE = "pytorch_wavelets"


def _module(name: str, **kwargs: Any):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        import pytorch_wavelets
        from pytorch_wavelets.dwt.transform2d import SWTForward

        return (SWTForward if name == "SWTForward" else getattr(pytorch_wavelets, name))(**kwargs)

    return build


def _round_trip(forward: str, inverse: str, **kwargs: Any):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        import torch
        import pytorch_wavelets

        inverse_kwargs = {k: v for k, v in kwargs.items() if k != "J"}

        class RoundTrip(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.forward_transform = getattr(pytorch_wavelets, forward)(**kwargs)
                self.inverse_transform = getattr(pytorch_wavelets, inverse)(**inverse_kwargs)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return self.inverse_transform(self.forward_transform(x))

        return RoundTrip()

    return build


def models():  # type: ignore[no-untyped-def]
    pictures = images(channels=3, sizes=[(2, 32), (3, 48), (4, 64)])
    signals = sequence(3, sizes=[(2, 32), (3, 48), (4, 64)], channels_first=True)
    return package_cases(PACKAGE, [
        ("dwt_haar", _module("DWTForward", J=2, wave="db1", mode="zero"), pictures, {}),
        ("dwt_db4_symmetric", _module("DWTForward", J=2, wave="db4", mode="symmetric"), pictures, {}),
        ("dwt_periodization", _module("DWTForward", J=2, wave="db2", mode="periodization"), pictures, {}),
        ("dwt_round_trip", _round_trip("DWTForward", "DWTInverse", J=2, wave="db2", mode="zero"), pictures, {}),
        ("dwt1d_round_trip", _round_trip("DWT1DForward", "DWT1DInverse", J=2, wave="db2", mode="zero"), signals, {}),
        ("dwt1d_reflect", _module("DWT1DForward", J=3, wave="db3", mode="reflect"), signals, {}),
        ("dtcwt", _module("DTCWTForward", J=2), pictures, {}),
        ("dtcwt_round_trip", _round_trip("DTCWTForward", "DTCWTInverse", J=2), pictures, {}),
        ("scat_layer", _module("ScatLayer"), pictures, {}),
        ("scat_layer_j2", _module("ScatLayerj2"), pictures, {}),
        ("swt", _module("SWTForward", J=2, wave="db1", mode="zero"), pictures, {}),
    ])
