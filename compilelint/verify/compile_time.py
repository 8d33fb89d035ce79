"""``--compile-time``: the first compiled call, cold, and what the two remedies save.

Each variant runs in a fresh process (``python -m compilelint.verify.compile_time
REQUEST.json``) with an Inductor cache folder of its own, so that nothing the target's
other phases compiled, in this process or on disk, makes it look fast:

- ``cold``: ``torch.compile(model)``, empty caches. With Inductor, the process then saves
  the compile artifacts (``torch.compiler.save_cache_artifacts``).
- ``regional``: the repeated block compiled instead of the model (``block.compile()`` on
  each instance; the rest runs eager), empty caches. The block is found by structure
  (``repeated_blocks``).
- ``warm-artifacts``: a fresh process and an empty cache folder that first loads the
  artifacts ``cold`` saved (``torch.compiler.load_cache_artifacts``).
- ``warm-disk``: a fresh process on the cache folder ``cold`` filled (Inductor's on-disk
  FX graph, AOTAutograd and Triton caches, which are on by default).

The cache variants need a backend with caches (Inductor); with another backend only
``cold`` and ``regional`` run. Every variant first runs the model eager once, so the
first compiled call does not pay CUDA's own start-up. Imports torch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from typing import Any

VARIANTS = ("cold", "regional", "warm-artifacts", "warm-disk")
CACHED_BACKENDS = ("inductor",)


def _structure(module: Any, memo: dict[int, str]) -> str:
    """The module's class and, recursively, its children's names and structures: blocks
    with the same structure run the same code with the same guards (sizes aside)."""
    key = id(module)
    if key not in memo:
        children = ",".join(f"{name}={_structure(child, memo)}" for name, child in module.named_children())
        memo[key] = f"{type(module).__qualname__}({children})"
    return memo[key]


def repeated_blocks(model: Any) -> tuple[str, list[Any]]:
    """The block a regional compile would compile: the structure (a module class and its
    children, recursively) that two or more submodules share, with children of their own
    and the most parameters over all its instances; the outermost instances when one
    holds another. ``("", [])`` when there is none. Structure, not class: the stages of a
    model are often ``nn.Sequential``s of different contents, each a compile of its own."""
    import torch

    if not isinstance(model, torch.nn.Module):
        return "", []
    memo: dict[int, str] = {}
    composite = [m for m in model.modules() if m is not model and any(True for _ in m.children())]
    groups: dict[str, list[Any]] = {}
    for module in composite:
        groups.setdefault(_structure(module, memo), []).append(module)
    best: tuple[int, int, list[Any]] | None = None
    for blocks in groups.values():
        if len(blocks) < 2:
            continue
        covered = sum(p.numel() for m in blocks for p in m.parameters())
        if best is None or (covered, len(blocks)) > best[:2]:
            best = (covered, len(blocks), blocks)
    if best is None:
        return "", []
    inner = {id(sub) for m in best[2] for sub in m.modules() if sub is not m}
    outer = [m for m in best[2] if id(m) not in inner]
    return f"{type(outer[0]).__name__} ×{len(outer)}", outer


def compile_in_place(model: Any, blocks: list[Any], options: dict[str, Any]) -> None:
    """Each block replaced, in its parent, by ``torch.compile(block)``. Not ``block.compile()``:
    on an ``nn.Sequential`` that compiles nothing, its forward being torch's own code, where
    Dynamo starts no frame (measured on torch 2.13: no graph; ``torch.compile(seq)``: one)."""
    import torch

    wanted = {id(block) for block in blocks}
    for parent in list(model.modules()):
        for name, child in list(parent.named_children()):
            if id(child) in wanted:
                parent._modules[name] = torch.compile(child, **options)


def _first_call_s(compiled: Any, args: tuple[Any, ...], kwargs: dict[str, Any], device: str) -> float:
    import torch

    started = time.perf_counter()
    compiled(*args, **kwargs)
    if device.startswith("cuda"):
        torch.cuda.synchronize()
    return time.perf_counter() - started


def probe(request: dict[str, Any]) -> dict[str, Any]:
    """One variant in this (fresh) process."""
    import torch

    from compilelint.verify.child import PhaseFile, _load
    from compilelint.verify.recorder import to_device
    from compilelint.verify.targets import LoadedTarget

    loaded = _load(request, PhaseFile(None))
    if not isinstance(loaded, LoadedTarget):
        return {"error": loaded.detail}
    device, variant = request.get("device", "cpu"), request["variant"]
    backend, mode = request.get("backend", "eager"), request.get("compile_mode") or "default"
    options: dict[str, Any] = {"backend": backend}
    if mode != "default":
        options["mode"] = mode
    fn = to_device(loaded.fn, device)
    first = loaded.input_sets[0]
    args, kwargs = to_device(first.args, device), to_device(first.kwargs, device)
    _first_call_s(fn, args, kwargs, device)  # eager: CUDA's and cuBLAS's start-up, not the compiler's
    result: dict[str, Any] = {"variant": variant}
    if variant == "warm-artifacts":
        with open(request["artifacts"], "rb") as handle:
            torch.compiler.load_cache_artifacts(handle.read())
    if variant == "regional":
        name, blocks = repeated_blocks(fn)
        if not blocks:
            return {"variant": variant, "error": "no repeated block (a module structure with two or more instances)"}
        compile_in_place(fn, blocks, options)
        compiled, result["block"] = fn, name
    else:
        compiled = torch.compile(fn, **options)
    from torch._dynamo.utils import counters

    result["first_call_s"] = _first_call_s(compiled, args, kwargs, device)
    result["graphs"] = int(counters["stats"]["unique_graphs"])
    if variant == "cold" and backend in CACHED_BACKENDS:
        saved = torch.compiler.save_cache_artifacts()
        if saved is not None:
            with open(request["artifacts"], "wb") as handle:
                handle.write(saved[0])
            result["artifact_bytes"] = len(saved[0])
    return result


def _run_variant(request: dict[str, Any], variant: str, cache_dir: str, folder: str) -> dict[str, Any]:
    path = os.path.join(folder, f"{variant}.json")
    with open(path, "w", encoding="utf-8") as handle:
        json.dump({**request, "variant": variant, "artifacts": os.path.join(folder, "artifacts.bin")}, handle)
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=cache_dir)
    done = subprocess.run([sys.executable, "-m", "compilelint.verify.compile_time", path],
                          stdin=subprocess.DEVNULL, capture_output=True, env=env)  # fmt: skip
    try:
        with open(path + ".result", encoding="utf-8") as handle:
            return dict(json.load(handle))
    except (OSError, ValueError):
        last = (done.stderr.decode("utf-8", "replace").strip().splitlines() or [f"exit {done.returncode}"])[-1]
        return {"variant": variant, "error": last[:300]}


def measure_compile_time(request: dict[str, Any]) -> dict[str, Any]:
    """Every variant that applies, one fresh process each; ``{variant: result}``."""
    cached = request.get("backend") in CACHED_BACKENDS
    with tempfile.TemporaryDirectory(prefix="compilelint-compile-time-") as folder:
        cold_cache = os.path.join(folder, "cache-cold")
        results = {"cold": _run_variant(request, "cold", cold_cache, folder)}
        results["regional"] = _run_variant(request, "regional", os.path.join(folder, "cache-regional"), folder)
        if cached and "first_call_s" in results["cold"]:
            if os.path.exists(os.path.join(folder, "artifacts.bin")):
                results["warm-artifacts"] = _run_variant(request, "warm-artifacts",
                                                         os.path.join(folder, "cache-warm"), folder)  # fmt: skip
            results["warm-disk"] = _run_variant(request, "warm-disk", cold_cache, folder)
    return results


def main(path: str) -> None:
    with open(path, encoding="utf-8") as handle:
        request = json.load(handle)
    try:
        result = probe(request)
    except BaseException as exc:  # noqa: BLE001 - the variant's failure is its result
        from compilelint.verify.statuses import describe_exception

        result = {"variant": request.get("variant"), "error": describe_exception(exc)}
    with open(path + ".result", "w", encoding="utf-8") as handle:
        json.dump(result, handle)
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # a process that used torch.compile can hang at exit (pytorch #115366)


if __name__ == "__main__":
    main(sys.argv[1])
