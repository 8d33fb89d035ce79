"""Small targets for --dynamic, --compile-time, --summary and --plot (CPU, eager backend)."""

import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(8, 8)

    def forward(self, x):
        return torch.relu(self.linear(x))


class Stack(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block() for _ in range(3))

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return x


def target_stack():
    torch.manual_seed(0)
    return Stack().eval(), [(torch.randn(b, 8),) for b in (2, 3, 4, 5)]


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.step = 0

    def forward(self, x):
        self.step += 1
        return x * self.step


def target_counter():
    return Counter(), [(torch.ones(3),) for _ in range(4)]
