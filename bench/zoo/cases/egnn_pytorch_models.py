"""egnn-pytorch (lucidrains): E(n)-equivariant graph networks over point coordinates."""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom

PACKAGE = "egnn_pytorch"


def _layer():  # type: ignore[no-untyped-def]
    from egnn_pytorch import EGNN

    return EGNN(dim=16)


def _network():  # type: ignore[no-untyped-def]
    from egnn_pytorch import EGNN_Network

    return EGNN_Network(num_tokens=21, dim=16, depth=2, num_nearest_neighbors=4, coor_weights_clamp_value=2.0)


def _points(tokens: bool):
    def make(v: int, g: Any) -> tuple[tuple, dict]:
        import torch

        b, n = [(2, 8), (3, 12), (4, 16)][v]
        feats = torch.randint(0, 21, (b, n), generator=g) if tokens else torch.randn(b, n, 16, generator=g)
        extra = {"mask": torch.ones(b, n, dtype=torch.bool)} if tokens else {}
        return (feats, torch.randn(b, n, 3, generator=g)), extra

    return custom(make)


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [("egnn_layer", _layer, _points(False), {}), ("egnn_network", _network, _points(True), {})])
