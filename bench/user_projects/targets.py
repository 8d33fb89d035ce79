"""What the user-projects bench compiles: each target returns (callable, input sets).

Two input sets each, so that the second exercises what changes (a new batch size or
graph size) the way a user's second batch does.
"""
from __future__ import annotations

from typing import Any, Callable

import torch

Target = tuple[Callable[..., Any], list[tuple[Any, ...]]]


def _graph(nodes: int, dim: int = 16) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(nodes)
    x = torch.randn(nodes, dim, generator=g)
    edge_index = torch.randint(0, nodes, (2, nodes * 3), generator=g)
    batch = torch.sort(torch.randint(0, 2, (nodes,), generator=g)).values
    return x, edge_index, batch


def ode_adaptive() -> Target:
    from ode_adaptive import ODEClassifier

    return ODEClassifier().eval(), [(torch.randn(4, 16),), (torch.randn(6, 16),)]


def ode_rk4() -> Target:
    from ode_fixed import LatentODE

    ts = torch.linspace(0, 1, 5)
    return LatentODE().eval(), [(torch.randn(3, 8), ts), (torch.randn(5, 8), ts)]


def ode_euler() -> Target:
    from ode_fixed import Rollout

    ts = torch.linspace(0, 1, 4)
    return Rollout().eval(), [(torch.randn(3, 8), ts), (torch.randn(5, 8), ts)]


def gcn() -> Target:
    from gnn import GCN

    return GCN().eval(), [_graph(10), _graph(14)]


def gat() -> Target:
    from gnn import GAT

    return GAT().eval(), [_graph(10)[:2], _graph(14)[:2]]


def sage_pool() -> Target:
    from gnn import SAGEPool

    return SAGEPool().eval(), [_graph(10), _graph(14)]


def mixer() -> Target:
    from einops_mixer import Mixer

    return Mixer().eval(), [(torch.randn(2, 3, 16, 16),), (torch.randn(3, 3, 16, 16),)]


def _ids(batch: int, length: int) -> tuple[torch.Tensor, torch.Tensor]:
    ids = torch.randint(0, 100, (batch, length))
    mask = torch.ones(batch, length, dtype=torch.long)
    mask[0, : length // 3] = 0  # left padding on one row
    return ids, mask


def hf_decoder() -> Target:
    from hf_masks import TinyDecoder

    return TinyDecoder().eval(), [_ids(2, 7), _ids(3, 9)]


def hf_sdpa() -> Target:
    from hf_masks import SdpaDecoder

    return SdpaDecoder().eval(), [_ids(2, 7), _ids(3, 9)]


def hf_cross() -> Target:
    from hf_masks import CrossEncoder

    return CrossEncoder().eval(), [_ids(2, 7), _ids(3, 9)]


def timm_resnet() -> Target:
    from timm_wrapper import Classifier

    return Classifier().eval(), [(torch.randn(1, 3, 32, 32),), (torch.randn(2, 3, 32, 32),)]


def timm_vit() -> Target:
    from timm_wrapper import TinyViT

    return TinyViT().eval(), [(torch.randn(1, 3, 32, 32),), (torch.randn(2, 3, 32, 32),)]


def _tagging(batch: int, length: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    tokens = torch.randint(0, 50, (batch, length))
    tags = torch.randint(0, 5, (batch, length))
    mask = torch.ones(batch, length, dtype=torch.bool)
    mask[-1, length - 2 :] = False
    return tokens, tags, mask


def crf_loss() -> Target:
    from crf_tagger import Tagger

    return Tagger().eval(), [_tagging(2, 6), _tagging(3, 8)]


def crf_decode() -> Target:
    """``torch.compile(crf.decode)``: the bench compiles the bound method itself."""
    from crf_tagger import CRF

    crf = CRF(5, batch_first=True)
    sets = []
    for batch, length in ((2, 6), (3, 8)):
        _, _, mask = _tagging(batch, length)
        sets.append((torch.randn(batch, length, 5), mask))
    return crf.decode, sets


# the user's line that compiles it: crf_tagger.build_decoder's `torch.compile(crf.decode)`
crf_decode.compiled_at = ("crf_tagger.py", "torch.compile(crf.decode)")  # type: ignore[attr-defined]


def deep_gcn() -> Target:
    from gnn_layers import DeepGCN

    return DeepGCN().eval(), [_graph(10)[:2], _graph(14)[:2]]


def appended_sage() -> Target:
    from gnn_layers import AppendedSAGE

    return AppendedSAGE().eval(), [_graph(10)[:2], _graph(14)[:2]]


def norm_conv() -> Target:
    from gnn_layers import NormConv

    return NormConv().eval(), [_graph(10)[:2], _graph(14)[:2]]


TARGETS: dict[str, Callable[[], Target]] = {
    name: fn for name, fn in list(globals().items()) if callable(fn) and not name.startswith("_")
    and getattr(fn, "__module__", None) == __name__ and name != "Target"
}

