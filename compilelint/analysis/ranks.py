"""Tensor ranks the source shows: no dimensions (``x.argmax()``) or one (``torch.arange(n)``).

Dynamo cares about one rank: a 0-d integer tensor used as an index (``grid[i]``,
``x[..., i + 1, :]``) is read back as a Python int, a data-dependent operator (GB0033)
unless the tensor is a graph input or a literal. Ranks are two refinements of TENSOR,
``Kind.ZERO_DIM`` and ``Kind.ONE_DIM``, so they travel where kinds travel (assignments,
returns, call arguments); ``kinds.join`` drops them where paths disagree. Only what the
source makes certain is marked: a reduction over every element, a vector's element, an
elementwise op of ranked operands, a factory that always makes a vector.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence

from compilelint.analysis.kinds import RANKS, Kind

# Over every element unless given a dim: a 0-d result (``x.sum()``, ``torch.argmax(x)``)
REDUCTIONS = frozenset(
    {"sum", "prod", "mean", "nansum", "nanmean", "max", "min", "amax", "amin", "argmax", "argmin", "count_nonzero",
     "norm", "std", "var", "median", "nanmedian", "all", "any"}
)
# Elementwise: the result has the rank of the receiver (or first argument) when every
# tensor operand has that rank; Python numbers broadcast without changing it
ELEMENTWISE = frozenset(
    {"detach", "clone", "contiguous", "long", "int", "short", "float", "half", "double", "bfloat16", "bool", "cpu", "cuda",
     "abs", "neg", "add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "clamp", "clamp_min",
     "clamp_max", "clip", "floor", "ceil", "round", "trunc", "sign", "sqrt", "exp", "log", "pow", "add_", "sub_", "mul_",
     "div_", "clamp_", "requires_grad_"}
)
# Their tensor arguments are not operands: only the receiver's rank counts
CONVERSIONS = frozenset({"to", "type", "type_as"})
# Always a vector
VECTOR_FACTORIES = frozenset({"torch.arange", "torch.linspace", "torch.logspace", "torch.randperm"})
# The result has the shape of this argument (``bucketize(input, boundaries)``,
# ``searchsorted(sorted_sequence, input)``); a Python number there gives a 0-d tensor
SHAPED_LIKE_ARGUMENT = {"torch.bucketize": 0, "torch.searchsorted": 1}
STACKING = frozenset({"torch.stack"})
JOINING = frozenset({"torch.cat", "torch.concat", "torch.concatenate"})


def rank(kind: Kind) -> Kind:
    """ZERO_DIM, ONE_DIM or NONE (not known) of a tensor kind."""
    ranked = kind & RANKS
    return ranked if ranked in (Kind.ZERO_DIM, Kind.ONE_DIM) and kind & Kind.TENSOR else Kind.NONE


def is_zero_dim(kind: Kind) -> bool:
    return rank(kind) == Kind.ZERO_DIM


def _shared_rank(kinds: Sequence[Kind]) -> Kind:
    """The rank every tensor among ``kinds`` has, if they agree (Python numbers do not count)."""
    tensors = [kind for kind in kinds if kind & Kind.TENSOR]
    ranks = {rank(kind) for kind in tensors}
    return ranks.pop() if len(ranks) == 1 else Kind.NONE


def _over_every_element(node: ast.Call, positional: int) -> bool:
    """No dimension given: ``x.sum()``, ``x.max()``, ``torch.sum(x, dtype=...)``."""
    return len(node.args) <= positional and not any(k.arg in ("dim", "axis", None) for k in node.keywords)


def method_rank(method: str, node: ast.Call, receiver: Kind, arguments: Sequence[Kind]) -> Kind:
    """The rank of ``receiver.method(...)``'s tensor result."""
    if method in REDUCTIONS and _over_every_element(node, 0):
        return Kind.ZERO_DIM
    if method in CONVERSIONS:
        return rank(receiver)
    if method in ELEMENTWISE:
        return _shared_rank([receiver, *arguments])
    return Kind.NONE


def function_rank(name: str, node: ast.Call, arguments: Sequence[Kind], kind_of: Callable[[ast.expr], Kind]) -> Kind:
    """The rank of ``torch.<name>(...)``'s tensor result."""
    last = name.rsplit(".", 1)[-1]
    if name in VECTOR_FACTORIES:
        return Kind.ONE_DIM
    if name in SHAPED_LIKE_ARGUMENT:
        position = SHAPED_LIKE_ARGUMENT[name]
        if len(arguments) <= position:
            return Kind.NONE
        shaped = arguments[position]
        if shaped & Kind.TENSOR:
            return rank(shaped)
        return Kind.ZERO_DIM if _is_python_number(node.args[position], shaped) else Kind.NONE
    if name in ("torch.as_tensor", "torch.tensor") and arguments:
        if arguments[0] & Kind.TENSOR:
            return rank(arguments[0])
        return Kind.ZERO_DIM if _is_python_number(node.args[0], arguments[0]) else Kind.NONE
    parts = node.args[0] if node.args and not node.keywords and name in STACKING | JOINING else None
    if isinstance(parts, (ast.List, ast.Tuple)) and parts.elts:
        elements = _shared_rank([kind_of(e) for e in parts.elts])
        if name in STACKING and elements == Kind.ZERO_DIM:
            return Kind.ONE_DIM
        return elements if name in JOINING and elements == Kind.ONE_DIM else Kind.NONE
    if name == f"torch.{last}" and arguments and arguments[0] & Kind.TENSOR:
        if last in REDUCTIONS and _over_every_element(node, 1):
            return Kind.ZERO_DIM
        if last in ELEMENTWISE:
            return _shared_rank(arguments)
    return Kind.NONE


def subscript_rank(value: Kind, index: ast.expr, index_kind: Kind) -> Kind:
    """``v[0]`` of a vector is 0-d; ``v[1:]`` stays a vector."""
    if rank(value) != Kind.ONE_DIM:
        return Kind.NONE
    if isinstance(index, ast.Slice):
        return Kind.ONE_DIM
    return Kind.ZERO_DIM if _is_python_number(index, index_kind) else Kind.NONE


def _is_python_number(node: ast.expr, kind: Kind) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    return kind == Kind.SHAPE or kind == Kind.DATA_SCALAR
