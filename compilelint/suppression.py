"""``# noqa`` and ``# noqa: CL101,CL103`` on the line a finding starts on (flake8's rule)."""

from __future__ import annotations

import re

# flake8's own pattern: codes separated by commas and/or whitespace; anything else after
# "noqa" that is not a code list makes it a blanket noqa.
_NOQA = re.compile(
    r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?",
    re.IGNORECASE,
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
