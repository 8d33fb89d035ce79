"""Targets for bench/user_patterns.py: everyday.py."""
import torch
import everyday as m

def _x(*shape):
    return torch.randn(*shape)

def _two(a, b):
    return [(a,), (b,)]

def target_scaled(): return m.Scaled(), _two(_x(4), _x(4))
def target_outer(): return m.Outer(), _two(_x(4), _x(4))
def target_torch_equal(): return m.TorchEqual(), [(_x(4), _x(4)), (_x(6), _x(6))]
def target_allclose(): return m.AllClose(), [(_x(4), _x(4)), (_x(6), _x(6))]
def target_categorical(): return m.Categorical(), _two(_x(3, 5), _x(4, 5))
def target_normal(): return m.NormalDist(), _two(_x(3), _x(5))
def target_hook(): return m.HookInForward(), _two(_x(4).requires_grad_(), _x(6).requires_grad_())
def target_signature(): return m.SignatureInForward(), _two(_x(4), _x(6))
def target_pack(): return m.PackPadded(), [(_x(2, 5, 4), torch.tensor([5, 3])), (_x(3, 6, 4), torch.tensor([6, 2, 4]))]
def target_fstring(): return m.FStringTensor(), _two(_x(4), _x(6))
def target_repr(): return m.ReprTensor(), _two(_x(4), _x(6))
def target_seed(): return m.ManualSeed(), _two(_x(4), _x(6))
def target_shuffle(): return m.RandomShuffle(), _two(_x(4, 2), _x(6, 2))
def target_env(): return m.EnvLookup(), _two(_x(4), _x(6))
def target_perf(): return m.PerfCounter(), _two(_x(4), _x(6))
def target_isnan(): return m.MathIsnan(), _two(_x(4), _x(6))
def target_tolist_set(): return m.TolistSet(), _two(_x(4, 3), _x(6, 3))
def target_jit(): return m.JitScriptHelper(), _two(_x(4), _x(6))
def target_reentrant(): return m.ReentrantCheckpoint(), _two(_x(2, 4).requires_grad_(), _x(3, 4).requires_grad_())
def target_apply(): return m.ApplyInPlace(), _two(_x(4), _x(6))
def target_is_nonzero(): return m.IsNonzero(), _two(_x(4), _x(6))
def target_register_buffer(): return m.RegisterBufferInForward(), _two(_x(4), _x(6))
def target_deepcopy(): return m.DeepcopyTensor(), _two(_x(4), _x(6))
def target_copy_module(): return m.CopyModule(), _two(_x(2, 4), _x(3, 4))
def target_percentile(): return m.NumpyPercentile(), _two(_x(4), _x(6))
def target_from_numpy(): return m.FromNumpy(), _two(_x(2, 4), _x(3, 5))
def target_new_tensor(): return m.NewTensorFromList(), _two(_x(2, 4), _x(3, 5))
def target_data_ptr(): return m.StorageAccess(), _two(_x(4), _x(6))
def target_grad_access(): return m.GradAccess(), _two(_x(4), _x(4))
def target_counter(): return m.TrainingFlagFlip(), [(_x(4),), (_x(4),), (_x(4),)]
def target_reduce_shape(): return m.ReduceShape(), _two(_x(2, 3, 4), _x(3, 4, 5))
def target_sorted(): return m.SortedByValue(), _two(_x(3, 4), _x(5, 4))
def target_topk(): return m.TopkThenIndex(), _two(_x(8), _x(10))
def target_multinomial(): return m.Multinomial(), _two(_x(3, 4), _x(5, 4))
def target_isin(): return m.IsinMask(), _two(_x(3, 4), _x(5, 4))
def target_histc(): return m.HistcHelper(), _two(_x(8), _x(10))
def target_split(): return m.SplitBySizes(), [(_x(6), torch.tensor([2, 4])), (_x(8), torch.tensor([3, 5]))]
def target_repeat(): return m.RepeatInterleave(), [(_x(2, 3), torch.tensor([1, 2])), (_x(3, 3), torch.tensor([2, 1, 1]))]
def target_mask_assign(): return m.BoolMaskAssign(), _two(_x(4), _x(6))
def target_masked_fill(): return m.MaskedFillScalar(), _two(_x(4), _x(6))
def target_dict_modules(): return m.DictOfModules(), _two(_x(2, 4), _x(3, 4))
def target_while(): return m.WhileConverge(), _two(_x(4) * 8, _x(6) * 8)
def target_nonzero_loop(): return m.NonzeroLoop(), _two(_x(4, 2), _x(6, 2))
