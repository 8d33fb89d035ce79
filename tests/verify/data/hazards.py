"""Models with one hazard each. A "verify" marker comment on a line says which finding a
linter should report there (rule code), the status Dynamo gives it on torch 2.13 (CPU,
backend eager) and the modes it breaks in. A line marked "missed" breaks, and no rule
flags it. (The tests read the markers: keep their syntax out of this docstring.)
"""

import logging
import time

import torch

logger = logging.getLogger(__name__)


class PrintModel(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.proj(x)
        print("activations", y.shape)  # verify: CL101 confirmed default,fullgraph
        return torch.relu(y)


class BranchModel(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if x.sum() > 0:  # verify: CL103 confirmed default,fullgraph
            return x * 2
        return x - 1


def scalar_and_mask(x: torch.Tensor) -> torch.Tensor:
    scale = x.abs().max().item()  # verify: CL105 confirmed default
    positive = x[x > 0]  # verify: CL106 confirmed default
    return positive * scale


def checked(x: torch.Tensor) -> torch.Tensor:
    assert (x > -100).all()  # verify: CL104 not-reproduced
    return x + 1


@torch.compiler.disable
def host_side(x: torch.Tensor) -> torch.Tensor:
    return x.clone()


class SideEffects(torch.nn.Module):
    def forward(self, x: torch.Tensor, debug: bool = False) -> torch.Tensor:
        started = time.time()  # verify: CL107 confirmed default,fullgraph
        logger.warning("step")  # verify: CL102 confirmed default
        y = host_side(x)  # verify: CL108 confirmed default
        if debug:
            print("slow path", started)  # verify: CL101 not-reached
        return y * 2


class Unflagged(torch.nn.Module):
    """A break no rule flags: an explicit graph break."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = x + 1
        torch._dynamo.graph_break()  # verify: missed
        return y * 2


class Stateful(torch.nn.Module):
    """Recompile hazards: a counter Dynamo guards on, and a float that stays constant."""

    def __init__(self) -> None:
        super().__init__()
        self.step = 0

    def forward(self, x: torch.Tensor, temperature: float = 1.0) -> torch.Tensor:
        self.step += 1  # verify: CL202 confirmed default
        return x * 2 / temperature  # verify: CL204 not-reproduced
