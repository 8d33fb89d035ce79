"""``--add-noqa``: a ``# noqa: CLnnn`` on each line where a finding starts, so a project can
adopt compilelint and fix the findings one by one (ruff's ``--add-noqa``).

Only those lines change; every other byte (encoding, BOM, line endings) is kept, and the
file is written atomically (``fix.write``). Codes already on a line are kept and merged, a
blanket ``# noqa`` is left alone, and a second run adds nothing. A line that ends inside a
multi-line string gets its comment where the string ends, still in the statement (where
compilelint's and the flake8 plugin's noqa apply).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from compilelint.findings import Finding
from compilelint.suppression import noqa_codes

_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)?")
_NOQA_COMMENT = re.compile(r"#\s*noqa(?::\s?[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*)?", re.IGNORECASE)


@dataclass(frozen=True)
class NoqaEdit:
    path: str
    added: int  # comments added or extended
    error: str | None = None


def _split_lines(text: str) -> list[str]:
    """Lines with their own line breaks, as ast counts them (\\n, \\r\\n, \\r)."""
    lines = _LINE.findall(text)
    return lines[:-1] if lines and lines[-1] == "" else lines


def _string_ends(text: str) -> dict[int, int]:
    """Line -> the line where a token that runs past its end (a multi-line string) ends."""
    moved: dict[int, int] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.start[0] < token.end[0] and token.type != tokenize.NL:
                for row in range(token.start[0], token.end[0]):
                    moved[row] = token.end[0]
    except (tokenize.TokenError, SyntaxError):
        pass
    return moved


def add_noqa(text: str, findings: Iterable[Finding]) -> tuple[str, int]:
    """``text`` with the comments added, and how many lines changed."""
    wanted: dict[int, set[str]] = {}
    moved = _string_ends(text)
    for finding in findings:
        row = finding.line
        while row in moved:
            row = moved[row]
        wanted.setdefault(row, set()).add(finding.code)
    lines = _split_lines(text)
    changed = 0
    for number, codes in wanted.items():
        if not 1 <= number <= len(lines):
            continue
        line = lines[number - 1]
        body = line.rstrip("\r\n")
        ending = line[len(body):]
        existing = noqa_codes(body)
        if existing is not None and (not existing or codes <= existing):
            continue  # a blanket noqa, or every code is there already
        if existing is not None:
            merged = ", ".join(sorted(existing | codes))
            body = _NOQA_COMMENT.sub(lambda _: f"# noqa: {merged}", body, count=1)
        else:
            body = f"{body.rstrip()}  # noqa: {', '.join(sorted(codes))}"
        lines[number - 1] = body + ending
        changed += 1
    return "".join(lines), changed


def add_noqa_to_files(findings: Sequence[Finding]) -> list[NoqaEdit]:
    from compilelint.files import SourceError, read_bytes
    from compilelint.fix.write import WriteError, atomic_write

    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        if not finding.code.startswith("CL9"):  # a file that was not linted has no line to mark
            by_path.setdefault(finding.path, []).append(finding)
    edits = []
    for path, found in sorted(by_path.items()):
        try:
            data = read_bytes(path)
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            text = data.decode(encoding)
            new_text, count = add_noqa(text, found)
            if count:
                new_data = new_text.encode(encoding)
                ast.parse(new_data)  # comments only: must still parse (and to the same tree)
                atomic_write(path, new_data, data)
            edits.append(NoqaEdit(path, count))
        except (SourceError, WriteError, SyntaxError, UnicodeError, ValueError, OSError) as error:
            edits.append(NoqaEdit(path, 0, f"{type(error).__name__}: {error}"))
    return edits
