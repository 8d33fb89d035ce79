"""The closing line of a text report: how many findings, and how many a fix can remove."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from compilelint.findings import Applicability, Finding


@dataclass(frozen=True)
class Summary:
    total: int
    safe_fixes: int  # applied by --fix
    unsafe_fixes: int  # applied only with --unsafe-fixes

    def line(self, show_unsafe: bool = False) -> str:
        """ruff's wording: ``Found 3 findings (1 fixable with --fix, 1 more with --unsafe-fixes)``.

        With ``show_unsafe`` (the run already opted in to unsafe fixes) every fix counts as
        fixable with ``--fix``, so no hint about hidden fixes is given.
        """
        if self.total == 0:
            return "All checks passed!"
        noun = "finding" if self.total == 1 else "findings"
        fixable = self.safe_fixes + (self.unsafe_fixes if show_unsafe else 0)
        hidden = 0 if show_unsafe else self.unsafe_fixes
        hints = []
        if fixable:
            hints.append(f"{fixable} fixable with --fix")
        if hidden:
            hints.append(f"{hidden} more with --unsafe-fixes")
        suffix = f" ({', '.join(hints)})" if hints else ""
        return f"Found {self.total} {noun}{suffix}"


def summarise(findings: Iterable[Finding]) -> Summary:
    total = safe = unsafe = 0
    for finding in findings:
        total += 1
        if finding.fix is None:
            continue
        if finding.fix.applicability is Applicability.SAFE:
            safe += 1
        else:
            unsafe += 1
    return Summary(total=total, safe_fixes=safe, unsafe_fixes=unsafe)


def is_fixable(finding: Finding, show_unsafe: bool = False) -> bool:
    """Whether ``--fix`` (with ``--unsafe-fixes`` when ``show_unsafe``) would apply its fix."""
    if finding.fix is None:
        return False
    return show_unsafe or finding.fix.applicability is Applicability.SAFE
