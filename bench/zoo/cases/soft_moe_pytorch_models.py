"""soft-moe-pytorch (lucidrains): soft mixture of experts, and its dynamic-slot variant."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import sequence

PACKAGE = "soft_moe_pytorch"


def _soft():  # type: ignore[no-untyped-def]
    from soft_moe_pytorch import SoftMoE

    return SoftMoE(dim=32, seq_len=16, num_experts=4)


def _dynamic():  # type: ignore[no-untyped-def]
    from soft_moe_pytorch import DynamicSlotsSoftMoE

    return DynamicSlotsSoftMoE(dim=32, num_experts=4)


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("soft_moe", _soft, sequence(32, [(2, 16), (3, 16), (4, 16)]), {}),
        ("dynamic_slots_soft_moe", _dynamic, sequence(32, [(2, 16), (3, 21), (4, 32)]), {}),
    ])
