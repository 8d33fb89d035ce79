"""PyG the way tutorials write it: a stack of layers in a ModuleList, and a layer of one's own
on MessagePassing that passes the node count it knows."""
import torch
from torch import nn
from torch_geometric.nn import GCNConv, MessagePassing, SAGEConv
from torch_geometric.utils import add_remaining_self_loops, degree


class DeepGCN(nn.Module):
    def __init__(self, dim=16, layers=3):
        super().__init__()
        self.convs = nn.ModuleList([GCNConv(dim, dim) for _ in range(layers)])

    def forward(self, x, edge_index):
        for conv in self.convs:
            x = conv(x, edge_index).relu()
        return x


class AppendedSAGE(nn.Module):
    def __init__(self, dim=16, layers=2):
        super().__init__()
        self.convs = nn.ModuleList()
        for _ in range(layers):
            self.convs.append(SAGEConv(dim, dim))

    def forward(self, x, edge_index):
        for conv in self.convs:
            x = conv(x, edge_index).relu()
        return x


class NormConv(MessagePassing):
    def __init__(self, dim=16):
        super().__init__(aggr="add")
        self.lin = nn.Linear(dim, dim)

    def forward(self, x, edge_index):
        edge_index, _ = add_remaining_self_loops(edge_index, num_nodes=x.size(0))
        row, col = edge_index
        deg = degree(col, x.size(0), dtype=x.dtype)
        norm = deg.pow(-0.5)[row] * deg.pow(-0.5)[col]
        return self.propagate(edge_index, x=self.lin(x), norm=norm)

    def message(self, x_j, norm):
        return norm.view(-1, 1) * x_j
