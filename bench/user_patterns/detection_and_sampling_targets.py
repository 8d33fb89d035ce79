"""Targets for bench/user_patterns.py: detection_and_sampling.py."""
import torch
import detection_and_sampling as m


def _x(*s):
    return torch.randn(*s)


def _boxes(n, seed):
    g = torch.Generator().manual_seed(seed)
    xy = torch.rand(n, 2, generator=g) * 50
    wh = torch.rand(n, 2, generator=g) * 20 + 5
    return torch.cat([xy, xy + wh], -1)


def target_greedy_nms():
    return m.GreedyNMS(), [(_boxes(6, 0), torch.rand(6)), (_boxes(9, 1), torch.rand(9))]


def target_box_decoder():
    return m.BoxDecoder(), [(_boxes(6, 0), _x(6, 4)), (_boxes(9, 1), _x(9, 4))]


def target_anchor_generator():
    return m.AnchorGenerator(), [(_x(1, 4, 5, 6),), (_x(1, 4, 7, 3),)]


def target_score_filter():
    return m.ScoreFilter(), [(_boxes(6, 0), torch.rand(6)), (_boxes(9, 1), torch.rand(9))]


def target_detection_metrics():
    return m.DetectionMetrics(), [(_boxes(6, 0), _boxes(4, 2)), (_boxes(9, 1), _boxes(5, 3))]


def target_ddim_step():
    return m.DDIMStep(), [(_x(2, 4), _x(2, 4), 980), (_x(2, 4), _x(2, 4), 960), (_x(2, 4), _x(2, 4), 0)]


def target_list_scheduler():
    return m.ListScheduler(), [(_x(2, 4), _x(2, 4), 0), (_x(2, 4), _x(2, 4), 1), (_x(2, 4), _x(2, 4), 2)]


def target_timestep_embedding():
    return m.TimestepEmbedding(), [(torch.tensor([10, 500]),), (torch.tensor([3, 7, 900]),)]


def target_guided_denoiser():
    return m.GuidedDenoiser(), [(_x(2, 8), _x(2, 8)), (_x(3, 8), _x(3, 8), 1.0), (_x(3, 8), _x(3, 8), 5.0)]


def target_sampling_loop():
    return m.SamplingLoop(), [(_x(2, 8),), (_x(3, 8),)]


def target_spectrogram_front_end():
    return m.SpectrogramFrontEnd(), [(_x(2, 400),), (_x(3, 560),)]


def target_mel_filter():
    return m.MelFilter(), [(_x(2, 33, 10),), (_x(3, 33, 14),)]


def target_framing():
    return m.Framing(), [(_x(2, 200),), (_x(3, 260),)]


def target_segmentation_head():
    return m.SegmentationHead(), [(_x(1, 4, 8, 8), (32, 32)), (_x(2, 4, 6, 10), (24, 40))]


def target_class_histogram():
    return m.ClassHistogram(), [(torch.randint(0, 3, (2, 5, 5)),), (torch.randint(0, 3, (3, 4, 6)),)]


def target_confusion_matrix():
    return m.ConfusionMatrix(), [(torch.randint(0, 3, (2, 5, 5)), torch.randint(0, 3, (2, 5, 5))),
                                 (torch.randint(0, 3, (3, 4, 6)), torch.randint(0, 3, (3, 4, 6)))]


def target_policy_head():
    return m.PolicyHead(), [(_x(2, 8),), (_x(5, 8),)]


def target_epsilon_greedy():
    return m.EpsilonGreedy(), [(_x(2, 8),), (_x(5, 8),)]


def target_gradient_penalty():
    return m.GradientPenalty(), [(_x(4, 8), _x(4, 8)), (_x(6, 8), _x(6, 8))]
