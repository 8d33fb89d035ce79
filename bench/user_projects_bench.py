"""User projects that call installed packages: what Dynamo breaks on in there, and whether
compilelint reports it at the user's call site (CL150/CL151). Prints a table.

    bash bench/user_projects_setup.sh                       # once: /work/venvs/userproj
    .venv/bin/python bench/user_projects_bench.py           # record (minutes), lint, compare
    .venv/bin/python bench/user_projects_bench.py --no-record   # reuse the recordings

(a) Each target of bench/user_projects/targets.py runs in the userproj venv, in its own
    process (bench/user_projects_record.py), compiled default / fullgraph=True /
    dynamic=True with backend "eager"; compilelint.verify's hooks record every break with
    the frames below the user's, and one eager run under a profiler records which user
    line each package function is reached from (for frames Dynamo starts inside a package).
(b) compilelint lints bench/user_projects with --python-executable pointing at that venv.
(c) A break site reached through a package is (package file, line, user call line); it is
    recalled when a CL150/CL151 finding covers the user call line, in a mode it claims
    (dynamic counts as default). Precision: such findings on call lines the targets ran
    that some recorded break confirms. CPU: `compilelint check` as a subprocess, cold
    (empty summaries cache) and warm, against `--follow-imports project` (no packages).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from dataclasses import dataclass, replace

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PROJECTS = os.path.join(HERE, "user_projects")
sys.path.insert(0, ROOT)

from compilelint.config import load_settings  # noqa: E402
from compilelint.engine import lint_paths  # noqa: E402
from compilelint.findings import Finding, Mode  # noqa: E402

PACKAGE_CODES = ("CL150", "CL151")


@dataclass(frozen=True)
class Site:
    target: str
    mode: str  # default | fullgraph | dynamic
    package_path: str
    package_line: int
    gb_type: str
    user_path: str
    user_line: int


def record_all(python: str, work: str, timeout: int) -> None:
    sys.path.insert(0, PROJECTS)
    names = _target_names()
    for name in names:
        out = os.path.join(work, f"{name}.json")
        command = ["nice", python, os.path.join(HERE, "user_projects_record.py"), name, out]
        try:
            subprocess.run(command, timeout=timeout, check=False, capture_output=True)
        except subprocess.TimeoutExpired:
            with open(out, "w") as handle:
                json.dump({"target": name, "status": "timeout"}, handle)
        print(f"recorded {name}", file=sys.stderr)


def _target_names() -> list[str]:
    import ast

    with open(os.path.join(PROJECTS, "targets.py")) as handle:
        tree = ast.parse(handle.read())
    return [n.name for n in tree.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")]


def _is_package(path: str) -> bool:
    parts = path.split(os.sep)
    return ("site-packages" in parts or "dist-packages" in parts) and "torch" not in parts


def _here(path: str) -> str:
    """A user file a recording names, in this checkout: recordings made from another
    checkout or worktree (``--no-record`` reuses them) name its bench/user_projects."""
    marker = os.sep + os.path.join("bench", "user_projects") + os.sep
    if marker in path:
        return os.path.realpath(os.path.join(PROJECTS, path.rsplit(marker, 1)[1]))
    return path


def _compiled_at(record: dict, user_files: set[str]) -> tuple[str, int] | None:
    spec = record.get("compiled_at")
    if not spec:
        return None
    path = os.path.realpath(os.path.join(PROJECTS, spec[0]))
    with open(path) as handle:
        for number, line in enumerate(handle, start=1):
            if spec[1] in line:
                return path, number
    return None


def sites_of(record: dict) -> list[Site]:
    """Every break site inside a package, with the user line it is reached from."""
    callers: dict[str, list[list[object]]] = record.get("callers", {})
    compiled_at = _compiled_at(record, set())
    found: list[Site] = []
    for mode, result in record.get("modes", {}).items():
        frames = [(e.get("inner") or [], e["path"], e["line"], e.get("stack") or [], e["gb_type"]) for e in result["events"]]
        error = result.get("error")
        if error and error.get("gb_type"):
            frames.append((error.get("inner") or [], error.get("path"), error.get("line"), [], error["gb_type"]))
        for inner, path, line, stack, gb_type in frames:
            site = inner[-1] if inner else [path, line, stack[-1][2] if stack else ""]
            if not site[0] or not _is_package(site[0]):
                continue
            if inner and path:
                users = [(path, line)]
            else:  # a frame Dynamo started inside the package: who ran that line eagerly
                users = [tuple(u) for u in callers.get(f"{site[0]}:{site[1]}", [])]  # type: ignore[misc]
                if not users and compiled_at:
                    users = [compiled_at]
            for user_path, user_line in users:
                found.append(Site(record["target"], mode, site[0], int(site[1]), gb_type, _here(str(user_path)), int(user_line)))
    return found


def _covers(finding: Finding, path: str, line: int) -> bool:
    first, last = finding.statement_lines if finding.statement_lines[0] else (finding.line, finding.end_line)
    return os.path.realpath(finding.path) == path and first <= line <= last


def _claims(finding: Finding, mode: str) -> bool:
    return (Mode.FULLGRAPH if mode == "fullgraph" else Mode.DEFAULT) in finding.breaks


def compare(sites: list[Site], findings: list[Finding], ran: set[tuple[str, int]]) -> dict[str, object]:
    package = [f for f in findings if f.code in PACKAGE_CODES]
    units = {(s.target, s.package_path, s.package_line, s.user_path, s.user_line) for s in sites}
    recalled = {
        (s.target, s.package_path, s.package_line, s.user_path, s.user_line)
        for s in sites
        if any(_covers(f, s.user_path, s.user_line) for f in package)
    }
    by_mode: dict[str, tuple[int, int]] = {}
    for mode in ("default", "fullgraph", "dynamic"):
        mine = {(s.target, s.package_path, s.package_line, s.user_path, s.user_line) for s in sites if s.mode == mode}
        hit = {
            (s.target, s.package_path, s.package_line, s.user_path, s.user_line)
            for s in sites
            if s.mode == mode and any(_covers(f, s.user_path, s.user_line) and _claims(f, mode) for f in package)
        }
        by_mode[mode] = (len(hit), len(mine))
    named = {u for u in recalled if any(_covers(f, u[3], u[4]) and u[1] in f.reaches for f in package)}
    judged = [f for f in package if any(_covers(f, path, line) for path, line in ran)]
    confirmed = [f for f in judged if any(_covers(f, s.user_path, s.user_line) for s in sites)]
    mode_claims = [(f, m) for f in judged for m in ("default", "fullgraph") if _claims(f, m)]
    mode_confirmed = [
        (f, m) for f, m in mode_claims
        if any(_covers(f, s.user_path, s.user_line) and (s.mode == m or (m == "default" and s.mode == "dynamic")) for s in sites)
    ]  # fmt: skip
    return {
        "units": len(units), "recalled": len(recalled), "named_file": len(named), "by_mode": by_mode,
        "findings": len(package), "judged": len(judged), "confirmed": len(confirmed),
        "mode_claims": len(mode_claims), "mode_confirmed": len(mode_confirmed),
        "unrecalled": sorted(units - recalled), "unconfirmed": [f"{os.path.basename(f.path)}:{f.line}" for f in judged if f not in confirmed],
    }  # fmt: skip


def ran_lines(records: list[dict]) -> set[tuple[str, int]]:
    """User lines that call into a package in the eager run, and compile lines of roots."""
    lines: set[tuple[str, int]] = set()
    for record in records:
        for users in record.get("callers", {}).values():
            lines.update((_here(str(p)), int(n)) for p, n in users)  # type: ignore[misc]
        at = _compiled_at(record, set())
        if at:
            lines.add(at)
    return lines


def cpu_of(command: list[str], env: dict[str, str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, env=env, capture_output=True, check=False)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def timings(paths: list[str], python: str, repeat: int, jobs: int) -> dict[str, float]:
    """Best of ``repeat`` whole-process CPU seconds: without packages, cold, warm."""
    base = [sys.executable, "-m", "compilelint", "check", "--exit-zero", "-q", "-j", str(jobs), *paths]
    env = dict(os.environ)
    result: dict[str, list[float]] = {"project": [], "cold": [], "warm": []}
    for _ in range(repeat):
        with tempfile.TemporaryDirectory() as cache:
            env["COMPILELINT_CACHE_DIR"] = cache
            result["project"].append(cpu_of(base + ["--follow-imports", "project"], env))
            result["cold"].append(cpu_of(base + ["--python-executable", python], env))
            result["warm"].append(cpu_of(base + ["--python-executable", python], env))
    return {key: min(values) for key, values in result.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", default="/work/venvs/userproj/bin/python")
    parser.add_argument("--work", default=os.path.join(tempfile.gettempdir(), "compilelint-user-projects"))
    parser.add_argument("--no-record", action="store_true", help="reuse the recordings in --work")
    parser.add_argument("--timeout", type=int, default=600)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--time", nargs="*", default=None, metavar="PATH", help="also time these paths")
    args = parser.parse_args()
    os.makedirs(args.work, exist_ok=True)
    if not args.no_record:
        record_all(args.python, args.work, args.timeout)
    records = []
    for name in _target_names():
        path = os.path.join(args.work, f"{name}.json")
        if os.path.exists(path):
            with open(path) as handle:
                records.append(json.load(handle))
    settings = load_settings([PROJECTS], {"python_executable": args.python})
    with tempfile.TemporaryDirectory() as cache:
        findings = [f for r in lint_paths([PROJECTS], replace(settings, package_cache_dir=cache), jobs=1) for f in r.findings]
    sites = [s for record in records for s in sites_of(record)]
    report = compare(sites, findings, ran_lines(records))
    print_report(records, sites, report)
    print_timings("user projects", timings([PROJECTS], args.python, args.repeat, args.jobs))
    for path in args.time or ():
        print_timings(path, timings([path], args.python, args.repeat, args.jobs))


def print_report(records: list[dict], sites: list[Site], report: dict) -> None:
    torch_version = next((r.get("torch") for r in records if r.get("torch")), "?")
    print(f"user projects: {len(records)} targets, torch {torch_version} (CPU, backend eager)")
    per_target: dict[str, set[tuple[str, int, str]]] = {}
    for site in sites:
        per_target.setdefault(site.target, set()).add((os.path.relpath(site.package_path, _site_dir(site.package_path)), site.package_line, site.mode))
    print("\n| target | package break sites (default / fullgraph / dynamic) |")
    print("|---|---|")
    for record in records:
        found = per_target.get(record["target"], set())
        counts = [len({(p, n) for p, n, m in found if m == mode}) for mode in ("default", "fullgraph", "dynamic")]
        status = record.get("status", "ok")
        print(f"| {record['target']} | {' / '.join(map(str, counts))}{'' if status == 'ok' else ' (' + status + ')'} |")
    units, recalled = report["units"], report["recalled"]
    print("\n| measure | value |")
    print("|---|---|")
    print(f"| break sites reached through packages (target, package line, user call line) | {units} |")
    print(f"| recall at the user's call site | {recalled}/{units} = {recalled / max(units, 1):.2f} |")
    for mode, (hit, total) in report["by_mode"].items():
        print(f"| recall, {mode} mode (finding claims the mode) | {hit}/{total} = {hit / max(total, 1):.2f} |")
    print(f"| recalled sites whose package file the finding's chain reaches | {report['named_file']}/{recalled} |")
    judged, confirmed = report["judged"], report["confirmed"]
    print(f"| CL150/CL151 findings (on call lines the targets ran) | {report['findings']} ({judged}) |")
    print(f"| precision: findings a recorded break confirms | {confirmed}/{judged} = {confirmed / max(judged, 1):.2f} |")
    claims, ok = report["mode_claims"], report["mode_confirmed"]
    print(f"| precision per claimed mode | {ok}/{claims} = {ok / max(claims, 1):.2f} |")
    for unit in report["unrecalled"]:
        print(f"  missed: {unit[0]}: {os.path.basename(unit[3])}:{unit[4]} -> {os.path.relpath(unit[1], _site_dir(unit[1]))}:{unit[2]}")
    for where in report["unconfirmed"]:
        print(f"  not confirmed: {where}")


def _site_dir(path: str) -> str:
    parts = path.split(os.sep)
    for marker in ("site-packages", "dist-packages"):
        if marker in parts:
            return os.sep.join(parts[: parts.index(marker) + 1])
    return os.path.dirname(path)


def print_timings(label: str, times: dict[str, float]) -> None:
    project, cold, warm = times["project"], times["cold"], times["warm"]
    print(f"\nlint CPU, {label} (whole process, best of runs): "
          f"follow-imports=project {project:.2f} s; installed cold {cold:.2f} s ({cold / project:.2f}x); "
          f"warm {warm:.2f} s ({warm / project:.2f}x)")


if __name__ == "__main__":
    main()
