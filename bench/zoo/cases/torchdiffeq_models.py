"""torchdiffeq: neural-ODE blocks, the way the torchdiffeq examples write them.

The ODE function and the block are user code (here); `odeint` and its solvers are
the package's.  Adaptive solvers (dopri5) pick step sizes from tensor values.
"""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import images, sequence

PACKAGE = "torchdiffeq"


def _block(method: str, adjoint: bool = False, conv: bool = False, **options):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        import torch
        import torchdiffeq

        class ODEFunc(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.net = (torch.nn.Sequential(torch.nn.Conv2d(8, 8, 3, padding=1), torch.nn.Tanh())
                            if conv else torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.Tanh(),
                                                             torch.nn.Linear(32, 16)))

            def forward(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
                return self.net(y)

        class ODEBlock(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.func = ODEFunc()
                self.register_buffer("t", torch.tensor([0.0, 1.0]))

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                solve = torchdiffeq.odeint_adjoint if adjoint else torchdiffeq.odeint
                return solve(self.func, x, self.t, method=method, rtol=1e-3, atol=1e-3, **options)[-1]

        return ODEBlock()

    return build


def models():  # type: ignore[no-untyped-def]
    seq = sequence(16, [(2, 4), (3, 5), (4, 6)])
    return package_cases(PACKAGE, [
        ("ode_block_dopri5", _block("dopri5"), seq, {}),
        ("ode_block_rk4", _block("rk4", options={"step_size": 0.25}), seq, {}),
        ("ode_block_adjoint_dopri5", _block("dopri5", adjoint=True), seq, {}),
        ("ode_conv_block_dopri5", _block("dopri5", conv=True), images(8, [(2, 8), (3, 10), (4, 12)]), {}),
        ("ode_block_bosh3", _block("bosh3"), seq, {}),
    ])
