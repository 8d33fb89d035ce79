"""torchcde (Patrick Kidger): neural controlled differential equations.

Chosen by session 10's rule (see nflows_models.py).  Here: the README's NeuralCDE
(an interpolated control path, an initial linear map, cdeint, a linear readout) with
each interpolation torchcde offers (natural cubic, linear, Hermite cubic with backward
differences), the adjoint and the direct solver, a fixed-step rk4 solve, and the
coefficients computed inside forward (as the README's training loop could put them).
"""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom

PACKAGE = "torchcde"
CHANNELS, HIDDEN = 3, 8  # channels include time


def _cde(interpolation: str = "cubic", coeffs_inside: bool = False, **cdeint_options: Any):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        import torch
        import torchcde

        class CDEFunc(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.linear1 = torch.nn.Linear(HIDDEN, 16)
                self.linear2 = torch.nn.Linear(16, CHANNELS * HIDDEN)

            def forward(self, t: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
                z = self.linear1(z).relu()
                z = self.linear2(z).tanh()
                return z.view(z.size(0), HIDDEN, CHANNELS)

        class NeuralCDE(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.func = CDEFunc()
                self.initial = torch.nn.Linear(CHANNELS, HIDDEN)
                self.readout = torch.nn.Linear(HIDDEN, 2)

            def forward(self, coeffs: torch.Tensor) -> torch.Tensor:
                if coeffs_inside:
                    coeffs = torchcde.natural_cubic_coeffs(coeffs)
                if interpolation == "linear":
                    X = torchcde.LinearInterpolation(coeffs)
                else:  # hermite coefficients are read by CubicSpline too
                    X = torchcde.CubicSpline(coeffs)
                z0 = self.initial(X.evaluate(X.interval[0]))
                z_t = torchcde.cdeint(X=X, z0=z0, func=self.func, t=X.interval, **cdeint_options)
                return self.readout(z_t[:, 1])

        return NeuralCDE()

    return build


def _path(v: int, g: Any) -> Any:
    import torch

    b, n = [(2, 8), (3, 10), (4, 12)][v]
    t = torch.linspace(0, 1, n).expand(b, n).unsqueeze(-1)
    return torch.cat([t, torch.randn(b, n, CHANNELS - 1, generator=g)], dim=-1)


def _coefficients(kind: str):  # type: ignore[no-untyped-def]
    def make(v: int, g: Any) -> tuple[tuple, dict]:
        import torchcde

        x = _path(v, g)
        if kind == "raw":
            return (x,), {}
        coeffs = {
            "cubic": torchcde.natural_cubic_coeffs,
            "linear": torchcde.linear_interpolation_coeffs,
            "hermite": torchcde.hermite_cubic_coefficients_with_backward_differences,
        }[kind](x)
        return (coeffs,), {}

    return make


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("torchcde_cubic", _cde(), custom(_coefficients("cubic")), {}),
        ("torchcde_linear", _cde("linear"), custom(_coefficients("linear")), {}),
        ("torchcde_hermite", _cde("hermite"), custom(_coefficients("hermite")), {}),
        ("torchcde_direct", _cde(adjoint=False), custom(_coefficients("cubic")), {}),
        ("torchcde_rk4", _cde(adjoint=False, method="rk4", options={"step_size": 0.25}), custom(_coefficients("cubic")), {}),
        ("torchcde_coeffs_in_forward", _cde(coeffs_inside=True), custom(_coefficients("raw")), {}),
    ])
