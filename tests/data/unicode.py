import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        é = "äöü"; print(x)  # non-ASCII before the finding
        return x
