import torch
import torch.nn as nn


class Net(nn.Module):
    def forward(self, x):
        print(x)  # noqa
        print(x)  # noqa: CL101,CL103
        print(x)  # noqa: CL103
        if x.sum() > 0:  # noqa: CL101, CL103
            x = x + 1
        print(x)
        return x
