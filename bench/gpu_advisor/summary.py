"""One table from `compilelint verify --format json` files: python summary.py A.json [B.json ...]"""

from __future__ import annotations

import json
import sys


def rows(path: str) -> list[str]:
    data = json.load(open(path, encoding="utf-8"))
    out = []
    for t in data["targets"]:
        timing, advice = t["timing"], t.get("advice") or {}
        ratio = f"{timing['speedup']:.2f}x" if timing.get("speedup") else "-"
        eager = f"{timing['eager_ms']:.2f}" if timing.get("eager_ms") else "-"
        compiled = f"{timing['compiled_ms']:.2f}" if timing.get("compiled_ms") else "-"
        first = f"{timing['compile_s']:.1f}" if timing.get("compile_s") else "-"
        statuses = [f["status"] for f in t["findings"]]
        out.append(" | ".join([
            t["target"].removeprefix("target_"), t.get("compile_mode") or "default", t["status"],
            advice.get("verdict", "-"), ratio, eager, compiled, first, str(t["breaks"]["default"]),
            str(t.get("graphs") or "-"), str(t["recompiles"].get("count", 0)),
            str(len(t["recompiles"].get("remedies", []))), str(statuses.count("confirmed")),
            str(len(t["missed"])), str(len(t.get("cudagraph_skips") or [])),
        ]))
    return out


def main() -> None:
    print("target | mode | status | verdict | speed-up | eager ms | compiled ms | 1st call s | breaks | graphs "
          "| recompiles | with remedy | confirmed | missed | cudagraph skips")
    for path in sys.argv[1:]:
        print("\n".join(rows(path)))


if __name__ == "__main__":
    main()
