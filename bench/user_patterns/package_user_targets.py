"""Targets for bench/user_patterns.py: package_user.py."""
import torch
import package_user as m

def _x(*s): return torch.randn(*s)
def _two(a, b): return [(a,), (b,)]
def target_uses_block(): return m.UsesBlock(), [(_x(4, 8),), (_x(6, 8),), (_x(8, 8),)]
def target_uses_topk(): return m.UsesTopk(), [(_x(4, 8), 2), (_x(4, 8), 3), (_x(4, 8), 4)]
def target_uses_normalize(): return m.UsesNormalize(), _two(_x(4, 8), _x(6, 8))
def target_shape_bucket(): return m.ShapeBucket(), [(_x(3, 2),), (_x(5, 2),), (_x(7, 2),)]
def target_temperature(): return m.TemperatureArg(), [(_x(4), 0.5), (_x(4), 0.7), (_x(4), 0.9), (_x(4), 1.1)]
def target_list_arg(): return m.ListArg(), [(_x(6), [2, 4]), (_x(6), [3, 3]), (_x(6), [1, 5])]
def target_dict_keys(): return m.DictArgKeys(), [({"x": _x(4), "scale": 2.0},), ({"x": _x(4), "scale": 3.0},), ({"x": _x(4), "scale": 4.0},)]
def target_counter(): return m.CounterInForward(), [(_x(4),), (_x(4),), (_x(4),), (_x(4),)]
def target_history(): return m.ListAppendState(), [(_x(4),), (_x(4),), (_x(4),)]
