"""Attributes that hold bound methods of their own object (``self.f = self._default``).

torchsde's ``ForwardSDE`` shows the shapes this reads, all in ``__init__``::

    self.f_and_g_prod = self.f_and_g_prod_default1            # a bound method
    self.f = getattr(sde, 'f', self.f_default)                # or a default
    self.prod = {DIAGONAL: self.prod_diagonal}.get(kind, self.prod_default)  # a table
    self.dg = (self.dg_v2 if fast else self.dg_v1)            # a conditional

Two facts follow, measured on torch 2.13 (CPU, backend eager; default mode, ``dynamic=True``):
``obj.prod(g, v)`` runs one of the methods named (Dynamo traces it like a direct call), and
an object built in compiled code that holds one cannot be rebuilt at a graph break while it
is live (GB0092, ``analysis.new_objects``), whether its class is in the same file or not.
"""

from __future__ import annotations

import ast

from collections.abc import Callable

from compilelint.analysis.frames import own_nodes
from compilelint.analysis.kinds import Kind
from compilelint.analysis.module_index import ClassInfo, FunctionInfo, ModuleIndex

HeldMethods = dict[str, tuple[FunctionInfo, ...]]


def held_methods(cls: ClassInfo, attr: str) -> tuple[FunctionInfo, ...]:
    """The methods (of ``cls``'s MRO) that ``self.attr`` may hold, bound to ``self``; none
    when ``attr`` is a method itself (an instance attribute of that name is then a rare
    override this does not follow)."""
    if cls.find_method(attr) is not None:
        return ()
    return _table(cls).get(attr, ())


def stores_bound_method(cls: ClassInfo) -> bool:
    """Some method of ``cls`` stores ``self.<method>`` (not called) in an attribute of ``self``."""
    return bool(_table(cls))


def _table(cls: ClassInfo) -> HeldMethods:
    key = "held-methods"
    if key not in cls.lookups:
        cls.lookups[key] = _collect(cls)
    table = cls.lookups[key]
    assert isinstance(table, dict)
    return table


def _collect(cls: ClassInfo) -> HeldMethods:
    found: HeldMethods = {}
    for klass in cls.mro():
        for method in klass.methods.values():
            args = method.node.args.posonlyargs + method.node.args.args
            if method.is_static or not args:
                continue
            self_name = args[0].arg
            for node in own_nodes(method.node):
                if not isinstance(node, ast.Assign):
                    continue
                held = _methods_in(node.value, self_name, cls)
                for target in node.targets:
                    if held and _is_self_attribute(target, self_name):
                        assert isinstance(target, ast.Attribute)
                        found[target.attr] = tuple(dict.fromkeys(found.get(target.attr, ()) + held))
    return found


def _is_self_attribute(node: ast.expr, self_name: str) -> bool:
    return isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name


def _methods_in(value: ast.expr, self_name: str, cls: ClassInfo) -> tuple[FunctionInfo, ...]:
    """The methods ``value`` names as ``self.<method>`` without calling them."""
    called = {id(n.func) for n in ast.walk(value) if isinstance(n, ast.Call)}
    found: list[FunctionInfo] = []
    for node in ast.walk(value):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and id(node) not in called:
            method = cls.find_method(node.attr) if _is_self_attribute(node, self_name) else None
            if method is not None and not method.is_static:
                found.append(method)
    return tuple(found)


def private_method_owners(index: ModuleIndex, func: ast.expr, kind: Callable[[ast.expr], Kind]) -> list[FunctionInfo]:
    """``obj._name(...)`` on an object the analysis cannot see, where ``_name`` (one leading
    underscore: the module's own) is a method of one class of this file and the subclasses
    here that override it: those methods. torchsde's Brownian interval calls
    ``intervals[0]._increment_and_levy_area()`` on the nodes of its own tree."""
    if not isinstance(func, ast.Attribute) or not func.attr.startswith("_") or func.attr.startswith("__"):
        return []
    if isinstance(func.value, ast.Name) and (func.value.id in index.classes or func.value.id in index.module_names):
        return []
    if kind(func.value) != Kind.UNKNOWN:
        return []
    owners = [cls for cls in index.classes.values() if func.attr in cls.methods]
    tops = [cls for cls in owners if not any(base is not cls and func.attr in base.methods for base in cls.mro())]
    if len(tops) != 1:
        return []
    return [cls.methods[func.attr] for cls in owners if not cls.methods[func.attr].is_static]
