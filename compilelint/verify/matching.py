"""Match Dynamo's breaks to static findings: confirmed, not reproduced, not reached, missed.

An event matches a finding in the same file when the event's line lies in the finding's
statement span. When several findings contain the line, the ones whose own range holds
it win, then the narrowest statement span: a finding on an ``if`` must not claim a
``print`` inside its body. A call-site finding for an installed package (CL150/CL151,
``Finding.reaches``) is confirmed by a break inside one of the package files its chain
reaches, either below its own line (the event's inner frames) or in a frame Dynamo
started inside the package; a break of the user's line itself does not confirm it.
No torch here.
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

from compilelint.findings import Finding, Mode
from compilelint.verify import statuses
from compilelint.verify.attribution import canonical
from compilelint.verify.model import DEFAULT, DYNAMIC, FULLGRAPH, BreakEvent, Frame, Recompile, TargetRun


@dataclass(frozen=True)
class FindingResult:
    finding: Finding
    status: str
    modes: tuple[str, ...] = ()  # the modes Dynamo broke in, when confirmed
    gb_id: str | None = None  # the GB id Dynamo reported (may differ from the rule's)
    gb_type: str | None = None
    note: str = ""


@dataclass(frozen=True)
class MissedBreak:
    path: str
    line: int
    gb_type: str
    gb_id: str | None
    explanation: str
    modes: tuple[str, ...]
    wrapped_by: str | None = None
    via: tuple[str, ...] = ()  # outer user frames, "path:line in function"
    # where below the user's line Dynamo broke (an installed package, the standard library):
    # the innermost frame of each event, "zuko/utils.py:96 in <dictcomp>", first seen first
    inside: tuple[str, ...] = ()


@dataclass(frozen=True)
class TargetMatch:
    findings: tuple[FindingResult, ...]
    missed: tuple[MissedBreak, ...]
    # hazardous recompiles (beyond a frame's first size change) no CL2xx finding explains
    missed_recompiles: tuple[Recompile, ...] = ()
    # the default mode failed to compile at a line a finding claims (status compile-error)
    error_predicted: bool = False


def statement_span(finding: Finding) -> tuple[int, int]:
    first, last = finding.statement_lines
    if first <= 0:
        return (finding.line, max(finding.end_line, finding.line))
    return (first, max(last, first))


def _own_span(finding: Finding) -> tuple[int, int]:
    return (finding.line, max(finding.end_line, finding.line))


def _reaches(finding: Finding, event: BreakEvent) -> bool:
    """Whether the break lies in a package file the finding's call runs into."""
    inside = event.inner[-1].path if event.inner else event.path
    return inside in finding.reaches


def _package_claimants(event: BreakEvent, reaching: Sequence[Finding]) -> list[Finding]:
    """Call-site findings a break in a package file confirms: those on the event's user
    stack, else (a frame Dynamo started inside the package) every one that reaches it."""
    found = [f for f in reaching if _reaches(f, event)]
    on_stack = [
        f for f in found
        if any(frame.path == canonical(f.path) and statement_span(f)[0] <= frame.line <= statement_span(f)[1]
               for frame in event.stack)
    ]  # fmt: skip
    return on_stack or ([] if event.inner else found)


def _claimants(event: BreakEvent, by_path: dict[str, list[Finding]], reaching: Sequence[Finding] = ()) -> list[Finding]:
    """The findings an event confirms (see the module docstring for the order)."""
    if event.inner or any(event.path in f.reaches for f in reaching):
        claimed = _package_claimants(event, reaching)
        if claimed:
            return claimed
    candidates = [
        f for f in by_path.get(event.path, ())
        if statement_span(f)[0] <= event.line <= statement_span(f)[1] and not f.reaches
    ]  # fmt: skip
    exact = [f for f in candidates if _own_span(f)[0] <= event.line <= _own_span(f)[1]]
    if exact:
        return exact
    if not candidates:
        return []
    width = min(statement_span(f)[1] - statement_span(f)[0] for f in candidates)
    return [f for f in candidates if statement_span(f)[1] - statement_span(f)[0] == width]


def _group(findings: Iterable[Finding]) -> dict[str, list[Finding]]:
    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(canonical(finding.path), []).append(finding)
    return by_path


def _skipped_note(finding: Finding, path: str, events: Sequence[BreakEvent]) -> str:
    first, last = statement_span(finding)
    for event in events:
        span = event.skipped_lines
        if event.path == path and span and span[0] <= first and last <= span[1]:
            return f"Dynamo ran this function eager after a {event.wrapped_by} at line {event.line}"
    return ""


def is_wrong_result_finding(finding: Finding) -> bool:
    """CL3xx: rules about compiled code that computes something else than eager, with no
    break and no error; the target's outputs judge them."""
    return finding.code.startswith("CL3")


def is_dynamic_only(finding: Finding) -> bool:
    """A finding that claims a break under ``torch.compile(dynamic=True)`` alone (the
    default mode keeps the value a constant): the --dynamic phase judges it."""
    return finding.breaks == (Mode.DYNAMIC,)


def is_recompile_finding(finding: Finding) -> bool:
    """CL2xx: rules about recompiles (codes are grouped by hundreds); they are confirmed
    by recompiles, not by breaks."""
    return finding.code.startswith("CL2")


def _recompile_hits(finding: Finding, run: TargetRun) -> list[Recompile]:
    """Hazardous recompiles whose failed guard lies on the finding's statement, or, when
    the reason names no line, whose frame is the function holding the finding."""
    path = canonical(finding.path)
    first, last = statement_span(finding)
    function = enclosing_function(path, first)
    hits = []
    for recompile in run.recompiles.unexpected():
        if recompile.guard_line is not None:
            if recompile.guard_path == path and first <= recompile.guard_line <= last:
                hits.append(recompile)
        elif recompile.path == path and function and function[0] <= recompile.first_line <= function[1]:
            hits.append(recompile)
    return hits


def _recompile_status(finding: Finding, run: TargetRun, ran: bool) -> FindingResult:
    hits = _recompile_hits(finding, run)
    if hits:
        note = f"{len(hits)} recompiles: {hits[0].reason}"
        if any(hit.limit_hit for hit in hits):
            note += "; recompile limit hit"
        return FindingResult(finding, statuses.CONFIRMED, (DEFAULT,), None, "recompile", note)
    if not ran:
        return FindingResult(finding, statuses.NOT_REACHED, note="no example input ran this line")
    note = (f"ran, and Dynamo did not recompile for it on torch {run.torch_version} "
            "with these input sets (vary the value it depends on across input sets)")  # fmt: skip
    return FindingResult(finding, statuses.NOT_REPRODUCED, note=note)


def _status(finding: Finding, hits: list[BreakEvent], run: TargetRun,
            events: Sequence[BreakEvent]) -> FindingResult:  # fmt: skip
    path = canonical(finding.path)
    first, last = statement_span(finding)
    ran = bool(set(run.coverage.get(path, ())) & set(range(first, last + 1)))
    if is_recompile_finding(finding) and not hits:
        return _recompile_status(finding, run, ran)
    if is_wrong_result_finding(finding):
        return _wrong_result_status(finding, run, ran)
    if hits:
        modes = tuple(m for m in (DEFAULT, FULLGRAPH, DYNAMIC) if any(e.mode == m for e in hits))
        best = sorted(hits, key=lambda e: (e.mode != DEFAULT, e.line))[0]
        return FindingResult(finding, statuses.CONFIRMED, modes, best.gb_id, best.gb_type)
    if not ran:
        return FindingResult(finding, statuses.NOT_REACHED, note="no example input ran this line")
    if is_dynamic_only(finding):
        if run.dynamic is None:
            return FindingResult(finding, statuses.NOT_REACHED,
                                 note="it breaks only under torch.compile(dynamic=True): verify with --dynamic")  # fmt: skip
        return FindingResult(finding, statuses.NOT_REPRODUCED,
                             note=f"ran, and Dynamo did not break under dynamic=True on torch {run.torch_version}")  # fmt: skip
    skipped = _skipped_note(finding, path, events)
    if skipped:
        return FindingResult(finding, statuses.NOT_REACHED, note=skipped)
    note = f"ran, and Dynamo did not break on torch {run.torch_version}"
    return FindingResult(finding, statuses.NOT_REPRODUCED, note=note)


def _wrong_result_status(finding: Finding, run: TargetRun, ran: bool) -> FindingResult:
    """Confirmed when the line ran and the compiled outputs differ from eager's: the
    target's outputs are all the verifier compares, so a finding is judged by its target."""
    if not ran:
        return FindingResult(finding, statuses.NOT_REACHED, note="no example input ran this line")
    if run.output_match is False:
        return FindingResult(finding, statuses.CONFIRMED, (DEFAULT,), None, "wrong result",
                             "the compiled outputs differ from eager's")  # fmt: skip
    if run.output_match is None:
        return FindingResult(finding, statuses.NOT_REACHED, note="the outputs were not compared")
    return FindingResult(finding, statuses.NOT_REPRODUCED, note=f"the compiled outputs match eager's on torch {run.torch_version}")


@lru_cache(maxsize=256)
def _function_spans(path: str) -> tuple[tuple[int, int], ...]:
    try:
        with open(path, "rb") as handle:
            tree = ast.parse(handle.read(), filename=path)
    except (OSError, SyntaxError, ValueError):
        return ()
    # From the first decorator: that is the code object's co_firstlineno.
    return tuple(
        (min([node.lineno] + [d.lineno for d in node.decorator_list]), node.end_lineno or node.lineno)
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    )


def enclosing_function(path: str, line: int) -> tuple[int, int] | None:
    """Lines of the innermost function around ``line``; None at module level."""
    around = [span for span in _function_spans(path) if span[0] <= line <= span[1]]
    return min(around, key=lambda span: span[1] - span[0]) if around else None


def speaks_for(run: TargetRun, finding: Finding) -> bool:
    """A target speaks for a finding when it ran the function holding it (a module-level
    finding: when it ran anything in the file). Other targets sharing the file say
    nothing about it, so its status is not repeated once per target."""
    path = canonical(finding.path)
    covered = run.coverage.get(path)
    if not covered:
        return False
    span = enclosing_function(path, statement_span(finding)[0])
    return span is None or any(span[0] <= line <= span[1] for line in covered)


def _missed(unclaimed: Sequence[BreakEvent]) -> tuple[MissedBreak, ...]:
    grouped: dict[tuple[str, int, str], list[BreakEvent]] = {}
    for event in unclaimed:
        grouped.setdefault((event.path, event.line, event.gb_type), []).append(event)
    missed = []
    for (path, line, gb_type), events in sorted(grouped.items()):
        modes = tuple(m for m in (DEFAULT, FULLGRAPH) if any(e.mode == m for e in events))
        first = events[0]
        via = tuple(f"{f.path}:{f.line} in {f.function}" for f in max(
            (e.stack for e in events), key=len)[:-1])  # fmt: skip
        inside = tuple(dict.fromkeys(library_frame(e.inner[-1]) for e in events if e.inner))
        missed.append(MissedBreak(path, line, gb_type, first.gb_id, first.explanation, modes,
                                  first.wrapped_by, via, inside))  # fmt: skip
    return tuple(missed)


def library_frame(frame: Frame) -> str:
    """``frame`` as a user reads it: an installed package's file from its package folder
    (``zuko/utils.py:96 in kwargs``), any other path whole."""
    parts = frame.path.split(os.sep)
    for folder in ("site-packages", "dist-packages"):
        if folder in parts:
            at = len(parts) - 1 - parts[::-1].index(folder)
            return f"{'/'.join(parts[at + 1:])}:{frame.line} in {frame.function}"
    return f"{frame.path}:{frame.line} in {frame.function}"


def match_target(run: TargetRun, findings: Sequence[Finding]) -> TargetMatch:
    """Statuses for the findings this target speaks for, and its missed breaks.

    ``findings`` are all the findings of the lint run: an event in any linted file can
    claim one, but only findings in functions this target ran get a status here; the
    report lists the rest once, as reached by no target.
    """
    if run.status == statuses.COMPILE_ERROR and run.default_error is not None:
        return _match_compile_error(run, findings)
    if run.status != statuses.OK and run.backend_failure is None:
        return TargetMatch((), ())  # nothing can be concluded from a run that failed
    # a failing backend: the events come from a second run with backend="eager"
    hits, unclaimed = _claims(run.events, findings)
    dynamic_only = [f for f in findings if is_dynamic_only(f)]
    if run.dynamic is not None and dynamic_only:  # only these are judged by the --dynamic phase
        for key, events in _claims(run.dynamic.events, dynamic_only)[0].items():
            hits.setdefault(key, []).extend(events)
    results = tuple(
        _status(finding, hits.get(id(finding), []), run, run.events)
        for finding in sorted(findings, key=lambda f: f.sort_key)
        if id(finding) in hits or speaks_for(run, finding)
    )
    return TargetMatch(results, _missed(unclaimed), _missed_recompiles(run, findings))


def _claims(events: Sequence[BreakEvent], findings: Sequence[Finding]) -> tuple[dict[int, list[BreakEvent]], list[BreakEvent]]:
    """The events claiming each finding (by id), and those no finding claims."""
    by_path = _group(findings)
    reaching = [f for f in findings if f.reaches]
    hits: dict[int, list[BreakEvent]] = {}
    unclaimed: list[BreakEvent] = []
    for event in events:
        claimants = _claimants(event, by_path, reaching)
        for finding in claimants:
            hits.setdefault(id(finding), []).append(event)
        if not claimants:
            unclaimed.append(event)
    return hits, unclaimed


def _match_compile_error(run: TargetRun, findings: Sequence[Finding]) -> TargetMatch:
    """The default mode stopped with an error at a user line: the breaks Dynamo reported
    before it and the error itself (a break at that line) confirm the findings that claim
    them, and the unclaimed ones are missed. Nothing after the error was compiled, so no
    other finding gets a status."""
    error = run.default_error
    assert error is not None
    events = list(run.events)
    failure: BreakEvent | None = None
    if error.path and error.line:
        failure = BreakEvent(DEFAULT, canonical(error.path), error.line, error.reported_type, error.gb_id,
                             error.reported_explanation)  # fmt: skip
        events.append(failure)
    hits, unclaimed = _claims(events, findings)
    results = tuple(
        _status(finding, hits[id(finding)], run, events) for finding in sorted(findings, key=lambda f: f.sort_key) if id(finding) in hits
    )
    predicted = failure is not None and any(failure in found for found in hits.values())
    return TargetMatch(results, _missed(unclaimed), (), error_predicted=predicted)


def _missed_recompiles(run: TargetRun, findings: Sequence[Finding]) -> tuple[Recompile, ...]:
    """Recompiles that no recompile finding (CL2xx) explains."""
    explained = {
        id(hit) for finding in findings if is_recompile_finding(finding) for hit in _recompile_hits(finding, run)
    }
    return tuple(r for r in run.recompiles.unexpected() if id(r) not in explained)
