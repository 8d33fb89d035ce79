"""Graph classification with PyG: GCN and GAT layers, then pooling."""
import torch
import torch.nn.functional as F
from torch import nn
from torch_geometric.nn import GATConv, GCNConv, SAGEConv, TopKPooling, global_max_pool, global_mean_pool


class GCN(nn.Module):
    def __init__(self, in_dim=16, hidden=32, classes=3):
        super().__init__()
        self.conv1 = GCNConv(in_dim, hidden)
        self.conv2 = GCNConv(hidden, hidden)
        self.lin = nn.Linear(hidden, classes)

    def forward(self, x, edge_index, batch):
        x = F.relu(self.conv1(x, edge_index))
        x = F.relu(self.conv2(x, edge_index))
        return self.lin(global_mean_pool(x, batch))


class GAT(nn.Module):
    def __init__(self, in_dim=16, hidden=8, heads=4, classes=3):
        super().__init__()
        self.conv1 = GATConv(in_dim, hidden, heads=heads)
        self.conv2 = GATConv(hidden * heads, classes, heads=1)

    def forward(self, x, edge_index):
        x = F.elu(self.conv1(x, edge_index))
        return self.conv2(x, edge_index)


class SAGEPool(nn.Module):
    def __init__(self, in_dim=16, hidden=32, classes=3):
        super().__init__()
        self.conv = SAGEConv(in_dim, hidden)
        self.pool = TopKPooling(hidden, ratio=0.5)
        self.lin = nn.Linear(hidden, classes)

    def forward(self, x, edge_index, batch):
        x = F.relu(self.conv(x, edge_index))
        x, edge_index, _, batch, _, _ = self.pool(x, edge_index, None, batch)
        return self.lin(global_max_pool(x, batch))
