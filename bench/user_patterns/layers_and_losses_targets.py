"""Targets for bench/user_patterns.py: layers_and_losses.py."""
import torch
import layers_and_losses as m


def _x(*s):
    return torch.randn(*s)


def _labels(b, n):
    return torch.randint(0, n, (b,))


def target_focal():
    return m.FocalLoss(), [(_x(4, 3), torch.rand(4, 3)), (_x(6, 3), torch.rand(6, 3))]


def target_dice():
    return m.DiceWithSmooth(), [(torch.rand(4, 4), torch.rand(4, 4)), (torch.rand(6, 4), torch.rand(6, 4))]


def target_accuracy():
    return m.AccuracyMetric(), [(_x(4, 3), _labels(4, 3)), (_x(6, 3), _labels(6, 3))]


def target_random_flip():
    return m.RandomFlip(), [(_x(2, 4),), (_x(3, 4),)]


def target_noise_env():
    return m.NoiseIfEnv(), [(_x(2, 4),), (_x(3, 4),)]


def target_autocast():
    return m.AutocastBlock(), [(_x(2, 8),), (_x(3, 8),)]


def target_checkpoint():
    return m.CheckpointedStack(), [(_x(2, 8),), (_x(3, 8),)]


def target_scale_grad():
    return m.UsesScaleGrad(), [(_x(2, 4),), (_x(3, 4),)]


def target_hooked():
    return m.HookedModel(), [(_x(2, 8),), (_x(3, 8),)]


def target_named_output():
    return m.NamedOutput(), [(_x(2, 4),), (_x(3, 4),)]


def target_cached_positions():
    return m.CachedPositions(), [(_x(2, 5, 8),), (_x(2, 7, 8),)]


def target_deque():
    return m.DequeHistory(), [(_x(2, 4),), (_x(2, 4),), (_x(2, 4),)]


def target_pairwise():
    return m.PairwiseLoop(), [(_x(3, 4),), (_x(4, 4),)]


def target_warn_once():
    return m.WarnOnce(), [(_x(2, 4).double(),), (_x(3, 4).double(),)]


def target_no_grad_stats():
    return m.NoGradStats(), [(_x(2, 8),), (_x(3, 8),)]


def target_distribution():
    return m.DistributionSample(), [(_x(2, 4), _x(2, 4)), (_x(3, 4), _x(3, 4))]


def target_module_dict():
    return m.ModuleDictByName(), [(_x(2, 8),), (_x(3, 8), "reg")]


def target_percentile_clamp():
    return m.ClampByPercentile(), [(_x(4, 4),), (_x(5, 4),)]


def target_topk_mask():
    return m.TopKMask(), [(_x(2, 8),), (_x(3, 8),)]


def target_split_sizes():
    return m.ListOfShapes(), [(_x(2, 8),), (_x(3, 10),)]


def target_bool_mask():
    return m.BoolMaskSelect(), [(_x(4, 4),), (_x(5, 4),)]


def target_numpy_metric():
    return m.TensorToNumpyMetric(), [(_x(4, 4),), (_x(5, 4),)]


def target_label_smoothing():
    return m.LabelSmoothing(), [(_x(4, 5), _labels(4, 5)), (_x(6, 5), _labels(6, 5))]
