"""Targets for bench/user_patterns.py: graphs_points_and_tables.py."""
import torch
import graphs_points_and_tables as m


def _x(*s):
    return torch.randn(*s)


def _edges(n, e, seed):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, n, (2, e), generator=g)


def target_mean_aggregation():
    return m.MeanAggregation(), [(_x(5, 8), _edges(5, 9, 0)), (_x(7, 8), _edges(7, 12, 1))]


def target_graph_attention():
    return m.GraphAttention(), [(_x(5, 8), _edges(5, 9, 0)), (_x(7, 8), _edges(7, 12, 1))]


def target_add_self_loops():
    return m.AddSelfLoops(), [(_edges(5, 9, 0), 5), (_edges(7, 12, 1), 7)]


def target_knn_graph():
    return m.KnnGraph(), [(_x(6, 3),), (_x(9, 3),)]


def target_radius_graph():
    return m.RadiusGraph(), [(torch.rand(6, 3),), (torch.rand(9, 3),)]


def target_farthest_point_sampling():
    return m.FarthestPointSampling(), [(_x(8, 3),), (_x(11, 3),)]


def target_voxelize():
    return m.Voxelize(), [(torch.rand(8, 3), _x(8, 4)), (torch.rand(11, 3), _x(11, 4))]


def _batch(n, seed):
    g = torch.Generator().manual_seed(seed)
    return {"country": torch.randint(0, 5, (n,), generator=g), "device": torch.randint(0, 3, (n,), generator=g),
            "plan": torch.randint(0, 4, (n,), generator=g)}


def target_column_embeddings():
    return m.ColumnEmbeddings(), [(_batch(4, 0),), (_batch(6, 1),)]


def target_running_norm():
    return m.RunningNorm(), [(_x(4, 6),), (_x(6, 6),), (_x(8, 6),)]


def target_missing_value_mask():
    a, b = _x(4, 6), _x(6, 6)
    b[1, 2] = float("nan")
    return m.MissingValueMask(), [(a,), (b,)]


def target_quantile_bins():
    return m.QuantileBins(), [(_x(12),), (_x(16),)]


def target_lag_features():
    return m.LagFeatures(), [(_x(2, 10),), (_x(3, 14),)]


def target_sliding_windows():
    return m.SlidingWindows(), [(_x(2, 10),), (_x(3, 14),), (_x(2, 18),)]


def target_seasonality():
    return m.Seasonality(), [(torch.arange(10.0),), (torch.arange(14.0),)]


def target_negative_sampling():
    return m.NegativeSampling(), [(_x(4, 8), torch.randint(0, 50, (4,))), (_x(6, 8), torch.randint(0, 50, (6,)))]


def target_in_batch_contrastive():
    return m.InBatchContrastive(), [(_x(4, 8), _x(4, 8)), (_x(6, 8), _x(6, 8), torch.tensor([0, 1, 1, 2, 3, 3]))]


def target_hashed_features():
    return m.HashedFeatures(), [(torch.randint(0, 16, (3,)), ["a", "b", "c"]), (torch.randint(0, 16, (4,)), ["d", "e", "f", "g"])]
