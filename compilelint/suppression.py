"""Suppression comments.

- ``# noqa`` / ``# noqa: CL101,CL103`` anywhere on the lines of the finding's statement (a
  compound statement's header only: a comment in an ``if``'s body does not silence the
  ``if``), flake8's syntax.
- ``# compilelint: noqa`` on a line of its own silences the whole file;
  ``# compilelint: noqa: CL101,CL2`` only those codes (ruff's ``# ruff: noqa``).
"""

from __future__ import annotations

import ast
import re

# flake8's own pattern: codes separated by commas and/or whitespace; anything else after
# "noqa" that is not a code list makes it a blanket noqa.
_NOQA = re.compile(
    r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?",
    re.IGNORECASE,
)
_FILE_NOQA = re.compile(
    r"^[ \t]*#[ \t]*compilelint:[ \t]*noqa(?::[ \t]*(?P<codes>[A-Z]+[0-9]*(?:[ \t]*,[ \t]*[A-Z]+[0-9]*)*))?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)


def noqa_codes(line: str) -> frozenset[str] | None:
    """None without a noqa comment; an empty set for a bare ``# noqa``; else its codes."""
    if "noqa" not in line.lower():
        return None
    match = _NOQA.search(line)
    if match is None:
        return None
    codes = match.group("codes")
    if not codes:
        return frozenset()
    return frozenset(code.upper() for code in re.split(r"[,\s]+", codes) if code)


def is_suppressed(line: str, code: str) -> bool:
    codes = noqa_codes(line)
    if codes is None:
        return False
    return not codes or any(code.startswith(c) for c in codes)


def file_noqa_codes(source: str) -> frozenset[str] | None:
    """None without a file-level comment; empty for all codes; else the union of their codes."""
    if "compilelint:" not in source:
        return None
    found: set[str] | None = None
    for match in _FILE_NOQA.finditer(source):
        codes = match.group("codes")
        if not codes:
            return frozenset()
        found = (found or set()) | {c.strip().upper() for c in codes.split(",")}
    return None if found is None else frozenset(found)


def is_file_suppressed(codes: frozenset[str] | None, code: str) -> bool:
    return codes is not None and (not codes or code.startswith(tuple(codes)))


def noqa_span(node: ast.AST, statement: ast.stmt | None) -> tuple[int, int]:
    """The lines whose ``# noqa`` applies to a finding at ``node``: its statement's lines, or
    for a compound statement (``if``, ``for``, ``def`` ...) the header's."""
    line = getattr(node, "lineno", 1)
    if statement is None:
        return line, getattr(node, "end_lineno", None) or line
    start = min(statement.lineno, line)
    body = getattr(statement, "body", None)
    if isinstance(body, list) and body and isinstance(body[0], ast.AST):
        end = max(start, getattr(body[0], "lineno", start) - 1, line)
    else:
        end = max(statement.end_lineno or start, line)
    return start, end
