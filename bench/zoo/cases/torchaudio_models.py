"""torchaudio: speech and audio models and transforms (pure-Python paths; its C extension is
disabled in the bench venv, see setup_env.sh)."""
from __future__ import annotations

from typing import Any, Callable

from zoo.case import package_cases
from zoo.inputs import custom, sequence

PACKAGE = "torchaudio"


def _make(module: str, name: str, **kwargs: Any) -> Callable[[], Any]:
    def build():  # type: ignore[no-untyped-def]
        import importlib

        return getattr(importlib.import_module(module), name)(**kwargs)

    return build


def _lengths(dim: int):
    def make(v: int, g: Any) -> tuple[tuple, dict]:
        import torch

        b, n = [(2, 16), (3, 24), (4, 32)][v]
        lengths = torch.full((b,), n, dtype=torch.long)
        lengths[0] = n // 2
        return (torch.randn(b, n, dim, generator=g), lengths), {}

    return custom(make)


def _wavernn_inputs(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b, frames = [(1, 6), (2, 8), (2, 10)][v]
    # waveform length = (frames - kernel_size + 1) * hop_length
    return (torch.randn(b, 1, (frames - 2) * 4, generator=g), torch.randn(b, 1, 8, frames, generator=g)), {}


def _wav2vec2() -> Any:
    from torchaudio.models import wav2vec2_model

    return wav2vec2_model(extractor_mode="group_norm", extractor_conv_layer_config=[(16, 10, 5), (16, 3, 2)],
                          extractor_conv_bias=False, encoder_embed_dim=32, encoder_projection_dropout=0.1,
                          encoder_pos_conv_kernel=16, encoder_pos_conv_groups=4, encoder_num_layers=2,
                          encoder_num_heads=2, encoder_attention_dropout=0.1, encoder_ff_interm_features=64,
                          encoder_ff_interm_dropout=0.1, encoder_dropout=0.1, encoder_layer_norm_first=False,
                          encoder_layer_drop=0.1, aux_num_out=10)


def models():  # type: ignore[no-untyped-def]
    wave = sequence(1, [(2, 800), (3, 1200), (4, 1600)], channels_first=True)
    return package_cases(PACKAGE, [
        ("wav2letter", _make("torchaudio.models", "Wav2Letter", num_classes=10, input_type="waveform"), wave, {}),
        ("conv_tasnet", _make("torchaudio.models", "ConvTasNet", num_sources=2, enc_kernel_size=16, enc_num_feats=32,
                              msk_kernel_size=3, msk_num_feats=16, msk_num_hidden_feats=32, msk_num_layers=2,
                              msk_num_stacks=1), wave, {}),
        ("deepspeech", _make("torchaudio.models", "DeepSpeech", n_feature=16, n_hidden=32, n_class=10),
         custom(lambda v, g: ((__import__("torch").randn(2 + v, 1, 10 + 4 * v, 16, generator=g),), {})), {}),
        ("conformer", _make("torchaudio.models", "Conformer", input_dim=16, num_heads=2, ffn_dim=32, num_layers=2,
                            depthwise_conv_kernel_size=7), _lengths(16), {}),
        ("wavernn", _make("torchaudio.models", "WaveRNN", upsample_scales=[2, 2], n_classes=16, hop_length=4,
                          n_res_block=1, n_rnn=16, n_fc=16, kernel_size=3, n_freq=8, n_hidden=8, n_output=8),
         custom(_wavernn_inputs), {}),
        ("wav2vec2", _wav2vec2, custom(
            lambda v, g: ((__import__("torch").randn(2 + v, 800 + 400 * v, generator=g),), {})), {}),
        ("mel_spectrogram", _make("torchaudio.transforms", "MelSpectrogram", sample_rate=16000, n_fft=128,
                                  n_mels=16), wave, {"train": False}),
        ("mfcc", _make("torchaudio.transforms", "MFCC", sample_rate=16000, n_mfcc=8,
                       melkwargs={"n_fft": 128, "n_mels": 16}), wave, {"train": False}),
    ])
