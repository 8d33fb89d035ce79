"""Targets for bench/user_patterns.py: serving_and_control.py."""
import torch
import serving_and_control as m


def _x(*s):
    return torch.randn(*s)


def target_device_aware():
    return m.DeviceAware(), [(_x(2, 4),), (_x(3, 4),)]


def target_timed():
    return m.Timed(), [(_x(2, 4),), (_x(3, 4),)]


def target_try_except():
    return m.TryExcept(), [(_x(3, 3),), (_x(4, 4),)]


def target_suppressed():
    return m.Suppressed(), [(_x(2, 4),), (_x(3, 4),)]


def target_kwargs():
    return m.KwargsPlumbing(), [((_x(2, 4),), {"scale": 2.0}), ((_x(3, 4),), {"residual": True})]


def target_dispatch_by_name():
    return m.DispatchByName(), [(_x(2, 4),), (_x(3, 4),)]


def target_sample_next():
    return m.SampleNext(), [(_x(2, 8),), (_x(3, 8), 0.7)]


def target_string_key_cache():
    return m.StringKeyCache(), [(_x(2, 4),), (_x(2, 4), "b")]


def target_optional_mask():
    return m.OptionalMask(), [(_x(2, 4),), (_x(2, 4), torch.rand(2, 4) > 0.5)]


def target_is_tensor_check():
    return m.IsTensorCheck(), [(_x(2, 4),), (_x(2, 4), torch.ones(4))]


def target_logged_shapes():
    return m.LoggedShapes(), [(_x(2, 4),), (_x(3, 4),)]


def target_dict_output():
    return m.DictOutput(), [(_x(2, 4),), (_x(3, 4),)]


def target_manual_seed():
    return m.ManualSeedInForward(), [(_x(2, 4),), (_x(3, 4),)]


def target_any_nan():
    return m.AnyOnTensorValues(), [(_x(2, 4),), (_x(3, 4),)]


def target_clamp_bounds():
    return m.ClampWithPythonBounds(), [(_x(2, 4),), (_x(3, 4),)]


def target_gather_by_list():
    return m.GatherByList(), [(_x(2, 6), [0, 2]), (_x(3, 6), [1, 3, 5])]


def target_repeat_interleave():
    return m.RepeatInterleave(), [(_x(3, 4), torch.tensor([1, 2, 0])), (_x(2, 4), torch.tensor([2, 2]))]


def target_cumulative():
    return m.Cumulative(), [(_x(3, 4),), (_x(4, 4),)]


def target_shape_assert():
    return m.ShapeAssert(), [(_x(2, 4),), (_x(3, 6),)]


def target_einsum_heads():
    return m.EinsumHeads(), [(_x(2, 3, 4), _x(2, 5, 4)), (_x(3, 3, 4), _x(3, 5, 4))]
