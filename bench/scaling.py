"""How lint (and ``--fix``) time and memory grow with file size, printed as a table.

    .venv/bin/python bench/scaling.py                        # 0.25 .. 32 MB, every shape
    .venv/bin/python bench/scaling.py --sizes 0.25 1 4 --shapes realistic --fix

Each (shape, size) runs in a fresh process (``lint_file`` of one generated file, or
``fix_source`` with ``--fix``), under a wall-clock limit, and reports its wall time and
peak RSS. The fitted exponent is the slope of log(time) and log(peak RSS above the
interpreter's own) against log(size), by least squares over the sizes that finished:
1.0 is linear; files the per-file budget skips are not fitted. The time fitted is CPU time (the machines we measure on are shared; the
wall time is printed too). Shapes:

- realistic: a model file as torch code looks: modules with ``__init__``/``forward``,
  helpers, local base classes, a few hazards (print, ``.item()``, data-dependent ifs);
- tuple: one huge tuple literal (generated tables, embedded weights);
- chain: a deep chain of local subclasses (``class C2(C1)``, ...), each with a forward;
- flat: thousands of small top-level functions, one compiled.

Required (issue 16): exponent <= 1.1 for time and memory on realistic code, and a 20 MB
realistic file in <= 30 s and <= 1 GB on 2 cores. Files over the per-file budget are
reported as skipped (CL999), which the table shows.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable

MB = 1 << 20

MODULE = '''

class Block{n}(nn.Module):
    def __init__(self, dim: int = 64) -> None:
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.norm = nn.LayerNorm(dim)
        self.scale = 0.5

    def forward(self, x):
        h = self.norm(x)
        h = self.proj(h) * self.scale + x
        if h.sum() > 0:
            h = h * 2
        return activation{n}(h)


class Deep{n}(Block{n}):
    def forward(self, x, mask=None):
        y = super().forward(x)
        if mask is not None:
            y = y.masked_fill(mask, 0.0)
        print("deep", y.shape)
        return y + helper{n}(y)


def helper{n}(t):
    total = t.mean().item()
    return t / (1.0 + abs(total))


def activation{n}(t):
    return torch.nn.functional.gelu(t) + t.tanh() * CONSTANTS_{n}[0]


CONSTANTS_{n} = (1.0, 2.0, 3.0, 4.0)
'''

CHAIN = '''

class C{n}(C{p}):
    def forward(self, x):
        return super().forward(x) + {n}
'''

FLAT = '''

def f{n}(x, y=1):
    z = x * y + {n}
    return z.relu()
'''

HEADER = "import torch\nfrom torch import nn\n"


def _repeat(block: str, size: int, head: str = HEADER) -> str:
    parts = [head]
    total, n = len(head), 0
    while total < size:
        text = block.format(n=n, p=n - 1 if n else "Base")
        parts.append(text)
        total += len(text)
        n += 1
    return "".join(parts)


def realistic(size: int) -> str:
    return _repeat(MODULE, size)


def chain(size: int) -> str:
    head = HEADER + "\n\nclass CBase(nn.Module):\n    def forward(self, x):\n        return x\n"
    return _repeat(CHAIN, size, head)


def flat(size: int) -> str:
    return _repeat(FLAT, size) + "\n\ncompiled = torch.compile(f0)\n"


def tuple_literal(size: int) -> str:
    head = HEADER + "\n\nclass M(nn.Module):\n    def forward(self, x):\n        return x * TABLE[0]\n\n\nTABLE = (\n"
    row = "    " + ", ".join(f"{i * 0.001:.3f}" for i in range(12)) + ",\n"
    return head + row * max(1, (size - len(head)) // len(row)) + ")\n"


SHAPES: dict[str, Callable[[int], str]] = {"realistic": realistic, "tuple": tuple_literal, "chain": chain, "flat": flat}

CHILD = r"""
import json, resource, sys, time
from compilelint.config import DEFAULT_SETTINGS
from compilelint.engine import lint_file
from compilelint.fix.loop import fix_source
def peak_kb():  # VmHWM belongs to this exec; ru_maxrss would carry the parent's peak over
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
base = peak_kb()
path, fix = sys.argv[1], sys.argv[2] == "fix"
started, cpu = time.perf_counter(), time.process_time()
if fix:
    with open(path, "rb") as handle:
        outcome = fix_source(handle.read(), path, DEFAULT_SETTINGS, unsafe=False)
    findings, note = outcome.findings, outcome.error or ""
else:
    findings, note = lint_file(path, DEFAULT_SETTINGS).findings, ""
seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
skipped = [f.message for f in findings if f.code == "CL999"]
print(json.dumps({"seconds": seconds, "cpu": cpu, "peak_kb": peak_kb(),
                  "base_kb": base, "findings": len(findings), "note": (skipped[0] if skipped else note)[:60]}))
"""


def measure(text: str, fix: bool, limit: float) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="scaling-") as folder:
        path = os.path.join(folder, "generated.py")
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
        try:
            done = subprocess.run([sys.executable, "-c", CHILD, path, "fix" if fix else "lint"],
                                  capture_output=True, text=True, timeout=limit)  # fmt: skip
        except subprocess.TimeoutExpired:
            return {"seconds": None, "note": f"over {limit:g} s"}
    if done.returncode != 0:
        return {"seconds": None, "note": (done.stderr.strip().splitlines() or ["?"])[-1][:60]}
    result: dict[str, object] = json.loads(done.stdout)
    return result


def exponent(points: list[tuple[float, float]]) -> float | None:
    """Least-squares slope of log(y) on log(x)."""
    points = [(x, y) for x, y in points if x > 0 and y > 0]
    if len(points) < 2:
        return None
    xs = [math.log(x) for x, _ in points]
    ys = [math.log(y) for _, y in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / var if var else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=float, nargs="*", default=[0.25, 0.5, 1, 2, 4, 8, 16, 20, 32], help="MB")
    parser.add_argument("--shapes", nargs="*", default=list(SHAPES), choices=list(SHAPES))
    parser.add_argument("--fix", action="store_true", help="time fix_source (safe fixes) instead of lint_file")
    parser.add_argument("--limit", type=float, default=300.0, help="seconds per run")
    args = parser.parse_args()
    print(f"| shape | MB | {'fix' if args.fix else 'lint'} wall s | CPU s | peak MB | above base MB | findings | note |")
    print("|---|---|---|---|---|---|---|---|")
    fits = []
    for shape in args.shapes:
        times, memory = [], []
        for size in args.sizes:
            text = SHAPES[shape](int(size * MB))
            real = len(text.encode()) / MB
            r = measure(text, args.fix, args.limit)
            seconds = r.get("seconds")
            skipped = str(r.get("note", "")).startswith("skipped")
            if isinstance(seconds, float):
                peak, base = int(r["peak_kb"]) / 1024, int(r["base_kb"]) / 1024  # type: ignore[call-overload]
                cpu = float(r["cpu"])  # type: ignore[arg-type]
                if not skipped:  # the budget's answer is not the analysis's cost
                    times.append((real, cpu))
                    memory.append((real, peak - base))
                cells = [f"{seconds:.2f}", f"{cpu:.2f}", f"{peak:.0f}", f"{peak - base:.0f}", str(r["findings"])]
            else:
                cells = ["-", "-", "-", "-", "-"]
            print(f"| {shape} | {real:.2f} | " + " | ".join(cells) + f" | {r.get('note', '')} |", flush=True)
        fits.append((shape, exponent(times), exponent(memory)))
    print()
    print("| shape | CPU time exponent | memory exponent |")
    print("|---|---|---|")
    for shape, t, m in fits:
        print(f"| {shape} | {'-' if t is None else f'{t:.2f}'} | {'-' if m is None else f'{m:.2f}'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
