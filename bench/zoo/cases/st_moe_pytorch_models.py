"""st-moe-pytorch (lucidrains): ST-MoE top-n routing with capacity and auxiliary losses."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import sequence

PACKAGE = "st_moe_pytorch"


def _moe():  # type: ignore[no-untyped-def]
    from st_moe_pytorch import MoE

    return MoE(dim=32, num_experts=4, gating_top_n=2, threshold_train=0.2, threshold_eval=0.2,
               capacity_factor_train=1.25, capacity_factor_eval=2.0)


def _block():  # type: ignore[no-untyped-def]
    from st_moe_pytorch import MoE, SparseMoEBlock

    return SparseMoEBlock(MoE(dim=32, num_experts=4, gating_top_n=2), add_ff_before=True, add_ff_after=True)


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [("moe", _moe, sequence(32), {}), ("sparse_moe_block", _block, sequence(32), {})])
