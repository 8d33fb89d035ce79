"""Cold, warm and one-file-edited runs of compilelint and ruff on the same tree, in one run.

    python bench/cache_speed.py /path/to/transformers/models [--ruff /path/to/ruff] [--repeats 3]

The tree is copied to a temporary folder (the edit goes there), so the source stays as it
was. Each tool runs as a whole process (start-up included), wall time, median of the
repeats (wall, and CPU: user + system of the process and its children, which is what
a busy shared machine does not inflate): compilelint with its cache cold (empty cache folder), warm (nothing changed) and
after one edited file; ``ruff check --no-cache``; ruff with its cache, cold, warm and
edited. Both tools use their defaults otherwise (all cores); ruff runs with
``--select ALL`` so it does real work on every file, ``--exit-zero`` for both.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path


def timed(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system, the process and its children)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{command[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def median(repeats: int, setup: Callable[[], None], command: list[str], cwd: Path) -> tuple[float, float]:
    times = []
    for _ in range(repeats):
        setup()
        times.append(timed(command, cwd))
    return statistics.median(t[0] for t in times), statistics.median(t[1] for t in times)


def edit(path: Path, counter: list[int]) -> Callable[[], None]:
    original = path.read_text(encoding="utf-8")

    def change() -> None:
        counter[0] += 1
        path.write_text(original + f"\n# edited {counter[0]}\n", encoding="utf-8")

    return change


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("tree")
    parser.add_argument("--ruff", default=shutil.which("ruff") or "ruff")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    compilelint = [str(Path(sys.executable).parent / "compilelint"), "check", "--exit-zero", "-q", "--output-format", "concise"]
    ruff = [args.ruff, "check", "--exit-zero", "--quiet", "--select", "ALL"]
    with tempfile.TemporaryDirectory(prefix="cache-speed-") as scratch:
        work = Path(scratch) / "tree"
        shutil.copytree(args.tree, work)
        files = sorted(work.rglob("*.py"))
        target = next(p for p in files if "modeling_" in p.name and "torch" in p.read_text(encoding="utf-8"))
        counter = [0]
        cl_cache, ruff_cache = Path(scratch) / "cl-cache", Path(scratch) / "ruff-cache"
        cl = compilelint + ["--cache-dir", str(cl_cache), "."]
        rf = ruff + ["--cache-dir", str(ruff_cache), "."]
        nothing = lambda: None  # noqa: E731
        clear_cl = lambda: shutil.rmtree(cl_cache, ignore_errors=True)  # noqa: E731
        clear_ruff = lambda: shutil.rmtree(ruff_cache, ignore_errors=True)  # noqa: E731
        rows = [
            ("compilelint, cache cold", median(args.repeats, clear_cl, cl, work)),
            ("compilelint, cache warm", median(args.repeats, nothing, cl, work)),
            ("compilelint, one file edited", median(args.repeats, edit(target, counter), cl, work)),
            ("compilelint --no-cache", median(args.repeats, nothing, compilelint + ["--no-cache", "."], work)),
            ("ruff check --no-cache", median(args.repeats, nothing, ruff + ["--no-cache", "."], work)),
            ("ruff, cache cold", median(args.repeats, clear_ruff, rf, work)),
            ("ruff, cache warm", median(args.repeats, nothing, rf, work)),
            ("ruff, one file edited", median(args.repeats, edit(target, counter), rf, work)),
        ]
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{len(files)} files under {args.tree}; {os.cpu_count()} cores, load average {load}; median of {args.repeats} runs")
    print(f"edited file: {target.relative_to(work)}")
    print("| run | wall s | CPU s (user+sys) |\n|---|---|---|")
    for name, (wall, cpu) in rows:
        print(f"| {name} | {wall:.2f} | {cpu:.2f} |")


if __name__ == "__main__":
    main()
