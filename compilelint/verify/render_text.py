"""Text output: a table per target, then a summary (rich; plain when not a terminal)."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from compilelint.verify import statuses
from compilelint.verify.advice import advise, compile_time_lines, remedy
from compilelint.verify.matching import MissedBreak
from compilelint.verify.model import TargetRun
from compilelint.verify.report import TargetReport, VerifyReport, display_path, speedup

_STYLE = {
    statuses.CONFIRMED: "bold red",
    statuses.MISSED: "bold magenta",
    statuses.NOT_REPRODUCED: "yellow",
    statuses.NOT_REACHED: "dim",
}


def _header(report: TargetReport) -> Text:
    run = report.outcome.run
    style = "green" if run.status == statuses.OK else "bold red"
    text = Text()
    text.append(report.name, style="bold")
    text.append(f"  {display_path(report.outcome.spec.path)}  ", style="dim")
    text.append(run.status, style=style)
    if run.detail:
        text.append(f" ({run.detail})")
    if run.torch_version:
        text.append(f"  torch {run.torch_version} · {run.device}/{run.backend}", style="dim")
    return text


def _table(report: TargetReport) -> Table:
    table = Table(show_edge=False, pad_edge=False, expand=False)
    for column in ("status", "code", "location", "modes", "GB"):
        table.add_column(column, no_wrap=True)
    table.add_column("detail", overflow="fold")
    for result in report.match.findings:
        finding = result.finding
        gb = result.gb_id or ""
        if result.gb_id and finding.gb_ids and result.gb_id not in finding.gb_ids:
            gb += f" (rule: {', '.join(finding.gb_ids)})"
        table.add_row(
            Text(result.status, style=_STYLE.get(result.status, "")),
            finding.code,
            f"{display_path(finding.path)}:{finding.line}",
            ", ".join(result.modes),
            gb,
            result.note or (result.gb_type if result.gb_type else finding.name),
        )
    for missed in report.match.missed:
        table.add_row(
            Text(statuses.MISSED, style=_STYLE[statuses.MISSED]),
            "",
            f"{display_path(missed.path)}:{missed.line}",
            ", ".join(missed.modes),
            missed.gb_id or "",
            _shorten(_inside(missed) + (f"{missed.gb_type}: {missed.explanation}" if missed.explanation else missed.gb_type)),
        )
    return table


def _inside(missed: MissedBreak) -> str:
    """Where in a package the break was, first: the user's line is only the call into it."""
    if not missed.inside:
        return ""
    more = f" (+{len(missed.inside) - 1} more)" if len(missed.inside) > 1 else ""
    return f"inside {missed.inside[0]}{more}: "


def _shorten(text: str, limit: int = 140) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _facts(run: TargetRun) -> list[str]:
    lines: list[str] = []
    recompiles = run.recompiles
    if recompiles.events:
        limit = " — recompile limit hit, that code now runs eager" if recompiles.limit_hit else ""
        expected = (f" ({recompiles.expected} on a first size change: automatic dynamic shapes)"
                    if recompiles.expected else "")  # fmt: skip
        lines.append(f"recompiles: {recompiles.count}{expected}{limit}")
        for event in recompiles.events[:8]:
            lines.append(f"  {event.describe().replace(event.path, display_path(event.path))}")
            if event in recompiles.unexpected():
                lines.append(f"    remedy: {remedy(event)}")
    error = run.fullgraph_error
    if run.fullgraph_ran:
        if error is None:
            lines.append("fullgraph=True: one graph")
        else:
            where = f" at {display_path(error.path)}:{error.line}" if error.path else ""
            what = error.gb_type or error.type.rsplit(".", 1)[-1]
            lines.append(f"fullgraph=True: failed{where}: {what} {error.gb_id or ''}".rstrip())
    timing = run.timing
    ratio = speedup(timing.eager_ms, timing.compiled_ms)
    if ratio is not None:
        lines.append(f"latency: eager {timing.eager_ms:.3f} ms, compiled {timing.compiled_ms:.3f} ms"
                     f" → speed-up {ratio:.2f}×")  # fmt: skip
    if timing.compile_s is not None:
        lines.append(f"first compiled call (compile included): {timing.compile_s:.2f} s")
    if run.graphs:
        lines.append(f"graphs compiled (default mode): {run.graphs}")
    if run.dynamic is not None:
        failed = f"; failed: {run.dynamic.error}" if run.dynamic.error else ""
        lines.append(f"dynamic=True: {run.dynamic.recompiles.count} recompiles (default: {recompiles.count}), "
                     f"{run.dynamic.graphs} graphs{failed}")  # fmt: skip
        for event in run.dynamic.recompiles.events[:4]:
            lines.append(f"  {event.describe().replace(event.path, display_path(event.path))}")
    lines.extend(compile_time_lines(run))
    if run.output_match is False:
        lines.append("warning: compiled output differs from eager")
    lines.extend(f"note: {note}" for note in run.notes)
    return lines


_VERDICT_STYLE = {"slower": "bold red", "no-gain": "bold yellow", "backend-failed": "bold red", "faster": "green"}


def _advice(console: Console, report: TargetReport) -> None:
    """The verdict first: is compiling worth it, and the measured causes, costliest first."""
    advice = advise(report.outcome.run, report.match)
    if advice.headline:
        console.print(Text(f"  {advice.headline}", style=_VERDICT_STYLE.get(advice.verdict, "")))
    if advice.verdict != "faster":
        for cause in advice.causes:
            console.print(f"    - {cause}", highlight=False)


def render_target(console: Console, report: TargetReport) -> None:
    console.print(_header(report))
    run = report.outcome.run
    _advice(console, report)
    if run.status != statuses.OK and run.backend_failure is None:
        tail = report.outcome.log_tail.strip().splitlines()[-12:]
        for line in tail:
            console.print(Text(f"  | {line}", style="dim"))
        console.print()
        return
    if report.match.findings or report.match.missed:
        console.print(_table(report))
    else:
        console.print(Text("  no findings here, no breaks", style="green"))
    for line in _facts(run):
        console.print(f"  {line}", highlight=False)
    for recompile in report.match.missed_recompiles:
        console.print(Text(f"  missed recompile (no finding explains it): {recompile.describe()}", style="yellow"))
    console.print()


def render(console: Console, report: VerifyReport) -> None:
    for target in report.targets:
        render_target(console, target)
    counts = report.finding_counts()
    torch_versions = sorted({t.outcome.run.torch_version for t in report.targets} - {""})
    summary = Text("Summary", style="bold")
    if torch_versions:
        summary.append(f" (torch {', '.join(torch_versions)})", style="dim")
    console.print(summary)
    if report.torch_note:
        console.print(Text(f"  {report.torch_note}", style="yellow"))
    parts = [f"{counts[status]} {status}" for status in statuses.FINDING_STATUSES]
    parts.append(f"{report.missed_count()} missed")
    if report.missed_recompile_count():
        parts.append(f"{report.missed_recompile_count()} recompiles no finding explains")
    console.print("  findings: " + ", ".join(parts), highlight=False)
    if report.outside:
        console.print(f"  not reached by any target ({len(report.outside)}):", highlight=False)
        for finding in report.outside[:20]:
            console.print(f"    {finding.code} {display_path(finding.path)}:{finding.line}", highlight=False)
    ok = [t for t in report.targets if t.status == statuses.OK]
    passed = [t for t in ok if t.outcome.run.fullgraph_ran and t.outcome.run.fullgraph_error is None]
    console.print(f"  fullgraph=True: {len(passed)}/{len(ok)} targets compile as one graph",
                  highlight=False)  # fmt: skip
    recompiled = [t for t in ok if t.outcome.run.recompiles.events]
    if recompiled:
        hit = [t.name for t in recompiled if t.outcome.run.recompiles.limit_hit]
        tail = f"; recompile limit hit in {', '.join(hit)}" if hit else ""
        console.print(f"  recompiles in {len(recompiled)} targets{tail}", highlight=False)
    for fault in report.faults():
        console.print(Text(f"  {fault.name}: {fault.status} {fault.outcome.run.detail}", style="red"))
