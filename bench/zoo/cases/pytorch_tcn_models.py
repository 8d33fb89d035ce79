"""pytorch-tcn (Paul Krug): temporal convolutional networks with streaming inference.

Chosen by h-pkgs2's rule, fixed before recording: pure-PyTorch packages on PyPI from
model families the zoo lacked (tabular, normalizing flows, temporal convolutions,
wavelet transforms), installing beside torch 2.13 CPU; in each, every exported
network class that builds from its documented defaults.  Here: pytorch_tcn.TCN with
each option the README documents (causal or not, each norm, skip connections, gates,
NLC input, conditioning embeddings, output projection), and the causal network's
blockwise streaming inference (TCN.inference).
"""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom, sequence

PACKAGE = "pytorch_tcn"
CHANNELS = [8, 8, 8]


def _tcn(**options: Any):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        from pytorch_tcn import TCN

        return TCN(num_inputs=4, num_channels=CHANNELS, kernel_size=3, **options)

    return build


def _with_embeddings(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b, n = [(2, 16), (3, 24), (4, 32)][v]
    return (torch.randn(b, 4, n, generator=g),), {"embeddings": torch.randn(b, 6, generator=g)}


def _blocks(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    return (torch.randn(1, 4, [4, 8, 12][v], generator=g),), {}


def models():  # type: ignore[no-untyped-def]
    ncl = sequence(4, channels_first=True)
    return package_cases(PACKAGE, [
        ("tcn_causal", _tcn(), ncl, {}),
        ("tcn_non_causal", _tcn(causal=False), ncl, {}),
        ("tcn_batch_norm", _tcn(use_norm="batch_norm"), ncl, {}),
        ("tcn_layer_norm", _tcn(use_norm="layer_norm", activation="gelu"), ncl, {}),
        ("tcn_skip_gate", _tcn(use_skip_connections=True, use_gate=True), ncl, {}),
        ("tcn_nlc_projection", _tcn(input_shape="NLC", output_projection=2, output_activation="tanh"), sequence(4), {}),
        ("tcn_embeddings", _tcn(embedding_shapes=[(6,)], embedding_mode="concat"), custom(_with_embeddings), {}),
        ("tcn_streaming_inference", _tcn(), custom(_blocks), {"method": "inference", "train": False}),
    ])
