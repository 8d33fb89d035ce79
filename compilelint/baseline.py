"""Baselines: adopt compilelint on a project with many findings, and fail CI only on new ones.

``--write-baseline FILE`` records the current findings; ``--baseline FILE`` hides those
again. A finding is matched by its rule, its file (relative to the baseline's folder), the
function it is in, and its statement's text with whitespace and comments normalised, not
by line number: code that moves keeps its findings baselined, and an edited statement
becomes a new finding. Each fingerprint carries a count, so a second copy of a baselined
line is reported.
"""

from __future__ import annotations

import io
import json
import os
import re
import tokenize
from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from compilelint.findings import Finding

FORMAT = 1
Fingerprint = tuple[str, str, str, str]  # code, path, function, statement


def normalise(source: str) -> str:
    """A statement's text without comments, and with runs of whitespace made one space."""
    try:
        tokens = [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)
                  if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT)]  # fmt: skip
        return " ".join(tokens).strip()
    except (tokenize.TokenError, SyntaxError, IndentationError):
        return re.sub(r"\s+", " ", source).strip()


def fingerprint(finding: Finding, lines: Sequence[str] | None, folder: str) -> Fingerprint:
    path = os.path.relpath(os.path.abspath(finding.path), folder).replace(os.sep, "/")
    function = finding.region[-1] if finding.region else ""
    start, end = finding.statement_lines if finding.statement_lines != (0, 0) else (finding.line, finding.end_line)
    if lines is None or finding.code.startswith("CL9"):
        statement = finding.message
    else:
        statement = normalise("\n".join(lines[start - 1 : end]).strip() + "\n")
    return finding.code, path, function, statement


LinesOf = Callable[[str], "Sequence[str] | None"]


def write_baseline(file: str, findings: Iterable[Finding], lines_of: LinesOf) -> int:
    folder = os.path.dirname(os.path.abspath(file))
    counts = Counter(fingerprint(f, lines_of(f.path), folder) for f in findings)
    entries = [{"code": c, "path": p, "function": fn, "statement": s, "count": n}
               for (c, p, fn, s), n in sorted(counts.items())]  # fmt: skip
    payload = {"tool": "compilelint", "format": FORMAT, "findings": entries}
    with open(file, "w", encoding="utf-8", newline="\n") as handle:
        handle.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    return sum(counts.values())


class BaselineError(Exception):
    pass


def read_baseline(file: str) -> Counter[Fingerprint]:
    try:
        with open(file, encoding="utf-8") as handle:
            payload = json.load(handle)
        entries = payload["findings"]
        return Counter({(e["code"], e["path"], e["function"], e["statement"]): int(e["count"]) for e in entries})
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise BaselineError(f"{file}: not a compilelint baseline: {error}") from error


def without_baselined(findings: Sequence[Finding], file: str, lines_of: LinesOf) -> tuple[list[Finding], int]:
    """The findings the baseline does not cover, and how many it hid."""
    left = read_baseline(file)
    folder = os.path.dirname(os.path.abspath(file))
    kept = []
    for finding in sorted(findings, key=lambda f: f.sort_key):
        key = fingerprint(finding, lines_of(finding.path), folder)
        if left[key] > 0:
            left[key] -= 1
        else:
            kept.append(finding)
    return kept, len(findings) - len(kept)
