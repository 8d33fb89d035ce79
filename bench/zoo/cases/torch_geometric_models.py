"""torch_geometric (PyG, pure Python without torch_scatter): graph convolutions, pooling, batching.

Inputs are random graphs: node features, an edge_index, and a batch vector
assigning nodes to two to four graphs.  PyG's model zoo classes (GCN, GAT, ...)
and small user models over its conv and pooling layers.
"""
from __future__ import annotations

from typing import Any, Callable

from zoo.case import package_cases
from zoo.inputs import custom

PACKAGE = "torch_geometric"
FEATURES = 8


def _graph(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    nodes, edges, graphs = [(10, 30, 2), (15, 45, 3), (20, 60, 4)][v]
    x = torch.randn(nodes, FEATURES, generator=g)
    edge_index = torch.randint(0, nodes, (2, edges), generator=g)
    batch = torch.arange(nodes) * graphs // nodes
    return (x, edge_index), {"batch": batch}


def _plain(v: int, g: Any) -> tuple[tuple, dict]:
    args, _ = _graph(v, g)
    return args, {}


def _basic(cls: str, **kwargs: Any) -> Callable[[], Any]:
    def build():  # type: ignore[no-untyped-def]
        import torch_geometric.nn.models as models

        return getattr(models, cls)(in_channels=FEATURES, hidden_channels=16, num_layers=2, out_channels=4,
                                    dropout=0.1, **kwargs)

    return build


def _pooled(conv: str, pool: str) -> Callable[[], Any]:
    def build():  # type: ignore[no-untyped-def]
        import torch
        import torch_geometric.nn as gnn

        class GraphClassifier(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.conv = getattr(gnn, conv)(FEATURES, 16)
                self.pool = gnn.TopKPooling(16, ratio=0.5) if pool == "topk" else None
                self.out = torch.nn.Linear(16, 3)

            def forward(self, x: torch.Tensor, edge_index: torch.Tensor, batch: torch.Tensor) -> torch.Tensor:
                x = self.conv(x, edge_index).relu()
                if self.pool is not None:
                    x, edge_index, _, batch, _, _ = self.pool(x, edge_index, batch=batch)
                    return self.out(gnn.global_max_pool(x, batch))
                if pool == "dense":
                    from torch_geometric.utils import to_dense_batch

                    dense, mask = to_dense_batch(x, batch)
                    return self.out(dense.sum(1))
                return self.out(gnn.global_mean_pool(x, batch))

        return GraphClassifier()

    return build


def _masked_nodes() -> Any:
    import torch
    import torch_geometric.nn as gnn
    from torch_geometric.utils import dropout_edge, subgraph

    class MaskedNodes(torch.nn.Module):
        """A node-classification step: drop edges, keep a node subset by mask, classify it."""

        def __init__(self) -> None:
            super().__init__()
            self.conv = gnn.SAGEConv(FEATURES, 16)
            self.out = torch.nn.Linear(16, 4)

        def forward(self, x: torch.Tensor, edge_index: torch.Tensor) -> torch.Tensor:
            edge_index, _ = dropout_edge(edge_index, p=0.2, training=self.training)
            keep = x[:, 0] > 0
            edge_index, _ = subgraph(keep, edge_index, relabel_nodes=True, num_nodes=x.size(0))
            return self.out(self.conv(x[keep], edge_index))

    return MaskedNodes()


def models():  # type: ignore[no-untyped-def]
    graph, plain = custom(_graph), custom(_plain)
    return package_cases(PACKAGE, [
        ("gcn", _basic("GCN"), plain, {}),
        ("gat", _basic("GAT", heads=2), plain, {}),
        ("graphsage", _basic("GraphSAGE"), plain, {}),
        ("gin", _basic("GIN"), plain, {}),
        ("edgecnn", _basic("EdgeCNN"), plain, {}),
        ("gcn_mean_pool", _pooled("GCNConv", "mean"), graph, {}),
        ("transformerconv_dense_batch", _pooled("TransformerConv", "dense"), graph, {}),
        ("gatv2_topk_pool", _pooled("GATv2Conv", "topk"), graph, {}),
        ("sage_masked_subgraph", _masked_nodes, plain, {}),
    ])
