"""Method calls on objects the analysis cannot type, resolved by the method's name.

zuko's flows show the shape (measured on torch 2.13, default and ``fullgraph=True``)::

    return self.flow(c).log_prob(x)              # user code: a flow of some zuko class
    def log_prob(self, x):                       # zuko.distributions.NormalizingFlow
        z, ladj = self.transform.call_and_ladj(x)   # a transform of some zuko class
    def call_and_ladj(self, x):                  # zuko.transforms.MonotonicTransform
        x = x.requires_grad_()                   # GB8985, then autograd.grad: GB9186

Nothing in the source says which class ``self.flow`` or ``self.transform`` holds (the
flow comes from a factory, the transform from a constructor argument), yet Dynamo
traces whichever method the object has, so a break in it breaks the caller's graph. A
call ``obj.name(...)`` whose receiver is unknown may run any method ``name`` of the code
that is followed: when that name is distinctive (not a method of Python's built-in types,
of tensors or of ``nn.Module``) and few classes define it (at most ``MAX_OWNERS``), each
of their methods is analysed as compiled code, with the kinds the call passes. More
owners is a name too generic to say which runs; the call is then left alone.

The call is recorded as an external call to ``"*.name"``; the engine resolves it over the
classes of the run (``ClassTable``), and the installed-package follower over the classes
of the package (``installed.package_facts.method_owners``).
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Collection, Iterable

from compilelint.analysis.kinds import Kind, tensor_attribute_names
from compilelint.analysis.module_index import FunctionInfo, ModuleIndex

PREFIX = "*."
MAX_OWNERS = 8  # like analysis.objects.MAX_OBJECTS: more is a table we do not enumerate

# dir(torch.distributions.Distribution) less dir(torch.Tensor), torch 2.13 (tests/
# test_duck_calls.py checks it against the installed torch): kinds.tensor_attribute_names
# joins both, but these are the names user classes implement (a flow's ``log_prob``).
DISTRIBUTION_ONLY = frozenset(
    {"_extended_shape", "_get_checked_instance", "_validate_args", "_validate_sample", "arg_constraints",
     "batch_shape", "cdf", "entropy", "enumerate_support", "event_shape", "has_enumerate_support", "has_rsample",
     "icdf", "log_prob", "perplexity", "rsample", "sample", "sample_n", "set_default_validate_args", "stddev",
     "support", "variance"}
)  # fmt: skip

# dir(torch.nn.Module) without dunders, torch 2.13 (checked by the same test): calls such
# as ``layer.parameters()`` or ``block.train()`` are a module's own, whatever the class.
MODULE_METHODS = frozenset(
    {"T_destination", "_apply", "_call_impl", "_compiled_call_impl", "_get_backward_hooks",
     "_get_backward_pre_hooks", "_get_name", "_load_from_state_dict", "_maybe_warn_non_full_backward_hook",
     "_named_members", "_register_load_state_dict_pre_hook", "_register_state_dict_hook",
     "_replicate_for_data_parallel", "_save_to_state_dict", "_slow_forward", "_version", "_wrapped_call_impl",
     "add_module", "apply", "bfloat16", "buffers", "call_super_init", "children", "compile", "cpu", "cuda", "double",
     "dump_patches", "eval", "extra_repr", "float", "forward", "get_buffer", "get_extra_state", "get_parameter",
     "get_submodule", "half", "ipu", "load_state_dict", "modules", "mtia", "named_buffers", "named_children",
     "named_modules", "named_parameters", "parameters", "register_backward_hook", "register_buffer",
     "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
     "register_full_backward_pre_hook", "register_load_state_dict_post_hook",
     "register_load_state_dict_pre_hook", "register_module", "register_parameter",
     "register_state_dict_post_hook", "register_state_dict_pre_hook", "requires_grad_", "set_extra_state",
     "set_submodule", "share_memory", "state_dict", "to", "to_empty", "train", "type", "xpu", "zero_grad"}
)  # fmt: skip

_BUILTIN_TYPES = (object, dict, list, tuple, set, frozenset, str, bytes, bytearray, int, float, complex, range)


@functools.cache
def common_method_names() -> frozenset[str]:
    """Names too common to say what class a receiver is: methods of Python's built-in types,
    of tensors and of modules."""
    builtin = {name for cls in _BUILTIN_TYPES for name in dir(cls)}
    tensor = tensor_attribute_names() - DISTRIBUTION_ONLY
    return frozenset(builtin | tensor | MODULE_METHODS | {"send", "throw", "close"})


def target(method: str) -> str:
    return PREFIX + method


def method_of(qualname: str) -> str | None:
    """``"*.log_prob"`` -> ``"log_prob"``; None for any other target."""
    return qualname[len(PREFIX) :] if qualname.startswith(PREFIX) else None


def is_duck_call(
    func: ast.expr, receiver_kind: Kind, plain_names: Collection[str], self_name: str | None, text: str = ""
) -> bool:
    """``obj.name(...)`` on a receiver of no known class, with a distinctive public name.
    ``plain_names``: names that are not objects (imported modules, classes, functions), nor
    is ``self_name`` itself (``self.m()`` resolves through the class); ``text``: the file's
    source, where ``x.name = ...`` makes ``name`` an attribute that may hold a submodule
    (``down.downsample = Conv(...)``, then ``down.downsample(x)``)."""
    if not isinstance(func, ast.Attribute):
        return False
    name = func.attr
    if name.startswith("_") or name in common_method_names() or stored_as_attribute(text, name):
        return False
    receiver = root = func.value
    while isinstance(root, ast.Attribute):  # nn.functional.fold(...): a module's function
        root = root.value
    if isinstance(root, ast.Name) and (root.id in plain_names or (root is receiver and root.id == self_name)):
        return False
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
        return False
    # an object in an attribute is a constant to Dynamo (STATIC), a submodule a MODULE;
    # a receiver that may be a tensor, a size or a number runs no method of ours
    return not receiver_kind & ~(Kind.UNKNOWN | Kind.STATIC | Kind.MODULE) and receiver_kind != Kind.NONE


def stored_as_attribute(text: str, name: str) -> bool:
    """Whether the source assigns ``<something>.name = ...`` (annotated or not)."""
    return name in _stored_attributes(text)


# zero-width, so every ``.name`` is tried, also one inside another's annotation
_ATTRIBUTE_STORE = re.compile(r"(?=\.([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=))")


@functools.lru_cache(maxsize=8)
def _stored_attributes(text: str) -> frozenset[str]:
    """The names the source assigns as attributes, read once per file (a run analyses one
    file at a time, so a few texts are kept, not every file's)."""
    return frozenset(match.group(1) for match in _ATTRIBUTE_STORE.finditer(text))


def owners_within(classes: Iterable[tuple[str, Iterable[str]]], method: str, package: str | None) -> tuple[str, ...]:
    """The classes (absolute names) that define ``method`` in their own body, among
    ``(name, methods)`` pairs, restricted to the top-level ``package`` when given."""
    return tuple(sorted(name for name, methods in classes if method in methods and _in_package(name, package)))


def capped(owners: tuple[str, ...]) -> tuple[str, ...]:
    """``owners``, or none when there are more than ``MAX_OWNERS``: too generic a name."""
    return owners if len(owners) <= MAX_OWNERS else ()


def own_owners(index: ModuleIndex, method: str) -> list[FunctionInfo]:
    """The methods ``method`` of this file's classes, when at most ``MAX_OWNERS`` define it."""
    found = [cls.methods[method] for cls in index.classes.values() if method in cls.methods]
    return found if len(found) <= MAX_OWNERS else []


def _in_package(name: str, package: str | None) -> bool:
    return package is None or name == package or name.startswith(package + ".")
