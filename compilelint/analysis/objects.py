"""Which classes a value may be an instance of, as it flows through compiled code.

torchsde's solvers show the shape this follows (measured on torch 2.13: Dynamo traces each
step, so what the held object does breaks the graph as if called directly)::

    bm = BrownianInterval(...)                      # a local holds an instance
    return sde, y0, ts, bm                          # ... a returned tuple holds it
    solver = solver_fn(sde=sde, bm=bm)              # an argument passes it, maybe on
    def __init__(self, sde, **kwargs):              #   through **kwargs to a base class
        super().__init__(sde=sde, **kwargs)         #   in another file,
    def __init__(self, sde, bm, ...): self.bm = bm  # an attribute stores it
    def step(self, t0, t1): self.bm(t0, t1)         # and a method calls it

An object is named as ``class_named`` spells classes: "@Name" for a class of this file,
else its name as this file imports it, or an absolute name that came from another file.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from typing import TYPE_CHECKING

from compilelint.analysis.module_index import ClassInfo, FunctionNode, ModuleIndex

if TYPE_CHECKING:
    from compilelint.analysis.expressions import Evaluator

Objects = tuple[str, ...]
MAX_OBJECTS = 8  # classes one value may be: more is a table we do not enumerate


def join(*groups: Objects) -> Objects:
    found = tuple(dict.fromkeys(name for group in groups for name in group))
    return found[:MAX_OBJECTS]


def merged(contributions: Iterable[dict[str, Objects]]) -> dict[str, Objects]:
    """Each parameter's objects, over every call site's contribution."""
    found: dict[str, Objects] = {}
    for contribution in contributions:
        for name, held in contribution.items():
            found[name] = join(found.get(name, ()), held)
    return found


def of_name(evaluator: Evaluator, name: str) -> Objects:
    """The classes a local name holds an instance of."""
    local = tuple(f"@{cls.name}" for cls in evaluator.instances.get(name, ()))
    return join(local, evaluator.imported_instances.get(name, ()))


def set_name(evaluator: Evaluator, name: str, objects: Objects) -> None:
    """``name`` now holds one of ``objects``: this file's classes go to ``instances``
    (their methods are analysed here), the others to ``imported_instances``."""
    local: list[ClassInfo] = []
    imported: list[str] = []
    for obj in objects:
        cls = local_class(evaluator.index, evaluator.module, obj)
        if cls is not None:
            local.append(cls)
        elif not obj.startswith("@"):
            imported.append(obj)
    if local:
        evaluator.instances[name] = tuple(dict.fromkeys(local))
    if imported:
        evaluator.imported_instances[name] = tuple(dict.fromkeys(imported))


def local_class(index: ModuleIndex, module: str | None, obj: str) -> ClassInfo | None:
    """The class of this file an object name means: "@Name", or this module's absolute name."""
    if obj.startswith("@"):
        return index.classes.get(obj[1:])
    if module and obj.startswith(f"{module}.") and obj[len(module) + 1 :] in index.classes:
        return index.classes[obj[len(module) + 1 :]]
    return None


def of_value(evaluator: Evaluator, value: ast.expr | None) -> Objects:
    """What an (already evaluated) expression may be an instance of."""
    if value is None:
        return ()
    if isinstance(value, ast.Name):
        return of_name(evaluator, value.id) or evaluator.sink.self_objects(value.id)
    if isinstance(value, ast.Call):
        built = tuple(f"@{cls.name}" for cls in evaluator.built.get(id(value), ()))
        plain = plain_class_built(evaluator, value)
        if plain is not None:
            built = join(built, (f"@{plain.name}",))
        return join(built, evaluator.imported_built.get(id(value), ()), evaluator.value_objects.get(id(value), ()))
    if isinstance(value, ast.Attribute):
        return evaluator.sink.attribute_values(value, evaluator)
    if isinstance(value, ast.IfExp):
        return join(of_value(evaluator, value.body), of_value(evaluator, value.orelse))
    if isinstance(value, ast.BoolOp):
        return join(*(of_value(evaluator, operand) for operand in value.values))
    return ()


def plain_class_built(evaluator: Evaluator, call: ast.Call) -> ClassInfo | None:
    """The class of this file ``call`` builds by name when no ``__init__`` of this file runs
    (a dataclass, a plain record class): no call is analysed that would say so."""
    name = evaluator.qualname(call.func)
    cls = evaluator.index.classes.get(name) if name is not None else None
    if cls is None or cls.is_module or any(klass.find_method("__init__") is not None for klass in cls.mro()):
        return None
    return cls


def local_classes(evaluator: Evaluator, value: ast.expr) -> tuple[ClassInfo, ...]:
    """This file's classes ``value`` may be an instance of (``make(c)`` returning a ``Gate``)."""
    found = (local_class(evaluator.index, evaluator.module, name) for name in of_value(evaluator, value))
    return tuple(dict.fromkeys(cls for cls in found if cls is not None))


def imported(evaluator: Evaluator, value: ast.expr) -> Objects:
    """The other files' classes ``value`` may be an instance of, by absolute name."""
    held = of_value(evaluator, value)
    return tuple(name for name in held if not name.startswith("@") and local_class(evaluator.index, evaluator.module, name) is None)


def imported_method(evaluator: Evaluator, func: ast.expr) -> tuple[Objects, str] | None:
    """The imported classes the receiver of a call may be an instance of, and the method the
    call runs: ``solver.integrate(t)``, ``conv(x)`` (``forward``), ``Make(c).apply(x)``."""
    if isinstance(func, ast.Name) and func.id in evaluator.imported_instances:
        return evaluator.imported_instances[func.id], "forward"
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in evaluator.imported_instances:
        return evaluator.imported_instances[func.value.id], func.attr
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Call):
        held = imported(evaluator, func.value)
        return (held, func.attr) if held else None
    return None


def of_arguments(evaluator: Evaluator, call: ast.Call) -> dict[str, Objects]:
    """Per position ("0", "1", ...) and keyword, the objects a call passes."""
    found: dict[str, Objects] = {}
    for position, value in enumerate(call.args):
        if isinstance(value, ast.Starred):
            break
        objects = of_value(evaluator, value)
        if objects:
            found[str(position)] = objects
    for keyword in call.keywords:
        if keyword.arg is not None:
            objects = of_value(evaluator, keyword.value)
            if objects:
                found[keyword.arg] = objects
    return found


def to_parameters(node: FunctionNode, passed: dict[str, Objects], skip_self: bool) -> dict[str, Objects]:
    """Positions and keywords named by the parameters that receive them."""
    names = [a.arg for a in node.args.posonlyargs + node.args.args][1 if skip_self else 0 :]
    known = set(names) | {a.arg for a in node.args.kwonlyargs}
    bound: dict[str, Objects] = {}
    for key, objects in passed.items():
        if key.isdigit():
            if int(key) < len(names):
                bound[names[int(key)]] = objects
        elif key in known:
            bound[key] = objects
    return bound


def extra_keywords(node: FunctionNode, keywords: dict[str, object]) -> list[str]:
    """The keywords a call passes that only ``**kwargs`` receives."""
    if node.args.kwarg is None:
        return []
    known = {a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs}
    return [name for name in keywords if name not in known and not name.isdigit()]
