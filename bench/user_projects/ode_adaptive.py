"""A neural ODE classifier block, as in the torchdiffeq examples: adaptive dopri5 solver."""
import torch
from torch import nn
from torchdiffeq import odeint


class ODEFunc(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 64), nn.Tanh(), nn.Linear(64, dim))

    def forward(self, t, y):
        return self.net(y)


class ODEBlock(nn.Module):
    def __init__(self, dim, tol=1e-3):
        super().__init__()
        self.odefunc = ODEFunc(dim)
        self.tol = tol
        self.register_buffer("integration_time", torch.tensor([0.0, 1.0]))

    def forward(self, x):
        out = odeint(self.odefunc, x, self.integration_time, rtol=self.tol, atol=self.tol, method="dopri5")
        return out[1]


class ODEClassifier(nn.Module):
    def __init__(self, dim=16, classes=4):
        super().__init__()
        self.inp = nn.Linear(dim, dim)
        self.block = ODEBlock(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, x):
        return self.head(self.block(torch.relu(self.inp(x))))
