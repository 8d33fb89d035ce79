"""linear-attention-transformer (lucidrains): linear attention with local attention heads."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import tokens

PACKAGE = "linear_attention_transformer"


def _lm(causal: bool):
    def build():  # type: ignore[no-untyped-def]
        from linear_attention_transformer import LinearAttentionTransformerLM

        return LinearAttentionTransformerLM(num_tokens=64, dim=32, heads=2, depth=1, max_seq_len=64, causal=causal,
                                            n_local_attn_heads=1, local_attn_window_size=8, attn_layer_dropout=0.1)

    return build


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [("causal_lm", _lm(True), tokens(64), {}), ("encoder_lm", _lm(False), tokens(64), {})])
