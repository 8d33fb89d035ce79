"""tab-transformer-pytorch (lucidrains): TabTransformer and FT-Transformer for tabular data."""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom

PACKAGE = "tab_transformer_pytorch"
CATEGORIES = (3, 4, 5)


def _tab():  # type: ignore[no-untyped-def]
    from tab_transformer_pytorch import TabTransformer

    return TabTransformer(categories=CATEGORIES, num_continuous=4, dim=16, dim_out=1, depth=2, heads=2,
                          attn_dropout=0.1, ff_dropout=0.1, mlp_hidden_mults=(2, 1),
                          mlp_act=__import__("torch").nn.ReLU())


def _ft():  # type: ignore[no-untyped-def]
    from tab_transformer_pytorch import FTTransformer

    return FTTransformer(categories=CATEGORIES, num_continuous=4, dim=16, dim_out=1, depth=2, heads=2)


def _rows(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b = [4, 6, 8][v]
    categ = torch.stack([torch.randint(0, n, (b,), generator=g) for n in CATEGORIES], dim=1)
    return (categ, torch.randn(b, 4, generator=g)), {}


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [("tab_transformer", _tab, custom(_rows), {}), ("ft_transformer", _ft, custom(_rows), {})])
