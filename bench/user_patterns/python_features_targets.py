"""Targets for bench/user_patterns.py: python_features.py."""
import torch
import python_features as m

def _x(*s): return torch.randn(*s)
def _two(a, b): return [(a,), (b,)]
T = {
 "dataclass": (m.DataclassOut, lambda: _two(_x(4), _x(6))),
 "namedtuple": (m.NamedTupleOut, lambda: _two(_x(4), _x(6))),
 "enum": (m.EnumBranch, lambda: _two(_x(4), _x(6))),
 "contextvar": (m.ContextVarRead, lambda: _two(_x(4), _x(6))),
 "threadlocal": (m.ThreadLocal, lambda: _two(_x(4), _x(6))),
 "defaultdict": (m.DefaultDict, lambda: _two(_x(4, 3), _x(6, 3))),
 "itertools": (m.ItertoolsChain, lambda: _two(_x(4), _x(6))),
 "zipstrict": (m.ZipStrict, lambda: [(_x(3, 2), _x(3, 2)), (_x(4, 2), _x(4, 2))]),
 "weakref": (m.WeakRefSelf, lambda: _two(_x(4), _x(6))),
 "generator": (m.Generator, lambda: _two(_x(4), _x(6))),
 "tryexcept": (m.TryExceptKeyError, lambda: [(_x(4), {"scale": 2.0}), (_x(6), {})]),
 "gradenabled": (m.GradEnabledBranch, lambda: _two(_x(4), _x(6))),
 "setgrad": (m.SetGradEnabled, lambda: _two(_x(4), _x(6))),
 "autocast": (m.AutocastInside, lambda: _two(_x(2, 4), _x(3, 4))),
 "nonlocal": (m.NonlocalCounter, lambda: _two(_x(4), _x(6))),
 "global": (m.GlobalCounter, lambda: _two(_x(4), _x(6))),
 "classcache": (m.ClassAttrCache, lambda: _two(_x(4), _x(6))),
 "inference": (m.InferenceMode, lambda: _two(_x(4), _x(6))),
 "distributed": (m.DistributedCheck, lambda: _two(_x(4), _x(6))),
 "dictget": (m.DictGetTensorKey, lambda: _two(_x(2), _x(2))),
 "setsizes": (m.SetOfSizes, lambda: [(_x(4), _x(5)), (_x(6), _x(6))]),
 "idkey": (m.IdKey, lambda: _two(_x(4), _x(6))),
 "typecheck": (m.TypeCheckTensor, lambda: _two(_x(4), _x(6))),
 "hasattr": (m.HasattrModule, lambda: _two(_x(4), _x(6))),
 "dropout": (m.FunctionalDropout, lambda: _two(_x(4), _x(6))),
 "layerloop": (m.LayerLoop, lambda: _two(_x(2, 4), _x(3, 4))),
 "stringops": (m.StringOps, lambda: _two(_x(4), _x(6))),
 "tensorinlist": (m.TensorInList, lambda: _two(_x(4), _x(6))),
 "chunkbreak": (m.ChunkLoopBreak, lambda: _two(_x(8), _x(12))),
 "scalararith": (m.ScalarTensorArith, lambda: _two(_x(4), _x(6))),
 "cond": (m.TorchCond, lambda: _two(_x(4), _x(6))),
 "customfn": (m.CustomFunctionApply, lambda: _two(_x(4).requires_grad_(), _x(6).requires_grad_())),
 "getattrstr": (m.GetattrString, lambda: _two(_x(4), _x(6))),
 "params": (m.ParametersIteration, lambda: _two(_x(2, 4), _x(3, 4))),
 "deviceprop": (m.DeviceOfParams, lambda: _two(_x(2, 4), _x(3, 4))),
 "namedmodules": (m.NamedModulesLoop, lambda: _two(_x(2, 4), _x(3, 4))),
}

def target_dataclass():
    return m.DataclassOut(), _two(_x(4), _x(6))

def target_namedtuple():
    return m.NamedTupleOut(), _two(_x(4), _x(6))

def target_enum():
    return m.EnumBranch(), _two(_x(4), _x(6))

def target_contextvar():
    return m.ContextVarRead(), _two(_x(4), _x(6))

def target_threadlocal():
    return m.ThreadLocal(), _two(_x(4), _x(6))

def target_defaultdict():
    return m.DefaultDict(), _two(_x(4, 3), _x(6, 3))

def target_itertools():
    return m.ItertoolsChain(), _two(_x(4), _x(6))

def target_zipstrict():
    return m.ZipStrict(), [(_x(3, 2), _x(3, 2)), (_x(4, 2), _x(4, 2))]

def target_weakref():
    return m.WeakRefSelf(), _two(_x(4), _x(6))

def target_generator():
    return m.Generator(), _two(_x(4), _x(6))

def target_tryexcept():
    return m.TryExceptKeyError(), [(_x(4), {"scale": 2.0}), (_x(6), {})]

def target_gradenabled():
    return m.GradEnabledBranch(), _two(_x(4), _x(6))

def target_setgrad():
    return m.SetGradEnabled(), _two(_x(4), _x(6))

def target_autocast():
    return m.AutocastInside(), _two(_x(2, 4), _x(3, 4))

def target_nonlocal():
    return m.NonlocalCounter(), _two(_x(4), _x(6))

def target_global():
    return m.GlobalCounter(), _two(_x(4), _x(6))

def target_classcache():
    return m.ClassAttrCache(), _two(_x(4), _x(6))

def target_inference():
    return m.InferenceMode(), _two(_x(4), _x(6))

def target_distributed():
    return m.DistributedCheck(), _two(_x(4), _x(6))

def target_dictget():
    return m.DictGetTensorKey(), _two(_x(2), _x(2))

def target_setsizes():
    return m.SetOfSizes(), [(_x(4), _x(5)), (_x(6), _x(6))]

def target_idkey():
    return m.IdKey(), _two(_x(4), _x(6))

def target_typecheck():
    return m.TypeCheckTensor(), _two(_x(4), _x(6))

def target_hasattr():
    return m.HasattrModule(), _two(_x(4), _x(6))

def target_dropout():
    return m.FunctionalDropout(), _two(_x(4), _x(6))

def target_layerloop():
    return m.LayerLoop(), _two(_x(2, 4), _x(3, 4))

def target_stringops():
    return m.StringOps(), _two(_x(4), _x(6))

def target_tensorinlist():
    return m.TensorInList(), _two(_x(4), _x(6))

def target_chunkbreak():
    return m.ChunkLoopBreak(), _two(_x(8), _x(12))

def target_scalararith():
    return m.ScalarTensorArith(), _two(_x(4), _x(6))

def target_cond():
    return m.TorchCond(), _two(_x(4), _x(6))

def target_customfn():
    return m.CustomFunctionApply(), _two(_x(4).requires_grad_(), _x(6).requires_grad_())

def target_getattrstr():
    return m.GetattrString(), _two(_x(4), _x(6))

def target_params():
    return m.ParametersIteration(), _two(_x(2, 4), _x(3, 4))

def target_deviceprop():
    return m.DeviceOfParams(), _two(_x(2, 4), _x(3, 4))

def target_namedmodules():
    return m.NamedModulesLoop(), _two(_x(2, 4), _x(3, 4))
