"""What a rule decided, at report time, that its fix will do: plain data over ``ast`` nodes.

The ast analysis knows kinds (which arms are tensors); libcst knows formatting. A rule puts
one of these plans in ``Finding.fix_data`` while it checks, and its ``build_fix`` turns the
plan into libcst edits later, mapping each ast node to the libcst node with the same span.
Nothing here imports libcst: rules build plans on every lint, fixes are rare.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass


@dataclass(frozen=True)
class Keep:
    """A tensor used as a condition as it is (``mask``: boolean) or through ``.bool()``."""

    expr: ast.expr
    boolean: bool


@dataclass(frozen=True)
class Negate:
    """``not c``: ``~c`` for a boolean tensor, ``torch.logical_not(c)`` otherwise."""

    operand: Condition


@dataclass(frozen=True)
class Combine:
    """``a and b`` / ``a or b`` on tensors: ``torch.logical_and`` / ``torch.logical_or``."""

    function: str  # "logical_and" or "logical_or"
    operands: tuple[Condition, ...]


Condition = Keep | Negate | Combine


@dataclass(frozen=True)
class GuardPlan:
    """Wrap ``statement`` in ``if not torch.compiler.is_compiling():``."""

    statement: ast.stmt


@dataclass(frozen=True)
class WherePlan:
    """``if c: y = A else: y = B`` -> ``y = torch.where(c, A, B)``, one per assigned name.

    ``arms`` is (name, true value, false value); a false value that is ``None`` means the
    name keeps its old value (an ``if`` without ``else``).
    """

    statement: ast.If
    condition: Condition
    arms: tuple[tuple[str, ast.expr, ast.expr | None], ...]


@dataclass(frozen=True)
class ReturnPlan:
    """``if c: return A`` + ``return B`` (or ``else: return B``) -> one ``return torch.where``."""

    statement: ast.If
    condition: Condition
    true_value: ast.expr
    false_value: ast.expr
    following: ast.Return | None  # the ``return B`` after the ``if`` that the fix removes


@dataclass(frozen=True)
class RaisePlan:
    """``if c: raise E("msg")`` -> ``torch._assert_async(<not c>, "msg")``."""

    statement: ast.If
    condition: Condition  # already negated: what must hold
    message: Message | None


@dataclass(frozen=True)
class TernaryPlan:
    """``A if c else B`` with tensor arms -> ``torch.where(c, A, B)``."""

    node: ast.IfExp
    condition: Condition


@dataclass(frozen=True)
class Message:
    """An error message: an expression kept as it is, or a fixed text (``text`` not None)."""

    expr: ast.expr | None
    text: str | None = None


@dataclass(frozen=True)
class Check:
    """One runtime check: ``torch._assert_async(cond)`` for tensors, ``torch._check`` for numbers."""

    function: str  # "_assert_async" or "_check"
    condition: Condition


@dataclass(frozen=True)
class AssertPlan:
    """``assert a and b, msg`` -> one torch check per ``and`` operand, each with the message."""

    statement: ast.Assert
    checks: tuple[Check, ...]
    message: Message | None


@dataclass(frozen=True)
class MaskedSumPlan:
    """``x[mask]`` (or ``torch.masked_select(x, mask)``) under ``.sum()`` -> ``torch.where(mask, x, 0)``."""

    node: ast.expr
    value: ast.expr
    mask: ast.expr
