"""ModelCase: one real model of the zoo, built from a small config with random weights.

Importing this module also installs the torchvision shim (zoo/tv_shim.py) so
that timm and transformers import beside the CPU build of torch 2.13.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

__all__ = ["ModelCase", "SkippedCase", "Inputs", "mark_extended"]

# variant index 0, 1, 2 -> (args, kwargs).  Variants 1 and 2 change batch size
# and/or sequence length / image size, to probe recompiles.
Inputs = Callable[[int], "tuple[tuple, dict]"]


@dataclasses.dataclass(frozen=True)
class ModelCase:
    name: str
    library: str  # "transformers" | "timm" | "diffusers"
    build: Callable[[], Any]  # -> torch.nn.Module (eval mode, random weights)
    inputs: Inputs
    notes: str = ""
    # extended cases run only with `run_all.py --all` (the default set keeps the
    # whole zoo under ~20 minutes on 2 cores)
    extended: bool = False


@dataclasses.dataclass(frozen=True)
class SkippedCase:
    """A case that could not even be defined in this environment (class missing, ...)."""

    name: str
    library: str
    reason: str


def mark_extended(cases: "list[ModelCase | SkippedCase]", names: "set[str]") -> "list[ModelCase | SkippedCase]":
    unknown = names - {c.name for c in cases}
    if unknown:
        raise ValueError(f"mark_extended: unknown cases {sorted(unknown)}")
    return [dataclasses.replace(c, extended=True) if isinstance(c, ModelCase) and c.name in names else c
            for c in cases]


from zoo import tv_shim  # noqa: E402,F401  (installs the torchvision import hook)
