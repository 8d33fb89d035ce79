"""Summaries for bench/verify_gpu.sh, read from `compilelint verify --format json` files.

    python bench/verify_report.py fixtures NEW.json [BASELINE.json]
    python bench/verify_report.py model BEFORE.json AFTER.json [label=AFTER.json ...]
    python bench/verify_report.py faults FAULTS.json
"""

from __future__ import annotations

import json
import sys
from collections import Counter
from typing import Any


def _load(path: str) -> dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        data: dict[str, Any] = json.load(handle)
    return data


def _finding_statuses(data: dict[str, Any]) -> dict[tuple[str, str, int], tuple[str, tuple[str, ...]]]:
    rank = {"confirmed": 0, "not-reproduced": 1, "not-reached": 2}
    best: dict[tuple[str, str, int], tuple[str, tuple[str, ...]]] = {}
    for target in data["targets"]:
        for f in target["findings"]:
            key = (f["code"], f["path"], f["line"])
            if key not in best or rank[f["status"]] < rank[best[key][0]]:
                best[key] = (f["status"], tuple(f["modes"]))
    for f in data.get("not_reached", []):
        best.setdefault((f["code"], f["path"], f["line"]), ("not-reached", ()))
    return best


def fixtures(new_path: str, baseline_path: str | None = None) -> None:
    data = _load(new_path)
    statuses = _finding_statuses(data)
    versions = sorted({t["torch"] for t in data["targets"] if t["torch"]})
    print(f"torch {', '.join(versions)}: {len(data['targets'])} targets, "
          f"target statuses {dict(Counter(t['status'] for t in data['targets']))}")
    per_rule: dict[str, Counter[str]] = {}
    for (code, _, _), (status, _) in statuses.items():
        per_rule.setdefault(code, Counter())[status] += 1
    for code in sorted(per_rule):
        print(f"  {code}: {dict(per_rule[code])}")
    missed = [(m["path"], m["line"], m["gb_id"], m["gb_type"]) for t in data["targets"] for m in t["missed"]]
    print(f"  missed breaks: {len(missed)}")
    for item in sorted(set(missed), key=str):
        print(f"    {item[0]}:{item[1]} {item[2]} {item[3]}")
    hooks = sorted({t.get("dynamo_hooks", "") for t in data["targets"]} - {""})
    print(f"  dynamo hooks: {hooks}")
    if baseline_path:
        base = _finding_statuses(_load(baseline_path))
        differ = {k: (base.get(k), v) for k, v in statuses.items() if base.get(k) != v}
        print(f"  against {baseline_path}: {len(differ)} findings differ")
        for (code, path, line), (old, new) in sorted(differ.items(), key=str):
            print(f"    {code} {path}:{line}: baseline {old} -> here {new}")


def _model_row(label: str, data: dict[str, Any]) -> str:
    [target] = data["targets"]
    timing = target["timing"]
    counts = Counter(f["status"] for f in target["findings"])

    def ms(value: float | None) -> str:
        return "-" if value is None else f"{value:.3f} ms"

    speedup = "-" if timing["speedup"] is None else f"{timing['speedup']:.3f}x"
    compile_s = "-" if timing["compile_s"] is None else f"{timing['compile_s']:.1f} s"
    return (f"{label:<8} status={target['status']:<4} breaks(default)={target['breaks']['default']:<2} "
            f"confirmed={counts['confirmed']} missed={len(target['missed'])} "
            f"fullgraph_ok={target['fullgraph']['ok']} recompiles={target['recompiles']['count']} "
            f"eager={ms(timing['eager_ms'])} compiled={ms(timing['compiled_ms'])} speedup={speedup} "
            f"first_compiled_call={compile_s} output_match={target['output_match']}")


def model(before_path: str, *after: str) -> None:
    before = _load(before_path)
    print(_model_row("before", before))
    for item in after:
        label, _, path = item.rpartition("=")
        print(_model_row(label or "after", _load(path)))
    [target] = before["targets"]
    for f in target["findings"]:
        print(f"  before: {f['code']} {f['path']}:{f['line']} {f['status']} {f['modes']} {f['gb_id']}")
    for m in target["missed"]:
        print(f"  before: missed {m['path']}:{m['line']} {m['gb_id']} {m['gb_type']}")


def faults(path: str) -> None:
    for target in _load(path)["targets"]:
        print(f"  {target['target']}: {target['status']} {target['detail'][:160]}")


def main(argv: list[str]) -> None:
    command, *args = argv
    if command == "fixtures":
        fixtures(*args)
    elif command == "model":
        model(*args)
    elif command == "faults":
        faults(*args)
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
