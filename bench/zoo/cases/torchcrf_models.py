"""pytorch-crf (torchcrf): a linear-chain CRF: its log-likelihood (forward) and Viterbi `decode`."""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom

PACKAGE = "torchcrf"
TAGS = 5


def _crf():  # type: ignore[no-untyped-def]
    from torchcrf import CRF

    return CRF(num_tags=TAGS, batch_first=True)


def _emissions(with_tags: bool):
    def make(v: int, g: Any) -> tuple[tuple, dict]:
        import torch

        b, n = [(2, 6), (3, 9), (4, 12)][v]
        emissions = torch.randn(b, n, TAGS, generator=g)
        mask = torch.ones(b, n, dtype=torch.bool)
        mask[0, n // 2:] = False
        if with_tags:
            return (emissions, torch.randint(0, TAGS, (b, n), generator=g)), {"mask": mask}
        return (emissions,), {"mask": mask}

    return custom(make)


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("crf_log_likelihood", _crf, _emissions(True), {}),
        ("crf_decode", _crf, _emissions(False), {"method": "decode", "train": False}),
    ])
