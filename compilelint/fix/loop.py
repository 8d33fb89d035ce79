"""Fix one file's bytes: lint, apply every fix that does not overlap another, re-lint, repeat.

ruff's loop, with black's caution: at most ``MAX_PASSES`` passes; every pass must give
code that compiles, that libcst round-trips and that the linter still reads without
error; anything else, including a rule whose ``build_fix`` raises, leaves the file's
bytes exactly as they were and says why. Pure: reads and writes nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import libcst as cst

from compilelint.config import Settings
from compilelint.engine import INTERNAL_ERROR, SYNTAX_ERROR, lint_source
from compilelint.files import decode_source
from compilelint.findings import Applicability, Finding
from compilelint.fix.edits import FixContext, FixEdit
from compilelint.fix.gate import GateError, check_compiles, parse_for_fix
from compilelint.fix.imports import add_torch_import, binds_torch
from compilelint.fix.locate import Locator, Span, overlaps
from compilelint.fix.transform import EditApplier
from compilelint.project import EntryPoint
from compilelint.registry import all_rules

MAX_PASSES = 10
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


def fix_source(data: bytes, path: str, settings: Settings | LintSetup, unsafe: bool) -> SourceFix:
    """Fix ``data`` (the bytes of ``path``) in memory: safe fixes, and unsafe ones if asked."""
    setup = settings if isinstance(settings, LintSetup) else LintSetup(settings)
    findings = setup.lint(data, path)
    if not any(applicable(f, unsafe) for f in findings):
        return SourceFix(path, data, data, 0, _strip(findings))
    try:
        module = parse_for_fix(data, path)
    except GateError as error:
        return SourceFix(path, data, data, 0, _strip(findings), error=f"fix unavailable: {error}")
    try:
        return _passes(path, data, module, findings, setup, unsafe)
    except FixFailure as error:
        return SourceFix(path, data, data, 0, _strip(findings), error=str(error))


def _passes(
    path: str, data: bytes, module: cst.Module, findings: tuple[Finding, ...], setup: LintSetup, unsafe: bool
) -> SourceFix:
    current, fixed = data, 0
    for number in range(1, MAX_PASSES + 1):
        new_module, count = _one_pass(module, current, findings, unsafe)
        if count == 0:  # nothing could be built: what is left stays as findings
            return SourceFix(path, data, current, fixed, _strip(findings), passes=number - 1)
        new = _render(new_module)
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
        if not any(applicable(f, unsafe) for f in findings):
            return SourceFix(path, data, current, fixed, _strip(findings), passes=number)
    left = sorted({f.code for f in findings if applicable(f, unsafe)})
    raise FixFailure(f"fixes did not converge after {MAX_PASSES} passes ({', '.join(left)}); file left unchanged")


def _render(module: cst.Module) -> bytes:
    try:
        return module.bytes
    except (UnicodeError, RecursionError) as error:
        raise FixFailure(f"fixed code cannot be written in the file's encoding: {error}") from error


def _one_pass(module: cst.Module, data: bytes, findings: Sequence[Finding], unsafe: bool) -> tuple[cst.Module, int]:
    """Build every applicable fix, keep those that do not overlap an earlier one, apply them."""
    context = FixContext(module=module, locator=Locator(module, decode_source(data)))
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
        return module, 0
    new = module.visit(EditApplier([e for fix, _, _ in accepted for e in fix.edits]))
    assert isinstance(new, cst.Module)
    if any(fix.needs_torch for fix, _, _ in accepted) and not binds_torch(new):
        new = add_torch_import(new)
    return new, count


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
