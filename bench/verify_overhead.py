"""The verifier's overhead on small targets: 30 of them, cold processes against warm workers.

    python bench/verify_overhead.py --device cuda [--count 30] [--jobs 1 4] [--out DIR]

Writes a targets file of ``--count`` small models (MLPs, convolutions, a print, a
``.item()``, a Python-number argument, a recompiling batch: each three input sets, as a
user's targets would be) into a temporary folder, then times ``compilelint verify`` over
it, once per configuration: ``--isolate`` (a fresh process per target, the old way) and
warm workers at each ``--jobs``, each run with an empty Inductor cache folder of its own. Prints a table; ``--out`` keeps each run's JSON report.
Issue 13's bar: 30 small targets in under 90 s on the GPU box, at most 3 s each.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

_HEADER = '''import torch


class MLP(torch.nn.Module):
    def __init__(self, width, depth):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(depth))

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x


class Conv(torch.nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, channels, 3, padding=1)
        self.norm = torch.nn.BatchNorm2d(channels)

    def forward(self, x):
        return torch.relu(self.norm(self.conv(x))).mean(dim=(2, 3))


class Printing(torch.nn.Module):
    def __init__(self, width):
        super().__init__()
        self.linear = torch.nn.Linear(width, width)

    def forward(self, x):
        y = self.linear(x)
        print("mean", y.shape)
        return y.sin()


def scaled(x, factor):
    return x * factor + 1


def thresholded(x):
    if x.sum().item() > 0:
        return x.cos()
    return x.sin()
'''

_KINDS = (
    ("mlp", "MLP({width}, 3).eval(), [(torch.randn(b, {width}, device=device),) for b in (8, 8, 16)]"),
    ("conv", "Conv({channels}).eval(), [(torch.randn(b, 3, 32, 32, device=device),) for b in (4, 4, 8)]"),
    ("printing", "Printing({width}).eval(), [(torch.randn(8, {width}, device=device),) for _ in range(3)]"),
    ("scaled", "scaled, [(torch.randn({width}, device=device), f) for f in (2.0, 3.0, 4.0)]"),
    ("item", "thresholded, [(torch.randn({width}, device=device),) for _ in range(3)]"),
)


def targets_source(count: int) -> str:
    lines = [_HEADER]
    for index in range(count):
        kind, body = _KINDS[index % len(_KINDS)]
        width, channels = 32 * (1 + index % 4), 8 * (1 + index % 3)
        lines.append(f"\n\ndef target_{kind}_{index:02d}(device='cpu'):\n"
                     f"    torch.manual_seed({index})\n"
                     f"    return {body.format(width=width, channels=channels)}\n")  # fmt: skip
    return "".join(lines)


def run_verify(targets: str, device: str, extra: list[str], out: str | None, label: str) -> dict[str, object]:
    report = os.path.join(out or tempfile.gettempdir(), f"overhead-{label}.json")
    command = [sys.executable, "-m", "compilelint", "verify", "--targets", targets, "--device", device,
               "-q", "--format", "json", "-o", report, *extra]  # fmt: skip
    # each run starts with empty Inductor caches: the 30 targets share kernels among
    # themselves (that is the on-disk cache at work), not with an earlier run
    env = dict(os.environ, TORCHINDUCTOR_CACHE_DIR=tempfile.mkdtemp(prefix=f"overhead-cache-{label}-"))
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    try:
        with open(report, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        print(done.stderr[-2000:], file=sys.stderr)
        return {"label": label, "wall_s": wall, "ok": 0, "targets": 0, "slowest_s": 0.0, "rc": done.returncode}
    walls = [float(t["wall_s"]) for t in data["targets"]]
    ok = sum(1 for t in data["targets"] if t["status"] == "ok")
    return {"label": label, "wall_s": wall, "ok": ok, "targets": len(walls), "rc": done.returncode,
            "slowest_s": max(walls, default=0.0), "median_s": sorted(walls)[len(walls) // 2] if walls else 0.0}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--count", type=int, default=30)
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 4])
    parser.add_argument("--isolated-count", type=int, default=None,
                        help="targets in the fresh-process run (default: all; 0 skips it): it is the slow one")
    parser.add_argument("--out", default=None)
    parser.add_argument("--backend", default=None, help="passed to verify (default: its own: inductor on CUDA)")
    args = parser.parse_args()
    if args.out:
        os.makedirs(args.out, exist_ok=True)
    folder = tempfile.mkdtemp(prefix="compilelint-overhead-")
    targets = os.path.join(folder, "small_targets.py")
    with open(targets, "w", encoding="utf-8") as handle:
        handle.write(targets_source(args.count))
    isolated_count = args.count if args.isolated_count is None else args.isolated_count
    isolated = os.path.join(folder, "isolated_targets.py")
    with open(isolated, "w", encoding="utf-8") as handle:
        handle.write(targets_source(isolated_count))
    import torch

    print(f"torch {torch.__version__}, device {args.device}, {args.count} targets, {os.cpu_count()} CPUs")
    backend = ["--backend", args.backend] if args.backend else []
    runs = [(isolated, ["--isolate", "--jobs", "1", *backend], "isolated-j1")] if isolated_count else []
    runs += [(targets, ["--jobs", str(jobs), *backend], f"warm-j{jobs}") for jobs in args.jobs]
    print("| run | targets ok | wall s | s per target | median target s | slowest target s | exit |")
    print("|---|---|---|---|---|---|---|", flush=True)
    for file, extra, label in runs:  # each row as it is measured: a killed bench keeps the rows done
        row = run_verify(file, args.device, extra, args.out, label)
        per = float(row["wall_s"]) / max(1, int(row["targets"]))  # type: ignore[arg-type]
        print(f"| {row['label']} | {row['ok']}/{row['targets']} | {row['wall_s']:.1f} | {per:.2f} | "
              f"{row.get('median_s', 0):.2f} | {row['slowest_s']:.2f} | {row['rc']} |", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
