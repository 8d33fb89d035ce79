"""Run the whole real-model zoo through the Dynamo recorder and summarise the ground truth.

    python bench/zoo/run_all.py --venv .venv-bench --package timm  # -> bench/results/zoo-venv-bench-timm.json
    python bench/zoo/run_all.py --venv /work/venvs/zoo-research     # every package with cases installed there
    python bench/zoo/run_all.py --venv .venv-bench --package timm --case 'vit|swin' --jobs 2

The zoo runs in parts, one per package (bench/zoo/cases/<package>_models.py): each
part writes its own bench/results/zoo-<venv>-<package>.json (and .md), with its wall
time in meta.  A package not importable in the venv is left out with a note.

run_all itself needs only the standard library (any python3); every case
runs as `<venv>/bin/python -m zoo.record ...` in its own subprocess (cwd
bench/) with a time limit, `--jobs` at a time.  A crash, a hang or an import
error is a status on that case, never the end of the run.  Writes the JSON
(per model: status, breaks per mode, fullgraph result, recompiles, coverage;
plus "summary") and a Markdown rendering of the summary beside it, and prints
the summary.
"""
from __future__ import annotations

import argparse
import collections
import concurrent.futures as cf
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
ROOT = os.path.dirname(BENCH)
CASES = os.path.join(HERE, "cases")


def case_packages() -> list[str]:
    return sorted(f[: -len("_models.py")] for f in os.listdir(CASES) if f.endswith("_models.py"))


# --------------------------------------------------------------------------- running
def venv_python(venv: str) -> str:
    p = venv if os.path.isabs(venv) else os.path.join(ROOT, venv)
    py = os.path.join(p, "bin", "python")
    if not os.path.exists(py):
        sys.exit(f"no python at {py}: run bench/setup_env.sh first")
    return py


def venv_label(venv: str) -> str:
    return os.path.basename(os.path.normpath(venv)).lstrip(".")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        HF_HUB_OFFLINE="1",
        TRANSFORMERS_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        DIFFUSERS_OFFLINE="1",
        TOKENIZERS_PARALLELISM="false",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
        PYTHONWARNINGS="ignore",
        TRANSFORMERS_VERBOSITY="error",
        DIFFUSERS_VERBOSITY="error",
    )
    env.pop("TORCH_LOGS", None)
    env["PYTHONPATH"] = BENCH + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def list_cases(py: str, package: str) -> tuple[list[dict[str, Any]], str | None]:
    try:
        r = subprocess.run([py, "-m", "zoo.record", "--package", package, "--list"], cwd=BENCH, env=_env(),
                           capture_output=True, text=True, timeout=300)
    except subprocess.TimeoutExpired:
        return [], "listing timed out"
    if r.returncode != 0:
        return [], f"listing failed (rc={r.returncode}): {r.stderr[-1500:]}"
    return json.loads(r.stdout.strip().splitlines()[-1]), None


def run_case(py: str, package: str, name: str, timeout: float, tmpdir: str, modes: str,
             variants: str, fullgraph_variants: str) -> dict[str, Any]:
    out = os.path.join(tmpdir, f"{package}__{name}.json")
    cmd = [py, "-m", "zoo.record", "--package", package, "--case", name, "--out", out, "--modes", modes,
           "--variants", variants, "--fullgraph-variants", fullgraph_variants]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=BENCH, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    status = None
    try:
        _, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the case's own process group only
        _, err = proc.communicate()
        status = "timeout"
    wall = round(time.perf_counter() - t0, 2)
    rec: dict[str, Any]
    if status is None and os.path.exists(out):
        with open(out) as f:
            rec = json.load(f)
    else:
        rec = {"name": name, "package": package, "library": package,
               "status": status or ("crashed" if proc.returncode else "no_output"),
               "error": (f"timed out after {timeout:.0f}s" if status == "timeout"
                         else f"exit code {proc.returncode}")}
        partial = out + ".tmp"
        if os.path.exists(partial):
            os.unlink(partial)
    rec["wall_seconds"] = wall
    rec["returncode"] = proc.returncode
    if rec.get("status") != "ok":
        rec["stderr_tail"] = (err or "")[-2500:]
    return rec


# --------------------------------------------------------------------------- summary
def _site_key(b: dict[str, Any]) -> tuple:
    return (b.get("path"), b.get("line"), b.get("gb_type"), b.get("root_gb_type"))


def _short_reason(b: dict[str, Any]) -> str:
    ctx = (b.get("context") or "").strip()
    expl = (b.get("explanation") or "").strip()
    s = expl if not ctx else f"{expl} [{ctx}]"
    return re.sub(r"\s+", " ", s)[:300]


_ADDR = re.compile(r"0x[0-9a-f]+|\bu\d+\b|\bs\d+\b")


def fullgraph_label(e: dict[str, Any]) -> str:
    if e.get("gb_type"):
        return e["gb_type"]
    first = (e.get("message") or "").strip().splitlines()[:1]
    msg = _ADDR.sub("N", first[0] if first else "")
    msg = re.sub(r"expression .*", "expression ...", msg)
    return f"{e.get('type', '?').rsplit('.', 1)[-1]}: {msg[:120]}"


def _pkg(record: dict[str, Any]) -> str:
    return str(record.get("package") or record.get("library"))


def summarize(records: list[dict[str, Any]], skipped: list[dict[str, Any]]) -> dict[str, Any]:
    ok = [r for r in records if r.get("status") == "ok"]
    failed = [r for r in records if r.get("status") not in ("ok", "skipped")]
    skipped_all = skipped + [r for r in records if r.get("status") == "skipped"]

    per_lib: dict[str, dict[str, int]] = collections.defaultdict(lambda: collections.Counter())
    for r in records:
        per_lib[_pkg(r)][r.get("status", "?")] += 1
    for s in skipped:
        per_lib[_pkg(s)]["skipped"] += 1

    default_breaking: list[str] = []
    gb_events: collections.Counter = collections.Counter()
    gb_models: dict[str, set[str]] = collections.defaultdict(set)
    root_models: dict[str, set[str]] = collections.defaultdict(set)
    sites: dict[tuple, dict[str, Any]] = {}
    only_dynamic: set[str] = set()
    for r in ok:
        d = r.get("default") or {}
        brs = d.get("breaks") or []
        if brs:
            default_breaking.append(r["name"])
        for b in brs:
            gt = f"{b.get('gb_id') or '-'} {b['gb_type']}"
            rt = f"{b.get('root_gb_id') or '-'} {b['root_gb_type']}"
            gb_events[gt] += 1
            gb_models[gt].add(r["name"])
            root_models[rt].add(r["name"])
            k = _site_key(b)
            s = sites.setdefault(k, {"path": b.get("path"), "line": b.get("line"), "func": b.get("func"),
                                     "in_library": b.get("in_library"),
                                     "gb_type": b["gb_type"], "gb_id": b.get("gb_id"),
                                     "root_gb_type": b["root_gb_type"], "root_gb_id": b.get("root_gb_id"),
                                     "reason": _short_reason(b), "models": set(), "events": 0,
                                     "variants": set()})
            s["models"].add(r["name"])
            s["events"] += 1
            s["variants"].add(b.get("variant"))
        if brs and all((b.get("variant") or 0) > 0 for b in brs):
            only_dynamic.add(r["name"])

    # default mode can fail outright (an exception that is not a graph break: torch.compile then raises)
    def_err_sites: dict[tuple, dict[str, Any]] = {}
    def_err_models: list[str] = []
    for r in ok:
        d = r.get("default") or {}
        errs = [(v["variant"], v["error"]) for v in d.get("variants", []) if v.get("error")]
        if d.get("crashed") and d.get("error"):
            errs.append((None, d["error"]))
        if not errs:
            continue
        def_err_models.append(r["name"])
        for variant, e in errs:
            lab = fullgraph_label(e)
            k = (e.get("path"), e.get("line"), lab)
            s_ = def_err_sites.setdefault(k, {"path": e.get("path"), "line": e.get("line"), "label": lab,
                                              "gb_id": e.get("gb_id"), "in_library": e.get("in_library"),
                                              "message": re.sub(r"\s+", " ", (e.get("message") or ""))[:300],
                                              "models": set(), "variants": set()})
            s_["models"].add(r["name"])
            s_["variants"].add(variant)

    fg_fail: list[str] = []
    fg_labels: dict[str, set[str]] = collections.defaultdict(set)
    fg_sites: dict[tuple, dict[str, Any]] = {}
    for r in ok:
        f = r.get("fullgraph") or {}
        e = f.get("error")
        if not e:
            continue
        fg_fail.append(r["name"])
        lab = fullgraph_label(e)
        fg_labels[lab].add(r["name"])
        k = (e.get("path"), e.get("line"), lab)
        s = fg_sites.setdefault(k, {"path": e.get("path"), "line": e.get("line"), "label": lab,
                                    "gb_id": e.get("gb_id"), "root_gb_type": e.get("root_gb_type"),
                                    "in_library": e.get("in_library"),
                                    "message": re.sub(r"\s+", " ", (e.get("message") or ""))[:300],
                                    "models": set(), "variants": set()})
        s["models"].add(r["name"])
        s["variants"].add(e.get("variant"))

    rec_rows = []
    for r in ok:
        d = r.get("default") or {}
        rc = d.get("recompiles") or {}
        per_variant = [v.get("recompiles", 0) for v in d.get("variants", [])]
        v0 = per_variant[0] if per_variant else 0
        v2 = per_variant[2] if len(per_variant) > 2 else 0
        rec_rows.append({"model": r["name"], "count": rc.get("count", 0), "per_variant": per_variant,
                         "after_first_per_code": rc.get("after_first_per_code", 0), "at_variant_0": v0,
                         "at_variant_2": v2, "limit_hits": rc.get("limit_hits", []),
                         "events": [(f"v{e.get('variant')} {e['code'][0]}:{e['code'][1]} {e['code'][2]}: "
                                     + (e["reasons"][0].split("\n")[0] if e["reasons"] else "?"))[:260]
                                    for e in rc.get("events", [])]})
    hazards = [x for x in rec_rows
               if x["after_first_per_code"] or x["at_variant_0"] or x["at_variant_2"] or x["limit_hits"]]

    def _sites_list(d: dict[tuple, dict[str, Any]]) -> list[dict[str, Any]]:
        out = []
        for s in d.values():
            s = dict(s)
            s["n_models"] = len(s["models"])
            s["models"] = sorted(s["models"])
            s["variants"] = sorted(v for v in s["variants"] if v is not None)
            out.append(s)
        out.sort(key=lambda s: (-s["n_models"], str(s["path"]), s["line"] or 0))
        return out

    return {
        "cases": len(records) + len(skipped),
        "ran_ok": len(ok),
        "failed": [{"model": r["name"], "package": _pkg(r), "status": r.get("status"),
                    "error": str(r.get("error"))[:400]} for r in failed],
        "skipped": [{"model": s.get("name"), "package": _pkg(s),
                     "reason": s.get("skipped") or s.get("error")} for s in skipped_all],
        "per_package": {k: dict(v) for k, v in sorted(per_lib.items())},
        "train_models_with_breaks": sorted(r["name"] for r in ok if (r.get("train") or {}).get("breaks")),
        "dynamic_models_with_breaks": sorted(r["name"] for r in ok if (r.get("dynamic") or {}).get("breaks")),
        "default_models_with_breaks": sorted(default_breaking),
        "default_models_breaking_only_after_shapes_change": sorted(only_dynamic),
        "default_models_erroring": sorted(def_err_models),
        "default_error_sites": _sites_list(def_err_sites),
        "fullgraph_models_failing": sorted(fg_fail),
        "gb_type_counts": [{"gb_type": k, "events": gb_events[k], "models": len(gb_models[k])}
                           for k, _ in gb_events.most_common()],
        "root_gb_type_models": sorted(({"root_gb_type": k, "models": len(v)} for k, v in root_models.items()),
                                      key=lambda x: -x["models"]),
        "fullgraph_error_counts": sorted(({"label": k, "models": len(v)} for k, v in fg_labels.items()),
                                         key=lambda x: -x["models"]),
        "break_sites": _sites_list(sites),
        "fullgraph_sites": _sites_list(fg_sites),
        "recompiles": rec_rows,
        "recompile_hazards": hazards,
    }


def render(summary: dict[str, Any], meta: dict[str, Any]) -> str:
    L: list[str] = []
    w = L.append
    w(f"# Zoo ground truth: {meta['venv']}")
    w("")
    w(f"versions: {json.dumps(meta.get('versions'))}  ")
    w(f"wall time: {meta['wall_seconds']:.0f} s with {meta['jobs']} jobs; per-case limit {meta['timeout']:.0f} s")
    w("")
    w(f"cases {summary['cases']}, ran ok {summary['ran_ok']}, failed {len(summary['failed'])}, "
      f"skipped {len(summary['skipped'])}")
    w("")
    w("| package | " + " | ".join(["ok", "skipped", "build_failed", "eager_failed", "timeout", "crashed", "error"]) + " |")
    w("|---|" + "---|" * 7)
    for lib, c in (summary.get("per_package") or summary.get("per_library") or {}).items():
        w(f"| {lib} | " + " | ".join(str(c.get(k, 0)) for k in
                                    ["ok", "skipped", "build_failed", "eager_failed", "timeout", "crashed",
                                     "error"]) + " |")
    w("")
    if summary["failed"]:
        w("failed:")
        for f in summary["failed"]:
            w(f"- {_pkg(f)}/{f['model']}: {f['status']}: {f['error']}")
        w("")
    if summary["skipped"]:
        w("skipped:")
        for s in summary["skipped"]:
            w(f"- {_pkg(s)}/{s['model']}: {s['reason']}")
        w("")
    d = summary["default_models_with_breaks"]
    w(f"default mode: {len(d)} of {summary['ran_ok']} models break: {', '.join(d) or '-'}  ")
    od = summary["default_models_breaking_only_after_shapes_change"]
    w(f"  of which only once shapes change (variant 1/2): {', '.join(od) or '-'}  ")
    de = summary.get("default_models_erroring", [])
    w(f"default mode: {len(de)} models raise (not a graph break: torch.compile fails): {', '.join(de) or '-'}  ")
    fg = summary["fullgraph_models_failing"]
    w(f"fullgraph=True: {len(fg)} of {summary['ran_ok']} models fail: {', '.join(fg) or '-'}")
    w("")
    w("## default mode: breaks by gb_type (events = logged breaks, models = distinct models)")
    w("")
    w("| gb_type | events | models |")
    w("|---|---|---|")
    for x in summary["gb_type_counts"]:
        w(f"| {x['gb_type']} | {x['events']} | {x['models']} |")
    w("")
    w("root cause gb_type (GB7000 'graph break in loop' unwrapped):")
    w("")
    for x in summary["root_gb_type_models"]:
        w(f"- {x['root_gb_type']}: {x['models']} models")
    w("")
    w("## default mode: break sites (innermost frame in the package)")
    w("")
    w("| site | gb | root gb | models | variants | reason |")
    w("|---|---|---|---|---|---|")
    for s in summary["break_sites"]:
        w(f"| {s['path']}:{s['line']} ({s['func']}) | {s['gb_id'] or '-'} {s['gb_type']} | "
          f"{s['root_gb_id'] or '-'} | {s['n_models']} ({', '.join(s['models'])}) | "
          f"{','.join(map(str, s['variants']))} | {s['reason'][:160].replace('|', '/')} |")
    w("")
    if summary.get("default_error_sites"):
        w("## default mode: errors (the compiled call raised)")
        w("")
        w("| site | error | models | variant | message |")
        w("|---|---|---|---|---|")
        for s_ in summary["default_error_sites"]:
            w(f"| {s_['path']}:{s_['line']} | {s_['gb_id'] or ''} {s_['label'][:90]} | {s_['n_models']} "
              f"({', '.join(s_['models'])}) | {','.join(map(str, s_['variants']))} | "
              f"{s_['message'][:160].replace('|', '/')} |")
        w("")
    w("## fullgraph=True: errors")
    w("")
    for x in summary["fullgraph_error_counts"]:
        w(f"- {x['label']}: {x['models']} models")
    w("")
    w("| site | error | models | variant | message |")
    w("|---|---|---|---|---|")
    for s in summary["fullgraph_sites"]:
        w(f"| {s['path']}:{s['line']} | {s['gb_id'] or ''} {s['label'][:90]} | {s['n_models']} "
          f"({', '.join(s['models'])}) | {','.join(map(str, s['variants']))} | "
          f"{s['message'][:160].replace('|', '/')} |")
    w("")
    w("## recompiles (default mode; variant 1 changes batch and length, variant 2 changes them again)")
    w("")
    w("A compile-clean model recompiles once, at variant 1 (automatic dynamic shapes). "
      "Listed: models that recompile within variant 0 (a frame re-entered with other guards, e.g. after a "
      "graph break), more than once per code object, again at variant 2, or hit the recompile limit.")
    w("")
    for x in summary["recompile_hazards"]:
        w(f"- {x['model']}: {x['count']} recompiles, per variant {x['per_variant']}, "
          f"extra per code object {x['after_first_per_code']}"
          + (f", recompile limit hit {len(x['limit_hits'])}x: "
             + "; ".join(h.get("function", "?") for h in x["limit_hits"]) if x["limit_hits"] else ""))
        for r in x["events"][:12]:
            w(f"    - {r}")
    w("")
    return "\n".join(L)


# --------------------------------------------------------------------------- main
def resummarize(path: str) -> None:
    with open(path) as f:
        doc = json.load(f)
    skipped = [{"name": x["model"], "package": _pkg(x), "skipped": x["reason"]}
               for x in doc["summary"].get("skipped", []) if _pkg(x) != "None"]
    skipped = [x for x in skipped if not any(r["name"] == x["name"] and _pkg(r) == _pkg(x) for r in doc["models"])]
    doc["summary"] = summarize(doc["models"], skipped)
    with open(path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1, default=str)
    os.replace(path + ".tmp", path)
    md = render(doc["summary"], doc["meta"])
    with open(os.path.splitext(path)[0] + ".md", "w") as f:
        f.write(md + "\n")
    print(md)


def select_cases(py: str, package: str, a: argparse.Namespace) -> tuple[list[str], list[dict[str, Any]], int, str | None]:
    """Case names to run, skipped cases, extended cases left out, listing error."""
    cases, err = list_cases(py, package)
    if err:
        return [], [], 0, err
    todo, skipped, n_extended = [], [], 0
    for c in cases:
        if a.case and not re.search(a.case, c["name"]):
            continue
        if c.get("extended") and not a.all and not a.case:
            n_extended += 1
        elif c.get("skipped"):
            skipped.append(c)
        else:
            todo.append(c["name"])
    return todo, skipped, n_extended, None


def run_part(py: str, label: str, package: str, todo: list[str], skipped: list[dict[str, Any]],
             n_extended: int, a: argparse.Namespace) -> str:
    """Run one package's cases; write bench/results/zoo-<venv>-<package>.json and .md."""
    stem = label.removeprefix("zoo-")  # venvs under /work/venvs are named zoo-*
    out_path = a.out or os.path.join(BENCH, "results", f"zoo-{stem}-{package}.json")
    os.makedirs(os.path.dirname(out_path), exist_ok=True)
    print(f"[run_all] {label}/{package}: {len(todo)} cases to run, {len(skipped)} skipped, "
          f"{n_extended} extended cases left out (--all runs them), {a.jobs} jobs", file=sys.stderr)
    t0 = time.perf_counter()
    records: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="zoo-") as tmp, cf.ThreadPoolExecutor(max_workers=a.jobs) as ex:
        futs = {ex.submit(run_case, py, package, name, a.timeout, tmp, a.modes, a.variants,
                          a.fullgraph_variants): name for name in todo}
        for i, fut in enumerate(cf.as_completed(futs), 1):
            name = futs[fut]
            try:
                rec = fut.result()
            except Exception as e:  # noqa: BLE001
                rec = {"name": name, "package": package, "status": "error", "error": f"{type(e).__name__}: {e}"}
            records.append(rec)
            d = rec.get("default") or {}
            fg = rec.get("fullgraph") or {}
            print(f"[run_all] {i:3d}/{len(todo)} {package}/{name}: {rec.get('status')} "
                  f"breaks={d.get('n_breaks', '-')} train={(rec.get('train') or {}).get('n_breaks', '-')} "
                  f"dynamic={(rec.get('dynamic') or {}).get('n_breaks', '-')} "
                  f"fullgraph={'error' if fg.get('error') else ('ok' if fg else '-')} "
                  f"recompiles={(d.get('recompiles') or {}).get('count', '-')} {rec.get('wall_seconds')}s",
                  file=sys.stderr)
    wall = time.perf_counter() - t0
    if a.merge and os.path.exists(out_path):  # keep the earlier records of cases not run now
        with open(out_path) as f:
            earlier = json.load(f)
        ran = {r["name"] for r in records}
        records += [r for r in earlier["models"] if r["name"] not in ran]
        wall += earlier["meta"].get("wall_seconds", 0.0)
    records.sort(key=lambda r: r["name"])
    versions = next((r.get("versions") for r in records if r.get("versions")), None)
    meta = {"venv": label, "package": package, "python": py, "versions": versions, "wall_seconds": round(wall, 1),
            "jobs": a.jobs, "timeout": a.timeout, "modes": a.modes, "variants": a.variants,
            "fullgraph_variants": a.fullgraph_variants, "filter": {"case": a.case, "all": a.all},
            "extended_left_out": n_extended, "created": time.strftime("%Y-%m-%dT%H:%M:%S")}
    summary = summarize(records, skipped)
    doc = {"meta": meta, "summary": summary, "models": records}
    with open(out_path + ".tmp", "w") as f:
        json.dump(doc, f, indent=1, default=str)
    os.replace(out_path + ".tmp", out_path)
    with open(os.path.splitext(out_path)[0] + ".md", "w") as f:
        f.write(render(summary, meta) + "\n")
    print(f"[run_all] wrote {out_path} ({wall:.0f} s)", file=sys.stderr)
    return out_path


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--venv", default=".venv-bench", help="venv dir (relative to the repo root or absolute)")
    ap.add_argument("--package", "--library", dest="package", action="append", choices=case_packages(),
                    help="only these packages (repeatable; default: every package importable in the venv)")
    ap.add_argument("--case", help="only cases whose name matches this regex")
    ap.add_argument("--all", action="store_true", help="also run the extended cases (about twice the time)")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=300.0, help="per-case limit, seconds")
    ap.add_argument("--modes", default="default,fullgraph,dynamic,train")
    ap.add_argument("--variants", default="0,1,2")
    ap.add_argument("--fullgraph-variants", default="0",
                    help="variants run under fullgraph=True (0,1,2 also probes dynamic shapes; ~25%% slower)")
    ap.add_argument("--out", help="output JSON (one --package only; default bench/results/zoo-<venv>-<package>.json)")
    ap.add_argument("--merge", action="store_true",
                    help="keep the records of an existing part's cases that are not run now (re-running a few)")
    ap.add_argument("--resummarize", metavar="JSON",
                    help="recompute summary and Markdown of an existing results JSON; run nothing")
    a = ap.parse_args(argv)
    if a.resummarize:
        resummarize(a.resummarize)
        return 0
    if a.out and len(a.package or ()) != 1:
        ap.error("--out needs exactly one --package")
    py = venv_python(a.venv)
    label = venv_label(a.venv)
    for package in a.package or case_packages():
        todo, skipped, n_extended, err = select_cases(py, package, a)
        if err:
            print(f"[run_all] {label}/{package}: {err.splitlines()[-1] if err.strip() else err}", file=sys.stderr)
            continue
        if not todo:
            why = skipped[0]["skipped"] if skipped else "no case selected"
            print(f"[run_all] {label}/{package}: nothing to run ({why[:200]})", file=sys.stderr)
            continue
        run_part(py, label, package, todo, skipped, n_extended, a)
    return 0


if __name__ == "__main__":
    sys.exit(main())
