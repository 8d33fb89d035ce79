"""Everyday user patterns, run through Dynamo and the linter: what breaks, what is flagged.

    .venv/bin/python bench/user_patterns.py            # every part, a table at the end
    .venv/bin/python bench/user_patterns.py everyday   # one part
    .venv/bin/python bench/user_patterns.py --misses   # also list what was not flagged

Each part of bench/user_patterns/ is model code of the kind users write (not reduced from
any package the zoo records) with a targets file; `compilelint verify --dynamic` compiles
each target in the default mode, with `fullgraph=True` and with `dynamic=True` (backend
eager, CPU) and matches Dynamo's breaks to the static findings. The parts were written
blind, before the rules that now cover them (session 12): `everyday` (tensors in Python
builtins, text, storages, properties), `python_features` (dataclasses, context variables,
globals, containers, generators), `package_user` (a user model calling a helper package:
calls followed across files, recompiles from module state).

Columns: break sites Dynamo reported (a line and mode), of them flagged by a finding that
claims that mode, findings Dynamo did not confirm on a line it ran (not reproduced),
recompiles the linter did not predict, and targets that failed to compile or run.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "user_patterns"
PARTS = ("everyday", "python_features", "package_user")


def verify(part: str) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "verify.json"
        command = [sys.executable, "-m", "compilelint", "verify", "--targets", f"{part}_targets.py", "--dynamic",
                   "--format", "json", "-o", str(out), "-q", "."]  # fmt: skip
        subprocess.run(command, cwd=HERE, check=False, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return json.loads(out.read_text())


def misses(part: str, report: dict[str, Any]) -> list[str]:
    lines = []
    for target in report["targets"]:
        for missed in target["missed"]:
            lines.append(f"{part}: {target['target']} {missed['path']}:{missed['line']} {missed['gb_id']} ({', '.join(missed['modes'])})")
        lines += [f"{part}: {target['target']} recompile not predicted: {reason}" for reason in target["recompiles"]["missed"]]
        if target["status"] != "ok":
            lines.append(f"{part}: {target['target']} {target['status']}: {target['detail'][:120]}")
    return lines


def tally(report: dict[str, Any]) -> dict[str, int]:
    sites: set[tuple[str, int, str]] = set()
    flagged: set[tuple[str, int, str]] = set()
    counts = {"not reproduced": 0, "recompiles missed": 0, "failed targets": 0}
    for target in report["targets"]:
        if target["status"] != "ok":
            counts["failed targets"] += 1
        for finding in target["findings"]:
            for mode in finding["modes"] if finding["status"] == "confirmed" else ():
                key = (finding["path"], finding["line"], mode)
                sites.add(key)
                flagged.add(key)
            counts["not reproduced"] += finding["status"] == "not-reproduced"
        for missed in target["missed"]:
            sites.update((missed["path"], missed["line"], mode) for mode in missed["modes"])
        counts["recompiles missed"] += len(target["recompiles"]["missed"])
    return {"break sites": len(sites), "flagged": len(flagged), **counts}


def main(parts: list[str], list_misses: bool) -> None:
    reports = {part: verify(part) for part in parts}
    rows = {part: tally(report) for part, report in reports.items()}
    columns = ["break sites", "flagged", "not reproduced", "recompiles missed", "failed targets"]
    print("| part | " + " | ".join(columns) + " |")
    print("|---|" + "---:|" * len(columns))
    for part, row in rows.items():
        print(f"| {part} | " + " | ".join(str(row[c]) for c in columns) + " |")
    if list_misses:
        print()
        for part, report in reports.items():
            print("\n".join(misses(part, report)))


if __name__ == "__main__":
    arguments = [a for a in sys.argv[1:] if a != "--misses"]
    main(arguments or list(PARTS), "--misses" in sys.argv[1:])
