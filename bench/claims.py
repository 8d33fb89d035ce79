"""Measure every rule's claims on one torch release: rules/claims/<major.minor>.json.

    python bench/claims.py                                   # the torch of .venv (2.13)
    python bench/claims.py --python /work/venvs/torch-2.15.0/bin/python
    python bench/claims.py --probe-json probe-2.11.json      # a probe run elsewhere (GPU box)
    python bench/claims.py --table                           # print the rule x release table

The static side (this interpreter, with compilelint installed) lints every rule fixture
(``fixtures/CLnnn_*/flagged.py`` and ``clean.py``) and one generated probe per entry of
CL107's table, with the release filter off, so each finding names the *claim* it
predicts (``Finding.claim``: a rule code, or ``CL107:time.time``-style where cases
differ between releases). The dynamic side, bench/claims_probe.py, runs in the
interpreter given by ``--python`` (only torch needed) and compiles every ``target_*``
in the default mode, with ``fullgraph=True`` and with ``dynamic=True``. A claim breaks
in a mode on that release when the mode broke on every site of the claim; the file
records per claim the sites and how many broke in each mode, the GB types seen, the
breaks on lines no finding covers (what no rule predicts on that release), and the
recompile counts the fixtures state.

The engine reads these files (compilelint/torch_versions.py): a finding whose claim
behaves differently on the assumed release than on the one the rules were written
against changes its modes and says so, or is dropped where that release does not break.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CLAIMS = ROOT / "rules" / "claims"
MODES = ("default", "fullgraph", "dynamic")
sys.path.insert(0, str(ROOT))

from compilelint.config import DEFAULT_SETTINGS  # noqa: E402
from compilelint.engine import lint_source  # noqa: E402
from compilelint.findings import Finding  # noqa: E402
from compilelint.torch_versions import release_name  # noqa: E402


def fixture_files() -> list[Path]:
    folders = sorted(p for p in (ROOT / "fixtures").iterdir() if p.is_dir() and p.name[:2] == "CL")
    return [p / name for p in folders for name in ("flagged.py", "clean.py") if (p / name).exists()]


def _test_constant(name: str) -> Any:
    """A table of tests/test_dynamo_rules.py (read, not imported: it needs pytest). Our own
    test's constant expression (a dict literal, maybe with a comprehension spliced in),
    evaluated with no names in scope."""
    tree = ast.parse((ROOT / "tests" / "test_dynamo_rules.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == name for t in node.targets):
            return eval(compile(ast.Expression(node.value), "test_dynamo_rules.py", "eval"), {"__builtins__": {}})
    raise KeyError(name)


def table_probes(folder: Path) -> list[Path]:
    """One module per CL107 table entry, the call inside a compiled function."""
    from compilelint.registry import all_rules

    rule = all_rules().by_code()["CL107"]
    table = getattr(__import__(type(rule).__module__, fromlist=["UNTRACEABLE"]), "UNTRACEABLE")
    arguments: dict[str, str] = _test_constant("CALL_ARGUMENTS")
    not_run: set[str] = _test_constant("NOT_RUN")
    paths = []
    for qualname in sorted(set(table) - not_run):
        module = qualname.split(".", 1)[0]
        source = (
            f"import torch\nimport {module}\n\n\ndef f(x):\n    {qualname}({arguments.get(qualname, '')})\n"
            "    return x + 1\n\n\ncompiled = torch.compile(f)\n\n\n"
            "def target_call():\n    return f, [(torch.randn(2),)]\n"
        )
        path = folder / f"CL107_table_{qualname.replace('.', '_')}.py"
        path.write_text(source, encoding="utf-8")
        paths.append(path)
    return paths


def static_findings(paths: list[Path]) -> dict[str, list[Finding]]:
    settings = replace(DEFAULT_SETTINGS, release_claims=False)
    return {str(p): list(lint_source(p.read_text(encoding="utf-8"), str(p), settings).findings) for p in paths}


def run_probe(python: str, paths: list[Path], backend: str) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONWARNINGS="ignore", OMP_NUM_THREADS="1")
    with tempfile.TemporaryDirectory(prefix="claims-probe-") as tmp:
        out = Path(tmp) / "probe.json"
        command = [python, str(ROOT / "bench" / "claims_probe.py"), "--backend", backend, "--out", str(out),
                   *map(str, paths)]
        done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=3600)
        if done.returncode != 0 or not out.exists():
            sys.exit(f"claims_probe failed ({done.returncode}):\n{done.stderr[-3000:]}")
        result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return result


def _relative(path: str) -> str:
    name = Path(path).name
    return f"CL107 table: {name[len('CL107_table_'):-3]}" if name.startswith("CL107_table_") else \
        str(Path(path).resolve().relative_to(ROOT))


def _target_lines(file_probe: dict[str, Any]) -> list[dict[str, Any]]:
    """Per target that ran: mode -> line -> gb types (fullgraph: its error line)."""
    out = []
    for result in file_probe.get("targets", {}).values():
        if "crash" in result:
            continue
        lines: dict[str, Any] = {mode: {} for mode in MODES}
        for mode in MODES:
            measured = result.get(mode)
            if measured is None:
                continue
            for line, gb_type in measured["breaks"]:
                lines[mode].setdefault(line, set()).add(gb_type)
            if measured["error_line"]:  # fullgraph's first break; a compile that fails in any mode (CL118)
                gb = measured.get("error_gb_type") or measured["error"].split(":")[0]
                lines[mode].setdefault(measured["error_line"], set()).add(gb)
            if mode == "fullgraph" and measured["error"]:
                lines["fullgraph_stopped"] = True
        out.append(lines)
    return out


def _site(targets: list[dict[str, Any]], span: range) -> tuple[dict[str, bool | None], set[str]]:
    """Whether each mode broke on a finding's statement; fullgraph is unknown (None) where
    every target that reaches the statement (it broke there in the default mode) stopped
    at another line first: a fullgraph run ends at its first break."""
    broke: dict[str, bool | None] = {}
    types: set[str] = set()
    for mode in MODES:
        hits = [gb for t in targets for line in span for gb in t[mode].get(line, ())]
        types.update(hits)
        broke[mode] = bool(hits)
    if not broke["fullgraph"]:
        reaching = [t for t in targets if any(line in t["default"] for line in span)]
        if reaching and all(t.get("fullgraph_stopped") for t in reaching):
            broke["fullgraph"] = None
    return broke, types


def combine(findings: dict[str, list[Finding]], probe: dict[str, Any]) -> dict[str, Any]:
    """Per claim: sites, breaks per mode, GB types; plus breaks no finding covers."""
    claims: dict[str, dict[str, Any]] = {}
    unclaimed: list[dict[str, Any]] = []
    problems: list[str] = []
    gb_ids: dict[str, list[str]] = probe.get("gb_ids", {})
    for path, file_probe in probe["files"].items():
        if not _same_file(path, file_probe):
            problems.append(f"{_relative(path)}: the probe ran on another version of this file; run the probe again")
            continue
        if "load_error" in file_probe:
            problems.append(f"{_relative(path)}: {file_probe['load_error']}")
        for name, result in file_probe.get("targets", {}).items():
            if "crash" in result:
                problems.append(f"{_relative(path)}::{name}: {result['crash']}")
        targets = _target_lines(file_probe)
        covered: set[tuple[str, int]] = set()
        for finding in findings.get(path, []):
            if not finding.code.startswith("CL1"):
                continue
            span = range(finding.statement_lines[0], finding.statement_lines[1] + 1)
            record = claims.setdefault(finding.claim or finding.code, {
                "code": finding.code, "sites": 0, **{mode: 0 for mode in MODES}, "fullgraph_unknown": 0,
                "gb_types": set(), "where": []})
            record["sites"] += 1
            record["where"].append(f"{_relative(path)}:{finding.line}")
            broke, types = _site(targets, span)
            record["gb_types"].update(types)
            for mode in MODES:
                record[mode] += broke[mode] is True
            record["fullgraph_unknown"] += broke["fullgraph"] is None
            covered.update((mode, line) for t in targets for mode in MODES for line in span if line in t[mode])
        for mode in MODES:
            for line in sorted({line for t in targets for line in t[mode]}):
                if (mode, line) not in covered:
                    types = sorted({gb for t in targets for gb in t[mode].get(line, ())})
                    unclaimed.append({"file": _relative(path), "line": line, "mode": mode, "gb_types": types})
    for record in claims.values():
        record["gb_ids"] = sorted({gb for t in record["gb_types"] for gb in gb_ids.get(t, [])})
        record["gb_types"] = sorted(record["gb_types"])
    return {"claims": dict(sorted(claims.items())), "unclaimed": unclaimed, "problems": problems}


def _returned_definition(tree: ast.Module, target: str) -> range | None:
    """Lines of the class or function a ``target_*`` returns first (``return Net(), [...]``)."""
    definitions = {n.name: n for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    function = definitions.get(target)
    for node in ast.walk(function) if function else ():
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and node.value.elts:
            first = node.value.elts[0]
            name = first.func if isinstance(first, ast.Call) else first
            if isinstance(name, ast.Name) and name.id in definitions:
                found = definitions[name.id]
                return range(found.lineno, (found.end_lineno or found.lineno) + 1)
    return None


def _same_file(path: str, file_probe: dict[str, Any]) -> bool:
    import hashlib

    if "sha256" not in file_probe or not Path(path).exists():
        return "sha256" not in file_probe  # probes made before the hash was recorded: trusted as they are
    return bool(hashlib.sha256(Path(path).read_text(encoding="utf-8").encode()).hexdigest() == file_probe["sha256"])


def counts(probe: dict[str, Any], findings: dict[str, list[Finding]]) -> dict[str, Any]:
    """Stated and measured recompiles per counted target, with the claims of the recompile
    findings inside what the target compiles."""
    import re

    expected_re = re.compile(r"^def (target_\w+|run_\w+)\(\):\s*#\s*(recompiles|compiles):\s*(\d+)", re.M)
    out = {}
    for path, file_probe in probe["files"].items():
        if not Path(path).exists() or not _same_file(path, file_probe):
            continue
        text = Path(path).read_text(encoding="utf-8")
        expected = {n: (w, int(k)) for n, w, k in expected_re.findall(text)}
        tree = ast.parse(text)
        for name, measured in file_probe.get("counts", {}).items():
            what, number = expected[name]
            span = _returned_definition(tree, name)
            claims = sorted({f.claim for f in findings.get(path, []) if span and f.line in span and f.code.startswith("CL2")})
            out[f"{_relative(path)}::{name}"] = {"what": what, "stated": number, "measured": measured, "claims": claims}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--python", default=sys.executable, help="interpreter whose torch is measured")
    parser.add_argument("--probe-json", type=Path, help="use a claims_probe.py output made elsewhere")
    parser.add_argument("--backend", default="eager")
    parser.add_argument("--out", type=Path, help="default: rules/claims/<major.minor>.json")
    parser.add_argument("--where", default="CPU", help="what ran it, for the record (CPU, H200, ...)")
    parser.add_argument("--write-probe", type=Path, help="also keep the raw probe output here")
    parser.add_argument("--table", action="store_true", help="print the rule x release table and exit")
    parser.add_argument("--emit-probes", type=Path, metavar="DIR",
                        help="write the CL107 table probes to DIR and exit (for a probe run elsewhere)")
    args = parser.parse_args(argv)
    if args.emit_probes:
        args.emit_probes.mkdir(parents=True, exist_ok=True)
        print("\n".join(str(p.relative_to(ROOT) if p.is_relative_to(ROOT) else p) for p in table_probes(args.emit_probes)))
        return 0
    if args.table:
        from compilelint.torch_versions import release_table

        print(release_table())
        return 0
    with tempfile.TemporaryDirectory(prefix="claims-") as tmp:
        paths = fixture_files() + table_probes(Path(tmp))
        if args.probe_json:
            probe = json.loads(args.probe_json.read_text())
            probe["files"] = {_remap(p, paths): v for p, v in probe["files"].items()}
        else:
            probe = run_probe(args.python, paths, args.backend)
        if args.write_probe:
            args.write_probe.write_text(json.dumps(probe, indent=1, sort_keys=True))
        findings = static_findings(paths)
        combined = combine(findings, probe)
        measured_counts = counts(probe, findings)
    omitted = _python_bound(combined, probe.get("python"))
    document = {
        "torch": probe["torch"],
        "release": release_name(probe["torch"]),
        "backend": probe.get("backend", args.backend),
        "python": probe.get("python"),
        "measured_on": f"{args.where}{' (CUDA available)' if probe.get('cuda') else ''}",
        "date": datetime.date.today().isoformat(),
        "command": "python bench/claims.py " + " ".join(argv if argv is not None else sys.argv[1:]),
        **combined,
        "counts": measured_counts,
    }
    if omitted:
        document["not_recorded"] = {"claims": omitted, "why": PYTHON_BOUND_WHY}
    out = args.out or CLAIMS / f"{document['release']}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(document, indent=1, sort_keys=False) + "\n", encoding="utf-8")
    _summary(document, out)
    return 0


# Claims whose rules hold only below Python 3.12 (each rule checks sys.version_info): 3.12
# inlines comprehensions (CL123) and dropped functools.cached_property's lock (CL107). A
# probe run on 3.12 or later measures that Python, not the torch release, so these are
# left out of its file and the engine keeps the rules' own statement for them.
PYTHON_BOUND = ("CL123", "CL107:functools.cached_property")
PYTHON_BOUND_WHY = "the probe ran on Python 3.12 or later, where these rules are silent: what it measured is Python's doing"


def _python_bound(combined: dict[str, Any], python: str | None) -> list[str]:
    """Drop the Python-bound claims from a probe made on Python 3.12 or later; the dropped ones."""
    if not python or tuple(int(p) for p in python.split(".")[:2]) < (3, 12):
        return []
    dropped = [claim for claim in PYTHON_BOUND if claim in combined["claims"]]
    for claim in dropped:
        del combined["claims"][claim]
    return dropped


def _remap(path: str, paths: list[Path]) -> str:
    """A probe made on another machine names files by its own paths: match by tail."""
    by_tail = {"/".join(p.parts[-2:]): str(p) for p in paths}
    by_name = {p.name: str(p) for p in paths if p.name.startswith("CL107_table_")}
    parts = Path(path).parts
    return by_name.get(parts[-1]) or by_tail.get("/".join(parts[-2:]), path)


def _summary(document: dict[str, Any], out: Path) -> None:
    print(f"torch {document['torch']} ({document['backend']}, {document['measured_on']}) -> {out}")
    print(f"{'claim':34} {'sites':>5} {'default':>8} {'fullgraph':>9} {'dynamic':>8}")
    for claim, record in document["claims"].items():
        print(f"{claim:34} {record['sites']:>5} {record['default']:>8} {record['fullgraph']:>9} {record['dynamic']:>8}")
    print(f"breaks no finding covers: {len(document['unclaimed'])}")
    for item in document["unclaimed"][:40]:
        print(f"  {item['file']}:{item['line']} {item['mode']} {item['gb_types']}")
    wrong = {k: v for k, v in document["counts"].items() if v["stated"] != v["measured"]}
    print(f"recompile counts: {len(document['counts'])} measured, {len(wrong)} differ from the fixtures")
    for key, value in wrong.items():
        print(f"  {key}: stated {value['stated']}, measured {value['measured']}")
    for problem in document["problems"]:
        print(f"  problem: {problem}")


if __name__ == "__main__":
    sys.exit(main())
