"""Targets for bench/user_patterns.py: routing_and_sequences.py."""
import torch
import routing_and_sequences as m


def _x(*s):
    return torch.randn(*s)


def target_topk_router():
    return m.TopKRouter(), [(_x(6, 8),), (_x(9, 8),)]


def target_dense_router():
    return m.DenseRouter(), [(_x(6, 8),), (_x(9, 8),)]


def target_scatter_mean():
    return m.ScatterMean(), [(_x(6, 3), torch.tensor([0, 1, 1, 2, 3, 3])), (_x(5, 3), torch.tensor([0, 0, 1, 2, 3]))]


def target_segment_max():
    return m.SegmentMax(), [(_x(6, 3), torch.tensor([0, 1, 1, 2, 3, 3])), (_x(5, 3), torch.tensor([0, 0, 1, 2, 2]))]


def target_padding_mask():
    return m.PaddingMask(), [(_x(2, 5, 3), torch.tensor([3, 5])), (_x(3, 7, 3), torch.tensor([2, 7, 4]))]


def target_trim_to_longest():
    return m.TrimToLongest(), [(_x(2, 5, 3), torch.tensor([3, 4])), (_x(3, 7, 3), torch.tensor([2, 6, 4]))]


def target_greedy_ctc():
    return m.GreedyCTC(), [(_x(2, 6, 5),), (_x(3, 8, 5),)]


def target_unique_consecutive():
    return m.UniqueConsecutive(), [(torch.tensor([1, 1, 2, 2, 3]),), (torch.tensor([4, 4, 4, 5]),)]


def target_beam():
    return m.BeamBookkeeping(), [(_x(2, 3, 7),), (_x(4, 3, 7),)]


def target_bucketize():
    return m.Bucketize(), [(_x(5),), (_x(7),)]


def target_searchsorted():
    cdf = torch.linspace(0, 1, 6)
    return m.SearchSortedGather(), [(cdf, torch.rand(4)), (cdf, torch.rand(9))]


def target_one_hot_dynamic():
    return m.OneHotDynamic(), [(torch.tensor([0, 2, 1]),), (torch.tensor([3, 1, 0, 2]),)]


def target_nonzero_select():
    return m.NonzeroSelect(), [(_x(6),), (_x(9),)]


def target_loop_until_done():
    return m.LoopUntilDone(), [(_x(4) * 5,), (_x(6) * 5,)]


def target_cumsum_positions():
    return m.CumsumPositions(), [(torch.rand(2, 6) > 0.5,), (torch.rand(3, 8) > 0.5,)]


def target_tokens_per_expert():
    return m.TokensPerExpertList(), [(torch.tensor([0, 1, 1, 3]),), (torch.tensor([2, 2, 0, 1, 3]),)]
