"""Targets for bench/user_patterns.py: training_and_inference.py."""
import torch
import training_and_inference as m


def _x(*s):
    return torch.randn(*s)


def target_train_step():
    return m.train_step, [(_x(2, 4), _x(2, 4)), (_x(3, 4), _x(3, 4))]


def target_greedy():
    dec = m.Decoder()
    return m.greedy_decode, [(dec, torch.tensor([[1]]), 3, 0), (dec, torch.tensor([[2]]), 3, 0)]


def target_generate():
    dec = m.Decoder()
    return torch.compile(dec.generate), [(torch.tensor([[1]]),), (torch.tensor([[2]]),)]


def target_top_p():
    return m.TopP(), [(_x(2, 8),), (_x(3, 8),)]


def target_nms():
    return m.NMSLike(), [(_x(4, 4), _x(4)), (_x(5, 4), _x(5))]


def target_scatter_add():
    return m.ScatterAdd(), [(_x(4, 3), torch.tensor([0, 1, 1, 2])), (_x(5, 3), torch.tensor([0, 2, 1, 2, 3]))]


def target_masked_mean():
    return m.MaskedMean(), [(_x(2, 3, 4), torch.ones(2, 3)), (_x(3, 5, 4), torch.ones(3, 5))]


def target_pad_multiple():
    return m.PadToMultiple(), [(_x(2, 5),), (_x(2, 9),), (_x(2, 13),)]


def target_causal_cache():
    return m.CausalMaskCache(), [(_x(2, 8, 8),), (_x(2, 12, 12),), (_x(2, 20, 20),)]


def target_rotary_cache():
    return m.RotaryCache(), [(_x(2, 8, 4),), (_x(2, 12, 4),), (_x(2, 20, 4),)]


def target_label():
    return m.Label(), [(_x(4, 5), torch.tensor([1, -100, 2, 3])), (_x(6, 5), torch.tensor([1, 2, -100, 3, 0, 4]))]


def target_einsum():
    return m.EinsumAttention(), [(_x(1, 2, 4, 8), _x(1, 2, 4, 8), _x(1, 2, 4, 8)), (_x(1, 2, 6, 8), _x(1, 2, 6, 8), _x(1, 2, 6, 8))]


def target_numpy():
    return m.NumpyInterop(), [(_x(4),), (_x(6),)]


def target_random_augment():
    return m.RandomAugment(), [(_x(4),), (_x(6),)]


def target_gumbel():
    return m.GumbelTopk(), [(_x(2, 8),), (_x(3, 8),)]


def target_histogram():
    return m.Histogram(), [(_x(8),), (_x(10),)]
