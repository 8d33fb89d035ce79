"""Data-dependent-shape ops under Inductor: which compile, which fall back, which fail.

Dynamo accepts ops whose output shape depends on the data (``torch.unique``, ``nonzero``,
``x[mask]`` ...) only with dynamic-output-shape capture, which ``fullgraph=True`` turns on.
Whether the backend then lowers them is a separate question; this prints one row per op and
mode, for ``backend="inductor"`` on CPU and, where available, on CUDA:

    .venv/bin/python bench/backend_hazards.py            # CPU, and CUDA when present
    .venv/bin/python bench/backend_hazards.py --device cuda --op unique

Modes: ``default`` (plain ``torch.compile``), ``fullgraph`` (``fullgraph=True``), and
``capture`` (plain ``torch.compile`` with ``capture_scalar_outputs`` and
``capture_dynamic_output_shape_ops`` set). Outcomes: ``compiled`` (Inductor generated code for
the op), ``fallback: <aten op>`` (Inductor ran the op through its eager ATen kernel inside
the compiled graph), ``graph break (GBnnnn)`` (Dynamo split the graph there, the op ran eager),
or ``error: <type>`` (compilation failed; under ``fullgraph=True`` this is what users see).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import torch
import torch._dynamo
from torch._inductor.utils import run_and_get_code

Op = Callable[[torch.Tensor], object]


def _ints(x: torch.Tensor) -> torch.Tensor:
    return (x.abs() * 3).long() % 5


# name -> (function, what it stands for); each returns tensors so nothing is dead code
OPS: dict[str, tuple[Op, str]] = {
    "unique": (lambda x: torch.unique(_ints(x)), "torch.unique(t)"),
    "unique_inverse": (lambda x: torch.unique(_ints(x), return_inverse=True), "torch.unique(t, return_inverse=True)"),
    "unique_counts": (lambda x: torch.unique(_ints(x), return_counts=True), "torch.unique(t, return_counts=True)"),
    "unique_dim": (lambda x: torch.unique(_ints(x).view(4, -1), dim=0), "torch.unique(t, dim=0)"),
    "unique_consecutive": (lambda x: torch.unique_consecutive(_ints(x)), "torch.unique_consecutive(t)"),
    "nonzero": (lambda x: torch.nonzero(x > 0), "torch.nonzero(t)"),
    "nonzero_as_tuple": (lambda x: torch.nonzero(x > 0, as_tuple=True), "torch.nonzero(t, as_tuple=True)"),
    "argwhere": (lambda x: torch.argwhere(x > 0), "torch.argwhere(t)"),
    "where_one_arg": (lambda x: torch.where(x > 0), "torch.where(cond)"),
    "masked_select": (lambda x: torch.masked_select(x, x > 0), "torch.masked_select(t, mask)"),
    "boolean_index": (lambda x: x[x > 0] * 2, "t[mask]"),
    "bincount": (lambda x: torch.bincount(_ints(x).flatten()), "torch.bincount(t)"),
    "repeat_interleave": (lambda x: torch.repeat_interleave(x.flatten(), _ints(x).flatten()), "torch.repeat_interleave(t, repeats)"),
    "repeat_interleave_output_size": (
        lambda x: torch.repeat_interleave(x.flatten(), torch.full_like(x.flatten(), 2, dtype=torch.long), output_size=2 * x.numel()),
        "torch.repeat_interleave(t, repeats, output_size=n)",
    ),
    "nonzero_static": (lambda x: torch.nonzero_static(x > 0, size=x.numel()), "torch.nonzero_static(t, size=n)"),
}
MODES = ("default", "fullgraph", "capture")
FALLBACK_CALL = re.compile(r"torch\.ops\.aten\.(\w+)")
# ATen ops every graph of these probes may call without it being the op under test
INCIDENTAL = frozenset({"empty_strided", "empty", "as_strided", "reinterpret_tensor"})


@dataclass(frozen=True)
class Outcome:
    op: str
    device: str
    mode: str
    result: str
    seconds: float


def _breaks_during(run: Callable[[], object]) -> tuple[object, list[str]]:
    from torch._dynamo import symbolic_convert as sc

    seen: list[str] = []
    original = sc.InstructionTranslatorBase.log_graph_break

    def log_graph_break(translator: object, *args: object, **kwargs: object) -> object:
        exc = kwargs.get("exc", args[-1] if args else None)
        seen.append(str(getattr(exc, "gb_type", None) or type(exc).__name__))
        return original(translator, *args, **kwargs)  # type: ignore[arg-type]

    sc.InstructionTranslatorBase.log_graph_break = log_graph_break  # type: ignore[method-assign]
    try:
        return run(), seen
    finally:
        sc.InstructionTranslatorBase.log_graph_break = original  # type: ignore[method-assign]


def measure(name: str, device: str, mode: str) -> Outcome:
    fn = OPS[name][0]
    x = torch.randn(4, 6, device=device)
    torch._dynamo.reset()
    config = torch._dynamo.config
    capture = mode == "capture"
    start = time.perf_counter()
    with config.patch(capture_scalar_outputs=capture, capture_dynamic_output_shape_ops=capture):
        compiled = torch.compile(fn, backend="inductor", fullgraph=mode == "fullgraph")
        try:
            (_, sources), breaks = _breaks_during(lambda: run_and_get_code(compiled, x))
        except Exception as exc:  # what the user sees is the result
            first = str(exc).strip().splitlines()
            detail = next((line for line in first if "LoweringException" in line or "NotImplemented" in line), first[0] if first else "")
            result = f"error: {type(exc).__name__}: {detail[:120]}"
        else:
            fallbacks = sorted({op for code in sources for op in FALLBACK_CALL.findall(code)} - INCIDENTAL)
            if breaks:
                result = "graph break (" + ", ".join(sorted(set(breaks))) + ")"
            elif fallbacks:
                result = "fallback: " + ", ".join(fallbacks)
            else:
                result = "compiled"
    torch._dynamo.reset()
    return Outcome(name, device, mode, result, time.perf_counter() - start)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--device", action="append", help="cpu, cuda (default: cpu, and cuda when available)")
    parser.add_argument("--op", action="append", choices=sorted(OPS), help="only these ops")
    args = parser.parse_args(argv)
    devices = args.device or ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])
    ops = args.op or list(OPS)
    print(f"torch {torch.__version__}, backend inductor")
    print("| op | device | " + " | ".join(MODES) + " |")
    print("|---|---|" + "---|" * len(MODES))
    for name in ops:
        for device in devices:
            cells = [measure(name, device, mode).result for mode in MODES]
            print(f"| `{OPS[name][1]}` | {device} | " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
