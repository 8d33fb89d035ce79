"""``--format markdown`` / ``--summary FILE``: the report as markdown to paste into an issue.

A table of every target (status, verdict, eager and compiled time, first compiled call,
break sites, graphs, recompiles with and without ``dynamic=True``, breaks the linter
missed), then per target the verdict, its causes, the compile-time remedies and each
recompile with its remedy. Built from the same data as the JSON report (``target_json``),
so the two never disagree.
"""

from __future__ import annotations

from typing import Any

from compilelint.verify.advice import compile_time_lines
from compilelint.verify.report import VerifyReport, target_json


def _ms(value: float | None) -> str:
    return f"{value:.3f}" if value else "-"


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _dynamic_cell(data: dict[str, Any]) -> str:
    dynamic = data.get("dynamic")
    if not dynamic:
        return "-"
    if dynamic.get("error"):
        return "failed"
    return str(dynamic["recompiles"]["count"])


def _row(data: dict[str, Any]) -> str:
    timing, advice = data["timing"], data["advice"]
    recompiles = data["recompiles"]
    past_first = recompiles["count"] - recompiles["expected"]
    cells = [
        f"`{data['target']}`", data["status"], advice["verdict"], _ms(timing["eager_ms"]),
        _ms(timing["compiled_ms"]), f"{timing['speedup']:.2f}×" if timing.get("speedup") else "-",
        f"{timing['compile_s']:.2f}" if timing.get("compile_s") else "-", data["breaks"]["default"],
        data["graphs"] if data["graphs"] is not None else "-", f"{recompiles['count']} ({past_first})",
        _dynamic_cell(data), len(data["missed"]),
    ]  # fmt: skip
    return "| " + " | ".join(_cell(cell) for cell in cells) + " |"


def _details(data: dict[str, Any], compile_lines: list[str]) -> list[str]:
    advice = data["advice"]
    lines = [f"### `{data['target']}` ({data['file']})", ""]
    if data["status"] != "ok":
        lines += [f"**{data['status']}**: {_cell(data['detail'])}", ""]
    if advice["headline"]:
        lines += [f"**{_cell(advice['headline'])}**", ""]
    if advice["verdict"] != "faster":
        lines += [f"- {_cell(cause)}" for cause in advice["causes"]]
    for missed in data["missed"]:
        inside = "".join(f" inside `{_cell(site)}`" for site in missed.get("inside", [])[:3])
        lines.append(f"- missed by the linter: `{missed['path']}:{missed['line']}`{inside} {_cell(missed['gb_type'])} "
                     f"({missed['gb_id'] or 'no GB id'})")  # fmt: skip
    for remedy in data["recompiles"]["remedies"][:10]:
        lines.append(f"- recompile: `{_cell(remedy['recompile'])}`: {_cell(remedy['remedy'])}")
    dynamic = data.get("dynamic")
    if dynamic:
        lines.append(f"- with `dynamic=True`: {dynamic['recompiles']['count']} recompiles"
                     + (f", failed: {_cell(dynamic['error'])}" if dynamic.get("error") else ""))  # fmt: skip
    lines += [f"- {_cell(line)}" for line in compile_lines]
    return [*lines, ""]


def render_markdown(report: VerifyReport) -> str:
    targets = [(target_json(target), compile_time_lines(target.outcome.run)) for target in report.targets]
    versions = sorted({str(data["torch"]) for data, _ in targets if data["torch"]})
    devices = sorted({f"{data['device']}/{data['backend']}" for data, _ in targets if data["device"]})
    lines = [
        f"## compilelint verify: {len(targets)} targets (torch {', '.join(versions) or '?'}, "
        f"{', '.join(devices) or '?'})",
        "",
        "| target | status | verdict | eager ms | compiled ms | speed-up | 1st compiled call s | break sites "
        "| graphs | recompiles (past 1st size change) | recompiles, dynamic=True | missed by linter |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
        *(_row(data) for data, _ in targets),
        "",
    ]  # fmt: skip
    for data, compile_lines in targets:
        if data["advice"]["headline"] or data["advice"]["causes"] or data["missed"] or compile_lines \
                or data["status"] != "ok" or data["recompiles"]["remedies"]:  # fmt: skip
            lines += _details(data, compile_lines)
    return "\n".join(lines).rstrip() + "\n"
