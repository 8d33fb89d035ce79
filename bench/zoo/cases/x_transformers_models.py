"""x-transformers (lucidrains): decoder/encoder stacks with the many options users toggle.

Each case is one configuration of the same wrappers: positional schemes (rotary,
ALiBi, T5 relative bias), memory tokens, macaron / sandwich norms, cross attention,
the image wrapper, and the autoregressive wrapper's `generate` loop.
"""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom, tokens

PACKAGE = "x_transformers"
VOCAB = 64


def _lm(**layer_options: Any):
    def build():  # type: ignore[no-untyped-def]
        from x_transformers import Decoder, TransformerWrapper

        return TransformerWrapper(num_tokens=VOCAB, max_seq_len=64,
                                  attn_layers=Decoder(dim=32, depth=2, heads=2, **layer_options))

    return build


def _encoder(**layer_options: Any):
    def build():  # type: ignore[no-untyped-def]
        from x_transformers import Encoder, TransformerWrapper

        return TransformerWrapper(num_tokens=VOCAB, max_seq_len=64,
                                  attn_layers=Encoder(dim=32, depth=2, heads=2, **layer_options))

    return build


def _vit():  # type: ignore[no-untyped-def]
    from x_transformers import Encoder, ViTransformerWrapper

    return ViTransformerWrapper(image_size=32, patch_size=8, num_classes=10,
                                attn_layers=Encoder(dim=32, depth=2, heads=2))


def _xtransformer():  # type: ignore[no-untyped-def]
    from x_transformers import XTransformer

    return XTransformer(dim=32, enc_num_tokens=VOCAB, enc_depth=1, enc_heads=2, enc_max_seq_len=64,
                        dec_num_tokens=VOCAB, dec_depth=1, dec_heads=2, dec_max_seq_len=64)


def _seq2seq_inputs(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b, n = [(2, 16), (3, 24), (4, 32)][v]
    src = torch.randint(0, VOCAB, (b, n), generator=g)
    tgt = torch.randint(0, VOCAB, (b, n // 2), generator=g)
    return (src, tgt), {"mask": torch.ones(b, n, dtype=torch.bool)}


def _generator():  # type: ignore[no-untyped-def]
    from x_transformers import AutoregressiveWrapper, Decoder, TransformerWrapper

    return AutoregressiveWrapper(TransformerWrapper(num_tokens=VOCAB, max_seq_len=64,
                                                    attn_layers=Decoder(dim=32, depth=1, heads=2)))


def _generate_inputs(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b, n = [(1, 4), (2, 6), (3, 8)][v]
    return (torch.randint(0, VOCAB, (b, n), generator=g), 3), {}


def models():  # type: ignore[no-untyped-def]
    lm = tokens(VOCAB)
    specs = [
        ("decoder", _lm(), lm, {}),
        ("decoder_rotary", _lm(rotary_pos_emb=True), lm, {}),
        ("decoder_alibi", _lm(alibi_pos_bias=True), lm, {}),
        ("decoder_t5_relpos", _lm(rel_pos_bias=True), lm, {}),
        ("decoder_macaron_sandwich", _lm(macaron=True, sandwich_norm=True), lm, {}),
        ("decoder_mem_kv_shift", _lm(attn_num_mem_kv=4, shift_tokens=1), lm, {}),
        ("encoder", _encoder(), lm, {}),
        ("vit", _vit, custom(lambda v, g: ((__import__("torch").randn(2 + v, 3, 32, 32, generator=g),), {})), {}),
        ("xtransformer", _xtransformer, custom(_seq2seq_inputs), {}),
        ("generate", _generator, custom(_generate_inputs), {"method": "generate", "train": False}),
    ]
    return package_cases(PACKAGE, specs)
