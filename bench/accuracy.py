"""Agreement with Dynamo on real models: precision and recall of the static linter.

    python bench/accuracy.py                      # every zoo result under bench/results/
    python bench/accuracy.py --zoo bench/results/zoo-venv-bench-old.json
    python bench/accuracy.py --rerun              # run the zoo first (bench/zoo/run_all.py)

The dynamic side is bench/zoo (real transformers/timm/diffusers models built from small
configs with random weights, run through Dynamo with backend="eager" in the default mode
and with fullgraph=True, with eager line coverage). The static side is compilelint over
every file of each library package, cross-file, exactly as a user would run it.

- precision = findings on executed lines that Dynamo confirms / findings on executed lines
  (graph-break rules CL1xx; a finding is confirmed when a default-mode break, a break
  under dynamic=True, or the fullgraph error of a model that executed it lies in its
  statement). A finding on a line Dynamo never traced in a model that broke earlier is
  "not judged" (shadowed): the zoo records the lines Dynamo's interpreter reached;
- recall = Dynamo break sites in library code (default mode and fullgraph=True) covered
  by a finding / break sites, over the categories the rules cover (GB7000 "graph break in
  loop" unwrapped to its cause); breaks of other categories are counted by gb_type:
  candidates for new rules. Sites that break only under dynamic=True (every input size
  symbolic, where a model ends up once its sizes vary) get their own recall line;
- CL2xx: confirmed when a guard their statement installed failed in a recompile, or a
  symbolic shape guard came from it (default mode, or dynamic=True).

Prints a table and writes bench/results/accuracy.json and accuracy.md.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import re
import resource
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(ROOT))

from compilelint.config import Settings  # noqa: E402
from compilelint.engine import lint_paths  # noqa: E402
from compilelint.findings import Finding  # noqa: E402

# Root-cause GB ids our graph-break rules predict; anything else is "other category".
COVERED_GB_IDS = {
    "GB0059",  # builtin (print, str, range over a tensor, open, input, breakpoint)
    "GB0291",  # Logger methods
    "GB4841",  # logging.warning()
    "GB0007",  # skipped functions: warnings.warn, time, random, os, uuid
    "GB0156",  # unsupported method call: stream writes, datetime.now
    "GB0170",  # data-dependent branching
    "GB0124",  # .item() and friends
    "GB0033",  # data-dependent operator (.tolist(), torch.equal, math of a tensor)
    "GB0109",  # .tolist() of a float tensor
    "GB0569",  # repr of a tensor
    "GB0036",  # dynamic output shape
    "GB4198",  # deepcopy of a tensor
    "GB0208",  # copy.copy of a tensor
    "GB0294",  # numpy functions PyTorch lacks (np.random.permutation, default_rng)
    "GB0098",  # calling a disabled function
    "GB0099",
}


@dataclass
class Site:
    """One place Dynamo broke, over all models of a zoo run."""

    path: str
    line: int
    gb_id: str
    gb_type: str
    modes: set[str] = field(default_factory=set)
    models: set[str] = field(default_factory=set)


def load_zoo(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())


def library_roots(zoo: dict[str, Any]) -> dict[str, str]:
    """library name -> installed package folder (…/site-packages/transformers)."""
    roots: dict[str, str] = {}
    for model in zoo["models"]:
        root = model.get("library_root")
        if root:
            roots[model["library"]] = root.rstrip("/")
    return roots


def relative(path: str, roots: dict[str, str]) -> str | None:
    """…/site-packages/transformers/x.py -> transformers/x.py (the zoo's spelling)."""
    for root in roots.values():
        if path.startswith(root + os.sep):
            return os.path.join(os.path.basename(root), os.path.relpath(path, root))
    return None


def break_sites(zoo: dict[str, Any], modes: tuple[str, ...] = ("default", "fullgraph")) -> dict[tuple[str, int], Site]:
    sites: dict[tuple[str, int], Site] = {}
    for model in zoo["models"]:
        for mode in modes:
            record = model.get(mode) or {}
            events = list(record.get("breaks") or [])
            error = record.get("error_site") or _fullgraph_site(record)
            if error:
                events.append(error)
            for event in events:
                if not event.get("in_library", True) or not event.get("path"):
                    continue
                key = (event["path"], int(event["line"]))
                gb_id = event.get("root_gb_id") or event.get("gb_id") or "?"
                site = sites.setdefault(key, Site(key[0], key[1], gb_id, event.get("root_gb_type") or ""))
                site.modes.add(mode)
                site.models.add(model["name"])
    return sites


USER_FRAME = re.compile(r'File "[^"]*/site-packages/([^"]+)", line (\d+)')


def _fullgraph_site(record: dict[str, Any]) -> dict[str, Any] | None:
    """Where fullgraph=True failed, in library code (the innermost "from user code" frame)."""
    error = record.get("error")
    if not isinstance(error, dict):
        return None
    path, line = error.get("path"), error.get("line")
    if not error.get("in_library", True) or not path:
        frames = USER_FRAME.findall(error.get("message") or "")
        if not frames:
            return None
        path, line = frames[-1][0], int(frames[-1][1])
    return {
        "path": path,
        "line": line,
        "gb_id": error.get("root_gb_id") or error.get("gb_id") or _guard_error_id(error),
        "root_gb_type": error.get("root_gb_type") or error.get("gb_type") or error.get("type", ""),
        "in_library": True,
    }


def _guard_error_id(error: dict[str, Any]) -> str:
    """fullgraph's data-dependent guard errors carry no GB id: count them as GB0170/GB0033."""
    message = error.get("message") or ""
    if "Could not guard on data-dependent" in message:
        return "GB0170"
    if "data-dependent" in message or "unbacked" in message.lower():
        return "GB0033"
    return "?"


GUARD_SOURCE = re.compile(r"#\s*(?:[^#]*?)\s*#\s*(\S+\.py):(\d+)")


def recompile_sites(zoo: dict[str, Any]) -> set[tuple[str, int]]:
    """(path, line) of the statements that made Dynamo guard on a value or a size: those
    named by failed guards in recompile reasons (``... # if x.shape[0] > 128:  #
    transformers/x.py:12 in f``), and those that installed symbolic shape guards once
    shapes went dynamic (a real specialization, even where no later input failed it)."""
    found: set[tuple[str, int]] = set()
    for model in zoo["models"]:
        for mode in ("default", "dynamic"):
            for path, line in (model.get(mode) or {}).get("shape_guard_sites") or []:
                found.add((path, int(line)))
        recompiles = (model.get("default") or {}).get("recompiles") or {}
        for event in recompiles.get("events") or []:
            for reason in event.get("reasons") or []:
                for path, line in GUARD_SOURCE.findall(reason):
                    found.add((_library_relative(path), int(line)))
    return found


def _library_relative(path: str) -> str:
    marker = "site-packages/"
    return path.split(marker, 1)[1] if marker in path else path


def _judge_recompile(
    finding: Finding, path: str, executed: dict[str, set[int]], sites: set[tuple[str, int]], stats: dict[str, Any]
) -> None:
    """A CL2xx finding is confirmed when a failed guard was installed on its statement."""
    if finding.line not in executed.get(path, ()):
        return
    if finding.only_when:
        stats["unjudged"]["conditional"] += 1
        return
    stats["executed"] += 1
    span = range(finding.statement_lines[0], finding.statement_lines[1] + 1)
    if any(site_path == path and line in span for site_path, line in sites):
        stats["confirmed"] += 1
    else:
        stats["fp"].append(f"{path}:{finding.line} {finding.code} {finding.message[:80]}")


def executed_lines(zoo: dict[str, Any], fullgraph_clean_only: bool = False) -> dict[str, set[int]]:
    """Lines some model ran eagerly; with ``fullgraph_clean_only``, only models whose
    fullgraph=True run did not stop earlier (a fullgraph-only claim is testable there)."""
    lines: dict[str, set[int]] = collections.defaultdict(set)
    for model in zoo["models"]:
        if fullgraph_clean_only and (model.get("fullgraph") or {}).get("error"):
            continue
        for path, numbers in (model.get("coverage") or {}).items():
            lines[path].update(numbers)
    return lines


def traced_only_after_breaks(zoo: dict[str, Any]) -> dict[str, set[int]]:
    """Lines some model executed eagerly but Dynamo never traced, in a model that broke
    earlier: a hazard there is shadowed (Dynamo ran that code outside any graph).
    Empty for zoo results recorded before traced lines were."""
    shadowed: dict[str, set[int]] = collections.defaultdict(set)
    judged: dict[str, set[int]] = collections.defaultdict(set)
    for model in zoo["models"]:
        records = [model.get(mode) or {} for mode in ("default", "dynamic")]
        if not any("traced_lines" in record for record in records):
            continue
        traced: dict[str, set[int]] = collections.defaultdict(set)
        for record in records:
            for per_path in (record.get("traced_lines") or {}).values():
                for path, numbers in per_path.items():
                    traced[path].update(numbers)
        broke = any(record.get("breaks") for record in records)
        for path, numbers in (model.get("coverage") or {}).items():
            for line in numbers:
                (shadowed if broke and line not in traced[path] else judged)[path].add(line)
    # a line some model traced is judged, whatever the others did
    return {path: lines - judged.get(path, set()) for path, lines in shadowed.items()}


def _evaluable(finding: Finding, path: str, executed: dict[str, set[int]], fullgraph_ok: dict[str, set[int]]) -> str:
    """"yes", or why the runs cannot judge the finding."""
    if finding.line not in executed.get(path, ()):
        return "not executed"
    if finding.only_when:
        return "conditional"  # the flagged operand may have been short-circuited away
    if tuple(m.value for m in finding.breaks) == ("fullgraph",) and finding.line not in fullgraph_ok.get(path, ()):
        return "fullgraph stopped earlier"
    return "yes"


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def lint_libraries(roots: dict[str, str]) -> tuple[list[tuple[str, Finding]], float]:
    started = _cpu()
    results = lint_paths(sorted(roots.values()), Settings())
    cpu = _cpu() - started
    found = []
    for result in results:
        path = relative(result.path, roots)
        if path is None:
            continue
        found.extend((path, finding) for finding in result.findings if finding.code.startswith("CL"))
    return found, cpu


def evaluate(zoo: dict[str, Any], findings: list[tuple[str, Finding]]) -> dict[str, Any]:
    sites = break_sites(zoo)
    dynamic_sites = {k: s for k, s in break_sites(zoo, ("dynamic",)).items() if k not in sites}
    shadowed = traced_only_after_breaks(zoo)
    recompile_lines = recompile_sites(zoo)
    executed = executed_lines(zoo)
    fullgraph_ok = executed_lines(zoo, fullgraph_clean_only=True)
    per_rule: dict[str, dict[str, Any]] = collections.defaultdict(
        lambda: {"executed": 0, "confirmed": 0, "fp": [], "shadowed": [], "unjudged": collections.Counter()}
    )
    covered_sites: set[tuple[str, int]] = set()
    for path, finding in findings:
        span = range(finding.statement_lines[0], finding.statement_lines[1] + 1)
        hits = [key for key in (*sites, *dynamic_sites) if key[0] == path and key[1] in span]
        covered_sites.update(hits)
        if finding.code.startswith("CL2"):
            _judge_recompile(finding, path, executed, recompile_lines, per_rule[finding.code])
            continue
        if not finding.code.startswith("CL1"):
            continue
        stats = per_rule[finding.code]
        verdict = _evaluable(finding, path, executed, fullgraph_ok)
        if verdict != "yes" and not hits:
            if verdict != "not executed":
                stats["unjudged"][verdict] += 1
            continue
        if not hits and all(line in shadowed.get(path, ()) for line in span if line in executed.get(path, ())):
            stats["unjudged"]["shadowed by an earlier break"] += 1
            stats["shadowed"].append(f"{path}:{finding.line} {finding.code}")
            continue
        stats["executed"] += 1
        if hits:
            stats["confirmed"] += 1
        else:
            stats["fp"].append(f"{path}:{finding.line} {finding.code} {finding.message[:80]}")
    in_scope = {k: s for k, s in sites.items() if s.gb_id in COVERED_GB_IDS}
    dynamic_in_scope = {k: s for k, s in dynamic_sites.items() if s.gb_id in COVERED_GB_IDS}
    dynamic_misses = [s for k, s in sorted(dynamic_in_scope.items()) if k not in covered_sites]
    other = collections.Counter(f"{s.gb_id} {s.gb_type}" for s in sites.values() if s.gb_id not in COVERED_GB_IDS)
    misses = [s for k, s in sorted(in_scope.items()) if k not in covered_sites]
    graph_break_rules = [s for code, s in per_rule.items() if code.startswith("CL1")]
    executed_total = sum(s["executed"] for s in graph_break_rules)
    confirmed_total = sum(s["confirmed"] for s in graph_break_rules)
    recompile_rules = [s for code, s in per_rule.items() if code.startswith("CL2")]
    return {
        "models": len(zoo["models"]),
        "models_breaking": sum(1 for m in zoo["models"] if (m.get("default") or {}).get("breaks")),
        "findings": len(findings),
        "findings_by_rule": dict(collections.Counter(f.code for _, f in findings)),
        "per_rule": {code: dict(stats, unjudged=dict(stats["unjudged"])) for code, stats in sorted(per_rule.items())},
        "precision": _ratio(confirmed_total, executed_total),
        "recompile_precision": _ratio(
            sum(s["confirmed"] for s in recompile_rules), sum(s["executed"] for s in recompile_rules)
        ),
        "executed_findings": executed_total,
        "confirmed_findings": confirmed_total,
        "break_sites_in_scope": len(in_scope),
        "break_sites_covered": len(in_scope) - len(misses),
        "recall": _ratio(len(in_scope) - len(misses), len(in_scope)),
        "misses": [f"{s.path}:{s.line} {s.gb_id} {s.gb_type} ({', '.join(sorted(s.models))})" for s in misses],
        "dynamic_only_sites_in_scope": len(dynamic_in_scope),
        "dynamic_only_sites_covered": len(dynamic_in_scope) - len(dynamic_misses),
        "dynamic_only_recall": _ratio(len(dynamic_in_scope) - len(dynamic_misses), len(dynamic_in_scope)),
        "dynamic_only_misses": [
            f"{s.path}:{s.line} {s.gb_id} {s.gb_type} ({', '.join(sorted(s.models))})" for s in dynamic_misses
        ],
        "dynamic_only_other_categories": dict(
            collections.Counter(f"{s.gb_id} {s.gb_type}" for s in dynamic_sites.values() if s.gb_id not in COVERED_GB_IDS)
        ),
        "other_categories": dict(other.most_common()),
    }


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 3) if denominator else None


def render(name: str, report: dict[str, Any], cpu: float) -> str:
    lines = [
        f"## {name}",
        "",
        f"{report['models']} models, {report['models_breaking']} with a default-mode break; "
        f"{report['findings']} findings over the libraries (lint: {cpu:.1f} CPU-s)",
        "",
        "| rule | findings | on executed lines | confirmed | precision |",
        "|---|---:|---:|---:|---:|",
    ]
    for code, count in sorted(report["findings_by_rule"].items()):
        stats = report["per_rule"].get(code, {"executed": 0, "confirmed": 0})
        precision = _ratio(stats["confirmed"], stats["executed"])
        lines.append(f"| {code} | {count} | {stats['executed']} | {stats['confirmed']} | {precision if precision is not None else '—'} |")
    lines += [
        f"| **all CL1xx** | | {report['executed_findings']} | {report['confirmed_findings']} | **{report['precision']}** |",
        f"| **all CL2xx** (a guard they installed, failed or not) | | | | **{report['recompile_precision']}** |",
        "",
        f"recall: {report['break_sites_covered']} of {report['break_sites_in_scope']} break sites in covered "
        f"categories = **{report['recall']}**",
        "",
        f"recall on sites that break only under dynamic=True: {report['dynamic_only_sites_covered']} of "
        f"{report['dynamic_only_sites_in_scope']} = **{report['dynamic_only_recall']}**",
        "",
        "not judged (the runs could not have confirmed them): "
        + (", ".join(f"{code} {dict(stats['unjudged'])}" for code, stats in report["per_rule"].items() if stats["unjudged"]) or "none"),
        "",
        "false positives (executed, not confirmed):",
        *[f"- {fp}" for code, stats in report["per_rule"].items() if code.startswith("CL1") for fp in stats["fp"]],
        "",
        "recompile findings (CL2xx) on executed lines whose guard never failed in these runs:",
        *[f"- {fp}" for code, stats in report["per_rule"].items() if code.startswith("CL2") for fp in stats["fp"]],
        "",
        "shadowed (executed, never traced by Dynamo after an earlier break; not judged):",
        *[f"- {line}" for stats in report["per_rule"].values() for line in stats["shadowed"]],
        "",
        "misses:",
        *[f"- {miss}" for miss in report["misses"]],
        "",
        "misses among sites that break only under dynamic=True:",
        *[f"- {miss}" for miss in report["dynamic_only_misses"]],
        "",
        "break sites in other categories (candidates for new rules):",
        *[f"- {gb}: {n}" for gb, n in report["other_categories"].items()],
        "",
        "dynamic=True only, other categories:",
        *[f"- {gb}: {n}" for gb, n in report["dynamic_only_other_categories"].items()],
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", action="append", type=Path, help="zoo result JSON (default: bench/results/zoo-*.json)")
    parser.add_argument("--rerun", action="store_true", help="run bench/zoo/run_all.py for each venv first")
    args = parser.parse_args(argv)
    if args.rerun:
        for venv in (".venv-bench", ".venv-bench-old"):
            subprocess.run([sys.executable, str(ROOT / "bench/zoo/run_all.py"), "--venv", venv], check=True)
    zoos = args.zoo or sorted(RESULTS.glob("zoo-*.json"))
    if not zoos:
        print("no zoo results: run `bash bench/setup_env.sh && python bench/zoo/run_all.py` first")
        return 2
    reports, text = {}, ["# Agreement with Dynamo (bench/accuracy.py)", ""]
    for zoo_path in zoos:
        zoo = load_zoo(zoo_path)
        findings, cpu = lint_libraries(library_roots(zoo))
        report = evaluate(zoo, findings)
        reports[zoo_path.stem] = report
        text.append(render(zoo_path.stem, report, cpu))
    output = "\n".join(text)
    print(output)
    (RESULTS / "accuracy.json").write_text(json.dumps(reports, indent=1, default=sorted))
    (RESULTS / "accuracy.md").write_text(output)
    return 0


if __name__ == "__main__":
    sys.exit(main())
