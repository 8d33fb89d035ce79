"""Agreement with Dynamo on PyTorch's own Dynamo tests: recall and precision. Prints a table.

    .venv/bin/python bench/dynamo_tests_bench.py                 # record (minutes), lint, compare
    .venv/bin/python bench/dynamo_tests_bench.py --no-record     # reuse the recordings
    .venv/bin/python bench/dynamo_tests_bench.py --record-missing  # record new files only
    .venv/bin/python bench/dynamo_tests_bench.py --no-record --code /tmp/dt-base --out /tmp/before
                                                     # the static side of another checkout

The tests are public code kept OUTSIDE this repository, in --tests (default
/work/dynamo-tests/<path in pytorch/pytorch>), copied with the read_file tool. Which files:
under test/dynamo, the test modules named test_unspec.py, _test_misc_partN.py or
_repros_partN.py that are there, plus the helper modules they import (_test_misc_common.py,
_repros_common.py, utils.py), linted too. Where a file was cut (transcription budget), it ends at a
test boundary; bench/results/dynamo_tests.md says which commit and how much. The rule, fixed
before any of them was recorded: every part file of the split test_misc.py (parts 1-8) and
test_repros.py (parts 1-3) at the commit torch 2.13's tests come from; part 1 of each as first
copied, each later part its first read_file page (16,000 characters) cut back to the last whole
test in it. --record-missing records only files without a recording (a grown sample).

(a) Ground truth: one subprocess per test file (--record-one) imports it, collects its
    TestCase classes (a mixin such as MiscTestsPart1 is mixed into Dynamo's TestCase, as
    test_misc.py does) and runs each test through unittest with a time limit (SIGALRM),
    compilelint.verify's DynamoHooks installed. A default-mode site is where Dynamo logged a
    graph break, at the innermost frame in a --tests file (call-site echoes merged as the
    verifier does). A fullgraph site is where an Unsupported left a fullgraph=True
    compile (wrapped around convert_frame._compile): tests expecting that exception
    (assertRaises(Unsupported)) count, since it is the break. Lines Dynamo stepped are
    recorded per mode (InstructionTranslatorBase.starts_line, as bench/zoo/record.py). Each file
    records with an empty Inductor cache (TORCHINDUCTOR_CACHE_DIR), so no run reads another's.
(b) Static side: compilelint's engine over the same files (lint_paths, as bench/accuracy.py).
(c) recall = sites held by the statement span of any graph-break finding / all sites,
    per GB type, every miss listed. Precision of sure claims (not `only_when`): a default
    claim is confirmed by a default site in its statement, a false positive when Dynamo
    stepped its statement without breaking there, else not judged; a fullgraph claim is
    confirmed by any site there (a default-mode break fails fullgraph=True too), a false
    positive when stepped in either mode without one.
"""

from __future__ import annotations

import argparse
import collections
import importlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import unittest
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "bench" / "results"
TEST_NAMES = ("test_unspec.py",)
TEST_PREFIXES = ("_test_misc_part", "_repros_part")
HELPERS = ("_test_misc_common.py", "_repros_common.py", "utils.py")


def test_files(tests: Path) -> tuple[list[Path], list[Path]]:
    folder = tests / "test" / "dynamo"
    files = sorted(folder.glob("*.py"))
    runnable = [p for p in files if p.name in TEST_NAMES or p.name.startswith(TEST_PREFIXES)]
    return runnable, [p for p in files if p.name in HELPERS]


# -- (a) recording, in a child process ---------------------------------------------------
class _Timeout(Exception):
    pass


def _on_alarm(signum: int, frame: Any) -> None:
    raise _Timeout("test time limit")


def _test_cases(module: Any) -> list[type]:
    import torch._dynamo.test_case

    base = torch._dynamo.test_case.TestCase
    found = []
    for name, value in sorted(vars(module).items()):
        if not isinstance(value, type) or value.__module__ != module.__name__:
            continue
        has_tests = any(k.startswith("test") for k in dir(value))  # config.patch subclasses
        if issubclass(value, unittest.TestCase) and has_tests:
            found.append(value)
        elif has_tests:  # a mixin of tests, as the split test_misc parts are
            found.append(type(name + "Run", (value, base), {"__module__": module.__name__}))
    return found


def record_one(path: Path, tests: Path, out: Path, limit: int) -> None:
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(path.parent))
    import torch._dynamo
    from torch._dynamo import convert_frame
    from torch._dynamo import symbolic_convert as sc

    from compilelint.verify.attribution import UserFiles, merge_events
    from compilelint.verify.dynamo_hooks import DynamoHooks, compile_error

    user = UserFiles([str(tests)])
    stepped: dict[str, dict[str, set[int]]] = {"default": collections.defaultdict(set),
                                                "fullgraph": collections.defaultdict(set)}
    fullgraph_errors: list[dict[str, Any]] = []
    current = {"test": ""}
    original_starts_line = sc.InstructionTranslatorBase.starts_line
    original_compile = convert_frame._compile

    def starts_line(tx: Any, lineno: int, *args: Any, **kwargs: Any) -> Any:
        filename = tx.f_code.co_filename
        if filename in user:
            stepped["fullgraph" if getattr(tx, "one_graph", False) else "default"][filename].add(lineno)
        return original_starts_line(tx, lineno, *args, **kwargs)

    def compile_hook(*args: Any, **kwargs: Any) -> Any:
        one_graph = kwargs.get("one_graph", args[6] if len(args) > 6 else False)
        try:
            return original_compile(*args, **kwargs)
        except Exception as exc:
            if one_graph and isinstance(exc, torch._dynamo.exc.Unsupported):
                error = compile_error(exc, user)
                if error.path:
                    fullgraph_errors.append(dict(path=error.path, line=error.line, gb_type=error.gb_type,
                                                 gb_id=error.gb_id, test=current["test"]))
            raise

    sc.InstructionTranslatorBase.starts_line = starts_line  # type: ignore[method-assign]
    convert_frame._compile = compile_hook
    outcomes: dict[str, str] = {}
    events: list[dict[str, Any]] = []
    status = "ok"
    try:
        module = importlib.import_module(path.stem)
    except BaseException as exc:  # noqa: BLE001 - an import failure skips the file, counted
        status = f"import failed: {type(exc).__name__}: {str(exc)[:200]}"
        module = None
    signal.signal(signal.SIGALRM, _on_alarm)
    for case in _test_cases(module) if module else []:
        for test in unittest.defaultTestLoader.loadTestsFromTestCase(case):
            current["test"] = test.id()
            result = unittest.TestResult()
            with DynamoHooks(user) as hooks:
                signal.alarm(limit)
                try:
                    test.run(result)
                except _Timeout:
                    result.errors.append((test, "timeout"))
                finally:
                    signal.alarm(0)
            timed_out = any("test time limit" in str(e) or e == "timeout" for _, e in result.errors)
            outcomes[test.id()] = ("timeout" if timed_out else "error" if result.errors else
                                   "fail" if result.failures else "skip" if result.skipped else
                                   "expected failure" if result.expectedFailures else "ok")
            for event in merge_events(hooks.events):
                events.append(dict(path=event.path, line=event.line, gb_type=event.gb_type,
                                   gb_id=event.gb_id, test=test.id()))
    out.write_text(json.dumps(dict(
        file=str(path), status=status, torch=torch.__version__, outcomes=outcomes, breaks=events,
        fullgraph_errors=fullgraph_errors,
        stepped={mode: {p: sorted(ls) for p, ls in per.items()} for mode, per in stepped.items()},
    ), indent=1))


def record_all(files: list[Path], tests: Path, work: Path, limit: int, pythonpath: str) -> None:
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (pythonpath, os.environ.get("PYTHONPATH", "")) if p))
    for path in files:
        out = work / f"{path.stem}.json"
        command = ["nice", sys.executable, __file__, "--record-one", str(path), "--tests", str(tests),
                   "--records", str(out), "--limit", str(limit)]
        print(f"recording {path.name} ...", file=sys.stderr, flush=True)
        # An empty Inductor cache for each file: a test can read what an earlier run left there
        # (test_dynamo_inside_custom_op counts the graphs Inductor compiles: none on a cache hit)
        cache = tempfile.mkdtemp(prefix=f"dynamo-tests-inductor-{path.stem}-")
        try:
            subprocess.run(command, env=dict(env, TORCHINDUCTOR_CACHE_DIR=cache), cwd=str(path.parent),
                           timeout=3000, check=False, stdout=subprocess.DEVNULL,
                           stderr=open(work / f"{path.stem}.log", "w"))
        except subprocess.TimeoutExpired:
            print(f"  {path.name}: whole-file time limit; recording lost", file=sys.stderr)
        finally:
            shutil.rmtree(cache, ignore_errors=True)


# -- (b) static side and (c) judging -------------------------------------------------------
@dataclass(frozen=True)
class Site:
    path: str
    line: int
    gb_id: str
    gb_type: str
    mode: str  # default | fullgraph
    test: str


def load_sites(records: list[dict[str, Any]]) -> dict[tuple[str, str, int], Site]:
    sites: dict[tuple[str, str, int], Site] = {}
    for record in records:
        for mode, key in (("default", "breaks"), ("fullgraph", "fullgraph_errors")):
            for e in record.get(key, []):
                site = Site(e["path"], int(e["line"]), e.get("gb_id") or "?", e.get("gb_type") or "", mode, e["test"])
                sites.setdefault((mode, site.path, site.line), site)
    return sites


def lint(files: list[Path]) -> list[Any]:
    from compilelint.config import Settings
    from compilelint.engine import lint_paths

    found = []
    for result in lint_paths([str(p) for p in files], Settings(respect_gitignore=False)):
        found.extend(replace(f, fix_data=None) for f in result.findings if f.code.startswith("CL") and f.breaks)
    return found


def judge(sites: dict[tuple[str, str, int], Site], findings: list[Any],
          stepped: dict[str, dict[str, set[int]]]) -> dict[str, Any]:
    covered: set[tuple[str, str, int]] = set()
    claims: list[dict[str, Any]] = []
    for f in findings:
        span = range(f.statement_lines[0], f.statement_lines[1] + 1)
        path = os.path.realpath(f.path)
        here = {k for k in sites if k[1] == path and k[2] in span}
        covered |= here
        modes = {m.value for m in f.breaks}
        for kind in ("default", "fullgraph"):
            if kind not in modes:
                continue
            confirmed = any(k[0] == "default" for k in here) if kind == "default" else bool(here)
            lines = stepped["default"].get(path, set()) | (stepped["fullgraph"].get(path, set()) if kind == "fullgraph" else set())
            verdict = ("confirmed" if confirmed else "not traced" if not any(n in lines for n in span)
                       else "conditional" if f.only_when else "false positive")
            claims.append(dict(kind=kind, verdict=verdict, where=f"{Path(path).name}:{f.line}", code=f.code,
                               message=f.message[:110]))
    return dict(covered=covered, claims=claims)


def _ratio(hit: int, total: int) -> str:
    return f"{hit}/{total} = {hit / total:.3f}" if total else f"{hit}/0"


def summarize(sites: dict[tuple[str, str, int], Site], judged: dict[str, Any]) -> dict[str, Any]:
    covered, claims = judged["covered"], judged["claims"]
    out: dict[str, Any] = {}
    for mode in ("default", "fullgraph"):
        mine = [k for k in sites if k[0] == mode]
        out[f"{mode} recall"] = _ratio(sum(k in covered for k in mine), len(mine))
        verdicts = collections.Counter(c["verdict"] for c in claims if c["kind"] == mode)
        out[f"{mode} precision"] = _ratio(verdicts["confirmed"], verdicts["confirmed"] + verdicts["false positive"])
        out[f"{mode} claims not judged"] = {k: v for k, v in verdicts.items() if k not in ("confirmed", "false positive")}
        per_gb: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
        for k in mine:
            label = f"{sites[k].gb_id} {sites[k].gb_type}"[:80]
            per_gb[label][0] += k in covered
            per_gb[label][1] += 1
        out[f"{mode} per GB type"] = dict(sorted(per_gb.items(), key=lambda item: -item[1][1]))
        out[f"{mode} misses"] = [f"{Path(s.path).name}:{s.line} {s.gb_id} {s.gb_type[:70]} ({s.test.rsplit('.', 1)[-1]})"
                                 for k, s in sorted(sites.items()) if k[0] == mode and k not in covered]
        out[f"{mode} false positives"] = [f"{c['where']} {c['code']} {c['message']}" for c in claims
                                          if c["kind"] == mode and c["verdict"] == "false positive"]
    out["claims by rule"] = dict(collections.Counter(f"{c['code']} {c['kind']} {c['verdict']}" for c in claims))
    return out


def render(summary: dict[str, Any], meta: dict[str, Any]) -> str:
    lines = ["# compilelint on PyTorch's Dynamo tests (bench/dynamo_tests_bench.py)", "",
             f"torch {meta['torch']}; static side: {meta['code']}; files: {', '.join(meta['files'])}; "
             f"tests: {meta['outcomes']}; import failures: {meta['import_failures'] or 'none'}.", "",
             "| mode | recall (sites) | precision (sure claims on stepped lines) | claims not judged |",
             "|---|---:|---:|---|"]
    for mode in ("default", "fullgraph"):
        lines.append(f"| {mode} | {summary[f'{mode} recall']} | {summary[f'{mode} precision']} | "
                     f"{summary[f'{mode} claims not judged'] or ''} |")
    for mode in ("default", "fullgraph"):
        lines += ["", f"## {mode}: recall per GB type (covered/sites)", "", "| GB type | covered/sites |", "|---|---:|"]
        lines += [f"| {gb} | {c}/{n} |" for gb, (c, n) in summary[f"{mode} per GB type"].items()]
        lines += ["", f"## {mode}: misses ({len(summary[f'{mode} misses'])})", ""]
        lines += [f"- {m}" for m in summary[f"{mode} misses"]]
        lines += ["", f"## {mode}: false positives ({len(summary[f'{mode} false positives'])})", ""]
        lines += [f"- {m}" for m in summary[f"{mode} false positives"]]
    if meta.get("sources"):
        lines += ["", f"## Sources ({meta['sources'].get('repo')}, {meta['sources'].get('copied_with')})", ""]
        lines += [f"- {path}: {entry['commit']}, {entry['copied']}" for path, entry in meta["sources"]["files"].items()]
    lines += ["", "## Claims by rule, kind and verdict", ""]
    lines += [f"- {k}: {v}" for k, v in sorted(summary["claims by rule"].items())]
    return "\n".join(lines) + "\n"


def _manifest(tests: Path) -> dict[str, Any] | None:
    """Which commit each copied file came from, and how much of it (written when copying)."""
    path = tests / "MANIFEST.json"
    return json.loads(path.read_text()) if path.is_file() else None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tests", type=Path, default=Path("/work/dynamo-tests"))
    parser.add_argument("--records", type=Path, default=Path("/work/dynamo-tests/.records"))
    parser.add_argument("--no-record", action="store_true", help="reuse the recordings in --records")
    parser.add_argument("--record-missing", action="store_true",
                        help="record only the test files that have no recording yet, reuse the rest")
    parser.add_argument("--limit", type=int, default=60, help="seconds per test")
    parser.add_argument("--pythonpath", default="/work/venvs/h-dyntests-extra",
                        help="extra path for the child (expecttest, which torch's test utilities import)")
    parser.add_argument("--code", type=Path, default=ROOT, help="checkout whose compilelint lints (before/after)")
    parser.add_argument("--out", type=Path, default=RESULTS / "dynamo_tests", help="writes OUT.json and OUT.md")
    parser.add_argument("--record-one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.record_one:
        record_one(args.record_one, args.tests, args.records, args.limit)
        return 0
    runnable, helpers = test_files(args.tests)
    if args.record_missing:
        runnable_to_record = [p for p in runnable if not (args.records / f"{p.stem}.json").is_file()]
        record_all(runnable_to_record, args.tests, args.records, args.limit, args.pythonpath)
    elif not args.no_record:
        record_all(runnable, args.tests, args.records, args.limit, args.pythonpath)
    records = [json.loads(p.read_text()) for p in sorted(args.records.glob("*.json"))
               if Path(json.loads(p.read_text())["file"]).stem in {f.stem for f in runnable}]
    sys.path.insert(0, str(args.code.resolve()))
    sites = load_sites(records)
    stepped: dict[str, dict[str, set[int]]] = {"default": collections.defaultdict(set), "fullgraph": collections.defaultdict(set)}
    for record in records:
        for mode, per in record["stepped"].items():
            for path, numbers in per.items():
                stepped[mode][path].update(numbers)
    findings = lint(runnable + helpers)
    import compilelint  # the checkout --code named, which the report states

    summary = summarize(sites, judge(sites, findings, stepped))
    outcomes = collections.Counter(o for r in records for o in r["outcomes"].values())
    meta = dict(torch=", ".join(sorted({r["torch"] for r in records})), code=os.path.dirname(os.path.dirname(compilelint.__file__)),
                files=[p.name for p in runnable + helpers], outcomes=dict(outcomes),
                import_failures=[f"{Path(r['file']).name}: {r['status']}" for r in records if r["status"] != "ok"],
                findings=len(findings), sources=_manifest(args.tests))
    text = render(summary, meta)
    print(text)
    args.out.with_suffix(".json").write_text(json.dumps(dict(meta=meta, **summary), indent=1))
    args.out.with_suffix(".md").write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
