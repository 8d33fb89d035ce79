"""``@compilelint.target``: marks a verifier target. Imports nothing heavy (no torch, no
inspect), because ``compilelint/__init__.py`` re-exports it and the flake8 plugin pays for
every import there."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

F = TypeVar("F", bound=Callable[..., Any])
TARGET_ATTRIBUTE = "__compilelint_target__"


@overload
def target(fn: F, /) -> F: ...
@overload
def target(*, timeout: float | None = None, isolate: bool = False) -> Callable[[F], F]: ...
def target(fn: F | None = None, /, *, timeout: float | None = None, isolate: bool = False) -> F | Callable[[F], F]:
    """Mark a function as a verifier target: ``@target`` or ``@target(timeout=60)``.

    A target returns ``(callable, [input sets])``. The verifier finds targets by reading
    the source, never by importing it, so ``timeout`` must be a literal number and
    ``isolate`` a literal bool. ``isolate=True`` runs the target in a process of its own
    rather than in a warm worker shared with other targets.
    """

    def mark(func: F) -> F:
        setattr(func, TARGET_ATTRIBUTE, {"timeout": timeout, "isolate": isolate})
        return func

    return mark(fn) if fn is not None else mark
