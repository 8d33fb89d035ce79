"""mixture-of-experts (lucidrains): sparsely gated MoE (top-2, random second policy)."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import sequence

PACKAGE = "mixture_of_experts"


def _moe():  # type: ignore[no-untyped-def]
    from mixture_of_experts import MoE

    return MoE(dim=32, num_experts=4, hidden_dim=64, second_policy_train="random", second_policy_eval="random")


def _hierarchical():  # type: ignore[no-untyped-def]
    from mixture_of_experts import HeirarchicalMoE

    return HeirarchicalMoE(dim=32, num_experts=(2, 2))


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [("moe", _moe, sequence(32), {}), ("hierarchical_moe", _hierarchical, sequence(32), {})])
