"""A small model for `verify --compile-time` on the CPU with Inductor (bench only):

    compilelint verify --targets bench/gpu_advisor/cpu_stack.py --backend inductor --measure --dynamic --compile-time

Six blocks of one structure in a ModuleList (regional compilation compiles `Block ×6`),
three input sets that change the sequence length (the recompile --dynamic removes), and a
Python-number argument.
"""

import torch


class Block(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.norm = torch.nn.LayerNorm(width)
        self.fc1 = torch.nn.Linear(width, 4 * width)
        self.fc2 = torch.nn.Linear(4 * width, width)

    def forward(self, x):
        return x + self.fc2(torch.nn.functional.gelu(self.fc1(self.norm(x))))


class Stack(torch.nn.Module):
    def __init__(self, width=64, depth=6):
        super().__init__()
        self.layers = torch.nn.ModuleList(Block(width) for _ in range(depth))

    def forward(self, x, scale):
        for layer in self.layers:
            x = layer(x)
        return x * scale


def target_stack():
    torch.manual_seed(0)
    return Stack().eval(), [(torch.randn(4, 16, 64), 1.0), (torch.randn(4, 24, 64), 2.0), (torch.randn(4, 32, 64), 3.0)]
