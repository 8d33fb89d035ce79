"""A backend that fails the way Inductor does when it cannot lower an op (test data)."""

import torch
import torch.nn as nn
from torch._dynamo import register_backend


@register_backend
def fails_on_sin(gm, example_inputs):
    for node in gm.graph.nodes:
        if node.target is torch.sin:
            trace = node.meta.get("stack_trace", "")
            raise RuntimeError(f"NotImplementedError: no lowering\n  target: aten.sin.default\nFound from : \n {trace}")
    return gm.forward


class SinAfterPrint(nn.Module):
    def forward(self, x):
        y = x * 2
        print("scale", y.shape)
        return torch.sin(y) + 1


def target_backend_fails():
    return SinAfterPrint(), [(torch.randn(4),), (torch.randn(4),)]
