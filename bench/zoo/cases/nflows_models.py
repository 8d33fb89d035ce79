"""nflows (bayesiains): normalizing flows built from transforms, as the README composes them.

Chosen by session 10's rule, fixed before recording: pure-PyTorch packages on PyPI from
families where the zoo had one author or none (flows from a second author, an audio
codec with LSTMs, controlled differential equations, sparse softmaxes, a pure-PyTorch
state-space model), installing beside torch 2.13 CPU.  Here: both ready-made flows of
nflows.flows, and a Flow of each autoregressive and coupling transform family of
nflows.transforms (affine, piecewise linear/quadratic/cubic/rational-quadratic splines)
between reverse permutations, with a standard-normal or context-conditioned base; each
compiled the way the README trains it (flow.log_prob(x, context)), the conditional ones
also sampled (flow.sample(n, context)).
"""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom

PACKAGE = "nflows"
FEATURES, CONTEXT, HIDDEN = 4, 3, 16


def _ready(name: str):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        from nflows import flows

        return _LogProb(getattr(flows, name)(features=FEATURES, hidden_features=HIDDEN, num_layers=2, num_blocks_per_layer=2))

    return build


def _transform(kind: str, conditional: bool) -> Any:
    import torch
    from nflows import transforms
    from nflows.utils import torchutils

    context = CONTEXT if conditional else None
    if kind.startswith("coupling"):
        def net(inputs: int, outputs: int) -> torch.nn.Module:
            from nflows.nn.nets import ResidualNet

            return ResidualNet(inputs, outputs, hidden_features=HIDDEN, context_features=context, num_blocks=2)

        mask = torchutils.create_alternating_binary_mask(FEATURES, even=True)
        cls = {
            "coupling_affine": transforms.AffineCouplingTransform,
            "coupling_additive": transforms.AdditiveCouplingTransform,
            "coupling_rq": transforms.PiecewiseRationalQuadraticCouplingTransform,
            "coupling_linear": transforms.PiecewiseLinearCouplingTransform,
        }[kind]
        options: dict[str, Any] = {}
        if kind == "coupling_rq":
            options = {"num_bins": 4, "tails": "linear", "tail_bound": 3.0}
        return cls(mask=mask, transform_net_create_fn=net, **options)
    common = {"features": FEATURES, "hidden_features": HIDDEN, "context_features": context}
    if kind == "affine":
        return transforms.MaskedAffineAutoregressiveTransform(**common)
    if kind == "rq":
        return transforms.MaskedPiecewiseRationalQuadraticAutoregressiveTransform(num_bins=4, tails="linear", tail_bound=3.0, **common)
    return {
        "linear": transforms.MaskedPiecewiseLinearAutoregressiveTransform,
        "quadratic": transforms.MaskedPiecewiseQuadraticAutoregressiveTransform,
        "cubic": transforms.MaskedPiecewiseCubicAutoregressiveTransform,
    }[kind](num_bins=4, **common)


def _composed(kind: str, conditional: bool, sample: bool = False):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        from nflows import distributions, transforms
        from nflows.flows.base import Flow

        layers = []
        for _ in range(2):
            layers += [transforms.ReversePermutation(features=FEATURES), _transform(kind, conditional)]
        base = (distributions.ConditionalDiagonalNormal(shape=[FEATURES], context_encoder=_encoder())
                if conditional else distributions.StandardNormal(shape=[FEATURES]))
        flow = Flow(transforms.CompositeTransform(layers), base)
        if sample:
            return _Sample(flow)
        return _ConditionalLogProb(flow) if conditional else _LogProb(flow)

    return build


def _encoder() -> Any:
    import torch

    return torch.nn.Linear(CONTEXT, 2 * FEATURES)


def _classes() -> tuple[Any, Any, Any]:
    import torch

    class LogProb(torch.nn.Module):
        def __init__(self, flow: torch.nn.Module) -> None:
            super().__init__()
            self.flow = flow

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return self.flow.log_prob(x)

    class ConditionalLogProb(LogProb):
        def forward(self, x: torch.Tensor, c: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
            return self.flow.log_prob(x, context=c)

    class Sample(LogProb):
        def forward(self, c: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
            return self.flow.sample(2, context=c)

    return LogProb, ConditionalLogProb, Sample


def _LogProb(flow: Any) -> Any:
    return _classes()[0](flow)


def _ConditionalLogProb(flow: Any) -> Any:
    return _classes()[1](flow)


def _Sample(flow: Any) -> Any:
    return _classes()[2](flow)


def _points(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    return (torch.randn([4, 6, 8][v], FEATURES, generator=g),), {}


def _unit_points(v: int, g: Any) -> tuple[tuple, dict]:
    import torch  # the splines without tails map [0, 1] to itself and reject other inputs

    return (torch.rand([4, 6, 8][v], FEATURES, generator=g),), {}


def _pairs(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b = [4, 6, 8][v]
    return (torch.randn(b, FEATURES, generator=g), torch.randn(b, CONTEXT, generator=g)), {}


def _contexts(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    return (torch.randn([4, 6, 8][v], CONTEXT, generator=g),), {}


UNIT_DOMAIN = {"linear", "quadratic", "cubic", "coupling_linear"}
KINDS = ["affine", "rq", "linear", "quadratic", "cubic", "coupling_affine", "coupling_additive", "coupling_rq", "coupling_linear"]


def models():  # type: ignore[no-untyped-def]
    return package_cases(
        PACKAGE,
        [(f"nflows_{n.lower()}", _ready(n), custom(_points), {}) for n in ("MaskedAutoregressiveFlow", "SimpleRealNVP")]
        + [(f"nflows_{k}_log_prob", _composed(k, False), custom(_unit_points if k in UNIT_DOMAIN else _points), {}) for k in KINDS]
        + [(f"nflows_{k}_conditional_log_prob", _composed(k, True), custom(_pairs), {}) for k in ("affine", "rq", "coupling_affine")]
        + [(f"nflows_{k}_sample", _composed(k, True, sample=True), custom(_contexts), {"train": False}) for k in ("affine", "coupling_affine")],
    )
