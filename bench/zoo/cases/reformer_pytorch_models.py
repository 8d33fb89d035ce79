"""reformer-pytorch (lucidrains): LSH attention, reversible layers."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import tokens

PACKAGE = "reformer_pytorch"


def _lm(**options):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        from reformer_pytorch import ReformerLM

        return ReformerLM(num_tokens=64, dim=32, depth=1, max_seq_len=64, heads=2, bucket_size=4, n_hashes=2,
                          causal=True, **options)

    return build


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("reformer_lm", _lm(), tokens(64), {}),
        ("reformer_lm_full_attn", _lm(use_full_attn=True, lsh_dropout=0.1), tokens(64), {}),
    ])
