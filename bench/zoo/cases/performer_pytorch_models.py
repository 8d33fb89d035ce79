"""performer-pytorch (lucidrains): FAVOR+ attention with feature redrawing."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import tokens

PACKAGE = "performer_pytorch"


def _lm(**options):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        from performer_pytorch import PerformerLM

        return PerformerLM(num_tokens=64, max_seq_len=64, dim=32, depth=1, heads=2, nb_features=16, **options)

    return build


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("performer_lm", _lm(causal=False, feature_redraw_interval=2), tokens(64), {}),
        ("performer_lm_causal_local", _lm(causal=True, local_attn_heads=1, local_window_size=8), tokens(64), {}),
    ])
