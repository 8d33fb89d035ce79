"""Module hooks: functions Dynamo traces as part of the hooked module's call.

Measured on torch 2.13 (CPU, backend eager; default mode and ``fullgraph=True``): a hook
registered with ``module.register_forward_hook(hook)`` or ``register_forward_pre_hook``
runs inside the compiled call of the module, and Dynamo traces it with the module's
``forward``: ``output.mean().item()`` in a forward hook breaks the graph there in the
default mode (GB0124), ``print()`` in both modes (GB0059), and ``self.shapes.append(...)``
in a pre-hook recompiles on every call, wherever the hook was registered (``__init__``, a
setup function). So a hook is compiled code, as a ``forward`` is.

A registration names the hook as:

- a method, ``self._record`` (the class's own or a base's);
- a function of the file, or a ``def`` of the registering function;
- a call of a factory of the file that returns one of its own ``def``s
  (``self._make_hook(name)`` returning ``hook``): that closure.

Its parameters are the hooked module, the tuple of positional inputs and (forward hooks)
the output; keyword-taking hooks (``with_kwargs=True``) get a dict of keyword inputs
before the output. Backward hooks run in autograd, not in Dynamo's forward trace, and are
not roots here.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from compilelint.analysis.frames import own_nodes
from compilelint.analysis.injected import calls_with_functions
from compilelint.analysis.kinds import Kind
from compilelint.analysis.module_index import FunctionInfo, function_info

if TYPE_CHECKING:
    from compilelint.analysis.module_index import ModuleIndex

HOOK_METHODS = frozenset({"register_forward_hook", "register_forward_pre_hook"})
GLOBAL_HOOKS = frozenset(
    {"torch.nn.modules.module.register_module_forward_hook", "torch.nn.modules.module.register_module_forward_pre_hook"}
)
_DEFS = (ast.FunctionDef, ast.AsyncFunctionDef)


def hook_roots(index: ModuleIndex) -> list[FunctionInfo]:
    """Every hook the file registers, once each; memoised on the index."""
    if index.hook_roots is None:
        found: dict[int, FunctionInfo] = {}
        if "register_" in index.text:
            for call, scope in calls_with_functions(index):
                hook = _registered(index, call, scope)
                if hook is not None and not hook.disabled and not hook.opaque:
                    found.setdefault(id(hook.node), hook)
        index.hook_roots = list(found.values())
    return index.hook_roots


def hook_parameter_kinds(info: FunctionInfo) -> dict[str, Kind]:
    """The hooked module, the tuple of its positional inputs, and then keyword inputs or the
    output: what ``nn.Module._call_impl`` passes a hook."""
    names = [a.arg for a in info.node.args.posonlyargs + info.node.args.args]
    if info.owner is not None and not info.is_static:
        names = names[1:]
    kinds = dict(zip(names, (Kind.MODULE, Kind.TENSOR | Kind.CONTAINER)))
    for name in names[2:]:
        kinds[name] = Kind.UNKNOWN if name == "kwargs" else Kind.TENSOR
    return kinds


def _registered(index: ModuleIndex, call: ast.Call, scope: FunctionInfo | None) -> FunctionInfo | None:
    """The hook ``call`` registers, where the file defines it."""
    func = call.func
    registers = (isinstance(func, ast.Attribute) and func.attr in HOOK_METHODS) or index.qualname(func) in GLOBAL_HOOKS
    if not registers or not call.args:
        return None
    return _function(index, call.args[0], scope, factories=True)


def _function(index: ModuleIndex, value: ast.expr, scope: FunctionInfo | None, factories: bool) -> FunctionInfo | None:
    if scope is None:  # registered at module level
        return index.functions.get(value.id) if isinstance(value, ast.Name) else None
    if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == _self_name(scope):
        return scope.owner.find_method(value.attr) if scope.owner is not None else None
    if isinstance(value, ast.Name):
        return _local_def(index, scope, value.id) or index.functions.get(value.id)
    if factories and isinstance(value, ast.Call):
        factory = _function(index, value.func, scope, factories=False)
        return _returned_def(index, factory) if factory is not None else None
    return None


def _self_name(scope: FunctionInfo) -> str | None:
    arguments = scope.node.args.posonlyargs + scope.node.args.args
    return arguments[0].arg if scope.owner is not None and not scope.is_static and arguments else None


def _local_def(index: ModuleIndex, scope: FunctionInfo, name: str) -> FunctionInfo | None:
    """``def name`` in ``scope``'s own body, as a function whose closure is ``scope``'s."""
    for node in own_nodes(scope.node):
        if isinstance(node, _DEFS) and node.name == name:
            child = function_info(index, node, f"{scope.qualname}.<locals>.{name}", owner=None)
            child.parent = scope
            return child
    return None


def _returned_def(index: ModuleIndex, factory: FunctionInfo) -> FunctionInfo | None:
    """The ``def`` of ``factory`` that each of its ``return`` statements returns."""
    returns = [n for n in own_nodes(factory.node) if isinstance(n, ast.Return)]
    names = {r.value.id for r in returns if isinstance(r.value, ast.Name)}
    if len(names) != 1 or len(returns) != sum(isinstance(r.value, ast.Name) for r in returns):
        return None
    return _local_def(index, factory, names.pop())
