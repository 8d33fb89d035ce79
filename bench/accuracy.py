"""Agreement with Dynamo on real models: recall and precision of the static linter.

    python bench/accuracy.py                      # every zoo recording under bench/results/
    python bench/accuracy.py --zoo bench/results/zoo-venv-bench-old.json

The dynamic side is bench/zoo (real models of many packages built from small configs
with random weights, run through Dynamo with backend="eager": the default mode on
three input sets, fullgraph=True, and dynamic=True; eval and train). The static side
is compilelint over every file of each package, cross-file, and over the zoo's case code
(the user code that builds and calls the models) with compiled code followed into the
installed packages, as a user would run it on their project: a site inside a package that
a CL150/CL151 finding at a call names counts as flagged there (--packages-only: without).
Where the zoo compiles a method other than forward (record.py: getattr(model, "decode")),
the case code names it only as data, so a file `torch.compile(model.decode)` per such case
stands for what the user wrote (--no-method-roots: without).

- recall = Dynamo break sites in package code flagged by a graph-break finding (one
  whose statement holds the site) / ALL break sites, whatever their category: a
  category without a rule is a miss. Sites that break under a plain torch.compile are
  the headline; sites that break only under dynamic=True, and fullgraph=True failures
  at lines the default mode compiles, get their own lines;
- precision (default mode) = default-mode claims confirmed by a break in their
  statement under a plain torch.compile (eval or train) or dynamic=True / default-mode
  claims on lines Dynamo traced in those runs (a line Dynamo never traced ran eager
  after an earlier break, or never ran: not judged);
- precision (fullgraph) = fullgraph claims confirmed by the fullgraph=True failure /
  fullgraph claims on lines Dynamo traced under fullgraph=True;
- precision (dynamic=True only) = claims of a break under dynamic=True alone (a float
  attribute the default mode keeps constant) confirmed by a break there in the
  dynamic=True runs / such claims on lines Dynamo traced in those runs;
- CL2xx (recompiles): confirmed when a guard their statement installed failed in a
  recompile, or a symbolic shape guard came from it; judged on executed lines.

Everything is reported overall, per package (per venv: one package's release) and per
GB type, with every miss and false positive listed. Writes bench/results/accuracy.json
and accuracy.md.
"""

from __future__ import annotations

import argparse
import collections
import json
import resource
import shutil
import tempfile
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from accuracy_sites import (  # noqa: E402
    DEFAULT,
    DYNAMIC_ONLY,
    FULLGRAPH_ONLY,
    Site,
    break_sites,
    executed_lines,
    package_of,
    package_roots,
    recompile_sites,
    relative,
    traced_lines,
)
from compilelint.config import Settings  # noqa: E402
from compilelint.engine import lint_paths  # noqa: E402
from compilelint.findings import Finding  # noqa: E402

SITE_KINDS = (DEFAULT, DYNAMIC_ONLY, FULLGRAPH_ONLY)
CLAIM_KINDS = ("default", "fullgraph", "dynamic", "recompile")


@dataclass
class Claim:
    """One claim of one finding, and what the runs made of it."""

    part: str
    path: str
    line: int
    code: str
    kind: str  # "default" | "fullgraph" | "recompile"
    verdict: str  # "confirmed" | "false positive" | why it was not judged
    message: str

    @property
    def package(self) -> str:
        return package_of(self.path)


@dataclass
class JudgedSite:
    part: str
    site: Site
    covered: bool


def _cpu() -> float:
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def lint_packages(roots: dict[str, str], summaries: str = "") -> tuple[list[tuple[str, Finding]], float]:
    """The package trees linted as their users' installs see them: calls into the other
    packages of the same venv are followed (``package_paths``: the venv's site folder, not
    this interpreter's), so ``pywt.dwt_coeff_len`` in pytorch_wavelets is a call into
    compiled code and ``scipy.sparse.linalg.eigs`` in PyG is followed into scipy.
    ``summaries``: a folder the package summaries are shared in across calls."""
    started = _cpu()
    site_dirs = tuple(sorted({os.path.dirname(root) for root in roots.values()}))
    # the bench venvs lie in this checkout, ignored by its .gitignore: lint them anyway
    settings = Settings(respect_gitignore=False, package_paths=site_dirs, package_cache_dir=summaries)
    results = lint_paths(sorted(roots.values()), settings)
    cpu = _cpu() - started
    found = []
    for result in results:
        path = relative(result.path, roots)
        if path is None:
            continue
        # fix_data can hold a rule's AST nodes: dropped, so a run over every package's files
        # keeps findings, not syntax trees (measured: 11 GB for the whole zoo with them)
        found.extend((path, replace(finding, fix_data=None)) for finding in result.findings if finding.code.startswith("CL"))
    return found, cpu


def case_files(zoo: dict[str, Any]) -> list[str]:
    """The zoo's own case code for the packages of a recording: the user code that builds
    and calls the models (bench/zoo/cases/<package>_models.py)."""
    packages = {str(m.get("package")) for m in zoo["models"]}
    return sorted(str(p) for name in packages if (p := ROOT / "bench" / "zoo" / "cases" / f"{name}_models.py").is_file())


def method_roots(zoo: dict[str, Any], folder: Path) -> list[str]:
    """What the zoo compiles where it is not ``forward``: record.py compiles
    ``getattr(model, case.method)`` (``CRF.decode``), which the case code names only as data
    (``{"method": "decode"}``). A user compiling a method writes ``torch.compile(crf.decode)``;
    one such file per case, with the recorded model class, is linted with the case code.
    The constructor's arguments are not written: the call's kinds come from ``decode``'s own
    parameters, as for any compiled root."""
    files = []
    for model in zoo["models"]:
        method, cls = model.get("method", "forward"), str(model.get("model_class") or "")
        if method == "forward" or model.get("status") != "ok" or "." not in cls or "<" in cls:
            continue
        module, _, name = cls.rpartition(".")
        path = folder / f"compiled_{model['name']}.py"
        path.write_text(f'"""zoo case {model["name"]}: record.py compiles {cls}.{method}."""\n'
                        f"import torch\nfrom {module} import {name}\n\n"
                        f"model = {name}()\ncompiled = torch.compile(model.{method})\n")  # fmt: skip
        files.append(str(path))
    return files


def lint_case_code(files: list[str], roots: dict[str, str]) -> tuple[list[tuple[str, Finding]], float]:
    """What the user's side of the zoo shows: the case code linted with compiled code
    followed into the recording's installed packages (``follow-imports = "installed"``).
    Each site a call-site finding (CL150/CL151) reaches becomes a claim at that site, the
    way the user reads it in the finding (the JSON report lists every one)."""
    if not files:
        return [], 0.0
    started = _cpu()
    site_dirs = tuple(sorted({os.path.dirname(root) for root in roots.values()}))
    settings = Settings(respect_gitignore=False, follow_imports="installed", package_paths=site_dirs, package_cache_dir="")
    found: list[tuple[str, Finding]] = []
    for result in lint_paths(files, settings):
        for finding in result.findings:
            for site in finding.reached_sites:
                inner = replace(finding, code=site.code, path=site.path, line=site.line, end_line=site.statement[1],
                                statement_lines=site.statement, breaks=site.breaks, gb_ids=site.gb_ids,
                                only_when=("reached only when conditions hold there",) if site.conditional else (),
                                reached_sites=(),
                                message=f"{finding.code} at {relative_case(result.path)}:{finding.line} reaches "
                                        f"{site.code} here: {finding.message}")  # fmt: skip
                found.append((site.path, inner))
    return found, _cpu() - started


def relative_case(path: str) -> str:
    return os.path.relpath(path, ROOT)


def merge_claims(package: list[tuple[str, Finding]], reached: list[tuple[str, Finding]]) -> list[tuple[str, Finding]]:
    """Package-tree findings, plus reached sites the tree lint did not already claim."""
    seen = {(path, f.line, f.code) for path, f in package}
    merged = list(package)
    for path, finding in reached:
        if (path, finding.line, finding.code) not in seen:
            seen.add((path, finding.line, finding.code))
            merged.append((path, finding))
    return merged


def _span(finding: Finding) -> range:
    return range(finding.statement_lines[0], finding.statement_lines[1] + 1)


def _verdict(finding: Finding, path: str, hit: bool, traced: dict[str, set[int]]) -> str:
    if hit:
        return "confirmed"
    if not any(line in traced.get(path, ()) for line in _span(finding)):
        return "not traced"
    if finding.only_when:
        return "conditional"  # the flagged operand may have been short-circuited away
    return "false positive"


def judge(part: str, zoo: dict[str, Any], findings: list[tuple[str, Finding]]) -> tuple[list[JudgedSite], list[Claim], dict[str, int]]:
    sites, outside = break_sites(zoo)
    by_path: dict[str, list[Site]] = collections.defaultdict(list)
    for site in sites.values():
        by_path[site.path].append(site)
    traced_default = traced_lines(zoo, ("default", "train", "dynamic"))
    traced_fullgraph = traced_lines(zoo, ("fullgraph",))
    traced_dynamic = traced_lines(zoo, ("dynamic",))
    executed = executed_lines(zoo)
    guard_sites = recompile_sites(zoo)
    covered: set[tuple[str, int]] = set()
    claims: list[Claim] = []
    for path, finding in findings:
        span = _span(finding)
        here = [s for s in by_path.get(path, ()) if s.line in span]
        modes = {mode.value for mode in finding.breaks}

        def claim(kind: str, verdict: str) -> None:
            claims.append(Claim(part, path, finding.line, finding.code, kind, verdict, finding.message[:100]))

        if finding.code.startswith("CL3"):
            continue  # wrong values, no break: the zoo records breaks and recompiles only
        if not modes:  # a recompile rule
            if finding.line not in executed.get(path, ()):
                continue
            hit = any(p == path and line in span for p, line in guard_sites)
            claim("recompile", "confirmed" if hit else ("conditional" if finding.only_when else "false positive"))
            continue
        covered.update((s.path, s.line) for s in here)
        if "default" in modes:
            hit = any(s.modes & {"default", "train", "dynamic"} for s in here)
            claim("default", _verdict(finding, path, hit, traced_default))
        if "fullgraph" in modes:
            hit = any("fullgraph" in s.modes for s in here)
            claim("fullgraph", _verdict(finding, path, hit, traced_fullgraph))
        if "dynamic" in modes:  # a break under dynamic=True alone, judged by those runs
            hit = any("dynamic" in s.modes for s in here)
            claim("dynamic", _verdict(finding, path, hit, traced_dynamic))
    judged = [JudgedSite(part, site, key in covered) for key, site in sorted(sites.items())]
    return judged, claims, dict(outside)


def _ratio(numerator: int, denominator: int) -> float | None:
    return round(numerator / denominator, 3) if denominator else None


def tally(sites: list[JudgedSite], claims: list[Claim]) -> dict[str, Any]:
    """Recall per site kind and precision per claim kind over these sites and claims."""
    out: dict[str, Any] = {}
    for kind in SITE_KINDS:
        of_kind = [s for s in sites if s.site.kind == kind]
        hit = sum(s.covered for s in of_kind)
        out[f"{kind} sites"] = len(of_kind)
        out[f"{kind} covered"] = hit
        out[f"{kind} recall"] = _ratio(hit, len(of_kind))
    for kind in CLAIM_KINDS:
        verdicts = collections.Counter(c.verdict for c in claims if c.kind == kind)
        judged = verdicts["confirmed"] + verdicts["false positive"]
        out[f"{kind} claims judged"] = judged
        out[f"{kind} claims confirmed"] = verdicts["confirmed"]
        out[f"{kind} precision"] = _ratio(verdicts["confirmed"], judged)
        out[f"{kind} claims not judged"] = {k: v for k, v in verdicts.items() if k not in ("confirmed", "false positive")}
    return out


def _package_label(part: str, package: str, parts_per_package: dict[str, set[str]]) -> str:
    """`transformers [venv-bench-old]` where a package was recorded in several venvs."""
    return package if len(parts_per_package.get(package, ())) <= 1 else f"{package} [{part}]"


def aggregate(parts: dict[str, dict[str, Any]]) -> dict[str, Any]:
    sites = [s for p in parts.values() for s in p["sites"]]
    claims = [c for p in parts.values() for c in p["claims"]]
    venvs_of: dict[str, set[str]] = collections.defaultdict(set)
    for p in parts.values():
        for package in p["packages"]:
            venvs_of[package].add(p["venv"])

    def label(part: str, package: str) -> str:
        return _package_label(parts[part]["venv"], package, venvs_of)

    per_package_sites: dict[str, list[JudgedSite]] = collections.defaultdict(list)
    per_package_claims: dict[str, list[Claim]] = collections.defaultdict(list)
    models: collections.Counter[str] = collections.Counter()
    for name, p in parts.items():
        for package, count in p["models_per_package"].items():
            models[label(name, package)] += count
    for s in sites:
        per_package_sites[label(s.part, s.site.package)].append(s)
    for c in claims:
        per_package_claims[label(c.part, c.package)].append(c)
    per_gb_id: dict[str, list[JudgedSite]] = collections.defaultdict(list)
    for s in sites:  # fullgraph's guard errors carry an exception type, not a gb_type: group by id
        per_gb_id[s.site.gb_id if s.site.gb_id != "?" else f"? {s.site.gb_type}"].append(s)
    per_gb = {_gb_label(gb, group): group for gb, group in per_gb_id.items()}
    packages = sorted(set(models) | set(per_package_sites) | set(per_package_claims))
    return {
        "models": sum(models.values()),
        "packages": len({package for p in parts.values() for package in p["packages"]}),
        "overall": tally(sites, claims),
        "per_package": {
            package: dict(models=models[package], **tally(per_package_sites[package], per_package_claims[package]))
            for package in packages
        },
        "per_gb_type": {
            gb: {kind: [sum(x.covered for x in group if x.site.kind == kind), sum(1 for x in group if x.site.kind == kind)]
                 for kind in SITE_KINDS}
            for gb, group in sorted(per_gb.items(), key=lambda item: -len(item[1]))
        },
        "misses": {
            kind: [f"[{label(s.part, s.site.package)}] {s.site.describe()}" for s in sites if s.site.kind == kind and not s.covered]
            for kind in SITE_KINDS
        },
        "false_positives": [
            f"[{label(c.part, c.package)}] {c.path}:{c.line} {c.code} ({c.kind}) {c.message}"
            for c in claims if c.verdict == "false positive"
        ],
        "per_rule": _per_rule(claims, parts),
        "outside_packages": {name: p["outside"] for name, p in parts.items()},
        "parts": {name: {"models ok": sum(p["models_per_package"].values()), "cases": p["cases"],
                         "wall_seconds": p["wall_seconds"], "jobs": p["jobs"]} for name, p in parts.items()},
    }


def _gb_label(gb: str, group: list[JudgedSite]) -> str:
    if gb.startswith("?"):
        return gb[:90]
    names = collections.Counter(s.site.gb_type for s in group if not s.site.gb_type.startswith("torch."))
    return f"{gb} {names.most_common(1)[0][0] if names else group[0].site.gb_type}"[:90]


def _per_rule(claims: list[Claim], parts: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    findings: collections.Counter[str] = collections.Counter()
    for p in parts.values():
        findings.update(p["findings_by_rule"])
    out: dict[str, dict[str, Any]] = {}
    for code in sorted(findings):
        mine = [c for c in claims if c.code == code]
        row: dict[str, Any] = {"findings": findings[code]}
        for kind in CLAIM_KINDS:
            verdicts = collections.Counter(c.verdict for c in mine if c.kind == kind)
            judged = verdicts["confirmed"] + verdicts["false positive"]
            if judged or verdicts:
                row[kind] = [verdicts["confirmed"], judged]
        out[code] = row
    return out


def _cell(value: Any) -> str:
    return "—" if value is None else str(value)


def _row(name: str, t: dict[str, Any], models: int | str = "") -> str:
    cells = [name, str(models)]
    for kind in SITE_KINDS:
        cells.append(f"{t[f'{kind} covered']}/{t[f'{kind} sites']} = **{_cell(t[f'{kind} recall'])}**"
                     if kind == DEFAULT else f"{t[f'{kind} covered']}/{t[f'{kind} sites']} = {_cell(t[f'{kind} recall'])}")
    for kind in CLAIM_KINDS:
        cells.append(f"{t[f'{kind} claims confirmed']}/{t[f'{kind} claims judged']} = {_cell(t[f'{kind} precision'])}")
    return "| " + " | ".join(cells) + " |"


HEADER = (
    "| package | models | recall, default-mode sites | recall, dynamic=True-only sites | recall, fullgraph-only sites "
    "| precision, default claims | precision, fullgraph claims | precision, dynamic=True-only claims "
    "| CL2xx (guard installed) |\n"
    "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
)


def render(report: dict[str, Any], meta: dict[str, Any]) -> str:
    overall = report["overall"]
    lines = [
        "# Agreement with Dynamo (bench/accuracy.py)",
        "",
        f"{report['models']} models from {report['packages']} packages; torch {meta['torch']}; "
        f"recordings: {', '.join(meta['parts'])}; lint: {meta['lint_cpu']:.0f} CPU-s. "
        "Recall counts every break site, whatever its category (a category without a rule is a miss). "
        + ("Static side: every file of each package, and the zoo's case code (bench/zoo/cases) with calls "
           f"followed into the installed packages ({meta['reached_claims']} sites named by CL150/CL151 at a call)"
           + ("; the methods the zoo compiles by name, as `torch.compile(model.decode)`." if meta.get("method_roots")
              else "; without the methods the zoo compiles by name (--no-method-roots).")
           if meta.get("case_code") else "Static side: every file of each package (--packages-only)."),
        "",
        HEADER,
        _row("**all**", overall, report["models"]),
        *[_row(name, t, t["models"]) for name, t in report["per_package"].items()],
        "",
        "not judged: " + "; ".join(f"{kind}: {overall[f'{kind} claims not judged']}" for kind in CLAIM_KINDS),
        "",
        "## Recall per GB type (covered/sites)",
        "",
        "| GB type | default | dynamic=True only | fullgraph only |",
        "|---|---:|---:|---:|",
        *[f"| {gb} | " + " | ".join(f"{c}/{n}" if n else "" for c, n in (row[k] for k in SITE_KINDS)) + " |"
          for gb, row in report["per_gb_type"].items()],
        "",
        "## Per rule (confirmed/judged)",
        "",
        "| rule | findings | default | fullgraph | dynamic=True only | recompile |",
        "|---|---:|---:|---:|---:|---:|",
        *[f"| {code} | {row['findings']} | " + " | ".join(
            f"{row[k][0]}/{row[k][1]}" if k in row else "" for k in CLAIM_KINDS) + " |"
          for code, row in report["per_rule"].items()],
        "",
    ]
    for kind in SITE_KINDS:
        lines += [f"## Misses: {kind} sites ({len(report['misses'][kind])})", ""]
        lines += [f"- {miss}" for miss in report["misses"][kind]] + [""]
    lines += [f"## False positives ({len(report['false_positives'])})", ""]
    lines += [f"- {fp}" for fp in report["false_positives"]] + [""]
    walls = [p["wall_seconds"] or 0 for p in report["parts"].values()]
    lines += [f"## Zoo parts: wall time of each recording (bench/zoo/run_all.py; total {sum(walls) / 60:.0f} min)", "",
              "| part | cases | ran ok | wall s | jobs |", "|---|---:|---:|---:|---:|"]
    lines += [f"| {name} | {p['cases']} | {p['models ok']} | {p['wall_seconds']} | {p['jobs']} |"
              for name, p in report["parts"].items()] + [""]
    if meta.get("packages_not_found"):
        lines += ["## Packages not found (their sites count as misses: make the recording's venv)", ""]
        lines += [f"- {where}" for where in meta["packages_not_found"]] + [""]
    lines += ["## Break events outside the linted packages (torch internals, the zoo's case code)", ""]
    lines += [f"- {part}: {counts or 'none'}" for part, counts in report["outside_packages"].items()] + [""]
    return "\n".join(lines)


def _model_package(model: dict[str, Any]) -> str:
    root = model.get("package_root") or model.get("library_root")
    return Path(root.rstrip("/")).name if root else str(model.get("package") or model.get("library"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--zoo", action="append", type=Path, help="zoo result JSON (default: bench/results/zoo-*.json)")
    parser.add_argument("--out", type=Path, default=RESULTS / "accuracy", help="writes OUT.json and OUT.md")
    parser.add_argument("--packages-only", action="store_true",
                        help="lint the package trees only, not the zoo's case code with calls followed into them")
    parser.add_argument("--no-method-roots", action="store_true",
                        help="without the methods the zoo compiles by name (record.py's getattr(model, method))")
    args = parser.parse_args(argv)
    zoos = args.zoo or sorted(RESULTS.glob("zoo-*.json"))
    if not zoos:
        print("no zoo results: run `bash bench/setup_env.sh && python bench/zoo/run_all.py` first")
        return 2
    lint_cache: dict[str, list[tuple[str, Finding]]] = {}
    summaries = tempfile.mkdtemp(prefix="accuracy-summaries-")  # one run's package summaries, shared by its lints
    parts: dict[str, dict[str, Any]] = {}
    lint_cpu, torch_versions, reached_claims = 0.0, set(), 0
    missing: list[str] = []
    for zoo_path in zoos:
        zoo = json.loads(zoo_path.read_text())
        roots = package_roots(zoo)
        for name, root in sorted(roots.items()):
            if not os.path.isdir(root):  # every site of it would read as a miss
                missing.append(f"{zoo_path.stem}: {name} ({root})")
                print(f"warning: {zoo_path.stem}: {name} is not installed at {root}; its sites count as misses", file=sys.stderr)
        findings: list[tuple[str, Finding]] = []
        for name, root in sorted(roots.items()):
            if root not in lint_cache:
                lint_cache[root], cpu = lint_packages({name: root}, summaries)
                lint_cpu += cpu
            findings += lint_cache[root]
        with tempfile.TemporaryDirectory(prefix="accuracy-methods-") as folder:
            user = case_files(zoo) + (method_roots(zoo, Path(folder)) if not args.no_method_roots else [])
            reached, cpu = lint_case_code(user, roots) if not args.packages_only else ([], 0.0)
        lint_cpu += cpu
        reached_claims += len(reached)
        findings = merge_claims(findings, reached)
        sites, claims, outside = judge(zoo_path.stem, zoo, findings)
        ok = [m for m in zoo["models"] if m.get("status") == "ok"]
        torch_versions.add(str(((zoo.get("meta") or {}).get("versions") or {}).get("torch")))
        parts[zoo_path.stem] = {
            "venv": (zoo.get("meta") or {}).get("venv", zoo_path.stem),
            "packages": sorted(roots),
            "models_per_package": dict(collections.Counter(_model_package(m) for m in ok)),
            "findings_by_rule": dict(collections.Counter(f.code for _, f in findings)),
            "sites": sites,
            "claims": claims,
            "outside": outside,
            "wall_seconds": (zoo.get("meta") or {}).get("wall_seconds"),
            "jobs": (zoo.get("meta") or {}).get("jobs"),
            "cases": len(zoo["models"]),
        }
    shutil.rmtree(summaries, ignore_errors=True)
    report = aggregate(parts)
    meta = {"torch": ", ".join(sorted(torch_versions)), "parts": [p.stem for p in zoos], "lint_cpu": lint_cpu,
            "case_code": not args.packages_only, "method_roots": not args.no_method_roots, "reached_claims": reached_claims,
            "packages_not_found": missing}
    text = render(report, meta)
    print(text)
    args.out.with_suffix(".json").write_text(json.dumps(dict(meta=meta, **report), indent=1, default=sorted))
    args.out.with_suffix(".md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
