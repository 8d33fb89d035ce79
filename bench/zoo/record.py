"""Dynamo ground truth for one zoo model: graph breaks, fullgraph result, recompiles, eager coverage.

Run one case (meant to be its own subprocess; run_all.py does that):

    python -m zoo.record --package transformers --case bert --out /tmp/bert.json

from the bench/ directory (or with bench/ on sys.path).  The JSON record has:

    status            "ok" | "build_failed" | "eager_failed" | "skipped" | "error"
    versions          torch / package versions
    package_root      the package's installed folder (library_root: the same, older name)
    eager             {"ok", "seconds", "error"}
    coverage          {path: [executed lines]} for files under the package's install
                      dir, during the eager calls (eval mode) of variants 0, 1, 2
    default           {"breaks": [...], "variants": [...], "recompiles": {...}, ...}
    fullgraph         {"breaks": [...], "variants": [...], "error": {...} | None}
                      (variant 0 only unless --fullgraph-variants says otherwise)
    dynamic           the default mode with dynamic=True (every size symbolic)
    train             the default mode with model.train() and autograd on
    method            what was compiled: "forward" (the module) or a method name

Each break: {path, line, func, in_library, gb_type, gb_id, root_gb_type,
root_gb_id, gb_chain, reason, explanation, context, frame: [path, firstline,
name], variant, stack: [[path, line, func], ...]}.  path/line is the innermost
frame of the break's user stack that lies inside the case's package (its
installed folder); `in_library` is False when no frame does (then it is the
innermost frame).  For "graph break in loop" (GB7000) breaks, root_gb_type is
the wrapped root cause, which is the one to match against static findings.

Hooks (torch 2.13; names checked at start and reported if missing):
  torch._dynamo.symbolic_convert.InstructionTranslatorBase.log_graph_break
  torch._dynamo.convert_frame.get_and_maybe_log_recompilation_reasons
  torch._dynamo.utils.guard_failures (fallback count)
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import sys
import threading
import time
import traceback
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
if os.path.dirname(HERE) not in sys.path:
    sys.path.insert(0, os.path.dirname(HERE))

from zoo.case import ModelCase, SkippedCase  # noqa: E402  (also installs the torchvision shim)

CASES = os.path.join(HERE, "cases")
MAX_REASON = 1200


# --------------------------------------------------------------------------- cases
def case_packages() -> list[str]:
    """Every package with a case module, bench/zoo/cases/<package>_models.py."""
    return sorted(f[: -len("_models.py")] for f in os.listdir(CASES) if f.endswith("_models.py"))


def load_cases(package: str) -> list[ModelCase | SkippedCase]:
    mod = importlib.import_module(f"zoo.cases.{package}_models")
    return list(mod.models())


def find_case(package: str, name: str) -> ModelCase | SkippedCase:
    for c in load_cases(package):
        if c.name == name:
            return c
    raise KeyError(f"no case {name!r} in {package}")


def package_root(package: str) -> str:
    """The installed folder of the package (break sites inside it are its sites)."""
    mod = importlib.import_module(package)
    # a namespace package (no __init__.py: pytorch_tabnet) has no __file__, only its folder
    folder = os.path.dirname(mod.__file__) if mod.__file__ else list(mod.__path__)[0]
    return os.path.realpath(folder) + os.sep


def versions(package: str) -> dict[str, Any]:
    """Installed versions, read from package metadata (importing costs seconds)."""
    from importlib import metadata

    out: dict[str, Any] = {"python": sys.version.split()[0]}
    dists = metadata.packages_distributions().get(package, [package])
    for m in ("torch", "numpy", *dists):
        try:
            out[m] = metadata.version(m)
        except Exception:  # noqa: BLE001
            out[m] = None
    return out


# --------------------------------------------------------------------------- gb ids
_GB_MAP: dict[str, str] | None = None


def gb_id(gb_type: str | None) -> str | None:
    global _GB_MAP
    if gb_type is None:
        return None
    if _GB_MAP is None:
        import torch._dynamo

        path = os.path.join(os.path.dirname(torch._dynamo.__file__), "graph_break_registry.json")
        _GB_MAP = {}
        try:
            with open(path) as f:
                reg = json.load(f)
            for gid, entries in reg.items():
                for e in entries:
                    _GB_MAP.setdefault(e["Gb_type"], gid)
        except OSError:
            pass
    return _GB_MAP.get(gb_type)


def _split_msg(msg: str) -> list[str]:
    """An Unsupported msg built with from_exc chains sections; return their gb_types."""
    sep = "*** While handling this graph break, another graph break occurred: ***"
    out = []
    for part in msg.split(sep):
        part = part.strip()
        if part:
            out.append(part.splitlines()[0].strip())
    return out


def _field(msg: str, name: str) -> str | None:
    # first section only: "  Explanation: ...", "  Developer debug context: ..."
    first = msg.split("*** While handling this graph break")[0]
    for line in first.splitlines():
        s = line.strip()
        if s.startswith(name + ":"):
            return s[len(name) + 1 :].strip()[:400]
    return None


# --------------------------------------------------------------------------- frames
def _frames(stack: Any) -> list[list[Any]]:
    out = []
    for fs in stack or []:
        try:
            out.append([os.path.realpath(fs.filename), int(fs.lineno or 0), fs.name])
        except Exception:  # noqa: BLE001
            continue
    return out


def _attribute(frames: list[list[Any]], lib_root: str) -> tuple[str | None, int | None, str | None, bool]:
    for path, line, func in reversed(frames):
        if path.startswith(lib_root):
            return path, line, func, True
    if frames:
        path, line, func = frames[-1]
        return path, line, func, False
    return None, None, None, False


def _rel(path: str | None, lib_root: str) -> str | None:
    """library-relative display path: transformers/models/bert/modeling_bert.py"""
    if path is None:
        return None
    if path.startswith(lib_root):
        return os.path.basename(lib_root.rstrip(os.sep)) + "/" + path[len(lib_root) :]
    for marker in ("site-packages" + os.sep,):
        if marker in path:
            return path.split(marker, 1)[1]
    return path


# --------------------------------------------------------------------------- hooks
class DynamoRecorder:
    """Collects graph breaks and recompiles by wrapping Dynamo internals."""

    def __init__(self, lib_root: str):
        self.lib_root = lib_root
        self.breaks: list[dict[str, Any]] = []
        self.recompiles: list[dict[str, Any]] = []
        self.variant: int | None = None
        self.limit_hits: list[dict[str, Any]] = []
        self.shape_guards: set[tuple[str, int]] = set()
        # (path, line) Dynamo's bytecode interpreter reached: a line executed eagerly but
        # not here ran outside any graph (a frame skipped after an earlier break)
        self.traced: set[tuple[int | None, str, int]] = set()
        self._seen: dict[int, Any] = {}  # id(exc) -> exc (kept alive so ids stay unique)
        self._orig: list[tuple[Any, str, Any]] = []
        self.hook_problems: list[str] = []

    # -- install / remove
    def install(self) -> None:
        import torch._dynamo.convert_frame as cf
        import torch._dynamo.symbolic_convert as sc

        base = getattr(sc, "InstructionTranslatorBase", None)
        if base is None or not hasattr(base, "log_graph_break"):
            self.hook_problems.append("InstructionTranslatorBase.log_graph_break not found")
        else:
            orig = base.log_graph_break
            rec = self

            def log_graph_break(tx, code_options, reason, exc, *a, **kw):  # type: ignore[no-untyped-def]
                try:
                    if not getattr(exc, "logged", False):
                        rec._on_break(tx, code_options, reason, exc)
                except Exception as e:  # noqa: BLE001 - never disturb Dynamo
                    rec.hook_problems.append(f"break hook failed: {type(e).__name__}: {e}")
                return orig(tx, code_options, reason, exc, *a, **kw)

            base.log_graph_break = log_graph_break
            self._orig.append((base, "log_graph_break", orig))

        if base is None or not hasattr(base, "starts_line"):
            self.hook_problems.append("InstructionTranslatorBase.starts_line not found")
        else:
            orig_starts_line = base.starts_line
            rec = self
            root = self.lib_root

            def starts_line(tx, lineno, *a, **kw):  # type: ignore[no-untyped-def]
                try:
                    filename = tx.f_code.co_filename
                    if filename.startswith(root):
                        rec.traced.add((rec.variant, filename, lineno))
                except Exception:  # noqa: BLE001 - never disturb Dynamo
                    pass
                return orig_starts_line(tx, lineno, *a, **kw)

            base.starts_line = starts_line
            self._orig.append((base, "starts_line", orig_starts_line))

        fn = getattr(cf, "get_and_maybe_log_recompilation_reasons", None)
        if fn is None:
            self.hook_problems.append("convert_frame.get_and_maybe_log_recompilation_reasons not found")
        else:
            rec = self

            def get_and_maybe_log_recompilation_reasons(cache_entries, frame, *a, **kw):  # type: ignore[no-untyped-def]
                reasons = fn(cache_entries, frame, *a, **kw)
                try:
                    rec._on_recompile(frame, reasons)
                except Exception as e:  # noqa: BLE001
                    rec.hook_problems.append(f"recompile hook failed: {type(e).__name__}: {e}")
                return reasons

            cf.get_and_maybe_log_recompilation_reasons = get_and_maybe_log_recompilation_reasons
            self._orig.append((cf, "get_and_maybe_log_recompilation_reasons", fn))

        # "torch._dynamo hit config.recompile_limit (8)": after it the frame runs eager, silently
        import logging

        rec = self

        class _LimitHandler(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                try:
                    msg = record.getMessage()
                    if "hit config." not in msg:
                        return
                    hit: dict[str, Any] = {"variant": rec.variant, "limit": msg.splitlines()[0].strip()}
                    for line in msg.splitlines()[1:]:
                        s = line.strip()
                        if s.startswith("function:"):
                            hit["function"] = s[len("function:"):].strip().replace(
                                os.path.dirname(rec.lib_root.rstrip(os.sep)) + os.sep, "")
                        elif s.startswith("last reason:"):
                            hit["last_reason"] = s[len("last reason:"):].strip()[:300]
                    rec.limit_hits.append(hit)
                except Exception:  # noqa: BLE001
                    pass

        self._limit_logger = logging.getLogger("torch._dynamo.convert_frame")
        self._limit_handler = _LimitHandler(level=logging.WARNING)
        self._limit_logger.addHandler(self._limit_handler)

        # Symbolic shape guards name the user lines that installed them
        # ("2 <= L['x'].size()[0] <= 128  # if x.shape[0] > 128:  # file.py:8 in f"):
        # the ground truth for CL201's "real specialization".
        class _GuardHandler(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                try:
                    for line in record.getMessage().splitlines():
                        if "LAMBDA_GUARD" not in line or ".size()" not in line:
                            continue  # only symbolic shape guards
                        # "user code shown is first use of this value": that line did not
                        # cause the guard; the causes, if any, follow the note
                        if "user code shown is first use" in line:
                            line = line.split("user code shown is first use", 1)[1]
                        rec._add_shape_guard_sites(line)
                except Exception:  # noqa: BLE001
                    pass

        # ShapeEnv's "[guard added]" lines name the user line of every shape guard as it is
        # made, specializations included ("eval Eq(s27, 6) [guard added] for i in
        # range(x.size(1)):  # x.py:7 in f"): a size pinned to a constant no longer shows
        # in the guard dump above (it becomes part of the tensor's static size check)
        class _ShapeEnvHandler(logging.Handler):
            def emit(self, record: logging.LogRecord) -> None:
                try:
                    message = record.getMessage()
                    if "[guard added]" in message:
                        rec._add_shape_guard_sites(message.split("[guard added]", 1)[1])
                except Exception:  # noqa: BLE001
                    pass

        torch_logging = __import__("torch._logging", fromlist=["set_logs"])
        torch_logging.set_logs(guards=True, dynamic=logging.INFO)
        self._shape_env_logger = logging.getLogger("torch.fx.experimental.symbolic_shapes")
        for handler in list(self._shape_env_logger.handlers):  # torch's stderr printer: thousands of lines
            self._shape_env_logger.removeHandler(handler)
        self._shape_env_handler = _ShapeEnvHandler(level=logging.INFO)
        self._shape_env_logger.addHandler(self._shape_env_handler)
        self._shape_env_logger.propagate = False
        self._guard_logger = logging.getLogger("torch._dynamo.guards.__guards")
        self._guard_handler = _GuardHandler(level=logging.DEBUG)
        self._guard_logger.addHandler(self._guard_handler)
        self._guard_logger.propagate = False

    def _add_shape_guard_sites(self, text: str) -> None:
        """The library lines a guard log text names ("# transformers/x.py:12 in f")."""
        for path, number in _GUARD_SOURCE.findall(text):
            rel = _rel_guard_path(path, self.lib_root)
            if rel is not None:
                self.shape_guards.add((rel, int(number)))

    def remove(self) -> None:
        for obj, name, orig in reversed(self._orig):
            setattr(obj, name, orig)
        self._orig.clear()
        if getattr(self, "_limit_handler", None) is not None:
            self._limit_logger.removeHandler(self._limit_handler)
            self._limit_handler = None
        if getattr(self, "_guard_handler", None) is not None:
            self._guard_logger.removeHandler(self._guard_handler)
            self._guard_handler = None
        if getattr(self, "_shape_env_handler", None) is not None:
            self._shape_env_logger.removeHandler(self._shape_env_handler)
            self._shape_env_handler = None

    def reset(self) -> None:
        self.breaks = []
        self.recompiles = []
        self.limit_hits = []
        self.shape_guards: set[tuple[str, int]] = set()
        self.traced = set()

    # -- callbacks
    def _on_break(self, tx: Any, code_options: Any, reason: str, exc: Any) -> None:
        if id(exc) in self._seen:
            return
        self._seen[id(exc)] = exc
        stack = getattr(exc, "real_stack", None)
        if not stack:
            import torch._guards

            stack = torch._guards.TracingContext.extract_stack()
        frames = _frames(stack)
        path, line, func, in_lib = _attribute(frames, self.lib_root)
        if path is None:  # break at a frame's first instruction: no stack
            path = os.path.realpath(code_options.get("co_filename", "?"))
            line = code_options.get("co_firstlineno")
            func = code_options.get("co_name")
            in_lib = path.startswith(self.lib_root)
        msg = getattr(exc, "msg", None) or str(exc)
        gb_type = getattr(exc, "gb_type", None) or type(exc).__name__
        chain = _split_msg(msg) if getattr(exc, "gb_type", None) else [gb_type]
        if gb_type not in chain:
            chain.append(gb_type)
        root = chain[0]
        code = getattr(tx, "f_code", None)
        self.breaks.append(
            {
                "path": _rel(path, self.lib_root),
                "line": line,
                "func": func,
                "in_library": in_lib,
                "gb_type": gb_type,
                "gb_id": gb_id(gb_type),
                "root_gb_type": root,
                "root_gb_id": gb_id(root),
                "gb_chain": chain,
                "reason": str(reason)[:MAX_REASON],
                "explanation": _field(msg, "Explanation"),
                "context": _field(msg, "Developer debug context"),
                "exc_type": type(exc).__name__,
                "frame": [_rel(os.path.realpath(code.co_filename), self.lib_root), code.co_firstlineno, code.co_name]
                if code is not None
                else None,
                "variant": self.variant,
                "stack": [[_rel(p, self.lib_root), ln, fn] for p, ln, fn in frames],
            }
        )

    def _on_recompile(self, frame: Any, reasons: list[str]) -> None:
        code = frame.f_code
        self.recompiles.append(
            {
                "variant": self.variant,
                "code": [_rel(os.path.realpath(code.co_filename), self.lib_root), code.co_firstlineno, code.co_name],
                "reasons": [str(r)[:600] for r in reasons],
            }
        )


# --------------------------------------------------------------------------- coverage
class LineCoverage:
    """sys.settrace line coverage limited to files under `root` (Python 3.11: no sys.monitoring)."""

    def __init__(self, root: str):
        self.root = root
        self.lines: dict[str, set[int]] = {}
        self._want: dict[str, bool] = {}

    def _local(self, frame: Any, event: str, arg: Any):  # type: ignore[no-untyped-def]
        if event == "line":
            self.lines.setdefault(frame.f_code.co_filename, set()).add(frame.f_lineno)
        return self._local

    def _global(self, frame: Any, event: str, arg: Any):  # type: ignore[no-untyped-def]
        fn = frame.f_code.co_filename
        want = self._want.get(fn)
        if want is None:
            want = self._want[fn] = os.path.realpath(fn).startswith(self.root)
        if not want:
            return None
        # record the def line of the called function too (a call is execution)
        self.lines.setdefault(fn, set()).add(frame.f_lineno)
        return self._local

    @contextlib.contextmanager
    def active(self):  # type: ignore[no-untyped-def]
        old = sys.gettrace()
        sys.settrace(self._global)
        threading.settrace(self._global)
        try:
            yield
        finally:
            sys.settrace(old)
            threading.settrace(old)  # type: ignore[arg-type]

    def result(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {}
        for fn, ls in self.lines.items():
            out[_rel(os.path.realpath(fn), self.root) or fn] = sorted(ls)
        return dict(sorted(out.items()))


# --------------------------------------------------------------------------- helpers
def _err(e: BaseException, lib_root: str) -> dict[str, Any]:
    """Describe an exception: type, gb_type, message, user file:line."""
    gb_type = getattr(e, "gb_type", None)
    msg = getattr(e, "msg", None) or str(e)
    frames = _frames(getattr(e, "real_stack", None))
    if not frames:
        # fall back to the traceback (user frames only: skip torch/_dynamo internals)
        tb = traceback.extract_tb(e.__traceback__)
        frames = _frames(tb)
    path, line, func, in_lib = _attribute(frames, lib_root)
    chain = _split_msg(msg) if gb_type else []
    cause = e.__cause__ or e.__context__
    return {
        "type": f"{type(e).__module__}.{type(e).__name__}",
        "gb_type": gb_type,
        "gb_id": gb_id(gb_type),
        "root_gb_type": chain[0] if chain else gb_type,
        "root_gb_id": gb_id(chain[0]) if chain else gb_id(gb_type),
        "message": msg[:3000],
        "path": _rel(path, lib_root),
        "line": line,
        "func": func,
        "in_library": in_lib,
        "stack": [[_rel(p, lib_root), ln, fn] for p, ln, fn in frames][-12:],
        "cause": f"{type(cause).__name__}: {str(cause)[:500]}" if cause is not None else None,
    }


def _call(model: Any, inputs: tuple[tuple, dict], grad: bool = False) -> Any:
    import torch

    args, kwargs = inputs
    with torch.set_grad_enabled(grad):
        return model(*args, **kwargs)


def _compiled_target(model: Any, case: ModelCase) -> Any:
    """What users compile: the module itself, or one of its methods (`decode`, a step)."""
    return model if case.method == "forward" else getattr(model, case.method)


def _counters() -> dict[str, Any]:
    from torch._dynamo.utils import counters

    return {
        "frames_total": int(counters["frames"].get("total", 0)),
        "frames_ok": int(counters["frames"].get("ok", 0)),
        "unique_graphs": int(counters["stats"].get("unique_graphs", 0)),
        "graph_breaks_counter": int(sum(counters["graph_break"].values())),
    }


def _guard_failures_total() -> int:
    from torch._dynamo.utils import guard_failures

    return sum(len(v) for v in guard_failures.values())


def _dynamo_reset() -> None:
    import torch._dynamo
    from torch._dynamo.utils import counters, guard_failures

    torch._dynamo.reset()
    counters.clear()
    guard_failures.clear()


# --------------------------------------------------------------------------- phases
def run_compiled(
    model: Any, case: ModelCase, rec: DynamoRecorder, fullgraph: bool, variants: list[int],
    dynamic: bool | None = None, grad: bool = False,
) -> dict[str, Any]:
    import torch

    _dynamo_reset()
    rec.reset()
    out: dict[str, Any] = {"fullgraph": fullgraph, "dynamic": dynamic, "variants": [], "error": None}
    compiled = torch.compile(_compiled_target(model, case), backend="eager", fullgraph=fullgraph, dynamic=dynamic)
    t_all = time.perf_counter()
    for v in variants:
        rec.variant = v
        t0 = time.perf_counter()
        entry: dict[str, Any] = {"variant": v, "ok": True, "error": None}
        n_breaks, n_rec = len(rec.breaks), len(rec.recompiles)
        gf0 = _guard_failures_total()
        try:
            _call(compiled, case.inputs(v), grad=grad)
        except Exception as e:  # noqa: BLE001
            entry["ok"] = False
            entry["error"] = _err(e, rec.lib_root)
            if out["error"] is None:
                out["error"] = dict(entry["error"], variant=v)
        entry["seconds"] = round(time.perf_counter() - t0, 3)
        entry["new_breaks"] = len(rec.breaks) - n_breaks
        entry["recompiles"] = len(rec.recompiles) - n_rec
        entry["guard_failures"] = _guard_failures_total() - gf0
        out["variants"].append(entry)
        if not entry["ok"] and fullgraph:
            break  # fullgraph: the first error is the result; later variants add nothing
    rec.variant = None
    out["seconds"] = round(time.perf_counter() - t_all, 3)
    out["breaks"] = list(rec.breaks)
    out["n_breaks"] = len(rec.breaks)
    out["recompiles"] = {
        "count": len(rec.recompiles),
        "events": list(rec.recompiles),
        "guard_failures_total": _guard_failures_total(),
        # every model recompiles once when a size first changes (automatic dynamic);
        # more than that (per code object) is the hazard.
        "after_first_per_code": _extra_recompiles(rec.recompiles),
        # recompile limit reached: that frame runs eager from then on
        "limit_hits": list(rec.limit_hits),
    }
    out["counters"] = _counters()
    out["shape_guard_sites"] = sorted([list(site) for site in rec.shape_guards])
    # per variant: claims about dynamic shapes can only be judged from the second one on
    traced: dict[str, dict[str, list[int]]] = {}
    for variant, path, line in rec.traced:
        traced.setdefault(str(variant), {}).setdefault(_rel(path, rec.lib_root) or path, []).append(line)
    out["traced_lines"] = {v: {p: sorted(ls) for p, ls in sorted(paths.items())} for v, paths in sorted(traced.items())}
    return out


_GUARD_SOURCE = __import__("re").compile(r"(\S+?\.py):(\d+) in ")


def _rel_guard_path(path: str, lib_root: str) -> str | None:
    """Guard comments abbreviate paths ("mp/probe/x.py"): match by the library's folder."""
    lib = os.path.basename(lib_root.rstrip(os.sep))
    marker = f"{lib}/"
    if marker in path:
        return lib + "/" + path.split(marker, 1)[1]
    return None


def _extra_recompiles(events: list[dict[str, Any]]) -> int:
    per: dict[str, int] = {}
    for e in events:
        key = json.dumps(e["code"])
        per[key] = per.get(key, 0) + 1
    return sum(max(0, n - 1) for n in per.values())


def record(package: str, name: str, modes: list[str], variants: list[int], coverage: bool,
           fullgraph_variants: list[int] | None = None, train_variants: list[int] | None = None) -> dict[str, Any]:
    t_start = time.perf_counter()
    out: dict[str, Any] = {"name": name, "package": package, "library": package, "status": "error",
                           "versions": versions(package)}
    try:
        case = find_case(package, name)
    except Exception as e:  # noqa: BLE001
        out["status"] = "error"
        out["error"] = f"{type(e).__name__}: {e}"
        return out
    if isinstance(case, SkippedCase):
        out["status"] = "skipped"
        out["error"] = case.reason
        return out
    out["notes"] = case.notes
    import torch

    torch.manual_seed(0)
    torch.set_num_threads(1)
    lib_root = package_root(package)
    out["package_root"] = out["library_root"] = lib_root
    out["method"] = case.method

    # build
    t0 = time.perf_counter()
    try:
        model = case.build()
        model.eval()
        _compiled_target(model, case)  # the method must exist
        out["params"] = int(sum(p.numel() for p in model.parameters()))
        out["model_class"] = f"{type(model).__module__}.{type(model).__qualname__}"
    except Exception as e:  # noqa: BLE001
        out["status"] = "build_failed"
        out["error"] = f"{type(e).__name__}: {e}"[:2000]
        out["traceback"] = traceback.format_exc()[-3000:]
        return out
    out["build_seconds"] = round(time.perf_counter() - t0, 3)

    # eager (with coverage)
    cov = LineCoverage(lib_root)
    t0 = time.perf_counter()
    eager: dict[str, Any] = {"ok": True, "error": None, "variants_ok": []}
    try:
        for v in variants:
            inp = case.inputs(v)
            if coverage:
                with cov.active():
                    _call(_compiled_target(model, case), inp)
            else:
                _call(_compiled_target(model, case), inp)
            eager["variants_ok"].append(v)
    except Exception as e:  # noqa: BLE001
        eager["ok"] = False
        eager["error"] = f"{type(e).__name__}: {e}"[:2000]
        eager["traceback"] = traceback.format_exc()[-3000:]
    eager["seconds"] = round(time.perf_counter() - t0, 3)
    out["eager"] = eager
    if coverage:
        out["coverage"] = cov.result()
        out["coverage_lines"] = sum(len(v) for v in out["coverage"].values())
    if not eager["ok"]:
        out["status"] = "eager_failed"
        out["error"] = eager["error"]
        return out
    del model
    rec = DynamoRecorder(lib_root)
    rec.install()
    try:
        for mode in modes:
            if mode == "train" and not case.train:
                continue
            try:
                # a fresh build per mode, so eager-side effects (caches filled on the
                # first call) and the other mode's compile don't leak in
                torch.manual_seed(0)
                model = case.build()
                model.train(mode == "train")
                fg = mode == "fullgraph"
                vs = (fullgraph_variants or variants) if fg else variants
                if mode == "train":
                    vs = train_variants or variants
                # "dynamic": the default mode with every input size symbolic from the first
                # call, where a model ends up once its sizes vary (automatic dynamic shapes
                # reaches it frame by frame, after a recompile each)
                dynamic = True if mode == "dynamic" else None
                out[mode] = run_compiled(model, case, rec, fullgraph=fg, variants=vs, dynamic=dynamic,
                                         grad=mode == "train")
            except Exception as e:  # noqa: BLE001 - e.g. torch.compile itself failing
                out[mode] = {"error": _err(e, lib_root), "breaks": [], "variants": [], "crashed": True}
    finally:
        rec.remove()
    out["hook_problems"] = rec.hook_problems
    out["status"] = "ok"
    out["seconds"] = round(time.perf_counter() - t_start, 3)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--package", "--library", dest="package", required=True, choices=case_packages())
    ap.add_argument("--case", help="case name")
    ap.add_argument("--list", action="store_true", help="print the case names (JSON) and exit")
    ap.add_argument("--out", help="write the JSON record here (default: stdout)")
    ap.add_argument("--modes", default="default,fullgraph,dynamic,train",
                    help="default, fullgraph (fullgraph=True), dynamic (dynamic=True), train (default mode, "
                         "model.train() and autograd on); the others run in eval mode without autograd")
    ap.add_argument("--variants", default="0,1,2", help="input variants for eager and default mode")
    ap.add_argument("--fullgraph-variants", default="0",
                    help="input variants for fullgraph=True (default 0: the first compile decides; "
                         "0,1,2 also probes dynamic shapes, ~25%% more time)")
    ap.add_argument("--train-variants", default="0,1",
                    help="input variants for train mode (0,1: the first compile and the first size change)")
    ap.add_argument("--no-coverage", action="store_true")
    a = ap.parse_args(argv)

    if a.list:
        cases = []
        for c in load_cases(a.package):
            if isinstance(c, SkippedCase):
                cases.append({"name": c.name, "package": c.package, "skipped": c.reason})
            else:
                cases.append({"name": c.name, "package": c.package, "extended": c.extended})
        text = json.dumps(cases)
    else:
        if not a.case:
            ap.error("--case is required unless --list")
        import warnings

        warnings.simplefilter("ignore")
        rec = record(
            a.package,
            a.case,
            [m for m in a.modes.split(",") if m],
            [int(v) for v in a.variants.split(",") if v],
            coverage=not a.no_coverage,
            fullgraph_variants=[int(v) for v in a.fullgraph_variants.split(",") if v],
            train_variants=[int(v) for v in a.train_variants.split(",") if v],
        )
        text = json.dumps(rec, default=str)
    if a.out:
        tmp = a.out + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, a.out)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
