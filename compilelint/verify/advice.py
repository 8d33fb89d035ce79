"""Is compiling worth it for this target, and what stops it: the verdict a report leads with.

People compile to go faster. When the compiled model is slower than eager, or gains under
``WORTH_IT`` (5 %), the report says so first, then the measured causes in the order they
usually cost most: a backend that could not compile (that code runs eager), graph breaks
(each one a return to Python between graphs, and no fusion across it), recompiles beyond
the first size change (each a full compile, and at the limit the frame runs eager), and
CUDA-graph skips under ``mode="reduce-overhead"``. Each cause comes with its remedy.
No torch here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from compilelint.verify.matching import TargetMatch
from compilelint.verify.model import DEFAULT, Recompile, TargetRun

WORTH_IT = 1.05


@dataclass(frozen=True)
class Advice:
    verdict: str  # "slower", "no-gain", "faster", "not-measured"
    headline: str
    causes: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {"verdict": self.verdict, "headline": self.headline, "causes": list(self.causes)}


def advise(run: TargetRun, match: TargetMatch) -> Advice:
    eager, compiled = run.timing.eager_ms, run.timing.compiled_ms
    causes = tuple(_causes(run, match))
    if run.backend_failure is not None:
        return Advice("backend-failed", f"{run.backend_failure.describe()}: nothing of this target was compiled "
                      "by it; the breaks below are Dynamo's, from a run with backend='eager'", causes)
    if not eager or not compiled:
        return Advice("not-measured", "", causes)
    ratio = eager / compiled
    if ratio < 1.0:
        headline = f"compiling makes this target slower: {ratio:.2f}× eager ({compiled:.3f} ms against {eager:.3f} ms)"
        return Advice("slower", headline, causes)
    if ratio < WORTH_IT:
        return Advice("no-gain", f"compiling gains under {WORTH_IT - 1:.0%}: {ratio:.2f}× eager", causes)
    return Advice("faster", f"compiled runs {ratio:.2f}× faster than eager", causes)


def _causes(run: TargetRun, match: TargetMatch) -> list[str]:
    out = []
    if run.backend_failure is not None:
        failure = run.backend_failure
        where = f" (at {failure.path}:{failure.line})" if failure.path else ""
        out.append(f"{failure.describe()}{where}: keep that op out of the compiled region "
                   "(torch.compiler.disable on a helper) or give it a static shape")
    breaks = _breaks(run)
    if breaks and run.graphs == 0:
        loop = any(e.wrapped_by for e in run.events if e.mode == DEFAULT)
        why = "a break inside a loop makes Dynamo skip the whole function" if loop else "every frame fell back"
        out.append(f"{breaks} and no graph compiled: {why}, so it all runs eager; "
                   "fix the confirmed findings first")
    elif breaks:
        graphs = f"{run.graphs} graphs" if run.graphs else "several graphs"
        unflagged = sum(DEFAULT in m.modes for m in match.missed)
        missed = f", {unflagged} of them not flagged by the linter" if unflagged else ""
        out.append(f"{breaks}{missed}: {graphs}, with Python running between them "
                   "and no fusion across a break; fix the confirmed findings first")
    out.extend(_rnn_breaks(run))
    unexpected = run.recompiles.unexpected()
    if unexpected or run.recompiles.limit_hit:
        limit = "; the recompile limit was hit, so that code now runs eager" if run.recompiles.limit_hit else ""
        out.append(f"{len(unexpected)} recompile(s) beyond the first size change{limit}: "
                   "see each recompile's remedy below")
    if run.cudagraph_skips:
        out.append(f"CUDA graphs skipped ({run.compile_mode}): " + "; ".join(dict.fromkeys(run.cudagraph_skips)))
    return out


def _breaks(run: TargetRun) -> str:
    """The default mode's breaks, counted as the missed ones are (a line and a break type:
    one call into a package can break several ways inside), and the lines they are at."""
    default = [e for e in run.events if e.mode == DEFAULT]
    kinds = {(e.path, e.line, e.gb_type) for e in default}
    if not kinds:
        return ""
    sites = {(e.path, e.line) for e in default}
    at = f" at {len(sites)} line(s)" if len(sites) != len(kinds) else ""
    return f"{len(kinds)} graph break(s){at}"


RNN_BREAK = "GB0014"  # "Attempted to wrap RNN, GRU, or LSTM"


def _rnn_breaks(run: TargetRun) -> list[str]:
    """An nn.LSTM/GRU/RNN: Dynamo breaks at the module's call (so keeping its forward eager
    does not help) unless told to trace it. Measured on torch 2.13 (CPU, eager backend): timm
    sequencer2d_s 1 break, 27 graphs, 23 recompiles; with allow_rnn 0, 2 and 1."""
    sites = sorted({(e.path, e.line) for e in run.events if e.mode == DEFAULT and e.gb_id == RNN_BREAK})
    return [f"an nn.LSTM/GRU/RNN breaks the graph at {path}:{line}: torch._dynamo.config.allow_rnn = True lets "
            "Dynamo trace it (check that the backend then compiles it)" for path, line in sites[:3]]


_SIZE = re.compile(r"(?:tensor '([^']+)'|L\['([^']+)'\]).*size mismatch at index (\d+)|\.size\(\)\[(\d+)\]", re.S)
_VALUE = re.compile(r"(?:L\['([^']+)'\]|([\w.]+(?:\[[^\]]*\])*)) == (-?[\d.]+)")
_ATTRIBUTE = re.compile(r"(?:L\['self'\]|\bself)\.(\w+)")


def remedy(recompile: Recompile) -> str:
    """What to do about one recompile, from the guard that failed (the playbook: mark the
    dimension dynamic or pad to buckets, pass a tensor for a Python number, reset a counter
    outside the compiled code, raise the limit only as a last resort)."""
    reason = recompile.reason
    if recompile.limit_hit:
        return ("the recompile limit was hit: remove the cause above, or as a last resort raise "
                "torch._dynamo.config.recompile_limit")
    size = _SIZE.search(reason)
    if size:
        name = size.group(1) or size.group(2) or "the input"
        dim = size.group(3) or size.group(4)
        return (f"a size keeps changing: torch._dynamo.mark_dynamic({name}, {dim}) before the first call, "
                "pad to a few bucket lengths, or torch.compile(dynamic=True)")
    if "stride mismatch" in reason:
        # measured on torch 2.13: a transposed view after contiguous inputs recompiles, and
        # does so under dynamic=True too; a contiguous tensor does not
        return ("an input's memory layout (strides) changes between calls, e.g. a transposed or sliced view: "
                "pass a contiguous tensor (x.contiguous()); dynamic=True does not remove this one")
    if "dtype" in reason or "device" in reason or "requires_grad" in reason:
        return "an input changes dtype, device or requires_grad: keep them fixed, or compile once per variant"
    if "___check_type_id" in reason or "___check_obj_id" in reason:
        return ("the same code runs on objects of other types or identities (blocks of a model that differ, a new "
                "module each call): Dynamo compiles one entry per variant; compile each block on its own "
                "(regional compilation) or keep the objects fixed")
    attribute = _ATTRIBUTE.search(reason)
    if attribute:
        return (f"module state `self.{attribute.group(1)}` changes between calls: make it a buffer updated in "
                "place, or keep it (and its reset) outside the compiled code")
    value = _VALUE.search(reason)
    if value:
        return (f"the Python number `{value.group(1) or value.group(2)}` changes between calls: pass it as a tensor "
                "(torch.tensor(x)), or torch.compile(dynamic=True)")
    return "see the guard above; TORCH_LOGS=recompiles shows every guard that failed"


def _seconds(result: dict[str, object] | None) -> float | None:
    value = (result or {}).get("first_call_s")
    return float(value) if isinstance(value, (int, float)) else None


def _saving(cold: float, other: float) -> str:
    if other <= cold:
        return f"saves {cold - other:.2f} s ({(cold - other) / cold:.0%})"
    return f"costs {other - cold:.2f} s more"


_REMEDIES = (
    ("regional", "regional compilation"),
    ("warm-artifacts", "warm start, torch.compiler.load_cache_artifacts in a fresh process"),
    ("warm-disk", "warm start from the on-disk caches (same TORCHINDUCTOR_CACHE_DIR)"),
)


def compile_time_lines(run: TargetRun) -> list[str]:
    """``--compile-time``: the cold first compiled call and what each remedy saves on it."""
    measured = run.compile_time
    if not measured:
        return []
    cold_result = measured.get("cold") or {}
    cold = _seconds(cold_result)
    if cold is None:
        return [f"compile time: the cold run failed: {cold_result.get('error', 'no result')}"]
    lines = [f"first compiled call, cold (fresh process, empty caches): {cold:.2f} s{_no_graph(cold_result)}"]
    for variant, name in _REMEDIES:
        result = measured.get(variant)
        if result is None:
            continue
        seconds = _seconds(result)
        if variant == "regional" and result.get("block"):
            name = f"{name} of {result['block']}"
        if seconds is None:
            lines.append(f"{name}: {result.get('error', 'no result')}")
        else:
            lines.append(f"{name}: {seconds:.2f} s, {_saving(cold, seconds)}{_no_graph(result)}")
    return lines


def _no_graph(result: dict[str, object]) -> str:
    """A first call that compiled no graph is fast for the wrong reason: say so."""
    return " (Dynamo compiled no graph: nothing to save)" if result.get("graphs") == 0 else ""
