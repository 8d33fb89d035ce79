"""Run every rule fixture through Dynamo on the torch of *this* interpreter; print JSON.

The dynamic half of bench/claims.py. It needs only torch (and numpy, which some
fixtures import) plus the checkout on PYTHONPATH for ``compilelint.verify``, so it runs
in any virtual environment and on the GPU machine, whose image has no libcst:

    PYTHONPATH=. <venv>/bin/python bench/claims_probe.py --out probe.json fixtures/CL1*/*.py

For each ``target_*`` of each file: the breaks (line, gb_type) in that file and the
fullgraph error, in the default mode, with ``fullgraph=True`` and with
``dynamic=True``; for ``run_*``/``target_*`` functions annotated ``# recompiles: N`` /
``# compiles: N``, the count measured.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import platform
import re
import sys
import traceback
from pathlib import Path
from typing import Any

import torch
import torch._dynamo

from compilelint.verify.recorder import record
from compilelint.verify.targets import normalize_input_set

# the fixture tests' loader (standard library only, so the probe still needs no pytest)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from fixture_support import load_module  # noqa: E402

COUNTED = re.compile(r"^def (target_\w+|run_\w+)\(\):\s*#\s*(recompiles|compiles):\s*(\d+)", re.M)
MODES = ("default", "fullgraph", "dynamic")


def gb_ids_by_type() -> dict[str, list[str]]:
    path = Path(os.path.dirname(torch._dynamo.__file__)) / "graph_break_registry.json"
    if not path.exists():
        return {}
    ids: dict[str, list[str]] = {}
    for gb_id, entries in json.loads(path.read_text()).items():
        for entry in entries:
            ids.setdefault(entry["Gb_type"], []).append(gb_id)
    return ids


def run_mode(fn: Any, inputs: list[Any], path: str, mode: str, backend: str, device: str) -> dict[str, Any]:
    folder = os.path.dirname(path)
    options: dict[str, Any] = {"assume_static_by_default": False} if mode == "dynamic" else {}
    with torch._dynamo.config.patch(**options), contextlib.redirect_stdout(io.StringIO()):
        recording = record(fn, inputs, mode="fullgraph" if mode == "fullgraph" else "default",
                           backend=backend, device=device, user_roots=[folder])
    breaks = sorted({(e.line, e.gb_type or "?") for e in recording.events if e.path == path})
    result: dict[str, Any] = {"breaks": [list(b) for b in breaks], "error": None, "error_line": None}
    error = recording.error
    if error is not None:
        first = error.message.splitlines()[0] if error.message else ""
        result["error"] = f"{error.type}: {first}"[:300]
        result["error_gb_type"] = getattr(error, "gb_type", None)
        if error.path == path and error.line:
            result["error_line"] = error.line
    return result


def count(fn: Any, inputs: list[Any], what: str) -> int:
    torch._dynamo.reset()
    torch._dynamo.utils.counters.clear()
    with contextlib.redirect_stdout(io.StringIO()):
        if what == "compiles":  # run_* functions call torch.compile themselves
            fn()
            frames = int(torch._dynamo.utils.counters["frames"]["ok"])
            torch._dynamo.reset()
            return frames
        compiled = torch.compile(fn, backend="eager")
        for item in inputs:
            inputs_ = normalize_input_set(item)
            compiled(*inputs_.args, **inputs_.kwargs)
    frames = int(torch._dynamo.utils.counters["frames"]["ok"])
    torch._dynamo.reset()
    return frames - 1


def _fresh(module: Any, name: str) -> tuple[Any, list[Any]]:
    fn, inputs = getattr(module, name)()
    return fn, list(inputs)


def probe_file(path: Path, backend: str, device: str, modes: tuple[str, ...]) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    # claims.py combines by line: a probe of another version of the file must not be used
    out: dict[str, Any] = {"targets": {}, "counts": {}, "sha256": hashlib.sha256(text.encode()).hexdigest()}
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            module = load_module(path)
    except Exception as exc:  # noqa: BLE001 - a fixture that cannot load on this torch is a result
        out["load_error"] = f"{type(exc).__name__}: {exc}"[:300]
        return out
    resolved = str(path.resolve())
    for name in sorted(vars(module)):
        if not (name.startswith("target_") and callable(getattr(module, name))):
            continue
        try:
            # a fresh model and inputs for each mode, as the fixture tests build them
            # (fixture_support.rebuilt): what one mode's run caches or sets in place
            # (a cached_property, an input's requires_grad) must not hide the next one's break
            out["targets"][name] = {mode: run_mode(*_fresh(module, name), resolved, mode, backend, device) for mode in modes}
        except Exception as exc:  # noqa: BLE001
            out["targets"][name] = {"crash": f"{type(exc).__name__}: {exc}"[:300],
                                    "trace": traceback.format_exc()[-1200:]}
    for name, what, _ in COUNTED.findall(text):
        try:
            fn = getattr(module, name)
            if what == "compiles":
                out["counts"][name] = count(fn, [], what)
            else:
                target, inputs = fn()
                out["counts"][name] = count(target, list(inputs), what)
        except Exception as exc:  # noqa: BLE001
            out["counts"][name] = f"{type(exc).__name__}: {exc}"[:300]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--backend", default="eager")
    parser.add_argument("--out", type=Path, help="write the JSON here (fixtures print to stdout)")
    parser.add_argument("--device", default="cpu", help="cpu or cuda: inputs and modules are moved there")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated subset of " + ",".join(MODES))
    parser.add_argument("--no-counts", action="store_true", help="skip the recompile counts")
    args = parser.parse_args(argv)
    result = {
        "torch": torch.__version__,
        "python": platform.python_version(),
        "backend": args.backend,
        "device": args.device,
        "cuda": torch.cuda.is_available(),
        "gb_ids": gb_ids_by_type(),
        "files": {},
    }
    for path in args.files:
        print(f"[claims_probe] {path}", file=sys.stderr, flush=True)
        modes = tuple(m for m in args.modes.split(",") if m)
        result["files"][str(path)] = probe_file(path, args.backend, args.device, modes)
        if args.no_counts:
            result["files"][str(path)]["counts"] = {}
    text = json.dumps(result, indent=1, sort_keys=True)
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
