"""Targets for `compilelint verify`: what to run, on which inputs."""

import torch

from model import TinyGPT


def target_tinygpt():
    torch.manual_seed(0)
    model = TinyGPT().eval()
    inputs = [(torch.randint(0, 256, (2, 16)),), (torch.randint(0, 256, (4, 24)),)]
    return model, inputs
