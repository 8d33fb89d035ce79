"""Real models from installed packages, wrapped the way users write them (bench only).

Run on the GPU machine, whose image has transformers, timm, torchdiffeq, torch_geometric,
torchvision and torchmetrics:  bash bench/gpu_advisor/run.sh
"""

from __future__ import annotations

import torch
import torch.nn as nn


class ODEBlock(nn.Module):
    """A neural-ODE block as in torchdiffeq's examples: an adaptive solver in forward."""

    def __init__(self, width: int = 64) -> None:
        super().__init__()
        self.func = nn.Sequential(nn.Linear(width, width), nn.Tanh(), nn.Linear(width, width))
        self.register_buffer("t", torch.tensor([0.0, 1.0]))

    def dynamics(self, t: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        return self.func(y)

    def forward(self, y: torch.Tensor) -> torch.Tensor:
        from torchdiffeq import odeint

        return odeint(self.dynamics, y, self.t, method="dopri5", rtol=1e-3, atol=1e-4)[-1]


class GAT(nn.Module):
    """Two GATConv layers (PyG), node classification on one graph."""

    def __init__(self, features: int = 32, hidden: int = 64, classes: int = 7) -> None:
        super().__init__()
        from torch_geometric.nn import GATConv

        self.conv1 = GATConv(features, hidden, heads=4, concat=False)
        self.conv2 = GATConv(hidden, classes, heads=1)

    def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
        return self.conv2(torch.relu(self.conv1(x, edge_index)), edge_index)


class ClassifierWithMetric(nn.Module):
    """A classifier head that also computes accuracy with torchmetrics inside forward."""

    def __init__(self, width: int = 256, classes: int = 10) -> None:
        super().__init__()
        self.head = nn.Sequential(nn.Linear(width, width), nn.GELU(), nn.Linear(width, classes))

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        from torchmetrics.functional import accuracy

        logits = self.head(x)
        return logits, accuracy(logits, target, task="multiclass", num_classes=logits.shape[-1])


class PrintingMLP(nn.Module):
    """An 8-block MLP with a debugging print every other block (the DESIGN.md probe)."""

    def __init__(self, width: int = 1024, blocks: int = 8) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(nn.Sequential(nn.Linear(width, width), nn.GELU()) for _ in range(blocks))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for index, block in enumerate(self.blocks):
            x = x + block(x)
            if index % 2:
                print("block", index, x.norm())
        return x


class PrintingMLPFixed(PrintingMLP):
    """What `compilelint --fix` makes of PrintingMLP: the print guarded."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for index, block in enumerate(self.blocks):
            x = x + block(x)
            if index % 2:
                if not torch.compiler.is_compiling():
                    print("block", index, x.norm())
        return x


class ODEBlockFixed(ODEBlock):
    """By hand (no --fix exists): the solver kept out of the compiled region, its
    dynamics compiled on their own. torchdiffeq's step-size setup calls
    ``torch.unique`` (rk_common.py), which Inductor cannot lower."""

    def __init__(self, width: int = 64) -> None:
        super().__init__(width)
        self.func.compile()

    @torch.compiler.disable
    def forward(self, y: torch.Tensor) -> torch.Tensor:
        return super().forward(y)


class GATFixed(GAT):
    """By hand: self-loops added once, outside the model (the mask-indexing breaks in
    torch_geometric/utils/loop.py), and the node and edge counts marked dynamic in the
    targets (the recompiles on each new graph size)."""

    def __init__(self, features: int = 32, hidden: int = 64, classes: int = 7) -> None:
        super().__init__(features, hidden, classes)
        from torch_geometric.nn import GATConv

        self.conv1 = GATConv(features, hidden, heads=4, concat=False, add_self_loops=False)
        self.conv2 = GATConv(hidden, classes, heads=1, add_self_loops=False)


def keep_lstms_eager(model: nn.Module) -> nn.Module:
    """By hand for timm's sequencer: every LSTM runs eager (Dynamo breaks on nn.LSTM), so
    Dynamo compiles the rest without tracing into it."""
    for module in model.modules():
        if isinstance(module, nn.LSTM):
            module.forward = torch.compiler.disable(module.forward)  # type: ignore[method-assign]
    return model
