"""pytorch-tabnet (dreamquark): TabNet's attentive feature selection for tabular data.

Chosen by h-pkgs2's rule, fixed before recording: pure-PyTorch packages on PyPI from
model families the zoo lacked (tabular, normalizing flows, temporal convolutions,
wavelet transforms), installing beside torch 2.13 CPU; in each, every exported
network class that builds from its documented defaults, with the options its
README lists (categorical embeddings, entmax masks, pretraining, multi-task heads).
"""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom

PACKAGE = "pytorch_tabnet"
CAT_DIMS = [3, 4]


def _tabnet(output_dim: "int | list[int]" = 2, **options: Any):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        import torch
        from pytorch_tabnet.tab_network import TabNet

        # what TabModel passes when no features are grouped (utils.create_group_matrix, which needs pandas)
        return TabNet(input_dim=6, output_dim=output_dim, n_d=8, n_a=8, n_steps=3, virtual_batch_size=4,
                      group_attention_matrix=torch.eye(6), **options)

    return build


def _pretraining():  # type: ignore[no-untyped-def]
    import torch
    from pytorch_tabnet.tab_network import TabNetPretraining

    return TabNetPretraining(input_dim=6, cat_idxs=[0, 1], cat_dims=CAT_DIMS, cat_emb_dim=[2, 2], virtual_batch_size=4,
                             group_attention_matrix=torch.eye(6))


def _rows(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b = [8, 12, 16][v]
    cats = torch.stack([torch.randint(0, n, (b,), generator=g) for n in CAT_DIMS], dim=1).float()
    return (torch.cat([cats, torch.randn(b, 4, generator=g)], dim=1),), {}


def models():  # type: ignore[no-untyped-def]
    rows = custom(_rows)
    return package_cases(PACKAGE, [
        ("tabnet", _tabnet(), rows, {}),
        ("tabnet_categorical", _tabnet(cat_idxs=[0, 1], cat_dims=CAT_DIMS, cat_emb_dim=[2, 2]), rows, {}),
        ("tabnet_entmax", _tabnet(mask_type="entmax"), rows, {}),
        ("tabnet_multitask", _tabnet(output_dim=[2, 3]), rows, {}),
        ("tabnet_forward_masks", _tabnet(), rows, {"method": "forward_masks", "train": False}),
        ("tabnet_pretraining", _pretraining, rows, {}),
    ])
