"""Tables from the JSON reports of run.sh:  python summary.py OUTDIR

Reads OUTDIR/verify-default.json (the models, with --dynamic and --compile-time),
verify-fixed.json (the models fixed by hand),
verify-after-fix.json (targets verified from the copy `compilelint --fix` rewrote) and
verify-reduce-overhead.json when present. Prints markdown: the before/after table (a
target against its `_fixed` twin, fixed by hand, and against itself after --fix), then
every target's row. Draws OUTDIR/plot.png when matplotlib is installed.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def load(path: str) -> dict[str, Any] | None:
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as handle:
        return dict(json.load(handle))


def _f(value: Any, digits: int = 2, suffix: str = "") -> str:
    return f"{value:.{digits}f}{suffix}" if isinstance(value, (int, float)) and value else "-"


def _compile(target: dict[str, Any], variant: str) -> str:
    result = (target.get("compile_time") or {}).get(variant)
    if not result:
        return "-"
    if "first_call_s" not in result:
        return "n/a" if "no repeated block" in result.get("error", "") else "failed"
    block = f" ({result['block']})" if result.get("block") else ""
    return f"{result['first_call_s']:.1f}{block}"


def _recompiles(target: dict[str, Any]) -> str:
    recompiles = target["recompiles"]
    past_first = recompiles["count"] - recompiles["expected"]
    dynamic = target.get("dynamic")
    with_dynamic = f" / {dynamic['recompiles']['count']}" if dynamic and not dynamic.get("error") else ""
    return f"{recompiles['count']} ({past_first}){with_dynamic}"


def cells(target: dict[str, Any]) -> list[str]:
    timing = target["timing"]
    return [
        target["status"], str(target["breaks"]["default"]), str(target.get("graphs") if target.get("graphs") is not None else "-"),
        _recompiles(target), _f(timing.get("eager_ms")), _f(timing.get("compiled_ms")),
        _f(timing.get("speedup"), suffix="x"), _f(timing.get("compile_s"), 1), _compile(target, "cold"),
        _compile(target, "regional"), _compile(target, "warm-artifacts"), _compile(target, "warm-disk"),
    ]  # fmt: skip


HEADER = ("| target | how | status | break sites | graphs | recompiles (past 1st size change) / dynamic=True "
          "| eager ms | compiled ms | speed-up | 1st call s (in run) | cold compile s | regional s (block) "
          "| warm: cache artifacts s | warm: on-disk cache s |")


def before_after(default: dict[str, Any], after_fix: dict[str, Any] | None) -> list[str]:
    by_name = {t["target"]: t for t in default["targets"]}
    fixed_by_fix = {t["target"]: t for t in (after_fix or {}).get("targets", [])}
    lines = [HEADER, "|" + "---|" * 14]
    for name, target in by_name.items():
        if name.endswith("_fixed"):
            continue
        short = name.removeprefix("target_")
        lines.append("| " + " | ".join([short, "before", *cells(target)]) + " |")
        if name in fixed_by_fix:
            lines.append("| " + " | ".join([short, "after --fix", *cells(fixed_by_fix[name])]) + " |")
        if name + "_fixed" in by_name:
            lines.append("| " + " | ".join([short, "fixed by hand", *cells(by_name[name + "_fixed"])]) + " |")
    return lines


def verdicts(report: dict[str, Any]) -> list[str]:
    lines = []
    for target in report["targets"]:
        advice = target["advice"]
        lines.append(f"- `{target['target']}`: {advice['verdict']}; {advice['headline'] or target['detail'] or '-'}")
        if advice["verdict"] != "faster":
            lines += [f"  - {cause}" for cause in advice["causes"]]
    return lines


def main() -> None:
    folder = sys.argv[1]
    default = load(os.path.join(folder, "verify-default.json"))
    after_fix = load(os.path.join(folder, "verify-after-fix.json"))
    reduce = load(os.path.join(folder, "verify-reduce-overhead.json"))
    if default is None:
        raise SystemExit(f"no verify-default.json in {folder}")
    fixed = load(os.path.join(folder, "verify-fixed.json"))  # the *_fixed targets, run on their own
    if fixed is not None:
        default = {**default, "targets": default["targets"] + fixed["targets"]}
    torch = sorted({str(t["torch"]) for t in default["targets"] if t.get("torch")})
    print(f"## Before and after (torch {', '.join(torch)}, Inductor, default mode)\n")
    print("\n".join(before_after(default, after_fix)))
    print("\n## Verdicts and causes\n")
    print("\n".join(verdicts(default)))
    if reduce is not None:
        print("\n## mode=\"reduce-overhead\"\n")
        print(HEADER + "\n|" + "---|" * 14)
        for target in reduce["targets"]:
            print("| " + " | ".join([target["target"].removeprefix("target_"), "reduce-overhead", *cells(target)]) + " |")
    try:
        sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
        from compilelint.verify.plot import PlotUnavailable, write_plot

        reports = [("before", default)] + ([("after --fix", after_fix)] if after_fix else [])
        title = "GPU advisor bench: eager vs compiled" + (", before and after fixes" if after_fix or fixed else "")
        write_plot(os.path.join(folder, "plot.png"), reports, title)
        print("\n![eager vs compiled per target](plot.png)")
    except (ImportError, PlotUnavailable) as error:
        print(f"\n(no plot: {error})")


if __name__ == "__main__":
    main()
