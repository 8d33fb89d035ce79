"""Unpacking a display with starred parts: ``*_, b, n, d, dtype = *x.shape, x.dtype``.

The targets and the values line up from both ends; what lies between (the starred
value's elements, and the targets across from them) takes the kinds of the elements:
the sizes of ``x.shape`` for ``b, n, d``, here.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from compilelint.analysis.kinds import Kind

if TYPE_CHECKING:
    from compilelint.analysis.expressions import Evaluator


def bind_starred(evaluator: Evaluator, targets: list[ast.expr], values: list[ast.expr], kind: Kind) -> bool:
    """Bind ``targets`` from the display ``values`` where either side has a starred part;
    False when neither has one (the caller pairs them one to one)."""
    if not any(isinstance(n, ast.Starred) for n in [*targets, *values]):
        return False
    head = 0
    while head < min(len(targets), len(values)) and not _starred(targets[head]) and not _starred(values[head]):
        evaluator.bind(targets[head], _kind_of(evaluator, values[head], kind), values[head])
        head += 1
    tail = 0
    while (
        tail < min(len(targets), len(values)) - head
        and not _starred(targets[-1 - tail])
        and not _starred(values[-1 - tail])
    ):
        evaluator.bind(targets[-1 - tail], _kind_of(evaluator, values[-1 - tail], kind), values[-1 - tail])
        tail += 1
    middle_values = values[head : len(values) - tail]
    element = Kind.NONE
    for value in middle_values:
        element |= _element(evaluator, value, kind)
    element = element or Kind.UNKNOWN
    for target in targets[head : len(targets) - tail]:
        if isinstance(target, ast.Starred):  # *_, *rest: a list of those elements
            evaluator.bind(target.value, Kind.UNKNOWN if element & Kind.UNKNOWN else element)
        else:
            evaluator.bind(target, element)
    return True


def _starred(node: ast.expr) -> bool:
    return isinstance(node, ast.Starred)


def _kind_of(evaluator: Evaluator, value: ast.expr, default: Kind) -> Kind:
    return evaluator.cache.get(id(value), default)


def _element(evaluator: Evaluator, value: ast.expr, default: Kind) -> Kind:
    """One element's kind: a starred value's elements (``*x.shape``: sizes), or the value."""
    from compilelint.analysis.expressions import element_kind

    if isinstance(value, ast.Starred):
        inner = value.value
        return element_kind(evaluator.cache.get(id(inner), default), inner, evaluator)
    return _kind_of(evaluator, value, default)
