"""encodec (Meta): the neural audio codec, with LSTMs in its SEANet encoder and decoder.

Chosen by session 10's rule (see nflows_models.py).  Here: both documented models
(EncodecModel.encodec_model_24khz / _48khz, built untrained: pretrained=False, as no
weights are fetched), their forward (encode, quantize, decode), the 24 kHz model's
encode and decode steps by name, the SEANet encoder and decoder alone, the residual
vector quantizer (which k-means-initialises its codebooks on the first training
batch) and the streaming transformer encoder (forward with its streaming state).
"""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom

PACKAGE = "encodec"
LENGTHS = [960, 1280, 1600]  # audio samples: multiples of the 320-sample hop


def _codec(rate: int, bandwidth: float | None = None):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        from encodec import EncodecModel

        model = getattr(EncodecModel, f"encodec_model_{rate}khz")(pretrained=False)
        if bandwidth is not None:
            model.set_target_bandwidth(bandwidth)
        return model

    return build


def _decoder_of_codes():  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        import torch
        from encodec import EncodecModel

        class Decode(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.codec = EncodecModel.encodec_model_24khz(pretrained=False)
                self.codec.set_target_bandwidth(6.0)

            def forward(self, codes: torch.Tensor) -> torch.Tensor:
                return self.codec.decode([(codes, None)])

        return Decode()

    return build


def _seanet(part: str):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        from encodec import modules

        return getattr(modules, f"SEANet{part}")(channels=1, norm="weight_norm", causal=True)

    return build


def _quantizer():  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        import torch
        from encodec.quantization import ResidualVectorQuantizer

        class Quantize(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.quantizer = ResidualVectorQuantizer(dimension=32, n_q=4, bins=64, kmeans_iters=2)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                result = self.quantizer(x, sample_rate=75, bandwidth=1.5)
                return result.quantized + result.penalty

        return Quantize()

    return build


def _transformer():  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        import torch
        from encodec.modules.transformer import StreamingTransformerEncoder

        class Stream(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.encoder = StreamingTransformerEncoder(32, num_heads=4, num_layers=2, past_context=16)

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                y, states, offset = self.encoder(x)
                return y

        return Stream()

    return build


def _mono(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    return (torch.randn([1, 2, 2][v], 1, LENGTHS[v], generator=g),), {}


def _stereo(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    return (torch.randn([1, 2, 2][v], 2, 2 * LENGTHS[v], generator=g),), {}


def _codes(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    return (torch.randint(0, 1024, ([1, 2, 2][v], 8, [3, 4, 5][v]), generator=g),), {}


def _latents(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    return (torch.randn([1, 2, 2][v], 128, [3, 4, 5][v], generator=g),), {}


def _features(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    return (torch.randn([2, 3, 4][v], 32, [6, 8, 10][v], generator=g),), {}


def _steps(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    return (torch.randn([1, 2, 2][v], [6, 8, 10][v], 32, generator=g),), {}


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("encodec_24khz", _codec(24), custom(_mono), {}),
        ("encodec_24khz_6kbps", _codec(24, 6.0), custom(_mono), {"train": False}),
        ("encodec_48khz", _codec(48), custom(_stereo), {"train": False}),
        ("encodec_24khz_encode", _codec(24), custom(_mono), {"method": "encode", "train": False}),
        ("encodec_24khz_decode_codes", _decoder_of_codes(), custom(_codes), {"train": False}),
        ("encodec_seanet_encoder", _seanet("Encoder"), custom(_mono), {}),
        ("encodec_seanet_decoder", _seanet("Decoder"), custom(_latents), {}),
        ("encodec_residual_vq", _quantizer(), custom(_features), {}),
        ("encodec_streaming_transformer", _transformer(), custom(_steps), {}),
    ])
