"""files -> parse -> analysis -> rules -> findings. The one way through, for every front end."""

from __future__ import annotations

import ast
import functools
import os
import re
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from compilelint.analysis import duck_calls
from compilelint.analysis.breaking import always_breaking, break_points
from compilelint.analysis.compile_modes import fullgraph_only
from compilelint.analysis.construction_facts import ConstructionFact, ConstructionTable, for_module, incoming, joined, outgoing
from compilelint.analysis.dynamo_config import captured, function_flags, module_flags
from compilelint.analysis.nested_roots import nested_root_of
from compilelint.analysis.own_frames import OWN_FRAME_CODES, constructor_calls
from compilelint.analysis.frames import breaking_functions, skipped_after
from compilelint.analysis.method_attributes import stores_bound_method
from compilelint.analysis.stop_values import returns_stop_value
from compilelint.analysis.module_index import FunctionInfo, ModuleIndex, build_index
from compilelint.analysis.regions import RegionAnalysis
from compilelint.analysis.resumed_inputs import read_after_break
from compilelint.budget import NO_DEADLINE, BudgetExceeded, Deadline, too_large
from compilelint.config import DEFAULT_SETTINGS, Settings
from compilelint.context import RawFinding, RuleContext
from compilelint.deep import call_with_deep_stack
from compilelint.dispatch import Dispatcher, RegionStopped, RuleFailure
from compilelint.files import SourceError, decode_source, discover, read_source
from compilelint.analysis.kinds import Kind
from compilelint.findings import FileResult, Finding, Mode
from compilelint.newer_syntax import syntax_message
from compilelint.pool import WorkerPool, sigterm_unwinds
from compilelint.installed import PackageCalls, follower_for
from compilelint.positions import LineIndex
from compilelint.project import (
    ClassRecord,
    ClassTable,
    EntryPoint,
    ExternalCall,
    KnownReturn,
    ModuleMap,
    absolute_target,
    record_attributes,
    reexported_imports,
)
from compilelint.registry import Rule, all_rules
if TYPE_CHECKING:
    from compilelint.cache import ResultCache  # imported by the CLI only: the flake8 path never caches
from compilelint.suppression import file_noqa_codes, is_file_suppressed, is_suppressed, noqa_span
from compilelint.torch_versions import assume, for_release

SYNTAX_ERROR = ("CL900", "syntax-error")
INTERNAL_ERROR = ("CL999", "internal-error")
PARALLEL_MIN_FILES = 16
CROSS_FILE_ROUNDS = 4
# Rules whose findings hold only in code Dynamo compiles: recompile hazards, and calls
# that fail only when traced (CL118).
FRAME_DEPENDENT = frozenset({"CL118", "CL201", "CL202", "CL204"})
# Graph breaks on values taken from tensor data (branches, asserts, conversions, data-dependent shapes).
DATA_BREAK_RULES = frozenset({"CL103", "CL104", "CL105", "CL106"})
# claims that hold only for a value the graph computes, not for one it receives as an input
COMPUTED_VALUE_CLAIMS = frozenset({"CL105:zero-dim-index"})


def selected_rules(settings: Settings, path: str | None) -> list[Rule]:
    rules = all_rules()
    codes = [rule.code for rule in rules] + [SYNTAX_ERROR[0], INTERNAL_ERROR[0]]
    enabled = settings.enabled_codes(codes, path)
    return [rule for rule in rules if rule.code in enabled]


def lint_source(
    source: str | bytes,
    path: str = "<stdin>",
    settings: Settings = DEFAULT_SETTINGS,
    entries: Sequence[EntryPoint] = (),
    module: str | None = None,
    tree: ast.Module | None = None,
    roots: bool = True,
    known_returns: Mapping[str, KnownReturn] | None = None,
    known_attributes: Mapping[tuple[str, str], tuple[str, ...]] | None = None,
    reexports: Mapping[str, str] | None = None,
    known_constructions: Sequence[ConstructionFact] = (),
) -> FileResult:
    """Lint one file's contents. Never raises for bad input: it becomes CL900/CL999.

    ``entries`` are functions of this file that other files' compiled regions call;
    ``module`` is the file's dotted name, to resolve its relative imports; ``tree`` is
    the file already parsed (flake8 passes one), to save parsing it again. ``roots=False``
    analyses only what ``entries`` reach (a package file a user's call runs into);
    ``reexports`` are imported names that other modules of the run re-export from outside it;
    ``known_constructions`` what other files' constructions pass to this file's classes.
    """
    try:
        text = decode_source(source) if isinstance(source, bytes) else source
    except SourceError as error:
        return _error_result(path, SYNTAX_ERROR, str(error), error.line, error.column, settings)
    if settings.torch_prefilter and "torch" not in text and not entries:
        return FileResult(path=path, skipped=True)
    oversized = too_large(len(source), settings.max_file_bytes)
    if oversized:
        return _error_result(path, INTERNAL_ERROR, f"skipped: {oversized}", 1, 1, settings)
    if tree is None:
        try:
            tree = _parse(text, path)
        except SyntaxError as error:
            column = error.offset or 1
            message = syntax_message(error.msg, text, error.lineno)
            return _error_result(path, SYNTAX_ERROR, message, error.lineno or 1, column, settings)
        except (ValueError, RecursionError, MemoryError) as error:
            return _error_result(path, SYNTAX_ERROR, f"cannot parse: {type(error).__name__}: {error}", 1, 1, settings)
    deadline = Deadline(settings.max_file_seconds)
    parsed = tree

    packages = _package_calls(settings, path)
    returns_out: dict[str, KnownReturn] = {}
    classes_out: list[ClassRecord] = []
    attributes_out: dict[tuple[str, str], tuple[str, ...]] = {}
    decided_out: set[int] = set()
    imports_out: dict[str, tuple[str, bool]] = {}
    constructions_out: list[ConstructionFact] = []

    def analyse(isolate: bool = False) -> tuple[list[RawFinding], list[RuleFailure], list[ExternalCall]]:
        rules, probes = selected_rules(settings, path), _break_rules(settings, path)
        return _analyse(parsed, text, path, rules, entries, probes, deadline, isolate, roots, packages,
                        _CallerModule(module, _is_package(path)), known_returns or {}, returns_out, classes_out,
                        known_attributes or {}, attributes_out, decided_out, reexports, imports_out,
                        known_constructions, constructions_out)  # fmt: skip

    try:
        try:
            raw, failures, calls = analyse()
        except RecursionError:  # a deep expression or elif chain: again, with room to recurse
            raw, failures, calls = call_with_deep_stack(lambda: analyse(isolate=True))
    except RecursionError:
        return _error_result(path, INTERNAL_ERROR, "analysis gave up: nesting too deep", 1, 1, settings)
    except BudgetExceeded as error:
        return _error_result(path, INTERNAL_ERROR, str(error), 1, 1, settings)
    except Exception as error:  # an analysis bug must not lose other files
        return _error_result(path, INTERNAL_ERROR, f"analysis crashed: {type(error).__name__}: {error}", 1, 1, settings)
    findings = _kept_findings(raw, failures, path, LineIndex(text), settings)
    if settings.release_claims:
        findings = for_release(findings, assume(settings.torch_version))
    depends_on = tuple(sorted(packages.depends_on)) if packages is not None else ()
    return FileResult(path=path, findings=findings, calls=_resolved_calls(calls, path, module), depends_on=depends_on,
                      returns=tuple(sorted(returns_out.items())), classes=tuple(classes_out),
                      attributes=tuple(sorted((c, a, o) for (c, a), o in attributes_out.items())),
                      decided_ifs=tuple(sorted(decided_out)), imports=tuple(sorted((n, q, used) for n, (q, used) in imports_out.items())),
                      constructions=tuple(sorted(set(constructions_out))))  # fmt: skip


def _package_calls(settings: Settings, path: str) -> PackageCalls | None:
    follower = follower_for(settings)
    if follower is None:
        return None
    return PackageCalls(follower, path, settings.enabled_codes([rule.code for rule in all_rules()], path))


def _kept_findings(
    raw: list[RawFinding], failures: list[RuleFailure], path: str, lines: LineIndex, settings: Settings
) -> tuple[Finding, ...]:
    """Positions in characters, ``# noqa`` applied, CL999 kept only when selected."""
    findings = [(_finalise(r, path, lines), noqa_span(r.node, r.statement)) for r in raw]
    findings += [(finding, (finding.line, finding.line)) for finding in (_failure_finding(f, path, lines) for f in failures)]
    enabled = settings.enabled_codes([INTERNAL_ERROR[0]], path)
    if settings.apply_noqa:
        whole_file = file_noqa_codes(lines.source)
        findings = [(f, span) for f, span in findings if not is_file_suppressed(whole_file, f.code)]
        findings = [(f, span) for f, span in findings if not any(is_suppressed(lines.text(n), f.code) for n in range(span[0], span[1] + 1))]
    kept = [f for f, _ in findings if f.code != INTERNAL_ERROR[0] or INTERNAL_ERROR[0] in enabled]
    return tuple(sorted(set(kept), key=lambda f: (f.sort_key, f.name, f.message)))  # a set: ties too must sort


def _break_rules(settings: Settings, path: str | None) -> list[Rule]:
    """The graph-break rules, run even when not selected if a recompile rule is: where the
    graph breaks decides which code Dynamo compiles at all (``frames.py``)."""
    codes = set(settings.enabled_codes([rule.code for rule in all_rules()], path))
    deriving = {rule.code for rule in all_rules() if rule.derived_from_breaks}
    if not codes & (FRAME_DEPENDENT | deriving):
        return []
    return [rule for rule in all_rules() if rule.code.startswith("CL1") and rule.code not in codes]


def _without_captured_breaks(raw: list[RawFinding], analysis: RegionAnalysis, tree: ast.Module) -> list[RawFinding]:
    """Default-mode breaks that are traced code where the region is compiled: under the
    Dynamo config this file sets around it (``capture_scalar_outputs`` for ``.item()``;
    analysis.dynamo_config), or in a function compiled only with ``fullgraph=True``
    (analysis.compile_modes)."""
    index = analysis.index
    configured = "config" in index.text  # the only spellings dynamo_config reads name it
    if not configured and not any(word in index.text for word in ("fullgraph", "nopython", "optimize_assert")):
        return raw
    module = module_flags(index, tree) if configured else frozenset()
    roots = {state.info.qualname: state.info for state in analysis.regions() if state.root}
    traced: dict[str, tuple[frozenset[str], bool]] = {}

    def around(root: str) -> tuple[frozenset[str], bool]:
        if root not in traced:
            info = roots.get(root)
            if info is None:
                traced[root] = (module, False)
            else:
                flags = module | function_flags(index, info) if configured else module
                traced[root] = (flags, fullgraph_only(index, info, nested_root_of(index, info)))
        return traced[root]

    kept = []
    for r in raw:
        if r.region and r.breaks == (Mode.DEFAULT,):
            flags, fullgraph = around(r.region[0])
            if fullgraph or captured(flags, r.gb_ids):
                continue
        kept.append(r)
    return kept


def _without_resumed_inputs(raw: list[RawFinding], analysis: RegionAnalysis) -> list[RawFinding]:
    """Findings of COMPUTED_VALUE_CLAIMS on a name bound before a break point of its
    function: the graph resumed after that break receives the value as an input
    (resumed_inputs.py), so nothing breaks there."""
    candidates = [r for r in raw if r.claim in COMPUTED_VALUE_CLAIMS and isinstance(r.node, ast.Name) and r.region]
    if not candidates:
        return raw
    points = break_points(raw, analysis)
    functions = {state.info.qualname: state.info.node for state in analysis.regions()}
    dropped = set()
    for r in candidates:
        function = functions.get(r.region[-1])
        assert isinstance(r.node, ast.Name)
        if function is not None and read_after_break(function, r.node, points.get(r.region[-1], ())):
            dropped.add(id(r))
    return [r for r in raw if id(r) not in dropped]


def _without_skipped_frames(raw: list[RawFinding], analysis: RegionAnalysis) -> list[RawFinding]:
    """Findings of FRAME_DEPENDENT rules in code Dynamo runs eagerly, because a graph break
    in a loop made it skip the frame (measured: no graph, no guard, no traced call from
    those lines), are dropped: the break, reported by its own rule, is the hazard there."""
    direct: dict[str, list[ast.AST]] = {}
    data_breaks: set[int] = set()
    for finding in raw:
        if finding.code.startswith("CL1") and Mode.DEFAULT in finding.breaks and finding.region:
            direct.setdefault(finding.region[-1], []).append(finding.node)
            if finding.code in DATA_BREAK_RULES:
                data_breaks.add(id(finding.node))
    if not direct:
        return raw
    functions: list[FunctionInfo] = []
    callers: dict[str, list[FunctionInfo]] = {}
    for state in analysis.regions():
        functions.append(state.info)
        callers[state.info.qualname] = [analysis.states[c].info for c in state.callers if c in analysis.states]
    points = breaking_functions(functions, direct, analysis.resolved_calls, callers, analysis.parents_of, frozenset(data_breaks))
    skipped = {}
    for info in functions:
        if info.qualname not in points:
            continue
        after = skipped_after(info.node, points[info.qualname])
        if after is not None:
            skipped[info.qualname] = after
    return [
        r
        for r in raw
        if not (r.code in FRAME_DEPENDENT and r.region and r.region[-1] in skipped and getattr(r.node, "lineno", 0) > skipped[r.region[-1]])
    ]


def _resolved_calls(calls: list[ExternalCall], path: str, module: str | None) -> tuple[ExternalCall, ...]:
    """External calls with absolute targets (relative imports resolved), torch's dropped."""
    is_package = _is_package(path)
    return tuple(
        replace(call, target=target, receivers=tuple(_absolute_receiver(r, module) for r in call.receivers),
                objects=tuple((key, _absolute_names(names, _CallerModule(module, is_package))) for key, names in call.objects))
        for call in calls
        if (target := absolute_target(call.target, module, is_package)) and not target.startswith("torch.")
    )


@dataclass(frozen=True)
class _CallerModule:
    module: str | None
    is_package: bool


def _is_package(path: str) -> bool:
    return os.path.basename(path) in ("__init__.py", "__init__.pyi")


def _known_return(known: Mapping[str, KnownReturn], caller: _CallerModule, qualname: str) -> KnownReturn | None:
    target = absolute_target(qualname, caller.module, caller.is_package)
    return known.get(target) if target is not None else None


def _passed_on_return(targets: Sequence[str], known: Mapping[str, KnownReturn], caller: _CallerModule) -> KnownReturn | None:
    """What a name this file passes on returns (``from ._scatter import scatter`` in an
    ``__init__.py``): its targets' returns, once every one is known."""
    found = [_known_return(known, caller, target) for target in targets]
    returns = [r for r in found if r is not None]
    if not returns or len(returns) < len(found):
        return None
    if len(returns) == 1:
        return returns[0]
    kind = Kind.NONE
    for known_return in returns:
        kind |= known_return.kind
    return KnownReturn(kind, breaks=all(known_return.breaks for known_return in returns))


def _joined_returns(returns: Sequence[KnownReturn]) -> KnownReturn | None:
    """What a call returns when it runs one of several functions: each kind it may be, each
    position's kinds where all return tuples of one length; it always breaks if each does."""
    if not returns:
        return None
    kind = Kind.NONE
    for known in returns:
        kind |= known.kind
    lengths = {len(known.elements) if known.elements is not None else -1 for known in returns}
    elements = None
    if len(lengths) == 1 and -1 not in lengths:
        elements = tuple(_join_kinds(kinds) for kinds in zip(*(known.elements or () for known in returns)))
    classes = tuple(dict.fromkeys(name for known in returns for name in known.classes))
    breaks = all(known.breaks for known in returns)
    return KnownReturn(kind, elements, classes, breaks, stop_value=any(known.stop_value for known in returns))


def _join_kinds(kinds: Sequence[Kind]) -> Kind:
    joined = Kind.NONE
    for kind in kinds:
        joined |= kind
    return joined


def _class_records(index: ModuleIndex, caller: _CallerModule) -> list[ClassRecord]:
    """The file's top-level classes with absolute names, for the run's ``ClassTable``."""
    records = []
    for name, cls in index.classes.items():
        bases = []
        for base in cls.bases:
            absolute = f"{caller.module}.{base}" if base in index.classes else absolute_target(base, caller.module, caller.is_package)
            if absolute is not None:
                bases.append(absolute)
        records.append(ClassRecord(f"{caller.module}.{name}", tuple(bases), tuple(cls.methods), cls.is_module))
    return records


def _absolute_names(names: Sequence[str], caller: _CallerModule) -> tuple[str, ...]:
    """"@Euler" and ".euler.Euler" as absolute names, from the module that wrote them."""
    found = []
    for name in names:
        absolute = _absolute_receiver(name, caller.module) if name.startswith("@") else absolute_target(name, caller.module, caller.is_package)
        if absolute:
            found.append(absolute)
    return tuple(found)


def _absolute_receiver(receiver: str, module: str | None) -> str:
    return f"{module}.{receiver[1:]}" if receiver.startswith("@") and module else receiver


def _parse(text: str, path: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escape sequences etc. are not ours to report
        return ast.parse(text, filename=path)


def _analyse(
    tree: ast.Module,
    text: str,
    path: str,
    rules: Sequence[Rule],
    entries: Sequence[EntryPoint] = (),
    break_rules: Sequence[Rule] = (),
    deadline: Deadline = NO_DEADLINE,
    isolate: bool = False,
    roots: bool = True,
    packages: PackageCalls | None = None,
    caller: _CallerModule | None = None,
    known_returns: Mapping[str, KnownReturn] | None = None,
    returns_out: dict[str, KnownReturn] | None = None,
    classes_out: list[ClassRecord] | None = None,
    known_attributes: Mapping[tuple[str, str], tuple[str, ...]] | None = None,
    attributes_out: dict[tuple[str, str], tuple[str, ...]] | None = None,
    decided_out: set[int] | None = None,
    reexports: Mapping[str, str] | None = None,
    imports_out: dict[str, tuple[str, bool]] | None = None,
    known_constructions: Sequence[ConstructionFact] = (),
    constructions_out: list[ConstructionFact] | None = None,
) -> tuple[list[RawFinding], list[RuleFailure], list[ExternalCall]]:
    """Findings of ``rules``; ``break_rules`` run only to learn where the graph breaks.
    With ``isolate``, a function nested too deeply even for that stops alone (CL999 on it)."""
    raw: list[RawFinding] = []
    index = build_index(tree, find_compile_calls="compile" in text or "optimize" in text, text=text, reexports=reexports)
    if imports_out is not None and caller is not None:
        imports_out.update(_imported_names(index, caller))
    if known_constructions and caller is not None and caller.module:
        index.incoming_constructions = incoming(index, caller.module, known_constructions)
    analysis = RegionAnalysis(index, deadline, isolate)
    if classes_out is not None and caller is not None and caller.module:
        classes_out[:] = _class_records(index, caller)
    if caller is not None and known_returns:
        analysis.known_return = functools.partial(_known_return, known_returns, caller)
    if caller is not None:
        analysis.module = caller.module
    if packages is not None:
        analysis.installed_property = packages.property_kind
    if known_attributes:
        analysis.known_attributes = known_attributes
    for entry in entries:
        analysis.add_entry(entry)
    analysis.run(roots=roots)
    if attributes_out is not None and caller is not None:
        for (owner, attr), names in analysis.attribute_objects.items():
            absolute = _absolute_names([owner], caller)
            if absolute:
                attributes_out[(absolute[0], attr)] = _absolute_names(names, caller)
    ctx = RuleContext(index=index, analysis=analysis, sink=raw.append, packages=packages)
    dispatcher = Dispatcher([r for r in [*rules, *break_rules] if r.scope == "region"], ctx, deadline)
    for state in list(analysis.regions()):
        deadline.check()
        dispatcher.enter(state)
        try:
            analysis.interpret(state, visitor=dispatcher)
        except RecursionError:  # this function stops here; the others are still analysed
            if not isolate:
                raise
            dispatcher.failures.append(RegionStopped(state.info, "nesting too deep"))
    raw = _without_resumed_inputs(_without_captured_breaks(raw, analysis, tree), analysis)
    if decided_out is not None:
        decided_out |= analysis.decided_ifs
    module_rules = [r for r in rules if r.scope == "module"]
    if module_rules:
        module_ctx = RuleContext(index=index, analysis=analysis, sink=raw.append, packages=packages)
        module_dispatcher = Dispatcher(module_rules, module_ctx, deadline)
        module_dispatcher.walk_module(tree)
        dispatcher.failures.extend(module_dispatcher.failures)
    probes = {rule.code for rule in break_rules}
    for rule in rules:
        if rule.derived_from_breaks:
            raw.extend(rule.derive(tuple(raw), analysis))
    if returns_out is not None and caller is not None and caller.module:
        returns_out.update(_entry_returns(analysis, raw, known_returns or {}, caller))
    if constructions_out is not None and caller is not None and caller.module:
        constructions_out.extend(outgoing(index, lambda names: _absolute_names(list(names), caller)))
    own_frames = constructor_calls(raw, analysis, ignored=OWN_FRAME_CODES)  # before the probes go
    raw = [r for r in _without_skipped_frames(raw, analysis) if r.code not in probes]
    return _with_entry_conditions(raw, analysis), dispatcher.failures, [*analysis.external_calls(), *own_frames]


def _with_entry_conditions(raw: list[RawFinding], analysis: RegionAnalysis) -> list[RawFinding]:
    """Each finding with the tests every way into its function shares (derived findings
    too, which rules build without a context)."""
    held = {state.info.qualname: state.entry_conditions for state in analysis.regions() if state.entry_conditions}
    if not held:
        return raw
    return [
        replace(r, entry_conditions=tuple(c.source() for c in held[r.region[-1]])) if r.region and r.region[-1] in held else r
        for r in raw
    ]


def _imported_names(index: ModuleIndex, caller: _CallerModule) -> dict[str, tuple[str, bool]]:
    """The names only module-level imports bind, with absolute names (another file that
    imports one from this module gets what it names), and whether this file calls one or
    reads its attributes (``F.relu``; not ``Unpack[...]`` in an annotation): only those
    are worth analysing the file again for once a re-export says what they are."""
    found: dict[str, tuple[str, bool]] = {}
    rebound = index.assignments.keys() | index.functions.keys() | index.classes.keys()
    # One scan of the text, not one per name: a package's __init__.py imports thousands
    # of names (transformers 4.46: 10k searches of a 300 kB text took 116 CPU-s).
    used = {m.group(1) for m in _CALLED_OR_DOTTED.finditer(index.text)}
    for name in index.top_level_imports - rebound:
        qualname = index.imports.get(name)
        absolute = absolute_target(qualname, caller.module, caller.is_package) if qualname else None
        if absolute:
            found[name] = (absolute, name in used)
    return found


# A name called or read through (``F.relu``, ``f(``), not preceded by a dot or a name character.
_CALLED_OR_DOTTED = re.compile(r"(?<![\w.])(\w+)\s*[.(]")


def _entry_returns(
    analysis: RegionAnalysis, raw: list[RawFinding], known_returns: Mapping[str, KnownReturn], caller: _CallerModule
) -> dict[str, KnownReturn]:
    """What each entry function returns, and whether it always breaks the graph, for the
    files that call it; a name this file passes on, what its targets do."""
    always = always_breaking(raw, analysis)
    module = caller.module
    found: dict[str, KnownReturn] = {}
    for name, state in analysis.entry_states.items():
        breaks = state.info.qualname in always
        built = analysis.index.classes.get(name)  # an entry naming a class: its constructor
        holds = built is not None and stores_bound_method(built)
        stop = returns_stop_value(state.info.node)
        if state.returns != Kind.NONE or breaks or holds or stop:
            elements = tuple(state.return_elements) if state.return_elements is not None else None
            kind = state.returns if state.returns != Kind.NONE else Kind.UNKNOWN
            if built is not None:  # an instance, as a class of the caller's own file builds it
                kind = Kind.MODULE if built.is_module else Kind.UNKNOWN
            classes = _absolute_names(state.returned_classes, caller)
            getter = state.info.is_property
            found[f"{module}.{name}"] = KnownReturn(kind, elements, classes, breaks, holds, stop, getter)
    for name, held in analysis.held_entries.items():  # Cls.attr holding bound methods: theirs, joined
        joined = _joined_returns([found[f"{module}.{entry}"] for entry in held if f"{module}.{entry}" in found])
        if joined is not None:
            found[f"{module}.{name}"] = joined
    for name, targets in analysis.passed_on.items():
        passed = _passed_on_return(targets, known_returns, caller)
        if passed is not None:
            found[f"{module}.{name}"] = passed
    return found


def _finalise(raw: RawFinding, path: str, lines: LineIndex) -> Finding:
    node = raw.node
    line, column = getattr(node, "lineno", 1), getattr(node, "col_offset", 0)
    end_line = getattr(node, "end_lineno", None) or line
    end_column = getattr(node, "end_col_offset", None)
    statement = raw.statement or node
    return Finding(
        code=raw.code,
        name=raw.name,
        message=raw.message,
        path=path,
        line=line,
        column=lines.column(line, column),
        end_line=end_line,
        end_column=lines.column(end_line, end_column) if end_column is not None else lines.column(line, column),
        region=raw.region,
        breaks=raw.breaks,
        gb_ids=raw.gb_ids,
        fix=raw.fix,
        statement_lines=(getattr(statement, "lineno", line), getattr(statement, "end_lineno", None) or end_line),
        fix_data=raw.fix_data,
        only_when=raw.only_when,
        claim=raw.claim or raw.code,
        reaches=raw.reaches,
        reached_sites=raw.reached_sites,
        entry_conditions=raw.entry_conditions,
    )


def _failure_finding(failure: RuleFailure, path: str, lines: LineIndex) -> Finding:
    node = failure.node
    line = getattr(node, "lineno", 1)
    return Finding(
        code=INTERNAL_ERROR[0],
        name=INTERNAL_ERROR[1],
        message=str(failure) if isinstance(failure, RegionStopped) else f"internal error, please report: {failure}",
        path=path,
        line=line,
        column=lines.column(line, getattr(node, "col_offset", 0)),
        end_line=line,
        end_column=lines.column(line, getattr(node, "col_offset", 0)),
    )


def _error_result(
    path: str, code_name: tuple[str, str], message: str, line: int, column: int, settings: Settings
) -> FileResult:
    if code_name[0] not in settings.enabled_codes([code_name[0]], path):
        return FileResult(path=path)
    finding = Finding(
        code=code_name[0],
        name=code_name[1],
        message=message,
        path=path,
        line=line,
        column=column,
        end_line=line,
        end_column=column,
    )
    return FileResult(path=path, findings=(finding,))


def lint_file(
    path: str,
    settings: Settings = DEFAULT_SETTINGS,
    entries: Sequence[EntryPoint] = (),
    module: str | None = None,
    roots: bool = True,
    known_returns: Mapping[str, KnownReturn] | None = None,
    known_attributes: Mapping[tuple[str, str], tuple[str, ...]] | None = None,
    reexports: Mapping[str, str] | None = None,
    known_constructions: Sequence[ConstructionFact] = (),
) -> FileResult:
    try:
        text = read_source(path)
    except SourceError as error:
        return _error_result(path, SYNTAX_ERROR, str(error), error.line, error.column, settings)
    return lint_source(text, path, settings, entries, module, roots=roots, known_returns=known_returns,
                       known_attributes=known_attributes, reexports=reexports, known_constructions=known_constructions)  # fmt: skip


@dataclass(frozen=True)
class CrossFileFacts:
    """What other files of the run found that this file's analysis uses: what the functions
    it calls return, and what instances attributes hold (``FileResult.returns/attributes``)."""

    returns: tuple[tuple[str, KnownReturn], ...] = ()
    attributes: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    imports: tuple[tuple[str, str], ...] = ()  # names other modules re-export (project.reexported_imports)
    constructions: tuple[ConstructionFact, ...] = ()  # what other files pass to its classes (analysis.construction_facts)

    def fingerprint(self) -> str:
        facts = (self.returns, self.attributes, self.imports, self.constructions)
        return repr(facts) if any(facts) else ""


NO_FACTS = CrossFileFacts()
Job = tuple[str, tuple[EntryPoint, ...], "str | None", Settings, CrossFileFacts]


def _lint_chunk(jobs: list[Job]) -> list[FileResult]:
    return [
        lint_file(path, settings, entries, module, known_returns=dict(facts.returns),
                  known_attributes={(c, a): names for c, a, names in facts.attributes}, reexports=dict(facts.imports),
                  known_constructions=facts.constructions)  # fmt: skip
        for path, entries, module, settings, facts in jobs
    ]


def _lint_job(job: Job) -> FileResult:
    return _lint_chunk([job])[0]


def _worker_died(job: Job) -> FileResult:
    message = "skipped: the linting process died on this file (out of memory, or a crash in native code)"
    return _error_result(job[0], INTERNAL_ERROR, message, 1, 1, job[3])


def _run(jobs: list[Job], workers: int, pool: WorkerPool[Job, FileResult] | None, progress: Progress | None = None) -> list[FileResult]:
    if pool is None or len(jobs) < PARALLEL_MIN_FILES:
        return _lint_chunk(jobs)
    return pool.run(_lint_chunk, _chunks(jobs, workers * 4), progress)


def lint_paths(paths: Sequence[str], settings: Settings = DEFAULT_SETTINGS, jobs: int | None = None) -> list[FileResult]:
    """Lint every Python file under ``paths`` with one ``settings`` (missing paths are skipped)."""
    return lint_files(discover(paths, lambda _: settings).files, jobs)


Progress = Callable[[int], None]  # told how many files of phase one are done


def lint_files(
    files: Sequence[tuple[str, Settings]], jobs: int | None = None, cache: ResultCache | None = None,
    progress: Progress | None = None,
) -> list[FileResult]:
    """Lint these files, each with its settings, following compiled code across files.

    Phase one lints each file on its own (in parallel); then helpers that compiled regions
    import from other files of the run are analysed as compiled code, for a few rounds.
    With a ``cache``, only the files whose key (``compilelint.cache``) changed are linted.
    A worker that dies (the OOM killer) costs only the file it was on (``pool.py``).
    """
    settings_of = dict(files)
    paths = list(settings_of)
    modules = ModuleMap(paths)
    if cache is not None:
        cache.bind(modules)
    workers = jobs or os.cpu_count() or 1
    pool: list[WorkerPool[Job, FileResult]] = []  # started only when enough files miss the cache

    def run(jobs_: list[Job], progress: Progress | None = None) -> list[FileResult]:
        found, todo, keys = _cached(jobs_, cache)
        if workers > 1 and len(todo) >= PARALLEL_MIN_FILES and not pool:
            pool.append(WorkerPool(workers, _lint_job, _worker_died))
        cached = len(found)
        for result in _run(todo, workers, pool[0] if pool else None, progress and (lambda n: progress(cached + n))):
            if cache is not None:
                cache.store(keys[result.path], result)
            found[result.path] = result
        return [found[job[0]] for job in jobs_]

    unwinding = True  # an exception (Ctrl-C, SIGTERM) kills the workers instead of waiting
    with sigterm_unwinds():
        try:
            results = _cross_file_rounds(paths, settings_of, modules, run, progress)
            unwinding = False
        finally:
            for executor in pool:
                executor.close(kill=unwinding)
            if cache is not None:
                cache.save()
    return [results[path] for path in paths]


def _cross_file_rounds(
    paths: list[str], settings_of: dict[str, Settings], modules: ModuleMap,
    run: Callable[[list[Job], Progress | None], list[FileResult]], progress: Progress | None,
) -> dict[str, FileResult]:  # fmt: skip
    first: list[Job] = [(f, (), modules.by_path.get(f), settings_of[f], NO_FACTS) for f in paths]
    results = {r.path: r for r in run(first, progress)}
    returns: dict[str, KnownReturn] = {}
    attributes: dict[tuple[str, str], tuple[str, ...]] = {}
    constructions: ConstructionTable = {}
    entries: dict[str, dict[str, EntryPoint]] = {}
    following = [r for r in results.values() if settings_of[r.path].follow_imports != "none"]
    classes = ClassTable(record for result in following for record in result.classes)
    inherited = FileResult(path="", calls=tuple(classes.inherited_roots()))
    pending = [*results.values(), inherited]
    reexports = reexported_imports(following, modules)
    again = set(reexports)  # analysed once more, with what their imports are
    for _ in range(CROSS_FILE_ROUNDS):
        # follow-imports = "none": a file's calls lead nowhere, even into the run's files
        following_now = [r for r in pending if r is inherited or settings_of[r.path].follow_imports != "none"]
        changed = collect_entries(following_now, modules, entries, classes)
        changed |= _callers_of_new_facts(following_now, results, returns, attributes, modules, entries)
        changed |= _definers_of_constructed(following_now, constructions, modules)
        changed, again = changed | again, set()
        if not changed:
            break
        jobs_ = [(p, tuple(entries.get(p, {}).values()), modules.by_path.get(p), settings_of[p],
                  _facts_for(results[p], returns, attributes, reexports.get(p, ()), for_module(constructions, modules.by_path.get(p))))
                 for p in sorted(changed)]  # fmt: skip
        pending = run(jobs_, None)
        results.update((r.path, r) for r in pending)
    return results


def _callers_of_new_facts(
    fresh: Sequence[FileResult], results: dict[str, FileResult],
    returns: dict[str, KnownReturn], attributes: dict[tuple[str, str], tuple[str, ...]],
    modules: ModuleMap, entries: dict[str, dict[str, EntryPoint]],
) -> set[str]:  # fmt: skip
    """Record what the fresh results found functions to return and attributes to hold; the
    files to analyse again with it: callers of a function whose return changed, and, where
    an attribute of a class holds new instances, the files that analyse that class's
    methods (its own, and those whose entries run inherited methods for it)."""
    changed_returns: set[str] = set()
    for result in fresh:
        for name, known in result.returns:
            if returns.get(name) != known:
                if name in returns or _informative(known):  # a first UNKNOWN tells a caller nothing new
                    changed_returns.add(name)
                returns[name] = known
    owners = record_attributes((fact for result in fresh for fact in result.attributes), attributes)
    again = {path for path, result in results.items() if any(call.target in changed_returns for call in result.calls)}
    for path in results:
        module = modules.by_path.get(path)
        defines = module is not None and any(o.rpartition(".")[0] == module for o in owners)
        if defines or any(owners.intersection(e.receivers) for e in entries.get(path, {}).values()):
            again.add(path)
    return again


def _definers_of_constructed(fresh: Sequence[FileResult], constructions: ConstructionTable, modules: ModuleMap) -> set[str]:
    """Join what the fresh results' constructions pass to other files' classes; the files
    defining a class that now receives more, to analyse again with it."""
    grown = joined((fact for result in fresh for fact in result.constructions), constructions)
    return {path for name in grown if (path := modules.by_name.get(name.rpartition(".")[0])) is not None}


def _informative(known: KnownReturn) -> bool:
    """Whether a caller could analyse differently knowing this return."""
    plain = Kind.UNKNOWN | Kind.STATIC
    elements = known.elements or ()
    return (
        bool(known.kind & ~plain) or any(kind & ~plain for kind in elements) or bool(known.classes)
        or known.breaks or known.holds_own_methods or known.stop_value
    )


def _facts_for(
    result: FileResult, returns: dict[str, KnownReturn], attributes: dict[tuple[str, str], tuple[str, ...]],
    imports: tuple[tuple[str, str], ...] = (),
    constructions: tuple[ConstructionFact, ...] = (),
) -> CrossFileFacts:  # fmt: skip
    """The facts a file's analysis can use: the returns of what it calls, every attribute,
    and what its re-exported imports are."""
    called = {call.target for call in result.calls}
    return CrossFileFacts(
        tuple(sorted((name, known) for name, known in returns.items() if name in called)),
        tuple(sorted((owner, attr, names) for (owner, attr), names in attributes.items())),
        imports,
        constructions,
    )


def _cached(jobs: list[Job], cache: ResultCache | None) -> tuple[dict[str, FileResult], list[Job], dict[str, str | None]]:
    """The cache's results for ``jobs``, the jobs left to lint, and their keys."""
    if cache is None:
        return {}, jobs, {}
    found: dict[str, FileResult] = {}
    todo: list[Job] = []
    keys: dict[str, str | None] = {}
    for job in jobs:
        path, entries, _, settings, facts = job
        keys[path] = key = cache.key(path, settings, entries, facts.fingerprint())
        hit = cache.lookup(key)
        if hit is None:
            todo.append(job)
        else:
            found[path] = hit
    return found, todo, keys


def collect_entries(
    results: Iterable[FileResult], modules: ModuleMap, entries: dict[str, dict[str, EntryPoint]],
    classes: ClassTable | None = None,
) -> set[str]:  # fmt: skip
    """Turn resolved external calls into entry points; the files whose entries changed.
    A method a class inherits is entered where the run's ``classes`` say it is defined; a
    call on ``self`` of a subclass (``receivers``) may lead back into the caller's file."""
    changed: set[str] = set()
    for result in results:
        for call in _with_duck_targets(result, modules, classes):
            located = modules.locate(classes.dispatched(call.target) if classes is not None else call.target)
            if located is None or (located[0] == result.path and not call.receivers):
                continue
            path, name = located
            entry = entries.setdefault(path, {}).get(name)
            if entry is None:
                entry = entries[path][name] = EntryPoint(name=name, chain=call.chain + (name,))
                entry.merge(call)
                changed.add(path)
            elif entry.merge(call):
                changed.add(path)
    return changed


def _with_duck_targets(result: FileResult, modules: ModuleMap, classes: ClassTable | None) -> Iterator[ExternalCall]:
    """The file's external calls, a call ``obj.name(...)`` on an object of no known class
    (``"*.name"``, analysis.duck_calls) becoming one call per class of the caller's package
    that defines ``name``, its own file's included."""
    module = modules.by_path.get(result.path)
    package = module.split(".", 1)[0] if module else None
    for call in result.calls:
        method = duck_calls.method_of(call.target)
        if method is None:
            yield call
        elif classes is not None:
            owners = duck_calls.capped(duck_calls.owners_within(((name, (method,)) for name in classes.owners(method)), method, package))
            for owner in owners:  # the caller's own classes it analysed in place
                if module is None or owner.rpartition(".")[0] != module:
                    yield replace(call, target=f"{owner}.{method}")


def _chunks(files: list[Job], count: int) -> list[list[Job]]:
    size = max(1, -(-len(files) // count))
    return [files[i : i + size] for i in range(0, len(files), size)]


def all_findings(results: Iterable[FileResult]) -> list[Finding]:
    return [finding for result in results for finding in result.findings]
