"""``--format text`` (full: header, snippet, notes) and ``--format concise`` (one line each).

    t2.py:30:9: CL102 [*] `Logger.info()` in a compiled region breaks the graph (GB0291); ...
       |
    30 |         logger.info("hi")
       |         ^^^^^^^^^^^^^^^^^ CL102
       |
       = in Block.forward
       = breaks in: default, fullgraph
       = help: Guard with `if not torch.compiler.is_compiling():`
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from rich.text import Text

from compilelint.findings import Applicability, Finding
from compilelint.report.snippet import Span, render_snippet
from compilelint.report.summary import is_fixable

PATH_STYLE = "bold"
CODE_STYLE = "bold red"
FIX_MARK_STYLE = "bold cyan"
NOTE_STYLE = "bold blue"
FIX_MARK = "[*]"


def render_concise(findings: Iterable[Finding], show_unsafe: bool = False) -> list[Text]:
    """``path:line:col: CODE [*] message``, one line per finding, sorted."""
    return [_header(f, show_unsafe) for f in sorted(findings, key=lambda f: f.sort_key)]


def render_full(
    findings: Iterable[Finding],
    sources: Mapping[str, Sequence[str]],
    show_unsafe: bool = False,
    ascii_only: bool = False,
) -> list[Text]:
    """One block per finding: header, underlined source, region, modes and fix.

    ``sources`` maps a finding's path to its lines (without line breaks); a path missing
    from it (an unreadable file) gets the header and notes only.
    """
    blocks = []
    for finding in sorted(findings, key=lambda f: f.sort_key):
        block = _header(finding, show_unsafe)
        lines = sources.get(finding.path)
        span = Span(finding.line, finding.column, finding.end_line, finding.end_column)
        snippet = render_snippet(lines, span, finding.code, ascii_only) if lines is not None else None
        notes = _notes(finding, show_unsafe, ascii_only)
        if snippet is not None:
            block.append("\n")
            block.append_text(snippet)
        indent = " " * (len(str(max(finding.line, finding.end_line))) + 1)
        for note in notes:
            block.append(f"\n{indent}= ", style=NOTE_STYLE)
            block.append_text(note)
        blocks.append(block)
    return blocks


def _header(finding: Finding, show_unsafe: bool) -> Text:
    text = Text()
    text.append(f"{finding.path}:{finding.line}:{finding.column}:", style=PATH_STYLE)
    text.append(" ")
    text.append(finding.code, style=CODE_STYLE)
    if is_fixable(finding, show_unsafe):
        text.append(" ")
        text.append(FIX_MARK, style=FIX_MARK_STYLE)
    text.append(f" {finding.message}")
    return text


def _notes(finding: Finding, show_unsafe: bool, ascii_only: bool) -> list[Text]:
    notes = []
    if finding.region:
        arrow = " -> " if ascii_only else " \u2192 "
        notes.append(Text(f"in {arrow.join(finding.region)}"))
    if finding.breaks:
        notes.append(Text(f"breaks in: {', '.join(mode.value for mode in finding.breaks)}"))
    fix = finding.fix
    if fix is not None:
        note = Text("help: ", style=NOTE_STYLE)
        note.append(fix.title)
        if fix.applicability is Applicability.UNSAFE and not show_unsafe:
            note.append(" (unsafe fix: needs --unsafe-fixes)")
        notes.append(note)
    return notes
