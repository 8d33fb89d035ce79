"""Safety figures of ``--fix --unsafe-fixes`` (reliability plan F1, E, W1), printed as a table.

    .venv/bin/python bench/fix_safety.py                  # everything below, defaults
    .venv/bin/python bench/fix_safety.py --corpus /tmp/corpus/transformers --hypothesmith 0 --sigkill 0

1. Corpus: every ``.py`` of the given folders (default: transformers, timm, diffusers
   unpacked under /tmp/corpus) is copied to a temporary folder and fixed there.
2. hypothesmith: ``--hypothesmith N`` generated modules, in trees of ``--chunk`` (1000, each its
   own seed; one row per tree as it finishes, and a total) (``from_grammar`` and ``from_node``,
   derandomized), each placed inside ``forward`` of an ``nn.Module`` between statements
   that have fixes, written to files and fixed. Generated code is compiled, never run.
3. SIGKILL: ``--sigkill N`` runs of ``--fix`` on a 4 MB file killed at a random point
   (half of them just after the temporary file appears, to land mid-write).

Required for each tree: 0 fixed files that fail ``compile()``, 0 uncaught exceptions,
a second ``--fix`` changes 0 bytes, files without fixes are byte-identical and not
rewritten (inode and mtime unchanged), and in every fixed file the bytes outside the
ranges the applied fixes claimed are kept (each fixed file is fixed again in this process
with a trace of its passes, checked by ``compilelint.fix.preserve``; the first few files
that fail are named on stderr). SIGKILL: every trial leaves the old or the new
bytes, and the next run names every temporary file the kill left (it never deletes one).
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
import warnings
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from compilelint.config import DEFAULT_SETTINGS
from compilelint.engine import lint_paths
from compilelint.findings import FileResult
from compilelint.fix.api import FixReport, apply_fixes, fix_paths, lint_setups
from compilelint.fix.loop import fix_source
from compilelint.fix.preserve import FixPass, first_outside_change
from compilelint.fix.write import TEMP_SUFFIX

CORPORA = ["/tmp/corpus/transformers", "/tmp/corpus/timm", "/tmp/corpus/diffusers"]
TEMPLATE = '''import logging

import torch
from torch import nn

logger = logging.getLogger(__name__)


class Generated(nn.Module):
    def forward(self, x):
        print("start", x.shape)
        if x.sum() > 0:
            y = x * 2
        else:
            y = -x
{body}
        logger.info("done"); z = y if y.mean() > 0 else x
        return y, z
'''


@dataclass
class TreeFigures:
    name: str
    files: int = 0
    compiled_before: int = 0
    with_fixes: int = 0
    fixed_files: int = 0
    fixes_applied: int = 0
    compile_failures: int = 0
    exceptions: int = 0
    errors: Counter[str] = field(default_factory=Counter)
    second_run_changed: int = 0
    untouched_rewritten: int = 0
    outside_changed: int = 0  # fixed files with bytes changed outside every fix's claim
    trace_differs: int = 0  # the traced re-run did not give the bytes the run wrote
    seconds: float = 0.0


def _snapshot(root: Path) -> dict[Path, tuple[bytes, int, int]]:
    snapshot = {}
    for path in sorted(root.rglob("*.py")):
        status = path.stat()
        snapshot[path] = (path.read_bytes(), status.st_ino, status.st_mtime_ns)
    return snapshot


def _compiles(data: bytes, path: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(data, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return False
    return True


def _error_kind(message: str) -> str:
    for prefix in ("internal error", "fix unavailable", "not written", "cannot read"):
        if message.startswith(prefix):
            return prefix
    if "did not converge" in message:
        return "did not converge"
    if "invalid code" in message or "linter rejects" in message:
        return "fix broke the code"
    return message.split(":", 1)[0]


def check_tree(name: str, root: Path, jobs: int | None) -> TreeFigures:
    """Fix ``root`` in place twice and measure everything the safety bar asks for."""
    figures = TreeFigures(name)
    before = _snapshot(root)
    figures.files = len(before)
    figures.compiled_before = sum(_compiles(data, str(p)) for p, (data, _, _) in before.items())
    started = time.perf_counter()
    results = lint_paths([str(root)], DEFAULT_SETTINGS, jobs=jobs)
    report = apply_fixes(results, DEFAULT_SETTINGS, unsafe=True, diff=False, jobs=jobs, roots=[str(root)])
    figures.seconds = time.perf_counter() - started
    _count(figures, report)
    after = _snapshot(root)
    changed = {o.path for o in report.outcomes if o.changed}
    for path, (data, inode, mtime) in before.items():
        new, new_inode, new_mtime = after[path]
        if str(path) in changed:
            figures.fixed_files += 1
            figures.compile_failures += _compiles(data, str(path)) and not _compiles(new, str(path))
        elif (new, new_inode, new_mtime) != (data, inode, mtime):
            figures.untouched_rewritten += 1
    _check_preserved(figures, results, {p: (before[Path(p)][0], after[Path(p)][0]) for p in sorted(changed)})
    second = fix_paths([str(root)], DEFAULT_SETTINGS, unsafe=True, jobs=jobs)
    third = _snapshot(root)
    figures.second_run_changed = sum(third[p][0] != after[p][0] for p in after) + second.fixed
    return figures


def _check_preserved(figures: TreeFigures, results: list[FileResult], fixed: dict[str, tuple[bytes, bytes]]) -> None:
    """Fix each fixed file again with a trace; every pass must keep the bytes it did not claim."""
    setups = lint_setups(results, list(fixed), lambda _: DEFAULT_SETTINGS)
    for path, (old, new) in fixed.items():
        trace: list[FixPass] = []
        again = fix_source(old, path, setups[path], unsafe=True, trace=trace)
        if again.fixed != new:
            figures.trace_differs += 1
            continue
        outside = first_outside_change(trace)
        if outside is not None:
            figures.outside_changed += 1
            if figures.outside_changed <= 5:
                print(f"bytes changed outside the fixes: {path}, pass {outside[0]}, {outside[1]}", file=sys.stderr)


def _count(figures: TreeFigures, report: FixReport) -> None:
    figures.with_fixes = len(report.outcomes)
    figures.fixes_applied = report.fixed
    for _, message in report.errors:
        kind = _error_kind(message)
        figures.errors[kind] += 1
        figures.exceptions += kind == "internal error"


def corpus(folders: list[str], jobs: int | None) -> list[TreeFigures]:
    rows = []
    for folder in folders:
        if not os.path.isdir(folder):
            print(f"skipping {folder}: not there (pip download --no-deps, then unzip the *.py)", file=sys.stderr)
            continue
        with tempfile.TemporaryDirectory(prefix="fix-safety-") as temp:
            copy = Path(temp) / Path(folder).name
            shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("*.pyc", "__pycache__"))
            rows.append(check_tree(Path(folder).name, copy, jobs))
    return rows


def generated_modules(count: int, seed: int = 0) -> list[str]:
    """``count`` hypothesmith modules that compile once placed in ``forward``."""
    import hypothesmith
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as fixed_seed
    from hypothesis import strategies as st

    found: list[str] = []
    seen: set[str] = set()
    strategy = st.one_of(hypothesmith.from_grammar(), hypothesmith.from_grammar(), hypothesmith.from_node())
    rounds = 0
    while len(found) < count and rounds < 50:
        rounds += 1

        @fixed_seed(seed + rounds)  # reproducible, and a new batch each round
        @settings(max_examples=max(50, count - len(found)), deadline=None, database=None,
                  suppress_health_check=list(HealthCheck))
        @given(strategy)
        def collect(source: str) -> None:
            module = embed(source)
            if module is not None and module not in seen and len(found) < count:
                seen.add(module)
                found.append(module)

        collect()
    return found


def embed(source: str) -> str | None:
    """``source`` as the middle of ``forward``, or None if that does not compile."""
    body = textwrap.indent(source if source.endswith("\n") else source + "\n", " " * 8, lambda line: True)
    module = TEMPLATE.format(body=body.rstrip("\n"))
    return module if _compiles(module.encode("utf-8", "surrogatepass"), "<generated>") else None


def hypothesmith_tree(count: int, jobs: int | None, seed: int = 0) -> TreeFigures | None:
    started = time.perf_counter()
    modules = generated_modules(count, seed)
    print(f"generated {len(modules)} modules (seed {seed}) in {time.perf_counter() - started:.0f} s", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="fix-safety-hyp-") as temp:
        root = Path(temp)
        for number, module in enumerate(modules):
            (root / f"m{number:05d}.py").write_bytes(module.encode("utf-8", "surrogatepass"))
        return check_tree(f"hypothesmith ({len(modules)} modules, seed {seed})", root, jobs)


def hypothesmith_chunks(count: int, chunk: int, jobs: int | None) -> list[TreeFigures]:
    """``count`` modules in trees of ``chunk`` (each its own seed: Hypothesis slows down on
    one huge batch), a row each as it finishes."""
    rows = []
    for number, start in enumerate(range(0, count, chunk)):
        row = hypothesmith_tree(min(chunk, count - start), jobs, seed=1_000_003 * number)
        if row is not None:
            rows.append(row)
            print_table([row], None)
            sys.stdout.flush()
    return rows


def sigkill_trials(count: int, seed: int = 0) -> dict[str, int]:
    """Kill ``--fix`` of a 4 MB file at random points; count what the file then holds."""
    big = ("import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n"
           "\n\nDATA = '''\n" + "0123456789abcdef\n" * 250_000 + "'''\n").encode()
    new = fix_source(big, "big.py", DEFAULT_SETTINGS, unsafe=False).fixed
    counts: Counter[str] = Counter()
    rng = random.Random(seed)
    command = [sys.executable, "-c", "import sys; from compilelint.fix.api import fix_paths; fix_paths(sys.argv[1:])"]
    for trial in range(count):
        with tempfile.TemporaryDirectory(prefix="fix-safety-kill-") as temp:
            path = Path(temp) / "big.py"
            path.write_bytes(big)
            child = subprocess.Popen([*command, str(path)])
            _wait_for_a_kill_point(child, Path(temp), rng, mid_write=trial % 2 == 0)
            child.send_signal(signal.SIGKILL)
            child.wait()
            data = path.read_bytes()
            counts["old bytes" if data == big else "new bytes" if data == new else "TORN"] += 1
            counts["temp files left by the kill"] += _temps(Path(temp))
            report = fix_paths([str(path)], DEFAULT_SETTINGS)
            counts["temp files the next run names"] += len(report.notes)
            counts["temp files unnamed"] += _temps(Path(temp)) - len(report.notes)
    counts["trials"] = count
    return dict(counts)


def _temps(folder: Path) -> int:
    return sum(1 for p in folder.iterdir() if p.name.endswith(TEMP_SUFFIX))


def _wait_for_a_kill_point(child: subprocess.Popen[bytes], folder: Path, rng: random.Random, mid_write: bool) -> None:
    if not mid_write:
        time.sleep(rng.uniform(0.0, 3.0))
        return
    deadline = time.monotonic() + 60
    while not _temps(folder) and child.poll() is None and time.monotonic() < deadline:
        pass
    time.sleep(rng.uniform(0.0, 0.05))


def print_table(rows: list[TreeFigures], kills: dict[str, int] | None) -> None:
    head = ("tree", "files", "compile before", "with fixes", "fixed files", "fixes", "compile failures",
            "exceptions", "other fix errors", "2nd --fix changed", "untouched rewritten", "bytes outside fixes changed",
            "trace differs", "seconds")
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        other = ", ".join(f"{k}: {v}" for k, v in sorted(r.errors.items()) if k != "internal error") or "0"
        cells = (r.name, r.files, r.compiled_before, r.with_fixes, r.fixed_files, r.fixes_applied, r.compile_failures,
                 r.exceptions, other, r.second_run_changed, r.untouched_rewritten, r.outside_changed, r.trace_differs,
                 f"{r.seconds:.0f}")
        print("| " + " | ".join(str(c) for c in cells) + " |")
    if kills:
        print()
        print("| SIGKILL | " + " | ".join(kills) + " |")
        print("|---|" + "---|" * len(kills))
        print("| count | " + " | ".join(str(v) for v in kills.values()) + " |")


def _total(rows: list[TreeFigures]) -> TreeFigures:
    total = TreeFigures(f"hypothesmith, all {len(rows)} trees")
    for row in rows:
        for name, value in vars(row).items():
            if name != "name":
                setattr(total, name, getattr(total, name) + value)
    return total


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", nargs="*", default=CORPORA)
    parser.add_argument("--hypothesmith", type=int, default=2000)
    parser.add_argument("--sigkill", type=int, default=200)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--chunk", type=int, default=1000, help="hypothesmith modules per tree (and seed)")
    args = parser.parse_args()
    rows = corpus(args.corpus, args.jobs)
    if args.hypothesmith:
        chunks = hypothesmith_chunks(args.hypothesmith, args.chunk, args.jobs)
        rows += chunks
        if len(chunks) > 1:
            rows.append(_total(chunks))
    kills = sigkill_trials(args.sigkill) if args.sigkill else None
    print_table(rows, kills)
    bad = any(r.compile_failures or r.exceptions or r.second_run_changed or r.untouched_rewritten or r.outside_changed
              or r.trace_differs for r in rows)
    bad = bad or bool(kills and (kills.get("TORN") or kills.get("temp files unnamed")))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
