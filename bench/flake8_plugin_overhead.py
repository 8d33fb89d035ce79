"""What the compilelint flake8 plugin adds to a plain flake8 run, in CPU time.

Two installations of the same flake8 7.5.0 lint the same files: one with only flake8
(and its default plugins pyflakes, pycodestyle, mccabe), one (the dev venv) with the
compilelint plugin too. The plugin cannot be switched off inside one venv (``--select``
only filters output; every plugin still runs), hence two venvs. CPU time is user + sys
of the whole process tree (flake8's worker processes included), read with
``resource.getrusage(RUSAGE_CHILDREN)``, so the number of cores does not matter.

Setup (once):

    python3 -m venv /tmp/venv-flake8-only && /tmp/venv-flake8-only/bin/pip install flake8==7.5.0
    pip download --no-deps transformers==5.24.0 -d /tmp/tfdl
    python3 -c "import zipfile; zipfile.ZipFile('/tmp/tfdl/transformers-5.24.0-py3-none-any.whl').extractall('/tmp/tfdl/x')"

Run:

    .venv/bin/python bench/flake8_plugin_overhead.py /tmp/tfdl/x/transformers/models
    .venv/bin/python bench/flake8_plugin_overhead.py /tmp/tfdl/x/transformers/models --sample 400
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEV_BIN = ROOT / ".venv" / "bin"
PLAIN_FLAKE8 = Path("/tmp/venv-flake8-only/bin/flake8")


@dataclass(frozen=True)
class Measurement:
    label: str
    cpu_s: float
    wall_s: float
    cl_findings: int
    exit_code: int


def python_files(root: Path) -> list[str]:
    return sorted(str(p) for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def sample(files: Sequence[str], size: int | None) -> list[str]:
    """Every k-th file of the sorted list: deterministic, spread over all model folders."""
    if not size or size >= len(files):
        return list(files)
    stride = len(files) / size
    return [files[int(i * stride)] for i in range(size)]


def measure(label: str, command: Sequence[str]) -> Measurement:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    findings = sum(1 for line in done.stdout.splitlines() if ": CL" in line)
    return Measurement(label, cpu, wall, findings, done.returncode)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path, help="folder of Python files (e.g. transformers/models)")
    parser.add_argument("--sample", type=int, default=None, help="lint only N files, spread evenly")
    parser.add_argument("--repeat", type=int, default=1, help="runs per configuration (the minimum is kept)")
    parser.add_argument("--plain-flake8", type=Path, default=PLAIN_FLAKE8)
    args = parser.parse_args(argv)
    if not args.plain_flake8.exists():
        print(f"missing {args.plain_flake8}: see the setup in this script's docstring", file=sys.stderr)
        return 2
    files = sample(python_files(args.corpus), args.sample)
    with tempfile.TemporaryDirectory() as scratch:
        # An empty config folder as cwd: no setup.cfg/tox.ini/pyproject.toml of ours applies.
        os.chdir(scratch)
        configurations = [
            ("flake8 (pyflakes, pycodestyle, mccabe)", [str(args.plain_flake8), *files]),
            ("flake8 + compilelint plugin", [str(DEV_BIN / "flake8"), *files]),
            ("flake8 --select CL (same plugins run)", [str(DEV_BIN / "flake8"), "--select", "CL", *files]),
            ("compilelint check (for comparison)", [str(DEV_BIN / "compilelint"), "check", "-q", "--format", "concise", *files]),
        ]
        results = []
        for label, command in configurations:
            runs = [measure(label, command) for _ in range(args.repeat)]
            results.append(min(runs, key=lambda m: m.cpu_s))
    print_table(results, len(files), os.cpu_count() or 1)
    return 0


def print_table(results: Sequence[Measurement], file_count: int, cores: int) -> None:
    base = results[0].cpu_s
    print(f"{file_count} files, {cores} cores, CPU = user+sys of the process tree\n")
    print(f"{'configuration':<42} {'CPU s':>8} {'wall s':>8} {'x flake8':>9} {'CL findings':>12}")
    for m in results:
        print(f"{m.label:<42} {m.cpu_s:8.1f} {m.wall_s:8.1f} {m.cpu_s / base:9.2f} {m.cl_findings:12d}")
    added = results[1].cpu_s - base
    print(f"\nthe plugin adds {added:.1f} CPU-s ({added / base:+.0%}) to a plain flake8 run")
    if len({m.cl_findings for m in results[1:3]}) > 1:
        # Both flake8 rows run the same plugin: different counts mean the rules changed
        # (someone edited rules/) while this ran: measure again.
        print("warning: CL finding counts differ between the flake8 rows: the rules changed during the run")
    if results[-1].cl_findings != results[1].cl_findings:
        # flake8 lints one file at a time; `compilelint check` also follows compiled code
        # into helpers imported from other files of the run.
        print(f"note: compilelint check reports {results[-1].cl_findings - results[1].cl_findings:+d} "
              "findings in helpers other files' compiled code calls (cross-file; flake8 sees one file)")


if __name__ == "__main__":
    sys.exit(main())
