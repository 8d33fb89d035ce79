"""Values taken from ``StopIteration.value``: the return value of a generator Dynamo traced.

A hand-written generator driver (the ``trampoline`` package torchsde uses) reads what a
generator returned from the exception that ends it::

    except StopIteration as e:
        retval = e.value        # Dynamo: an attribute of the exception it cannot resolve
    return retval

Measured on torch 2.13 (CPU, backend eager; default mode and ``fullgraph=True`` alike):
Dynamo tracks ``e.value`` as an unresolved attribute without a Python type. Returning it,
passing it to a Python function, storing it in a list or testing ``is None`` compile; using
it breaks the graph where it is used, in whichever function that is: unpacking, arithmetic,
indexing, iterating, ``len()``, truth tests (GB4841 "Unsupported python_type() call"),
a method call (GB0156), a torch function's argument (GB0055). ``r == 2`` broke alone
(GB6215) but not as an ``if`` test on a tensor it came from: comparisons are not claimed.
"""

from __future__ import annotations

import ast

from compilelint.analysis.frames import own_nodes

STOP_ITERATION = "StopIteration"


def handler_names(function: ast.AST) -> frozenset[str]:
    """Names bound by ``except StopIteration as e`` (or a tuple naming it) in ``function``."""
    found = set()
    for node in own_nodes(function):
        if isinstance(node, ast.ExceptHandler) and node.name and _catches_stop(node.type):
            found.add(node.name)
    return frozenset(found)


def _catches_stop(caught: ast.expr | None) -> bool:
    if isinstance(caught, ast.Tuple):
        return any(_catches_stop(element) for element in caught.elts)
    return isinstance(caught, ast.Name) and caught.id == STOP_ITERATION


def is_stop_read(node: ast.AST, handlers: frozenset[str]) -> bool:
    """``e.value`` of a caught ``StopIteration``."""
    return (
        isinstance(node, ast.Attribute) and node.attr == "value" and isinstance(node.ctx, ast.Load)
        and isinstance(node.value, ast.Name) and node.value.id in handlers
    )  # fmt: skip


def stop_names(function: ast.AST, handlers: frozenset[str]) -> frozenset[str]:
    """Local names that may hold a ``StopIteration.value`` read in ``function``: assigned from
    one, or from such a name (``value, retval = retval, None`` swaps it along)."""
    names: set[str] = set()
    assignments = [node for node in own_nodes(function) if isinstance(node, ast.Assign)]
    changed = True
    while changed:
        changed = False
        for assignment in assignments:
            for target in assignment.targets:
                for name, value in _pairs(target, assignment.value):
                    if name not in names and _holds_stop(value, names, handlers):
                        names.add(name)
                        changed = True
    return frozenset(names)


def _pairs(target: ast.expr, value: ast.expr) -> list[tuple[str, ast.expr]]:
    """(name, the value it gets) for ``a = v`` and element-wise for ``a, b = u, v``."""
    if isinstance(target, ast.Name):
        return [(target.id, value)]
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(value, (ast.Tuple, ast.List)) and len(target.elts) == len(value.elts):
        return [pair for t, v in zip(target.elts, value.elts) for pair in _pairs(t, v)]
    return []


def _holds_stop(value: ast.expr, names: set[str] | frozenset[str], handlers: frozenset[str]) -> bool:
    return is_stop_read(value, handlers) or (isinstance(value, ast.Name) and value.id in names)


def returns_stop_value(function: ast.AST) -> bool:
    """``function`` may return a ``StopIteration.value`` it read (a generator driver)."""
    handlers = handler_names(function)
    if not handlers:
        return False
    names = stop_names(function, handlers)
    return any(
        isinstance(node, ast.Return) and node.value is not None and _holds_stop(node.value, names, handlers)
        for node in own_nodes(function)
    )


TYPE_NEEDING_BUILTINS = frozenset({"len", "int", "float", "bool", "abs", "round", "sum", "max", "min", "sorted", "list", "tuple"})


def use_gb_ids(node: ast.AST, parent: ast.AST, qualname: str | None) -> tuple[str, ...] | None:
    """The GB ids of using ``node`` (a value without a Python type in Dynamo) as ``parent``
    does; None where Dynamo passes it along (a return, an argument of a Python function, a
    container, ``is None``). ``qualname`` names what ``parent`` calls, when it is a call."""
    if isinstance(parent, (ast.BinOp, ast.UnaryOp, ast.AugAssign, ast.Subscript)) and node is not getattr(parent, "slice", None):
        return ("GB4841",)
    if isinstance(parent, ast.Attribute) and parent.value is node:
        return ("GB0156", "GB4841")
    if isinstance(parent, ast.Assign) and parent.value is node and any(isinstance(t, (ast.Tuple, ast.List)) for t in parent.targets):
        return ("GB4841",)
    if isinstance(parent, (ast.For, ast.comprehension)) and parent.iter is node:
        return ("GB4841",)
    if isinstance(parent, (ast.If, ast.While, ast.IfExp, ast.Assert)) and parent.test is node:
        return ("GB4841",)
    if isinstance(parent, ast.BoolOp) and node is not parent.values[-1]:  # the last operand passes along
        return ("GB4841",)
    if isinstance(parent, ast.Call) and node in parent.args and qualname is not None:
        if qualname.startswith("torch."):
            return ("GB0055",)
        return ("GB4841",) if qualname in TYPE_NEEDING_BUILTINS else None
    return None
