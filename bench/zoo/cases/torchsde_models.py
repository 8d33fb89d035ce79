"""torchsde: neural SDEs solved with sdeint (Brownian interval bookkeeping in Python)."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import custom

PACKAGE = "torchsde"


def _sde(method: str, noise: str):
    def build():  # type: ignore[no-untyped-def]
        import torch
        import torchsde

        class SDE(torch.nn.Module):
            noise_type = noise
            sde_type = "ito"

            def __init__(self) -> None:
                super().__init__()
                self.drift = torch.nn.Linear(4, 4)
                self.diffusion = torch.nn.Linear(4, 4)

            def f(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                return torch.tanh(self.drift(y))

            def g(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                return torch.sigmoid(self.diffusion(y))

        class Solve(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.sde = SDE()

            def forward(self, y0: torch.Tensor, ts: torch.Tensor) -> torch.Tensor:
                return torchsde.sdeint(self.sde, y0, ts, method=method, dt=0.25)

        return Solve()

    return build


def _inputs(v, g):  # type: ignore[no-untyped-def]
    import torch

    b = [2, 3, 4][v]
    return (torch.randn(b, 4, generator=g), torch.linspace(0, 1, 3)), {}


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("sde_euler_diagonal", _sde("euler", "diagonal"), custom(_inputs), {}),
        ("sde_milstein_diagonal", _sde("milstein", "diagonal"), custom(_inputs), {}),
    ])
