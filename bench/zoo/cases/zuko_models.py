"""zuko (probabilists): conditional normalizing flows as lazy distributions.

Chosen by h-pkgs2's rule, fixed before recording: pure-PyTorch packages on PyPI from
model families the zoo lacked (tabular, normalizing flows, temporal convolutions,
wavelet transforms), installing beside torch 2.13 CPU; in each, every exported
network class that builds from its documented defaults.  Here: every flow of
zuko.flows, conditioned on a context, compiled the way the README trains it
(flow(c).log_prob(x)), and the autoregressive, coupling and mixture flows also
sampled (flow(c).rsample()).
"""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom

PACKAGE = "zuko"
FEATURES, CONTEXT = 3, 4
FLOWS = ["MAF", "NSF", "NCSF", "NAF", "UNAF", "SOSPF", "BPF", "GF", "GMM", "NICE", "RealNVP", "CNF"]
SAMPLED = ["MAF", "RealNVP"]


def _flow(name: str, sample: bool):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        import torch
        import zuko

        flow = getattr(zuko.flows, name)(FEATURES, CONTEXT, hidden_features=[16, 16])

        class LogProb(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.flow = flow

            def forward(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:
                return self.flow(c).log_prob(x)

        class Sample(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.flow = flow

            def forward(self, c: torch.Tensor) -> torch.Tensor:
                return self.flow(c).rsample()

        return Sample() if sample else LogProb()

    return build


def _pairs(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b = [4, 6, 8][v]
    return (torch.randn(b, FEATURES, generator=g), torch.randn(b, CONTEXT, generator=g)), {}


def _contexts(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    return (torch.randn([4, 6, 8][v], CONTEXT, generator=g),), {}


def models():  # type: ignore[no-untyped-def]
    return package_cases(
        PACKAGE,
        [(f"zuko_{n.lower()}_log_prob", _flow(n, False), custom(_pairs), {}) for n in FLOWS]
        + [(f"zuko_{n.lower()}_rsample", _flow(n, True), custom(_contexts), {}) for n in SAMPLED],
    )
