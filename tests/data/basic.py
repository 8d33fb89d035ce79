"""A model with graph breaks: the CLI and flake8 tests lint this file."""

import logging

import torch
import torch.nn as nn

logger = logging.getLogger(__name__)


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, x):
        y = self.proj(x)
        print(y)
        logger.info("forward")
        return self._mix(y)

    def _mix(self, y):
        if y.sum() > 0:
            y = y * 2
        return y
