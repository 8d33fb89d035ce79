"""Let `import torchvision` succeed when its C extension cannot load (CPU torch 2.13 + PyPI torchvision).

PyPI's torchvision 0.28.0 (made for torch 2.13.0) is a CUDA build; beside the
CPU torch wheel its `_C.so` cannot load (libc10_cuda.so missing), and
`torchvision/__init__.py` then dies in `_meta_registrations` with "operator
torchvision::nms does not exist".  timm (and transformers' image utilities,
and through them diffusers) only need torchvision's pure-Python parts, so when
(and only when) the extension is missing we pre-seed the two op-registration
modules with empty stand-ins.  torchvision's C ops (nms, roi_align, ...) stay
unavailable; no zoo model calls them.

Used two ways:
  * `zoo.case` calls `install()` (the bench harness);
  * setup_env.sh copies this file into the venv's site-packages as
    `_bench_tv_shim.py` with a `.pth` line, so every interpreter of the bench
    venvs gets it (a plain `import transformers` there would fail otherwise).
    It only hooks the import of torchvision; it imports nothing at start-up.
"""
from __future__ import annotations

import importlib.abc
import importlib.util
import sys
import types


def _seed() -> None:
    spec = None
    for finder in sys.meta_path:
        if getattr(finder, "_bench_tv", False):
            continue
        find = getattr(finder, "find_spec", None)
        if find is None:
            continue
        try:
            spec = find("torchvision", None)
        except Exception:  # noqa: BLE001
            spec = None
        if spec is not None:
            break
    if spec is None or not spec.submodule_search_locations:
        return
    import glob
    import os

    libs = []
    for loc in spec.submodule_search_locations:
        libs += glob.glob(os.path.join(loc, "_C*.so"))
    loadable = False
    if libs:
        try:
            import torch

            torch.ops.load_library(libs[0])
            loadable = True
        except Exception:  # noqa: BLE001 - any load failure means "shim it"
            loadable = False
    if not loadable:
        for m in ("torchvision._meta_registrations", "torchvision._autograd_registrations"):
            sys.modules.setdefault(m, types.ModuleType(m))


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, fullname, path=None, target=None):  # type: ignore[no-untyped-def]
        if fullname == "torchvision":
            try:
                sys.meta_path.remove(self)
            except ValueError:
                pass
            _seed()
        return None  # let the normal finders import it


def install() -> None:
    if "torchvision" in sys.modules:
        return
    if not any(getattr(f, "_bench_tv", False) for f in sys.meta_path):  # one hook, whichever copy
        f = _Finder()
        f._bench_tv = True  # type: ignore[attr-defined]
        sys.meta_path.insert(0, f)


install()
