"""Fix one file's bytes: lint, apply every fix that does not overlap another, re-lint, repeat.

ruff's loop, with black's caution: at most ``MAX_PASSES`` passes; every pass must give
code that compiles, that libcst round-trips and that the linter still reads without
error; anything else, including a rule whose ``build_fix`` raises, leaves the file's
bytes exactly as they were and says why. Pure: reads and writes nothing.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import libcst as cst

from compilelint.config import Settings
from compilelint.deep import call_with_deep_stack
from compilelint.engine import INTERNAL_ERROR, SYNTAX_ERROR, lint_source
from compilelint.files import decode_source
from compilelint.findings import Applicability, Finding
from compilelint.fix.edits import FixContext, FixEdit
from compilelint.fix.gate import GateError, check_compiles, parse_for_fix
from compilelint.fix.imports import add_torch_import, binds_torch
from compilelint.fix.locate import Locator, Span, overlaps
from compilelint.fix.preserve import Claim, FixPass, claims_of
from compilelint.fix.transform import EditApplier
from compilelint.project import EntryPoint
from compilelint.registry import all_rules

# Passes without progress before giving up; a pass that leaves fewer fixable findings or
# fewer ``if``s is progress (nested fixes, as in a 200-``elif`` chain, apply one level
# per pass). The total is capped as well.
MAX_PASSES = 10
MAX_TOTAL_PASSES = 1000
ERROR_CODES = (SYNTAX_ERROR[0], INTERNAL_ERROR[0])


@dataclass(frozen=True)
class SourceFix:
    """The outcome for one file: its new bytes (the old ones if nothing applied or it failed)."""

    path: str
    original: bytes
    fixed: bytes
    fixed_count: int
    findings: tuple[Finding, ...]  # what is left: on ``fixed``, or on ``original`` after a failure
    error: str | None = None  # why the file was left as it was, although it had fixes
    passes: int = 0

    @property
    def changed(self) -> bool:
        return self.fixed != self.original


class FixFailure(Exception):
    """A pass went wrong: the whole file is left as it was."""


@dataclass(frozen=True)
class LintSetup:
    """How to lint one file as the whole run did: settings, and what other files call in it."""

    settings: Settings
    entries: tuple[EntryPoint, ...] = field(default=())
    module: str | None = None

    def lint(self, data: bytes, path: str) -> tuple[Finding, ...]:
        return lint_source(data, path, self.settings, self.entries, self.module).findings


def applicable(finding: Finding, unsafe: bool) -> bool:
    fix = finding.fix
    return fix is not None and (unsafe or fix.applicability is Applicability.SAFE)


def fix_source(
    data: bytes, path: str, settings: Settings | LintSetup, unsafe: bool, trace: list[FixPass] | None = None
) -> SourceFix:
    """Fix ``data`` (the bytes of ``path``) in memory: safe fixes, and unsafe ones if asked.

    ``trace``, if given, receives each pass with the ranges its fixes claimed (for the
    byte-preservation check of ``compilelint.fix.preserve``)."""
    setup = settings if isinstance(settings, LintSetup) else LintSetup(settings)
    try:
        try:
            return _fix_source(data, path, setup, unsafe, trace)
        except RecursionError:  # libcst recurses once per level of a deep expression
            if trace is not None:
                trace.clear()
            return call_with_deep_stack(lambda: _fix_source(data, path, setup, unsafe, trace))
    except RecursionError:
        findings = _strip(setup.lint(data, path))
        return SourceFix(path, data, data, 0, findings, error="fix unavailable: nested too deeply for libcst")


def _fix_source(data: bytes, path: str, setup: LintSetup, unsafe: bool, trace: list[FixPass] | None) -> SourceFix:
    findings = setup.lint(data, path)
    if not any(applicable(f, unsafe) for f in findings):
        return SourceFix(path, data, data, 0, _strip(findings))
    over = _over_fix_budget(data, setup.settings.max_fix_nodes)
    if over:
        return SourceFix(path, data, data, 0, _strip(findings), error=f"fix unavailable: {over}")
    try:
        module = parse_for_fix(data, path)
    except GateError as error:
        return SourceFix(path, data, data, 0, _strip(findings), error=f"fix unavailable: {error}")
    try:
        return _passes(path, data, module, findings, setup, unsafe, trace)
    except FixFailure as error:
        return SourceFix(path, data, data, 0, _strip(findings), error=str(error))


def _passes(
    path: str, data: bytes, module: cst.Module, findings: tuple[Finding, ...], setup: LintSetup, unsafe: bool,
    trace: list[FixPass] | None,
) -> SourceFix:
    current, fixed = data, 0
    fewest, stalled, number = (sum(applicable(f, unsafe) for f in findings), _branches(data)), 0, 0
    while stalled < MAX_PASSES and number < MAX_TOTAL_PASSES:
        number += 1
        new_module, count, claims = _one_pass(module, current, findings, unsafe, trace is not None)
        if count == 0:  # nothing could be built: what is left stays as findings
            return SourceFix(path, data, current, fixed, _strip(findings), passes=number - 1)
        new = _render(new_module)
        if trace is not None:
            trace.append(FixPass(current, new, claims))
        codes = sorted({f.code for f in findings if applicable(f, unsafe)})
        try:
            check_compiles(new, path)
            module = parse_for_fix(new, path)
        except GateError as error:
            raise FixFailure(f"fix for {', '.join(codes)} produced invalid code ({error}); file left unchanged") from error
        current, fixed = new, fixed + count
        findings = setup.lint(current, path)
        broken = [f for f in findings if f.code in ERROR_CODES]
        if broken:
            raise FixFailure(f"fix for {', '.join(codes)} produced code the linter rejects: {broken[0].message}")
        left = sum(applicable(f, unsafe) for f in findings)
        if not left:
            return SourceFix(path, data, current, fixed, _strip(findings), passes=number)
        branches = _branches(current)
        progress = left < fewest[0] or branches < fewest[1]
        fewest, stalled = (min(left, fewest[0]), min(branches, fewest[1])), (0 if progress else stalled + 1)
    codes = sorted({f.code for f in findings if applicable(f, unsafe)})
    raise FixFailure(f"fixes did not converge after {number} passes ({', '.join(codes)}); file left unchanged")


def _over_fix_budget(data: bytes, limit: int) -> str | None:
    """Why the file is too large for libcst (the budget counts syntax nodes), or None."""
    if limit <= 0 or len(data) < limit // 4:  # at most about 3 nodes per byte (x+x+x)
        return None
    try:
        nodes = sum(1 for _ in ast.walk(ast.parse(data)))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None  # the gate reports it
    if nodes <= limit:
        return None
    return f"{nodes:,} syntax nodes are over the {limit:,}-node budget of --fix (libcst is slow on large files)"


def _branches(data: bytes) -> int:
    """``if `` in the text, a cheap stand-in for the ``if`` statements: a pass that folds
    one into an expression progresses even when the finding count stays the same (each
    level of an ``elif`` chain takes one pass)."""
    return data.count(b"if ")


def _render(module: cst.Module) -> bytes:
    try:
        return module.bytes
    except (UnicodeError, RecursionError) as error:
        raise FixFailure(f"fixed code cannot be written in the file's encoding: {error}") from error


def _one_pass(
    module: cst.Module, data: bytes, findings: Sequence[Finding], unsafe: bool, claim: bool = False
) -> tuple[cst.Module, int, tuple[Claim, ...]]:
    """Build every applicable fix, keep those that do not overlap an earlier one, apply them;
    with ``claim``, also say which ranges of ``data`` they rewrite."""
    text = decode_source(data)
    context = FixContext(module=module, locator=Locator(module, text))
    rules = all_rules().by_code()
    accepted: list[tuple[FixEdit, list[Span], tuple[int, ...]]] = []
    count = 0
    for finding in sorted((f for f in findings if applicable(f, unsafe)), key=lambda f: f.sort_key):
        edit = _build(rules[finding.code], finding, context)
        if edit is None or not edit.edits:
            continue
        key = tuple(sorted(id(e.target) for e in edit.edits))
        if any(key == other_key for _, _, other_key in accepted):
            count += 1  # several findings of one fix (`if a and b:`): fixed together
            continue
        spans = [context.locator.span(e.target) for e in edit.edits]
        if any(overlaps(s, o) for _, others, _ in accepted for s in spans for o in others):
            continue  # overlapping: it waits for the next pass, on the new code
        accepted.append((edit, spans, key))
        count += 1
    if not accepted:
        return module, 0, ()
    edits = [e for fix, _, _ in accepted for e in fix.edits]
    new = module.visit(EditApplier(edits))
    assert isinstance(new, cst.Module)
    adds_import = any(fix.needs_torch for fix, _, _ in accepted) and not binds_torch(new)
    if adds_import:
        new = add_torch_import(new)
    return new, count, claims_of(edits, module, context.locator, text, adds_import) if claim else ()


def _build(rule: object, finding: Finding, context: FixContext) -> FixEdit | None:
    try:
        result = getattr(rule, "build_fix")(finding, context)
    except LookupError:
        return None  # the finding's code has no libcst twin here: no fix, the finding stays
    except Exception as error:  # a rule bug must leave the file alone, and say so
        raise FixFailure(
            f"internal error in the fix for {finding.code} at line {finding.line}: {type(error).__name__}: {error}; "
            "file left unchanged"
        ) from error
    assert result is None or isinstance(result, FixEdit)
    return result


def _strip(findings: Sequence[Finding]) -> tuple[Finding, ...]:
    """Findings without their rule-private data (it holds ast nodes; results cross processes)."""
    return tuple(replace(f, fix_data=None) if f.fix_data is not None else f for f in findings)
