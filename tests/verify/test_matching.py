"""Matching Dynamo events to findings, with hand-made values: no torch, no subprocess."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from compilelint.findings import Finding, Mode
from compilelint.verify import statuses
from compilelint.verify.attribution import UserFiles, attribute, merge_events
from compilelint.verify.matching import match_target
from compilelint.verify.model import BreakEvent, DynamicRun, Frame, Recompile, Recompiles, TargetRun
from compilelint.verify.report import EXIT_BREAKS, EXIT_CLEAN, EXIT_FAULT, build_report, to_json
from compilelint.verify.runner import Outcome
from compilelint.verify.targets import TargetSpec

PATH = "/project/model.py"


def event(line: int, mode: str = "default", gb: str = "Failed to trace builtin operator",
          gb_id: str = "GB0059", stack: tuple[Frame, ...] = (), **extra: object) -> BreakEvent:  # fmt: skip
    frames = stack or (Frame(PATH, line, "forward"),)
    return BreakEvent(mode, PATH, line, gb, gb_id, "why", frames, **extra)  # type: ignore[arg-type]


def run(events: tuple[BreakEvent, ...] = (), covered: tuple[int, ...] = (), **extra: object) -> TargetRun:
    return TargetRun(statuses.OK, torch_version="2.13.0", events=events,
                     coverage={PATH: covered}, callable_files=(PATH,), **extra)  # type: ignore[arg-type]  # fmt: skip


def test_confirmed_with_modes_and_dynamo_gb_id(make_finding: Callable[..., Finding]) -> None:
    finding = make_finding(PATH, 10, "CL101")
    result = match_target(run((event(10), event(10, "fullgraph")), (10,)), [finding])
    [status] = result.findings
    assert status.status == statuses.CONFIRMED
    assert status.modes == ("default", "fullgraph")
    assert status.gb_id == "GB0059"
    assert result.missed == ()


def test_not_reproduced_names_the_torch_version(make_finding: Callable[..., Finding]) -> None:
    [status] = match_target(run((), (10, 11)), [make_finding(PATH, 11, "CL104")]).findings
    assert status.status == statuses.NOT_REPRODUCED
    assert "2.13.0" in status.note


def test_a_dynamic_only_finding_is_judged_by_the_dynamic_phase(make_finding: Callable[..., Finding]) -> None:
    finding = replace(make_finding(PATH, 10, "CL145"), breaks=(Mode.DYNAMIC,))
    # the default mode kept the float a constant: no event; without --dynamic nothing can judge it
    [status] = match_target(run((), (10,)), [finding]).findings
    assert status.status == statuses.NOT_REACHED and "--dynamic" in status.note
    broke = DynamicRun(events=(event(10, "dynamic", "BUILD_STRING type error", "GB0021"),))
    [status] = match_target(run((), (10,), dynamic=broke), [finding]).findings
    assert (status.status, status.modes, status.gb_id) == (statuses.CONFIRMED, ("dynamic",), "GB0021")
    [status] = match_target(run((), (10,), dynamic=DynamicRun()), [finding]).findings
    assert status.status == statuses.NOT_REPRODUCED and "dynamic=True" in status.note


def test_the_dynamic_phase_confirms_no_other_finding(make_finding: Callable[..., Finding]) -> None:
    broke = DynamicRun(events=(event(10, "dynamic"),))
    [status] = match_target(run((), (10,), dynamic=broke), [make_finding(PATH, 10, "CL101")]).findings
    assert status.status == statuses.NOT_REPRODUCED


def test_not_reached_when_no_input_ran_the_line(make_finding: Callable[..., Finding]) -> None:
    [status] = match_target(run((), (10,)), [make_finding(PATH, 12, "CL101")]).findings
    assert status.status == statuses.NOT_REACHED


def test_unclaimed_break_is_missed(make_finding: Callable[..., Finding]) -> None:
    result = match_target(run((event(10), event(20, gb="Call to `torch._dynamo.graph_break()`")), (10, 20)),
                          [make_finding(PATH, 10, "CL101")])  # fmt: skip
    [missed] = result.missed
    assert (missed.line, missed.gb_type) == (20, "Call to `torch._dynamo.graph_break()`")


def test_event_inside_a_multiline_statement_matches(make_finding: Callable[..., Finding]) -> None:
    finding = make_finding(PATH, 10, "CL101", span=(10, 13))
    [status] = match_target(run((event(12),), (10, 12)), [finding]).findings
    assert status.status == statuses.CONFIRMED


def test_a_compound_statement_does_not_claim_its_body(make_finding: Callable[..., Finding]) -> None:
    branch = make_finding(PATH, 10, "CL103", span=(10, 14))  # `if ...:` spans its block
    printed = make_finding(PATH, 12, "CL101", span=(12, 12))
    result = match_target(run((event(12),), (10, 12)), [branch, printed])
    by_code = {r.finding.code: r.status for r in result.findings}
    assert by_code == {"CL103": statuses.NOT_REPRODUCED, "CL101": statuses.CONFIRMED}


def test_findings_outside_the_target_scope_get_no_status(make_finding: Callable[..., Finding]) -> None:
    result = match_target(run((), (10,)), [make_finding("/elsewhere/other.py", 3, "CL101")])
    assert result.findings == ()


def test_a_failed_target_concludes_nothing(make_finding: Callable[..., Finding]) -> None:
    failed = TargetRun(statuses.CRASHED, "SIGSEGV", events=(event(10),))
    result = match_target(failed, [make_finding(PATH, 10, "CL101")])
    assert result.findings == () and result.missed == ()


def test_finding_in_a_function_dynamo_skipped_is_not_reached(make_finding: Callable[..., Finding]) -> None:
    loop = event(12, wrapped_by="graph break in loop", skipped_lines=(10, 20))
    [_, later] = match_target(run((loop,), (12, 18)), [make_finding(PATH, 12, "CL101"),
                                                         make_finding(PATH, 18, "CL105")]).findings  # fmt: skip
    assert later.status == statuses.NOT_REACHED
    assert "graph break in loop" in later.note


def test_call_site_echo_is_merged_into_the_inner_break() -> None:
    helper = Frame(PATH, 5, "helper")
    caller = Frame(PATH, 10, "forward")
    inner_seen_from_caller = event(5, stack=(caller, helper))
    inner_seen_alone = event(5, stack=(helper,))
    echo_at_call_site = event(10, stack=(caller,))
    merged = merge_events([inner_seen_from_caller, inner_seen_alone, echo_at_call_site])
    assert [(e.line, e.count) for e in merged] == [(5, 2)]
    assert merged[0].stack == (caller, helper)


def test_attribution_skips_library_frames() -> None:
    import os

    library = Frame(os.__file__, 1, "lib")
    user = UserFiles(["/project"])
    assert attribute((Frame(PATH, 7, "forward"), library), user) == (Frame(PATH, 7, "forward"),)


def _outcome(name: str, target_run: TargetRun) -> Outcome:
    return Outcome(TargetSpec("/project/targets.py", name, 1), target_run)


def test_exit_codes_and_summary(make_finding: Callable[..., Finding]) -> None:
    clean = run((), (10,))
    broken = run((event(10),), (10,))
    finding = make_finding(PATH, 10, "CL101")
    for target_run, expected in ((clean, EXIT_CLEAN), (broken, EXIT_BREAKS)):
        outcome = _outcome("t", target_run)
        report = build_report([outcome], [match_target(target_run, [finding])], [PATH], [finding])
        assert report.exit_code() == expected
    faulty = _outcome("f", TargetRun(statuses.TIMEOUT, "after 3 s"))
    report = build_report([faulty], [match_target(faulty.run, [finding])], [PATH], [finding])
    assert report.exit_code() == EXIT_FAULT
    assert to_json(report)["summary"]["faults"] == {"timeout": 1}


def test_json_schema_fields(make_finding: Callable[..., Finding]) -> None:
    storm = Recompiles((Recompile("forward", PATH, 8, "self.step == 1", 1),
                        Recompile("forward", PATH, 8, "self.step == 2", 2, limit_hit=True)), limit=2)  # fmt: skip
    target_run = run((event(10),), (10,), recompiles=storm, fullgraph_ran=True)
    finding = make_finding(PATH, 10, "CL101")
    data = to_json(build_report([_outcome("t", target_run)], [match_target(target_run, [finding])], [PATH], [finding]))
    [target] = data["targets"]
    assert {"target", "status", "torch", "device", "backend", "findings", "missed", "recompiles",
            "fullgraph", "timing"} <= set(target)  # fmt: skip
    assert set(target["findings"][0]) >= {"code", "path", "line", "status", "modes", "gb_id"}
    assert target["recompiles"]["count"] == 1 and target["recompiles"]["limit_hit"] is True
    assert len(target["recompiles"]["reasons"]) == 2
    assert target["fullgraph"] == {"ok": True, "error": None}
    assert set(target["timing"]) >= {"eager_ms", "compiled_ms", "compile_s"}


def test_a_comprehension_on_the_break_line_is_not_an_echo() -> None:
    # [print(v) for v in ...]: the caller frame and the <listcomp> frame share the line.
    stack = (Frame(PATH, 55, "forward"), Frame(PATH, 55, "<listcomp>"))
    assert [e.line for e in merge_events([event(55, stack=stack)])] == [55]


def test_recompile_finding_is_confirmed_by_its_guard_line(make_finding: Callable[..., Finding]) -> None:
    storm = Recompiles((Recompile("forward", PATH, 8, "self.step == 1", 1, guard_path=PATH, guard_line=10),))
    counter = make_finding(PATH, 10, "CL202")
    other = make_finding(PATH, 11, "CL204")
    result = match_target(run((), (10, 11), recompiles=storm), [counter, other])
    by_code = {r.finding.code: r for r in result.findings}
    assert by_code["CL202"].status == statuses.CONFIRMED and by_code["CL202"].gb_type == "recompile"
    assert by_code["CL204"].status == statuses.NOT_REPRODUCED
    assert result.missed == ()


def test_a_first_size_change_confirms_nothing(make_finding: Callable[..., Finding]) -> None:
    sizes = Recompiles((Recompile("forward", PATH, 9, "tensor 'x' size mismatch at index 0. expected 2, actual 3", 1),))
    assert sizes.expected == 1 and sizes.unexpected() == []
    [result] = match_target(run((), (10,), recompiles=sizes), [make_finding(PATH, 10, "CL201")]).findings
    assert result.status == statuses.NOT_REPRODUCED


def test_recompiles_no_finding_explains_are_missed(make_finding: Callable[..., Finding]) -> None:
    explained = Recompile("forward", PATH, 8, "self.step == 1", 1, guard_path=PATH, guard_line=10)
    unexplained = Recompile("forward", PATH, 8, "len(L['vals']) == 3", 2, guard_path=PATH, guard_line=14)
    storm = Recompiles((explained, unexplained))
    match = match_target(run((), (10, 14), recompiles=storm), [make_finding(PATH, 10, "CL202")])
    assert match.missed_recompiles == (unexplained,)
    report = build_report([_outcome("t", run((), (10, 14), recompiles=storm))], [match], [PATH], [])
    assert report.missed_recompile_count() == 1 and report.exit_code() == EXIT_BREAKS
    assert to_json(report)["targets"][0]["recompiles"]["missed"] == [unexplained.describe()]


PACKAGE_FILE = "/venv/site-packages/solver/steps.py"


def test_a_missed_break_inside_a_package_says_where_in_it() -> None:
    """One call into a package that breaks two ways inside: two missed rows at the call's
    line, each naming the package line (from its package folder), in the JSON as well."""
    cell = event(12, gb="Read uninitialized cell", gb_id="GB0091",
                 inner=(Frame("/venv/lib/site-packages/zuko/lazy.py", 128, "forward"),))  # fmt: skip
    comprehension = event(12, gb="Missing tp_iternext", gb_id="GB4347",
                          inner=(Frame("/venv/lib/site-packages/zuko/lazy.py", 128, "<genexpr>"),
                                 Frame("/venv/lib/site-packages/zuko/utils.py", 96, "<dictcomp>")))  # fmt: skip
    own = event(20)  # a break of the user's own line: nothing below it
    result = match_target(run((cell, comprehension, own), (12, 20)), [])
    inside = {m.gb_id: m.inside for m in result.missed}
    assert inside == {"GB0091": ("zuko/lazy.py:128 in forward",), "GB4347": ("zuko/utils.py:96 in <dictcomp>",),
                      "GB0059": ()}  # fmt: skip
    target_run = run((cell, comprehension, own), (12, 20))
    data = to_json(build_report([_outcome("t", target_run)], [match_target(target_run, [])], [PATH], []))
    assert {tuple(m["inside"]) for m in data["targets"][0]["missed"]} == {*inside.values()}


def test_a_break_inside_a_package_confirms_the_call_site_finding(make_finding: Callable[..., Finding]) -> None:
    from dataclasses import replace

    call_site = replace(make_finding(PATH, 10, "CL150"), reaches=(PACKAGE_FILE,))
    inner = (Frame(PACKAGE_FILE, 42, "step"),)
    below_the_call = event(10, gb="Data-dependent branching", gb_id="GB0170", inner=inner)
    own_frame = BreakEvent("default", PACKAGE_FILE, 43, "Data-dependent branching", "GB0170", "", inner[:1])
    [status] = match_target(run((below_the_call, own_frame), (10,)), [call_site]).findings
    assert status.status == statuses.CONFIRMED
    # a break of the user's line itself (no frame below it) does not confirm a CL150 there
    [alone] = match_target(run((event(10),), (10,)), [call_site]).findings
    assert alone.status == statuses.NOT_REPRODUCED
    # nor does a break in a package file the finding's chain never reaches
    elsewhere = event(10, inner=(Frame("/venv/site-packages/other/x.py", 3, "f"),))
    result = match_target(run((elsewhere,), (10,)), [call_site])
    assert result.findings[0].status == statuses.NOT_REPRODUCED and len(result.missed) == 1


def _failed(line: int | None, events: tuple[BreakEvent, ...] = ()) -> TargetRun:
    from compilelint.verify.model import CompileError

    error = CompileError("torch._dynamo.exc.InternalTorchDynamoError", "AsPythonConstantNotImplementedError: …",
                         path=PATH if line else None, line=line)  # fmt: skip
    return TargetRun(statuses.COMPILE_ERROR, detail="compile-default: …", torch_version="2.13.0", events=events,
                     coverage={PATH: (10, 12, 14, 20)}, callable_files=(PATH,), default_error=error)  # fmt: skip


def test_a_compile_error_at_a_claimed_line_confirms_the_finding(make_finding: Callable[..., Finding]) -> None:
    """The breaks before the error and the error itself are matched; findings after it get
    no status (nothing there was compiled)."""
    before, at, after = make_finding(PATH, 10, "CL107"), make_finding(PATH, 12, "CL144"), make_finding(PATH, 20, "CL101")
    result = match_target(_failed(12, (event(10),)), [before, at, after])
    assert [(s.finding.line, s.status) for s in result.findings] == [(10, statuses.CONFIRMED), (12, statuses.CONFIRMED)]
    assert result.error_predicted and result.missed == ()


def test_a_compile_error_no_finding_claims_is_missed(make_finding: Callable[..., Finding]) -> None:
    result = match_target(_failed(14), [make_finding(PATH, 12, "CL144")])
    assert not result.error_predicted and result.findings == ()
    assert [m.line for m in result.missed] == [14]


def test_a_compile_error_without_a_user_line_is_not_predicted(make_finding: Callable[..., Finding]) -> None:
    result = match_target(_failed(None), [make_finding(PATH, 12, "CL144")])
    assert not result.error_predicted and result.findings == () and result.missed == ()


def test_a_wrong_result_finding_is_judged_by_the_outputs(make_finding: Callable[..., Finding]) -> None:
    """CL3xx findings break nothing: the target's outputs against eager's decide."""
    finding = make_finding(PATH, 12, "CL301")
    [differ] = match_target(run((), (12,), output_match=False), [finding]).findings
    [same] = match_target(run((), (12,), output_match=True), [finding]).findings
    [unknown] = match_target(run((), (12,), output_match=None), [finding]).findings
    [elsewhere] = match_target(run((), (10,), output_match=False), [finding]).findings
    assert (differ.status, differ.gb_type) == (statuses.CONFIRMED, "wrong result")
    assert same.status == statuses.NOT_REPRODUCED and "2.13.0" in same.note
    assert unknown.status == statuses.NOT_REACHED and elsewhere.status == statuses.NOT_REACHED
