"""ModelCase: one real model of the zoo, built from a small config with random weights.

Each package of the zoo has a case module, bench/zoo/cases/<package>_models.py,
whose `models()` returns its cases; `package` is the import name whose installed
folder holds the code under test (break sites are attributed to it, and
bench/accuracy.py lints it).

Importing this module also installs the torchvision shim (zoo/tv_shim.py) so
that timm, transformers and torchvision's models import beside the CPU build of
torch 2.13.
"""
from __future__ import annotations

import dataclasses
from typing import Any, Callable

__all__ = ["ModelCase", "SkippedCase", "Inputs", "mark_extended", "package_cases", "skipped_unless"]

# variant index 0, 1, 2 -> (args, kwargs).  Variants 1 and 2 change batch size
# and/or sequence length / image size, to probe recompiles.
Inputs = Callable[[int], "tuple[tuple, dict]"]


@dataclasses.dataclass(frozen=True)
class ModelCase:
    name: str
    package: str  # import name: "transformers", "torch_geometric", "x_transformers", ...
    build: Callable[[], Any]  # -> torch.nn.Module (random weights)
    inputs: Inputs
    notes: str = ""
    # extended cases run only with `run_all.py --all`
    extended: bool = False
    # the method users compile: "forward", or "decode" (a CRF), "generate_step", ...
    method: str = "forward"
    # also run it compiled in train mode (model.train(), autograd on)
    train: bool = True

    @property
    def library(self) -> str:  # the name older recordings used
        return self.package


@dataclasses.dataclass(frozen=True)
class SkippedCase:
    """A case that could not even be defined in this environment (class missing, ...)."""

    name: str
    package: str
    reason: str

    @property
    def library(self) -> str:
        return self.package


def mark_extended(cases: "list[ModelCase | SkippedCase]", names: "set[str]") -> "list[ModelCase | SkippedCase]":
    unknown = names - {c.name for c in cases}
    if unknown:
        raise ValueError(f"mark_extended: unknown cases {sorted(unknown)}")
    return [dataclasses.replace(c, extended=True) if isinstance(c, ModelCase) and c.name in names else c
            for c in cases]


def skipped_unless(package: str, module: str | None = None) -> "str | None":
    """Why the cases of `package` cannot be defined here (not importable), or None."""
    import importlib

    try:
        importlib.import_module(module or package)
    except Exception as e:  # noqa: BLE001 - any import failure skips the cases
        return f"{module or package} not importable: {type(e).__name__}: {str(e)[:300]}"
    return None


def package_cases(package: str, specs: "list[tuple[str, Callable[[], Any], Inputs, dict[str, Any]]]",
                  module: str | None = None) -> "list[ModelCase | SkippedCase]":
    """Cases from (name, build, inputs, options) specs; all skipped when `package` (or
    `module`) does not import in this venv."""
    why = skipped_unless(package, module)
    if why:
        return [SkippedCase(name, package, why) for name, *_ in specs]
    return [ModelCase(name=name, package=package, build=build, inputs=inputs, **options)
            for name, build, inputs, options in specs]


from zoo import tv_shim  # noqa: E402,F401  (installs the torchvision import hook)
