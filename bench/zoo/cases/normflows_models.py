"""normflows (Stimper et al.): normalizing flows assembled from a base and a list of flows.

Chosen by h-pkgs2's rule, fixed before recording: pure-PyTorch packages on PyPI from
model families the zoo lacked (tabular, normalizing flows, temporal convolutions,
wavelet transforms), installing beside torch 2.13 CPU; in each, every exported
network class that builds from its documented defaults.  Here: nf.NormalizingFlow
over a DiagGaussian base with each family of normflows.flows (the README's Real NVP,
masked autoregressive, both neural-spline flows, residual, planar and radial),
compiled through the methods users train and sample with (log_prob, forward_kld,
sample).
"""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom

PACKAGE = "normflows"
DIM = 4


def _layers(kind: str) -> list[Any]:
    import normflows as nf

    if kind == "realnvp":
        return [f for _ in range(2) for f in (nf.flows.AffineCouplingBlock(nf.nets.MLP([DIM // 2, 16, DIM], init_zeros=True)),
                                            nf.flows.Permute(DIM, mode="swap"))]
    if kind == "masked_affine":
        return [nf.flows.MaskedAffineAutoregressive(DIM, 16, num_blocks=2) for _ in range(2)]
    if kind == "spline_coupling":
        return [f for _ in range(2) for f in (nf.flows.CoupledRationalQuadraticSpline(DIM, 1, 16),
                                            nf.flows.LULinearPermute(DIM))]
    if kind == "spline_autoregressive":
        return [nf.flows.AutoregressiveRationalQuadraticSpline(DIM, 1, 16) for _ in range(2)]
    if kind == "residual":
        return [nf.flows.Residual(nf.nets.LipschitzMLP([DIM, 16, DIM], init_zeros=True), reduce_memory=True)
                for _ in range(2)]
    if kind == "planar":
        return [nf.flows.Planar((DIM,)) for _ in range(2)]
    if kind == "radial":
        return [nf.flows.Radial((DIM,)) for _ in range(2)]
    raise ValueError(kind)


def _model(kind: str):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        import normflows as nf

        return nf.NormalizingFlow(nf.distributions.base.DiagGaussian(DIM), _layers(kind))

    return build


def _points(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    return (torch.randn([8, 12, 16][v], DIM, generator=g),), {}


def _counts(v: int, g: Any) -> tuple[tuple, dict]:
    return ([8, 12, 16][v],), {}


def models():  # type: ignore[no-untyped-def]
    density = ["realnvp", "masked_affine", "spline_coupling", "spline_autoregressive", "residual"]
    sampled = ["realnvp", "masked_affine", "planar", "radial"]
    return package_cases(
        PACKAGE,
        [(f"nf_{k}_log_prob", _model(k), custom(_points), {"method": "log_prob"}) for k in density]
        + [("nf_realnvp_forward_kld", _model("realnvp"), custom(_points), {"method": "forward_kld"})]
        + [(f"nf_{k}_sample", _model(k), custom(_counts), {"method": "sample"}) for k in sampled],
    )
