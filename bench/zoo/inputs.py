"""Input sets for zoo cases: variant 0, 1, 2 change batch size and length or image size.

Small on purpose (2 shared cores): what matters to Dynamo is that sizes change
between variants, not how big they are.
"""
from __future__ import annotations

from typing import Any, Callable

Inputs = Callable[[int], "tuple[tuple, dict]"]

BATCH_LENGTHS = [(2, 16), (3, 24), (4, 32)]
BATCH_IMAGES = [(2, 32), (3, 48), (4, 64)]


def _generator(v: int) -> Any:
    import torch

    return torch.Generator().manual_seed(1234 + v)


def tokens(vocab: int, sizes: list[tuple[int, int]] = BATCH_LENGTHS, **kwargs: Any) -> Inputs:
    """(batch, length) integer tokens below `vocab`."""

    def inputs(v: int) -> tuple[tuple, dict]:
        import torch

        b, n = sizes[v]
        return (torch.randint(0, vocab, (b, n), generator=_generator(v)),), dict(kwargs)

    return inputs


def sequence(dim: int, sizes: list[tuple[int, int]] = BATCH_LENGTHS, channels_first: bool = False) -> Inputs:
    """(batch, length, dim) features, or (batch, dim, length) with channels_first."""

    def inputs(v: int) -> tuple[tuple, dict]:
        import torch

        b, n = sizes[v]
        shape = (b, dim, n) if channels_first else (b, n, dim)
        return (torch.randn(*shape, generator=_generator(v)),), {}

    return inputs


def images(channels: int = 3, sizes: list[tuple[int, int]] = BATCH_IMAGES, fixed: int | None = None,
           dims: int = 2) -> Inputs:
    """(batch, channels, size, size) images; `fixed` keeps the size (batch still changes);
    dims=3 gives volumes."""

    def inputs(v: int) -> tuple[tuple, dict]:
        import torch

        b, s = sizes[v]
        s = fixed or s
        return (torch.randn(b, channels, *([s] * dims), generator=_generator(v)),), {}

    return inputs


def custom(make: Callable[[int, Any], "tuple[tuple, dict]"]) -> Inputs:
    """Inputs from `make(variant, generator)`."""

    def inputs(v: int) -> tuple[tuple, dict]:
        return make(v, _generator(v))

    return inputs
