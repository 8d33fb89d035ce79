"""Targets for bench/user_patterns.py: generation_and_efficiency.py."""
import torch
import generation_and_efficiency as m


def _x(*s):
    return torch.randn(*s)


def target_repetition_penalty():
    return m.RepetitionPenalty(), [(_x(2, 12), torch.randint(0, 12, (2, 5))), (_x(3, 12), torch.randint(0, 12, (3, 7)))]


def target_top_p_filter():
    return m.TopPFilter(), [(_x(2, 12),), (_x(3, 12),)]


def target_stop_on_token():
    return m.StopOnToken(), [(torch.randint(0, 12, (2, 3)),), (torch.randint(0, 12, (3, 5)),)]


def target_sinusoid_cache():
    return m.SinusoidCache(), [(_x(2, 5, 8),), (_x(2, 7, 8),), (_x(2, 5, 8),)]


def target_rotary_cache():
    return m.RotaryCache(), [(_x(2, 5, 8),), (_x(2, 7, 8),), (_x(2, 9, 8),)]


def target_named_adapters():
    return m.NamedAdapters(), [(_x(2, 8),), (_x(2, 8), "de"), (_x(3, 8), "fr")]


def target_fake_quant():
    return m.FakeQuant(), [(_x(4, 8),), (_x(6, 8),)]


def target_per_channel_fake_quant():
    return m.PerChannelFakeQuant(), [(_x(4, 8),), (_x(6, 8),)]


def target_magnitude_prune():
    return m.MagnitudePrune(), [(_x(4, 8),), (_x(6, 8),)]


def target_stochastic_depth():
    return m.StochasticDepth(), [(_x(4, 8),), (_x(6, 8),), (_x(5, 8),)]


def target_spectral_norm_linear():
    return m.SpectralNormLinear(), [(_x(4, 8),), (_x(6, 8),)]


def target_ema_wrapper():
    return m.EMAWrapper(), [(_x(4, 8),), (_x(6, 8),)]


def target_patch_embed():
    return m.PatchEmbed(), [(_x(2, 3, 8, 8),), (_x(1, 3, 12, 8),)]


def target_token_merging():
    return m.TokenMerging(), [(_x(2, 8, 4),), (_x(3, 10, 4),)]
