"""``--format json``: one array of findings, nothing else (a stable schema for tools)."""

from __future__ import annotations

import json
from collections.abc import Iterable

from compilelint.findings import Finding


def findings_to_json(findings: Iterable[Finding]) -> str:
    """The findings as one JSON array sorted by path, line, column (then code).

    Non-ASCII text is kept as is: the CLI writes the result as UTF-8 (RFC 8259).
    """
    ordered = sorted(findings, key=lambda f: f.sort_key)
    return json.dumps([finding.to_json() for finding in ordered], indent=2, ensure_ascii=False)
