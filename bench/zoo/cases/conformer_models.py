"""conformer (lucidrains): the convolution-augmented transformer of speech models."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import sequence

PACKAGE = "conformer"


def _conformer():  # type: ignore[no-untyped-def]
    from conformer import Conformer

    return Conformer(dim=32, depth=2, dim_head=16, heads=2, ff_mult=2, conv_expansion_factor=2,
                     conv_kernel_size=7, attn_dropout=0.1, ff_dropout=0.1, conv_dropout=0.1)


def _block():  # type: ignore[no-untyped-def]
    from conformer import ConformerBlock

    return ConformerBlock(dim=32, dim_head=16, heads=2, ff_mult=2, conv_kernel_size=7, conv_causal=True)


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("conformer", _conformer, sequence(32), {}),
        ("conformer_block_causal", _block, sequence(32), {}),
    ])
