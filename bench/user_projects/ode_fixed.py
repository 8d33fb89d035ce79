"""Latent dynamics with fixed-step solvers (rk4 for the trajectory, euler for a quick rollout)."""
import torch
import torch.nn as nn
import torchdiffeq


class Dynamics(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.fc1 = nn.Linear(dim, 32)
        self.fc2 = nn.Linear(32, dim)

    def forward(self, t, z):
        return self.fc2(torch.tanh(self.fc1(z)))


class LatentODE(nn.Module):
    def __init__(self, dim=8, step=0.25):
        super().__init__()
        self.dynamics = Dynamics(dim)
        self.step = step

    def forward(self, z0, ts):
        traj = torchdiffeq.odeint(self.dynamics, z0, ts, method="rk4", options=dict(step_size=self.step))
        return traj.permute(1, 0, 2)


class Rollout(nn.Module):
    def __init__(self, dim=8):
        super().__init__()
        self.dynamics = Dynamics(dim)

    def forward(self, z0, ts):
        return torchdiffeq.odeint(self.dynamics, z0, ts, method="euler")[-1]
