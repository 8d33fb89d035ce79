"""Shared pieces of the verifier tests: the data folder and findings built from markers.

``tests/verify/data/hazards.py`` carries ``# verify: CODE STATUS [MODES]`` on each hazard
line. The findings made from those markers stand in for the static linter, so these tests
check the verifier alone, whatever the rules flag today.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from compilelint.findings import Finding

DATA = Path(__file__).resolve().parent / "data"
_MARKER = re.compile(r"#\s*verify:\s*(?:(CL\d{3})\s+)?([a-z-]+)(?:\s+([a-z,]+))?")


@dataclass(frozen=True)
class Expectation:
    path: str
    line: int
    code: str | None  # None: a break no rule flags ("missed")
    status: str
    modes: tuple[str, ...]


def read_expectations(path: Path) -> list[Expectation]:
    found = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = _MARKER.search(text)
        if match:
            code, status, modes = match.groups()
            found.append(Expectation(str(path), number, code, status, tuple((modes or "").split(",")) if modes else ()))
    return found


def finding_at(path: str, line: int, code: str, span: tuple[int, int] | None = None) -> Finding:
    """A hand-made finding, as the engine would report it on one line."""
    return Finding(
        code=code, name="test-rule", message=f"{code} test finding", path=path,
        line=line, column=1, end_line=line, end_column=2,
        statement_lines=span or (line, line),
    )  # fmt: skip


@pytest.fixture(scope="session")
def data_dir() -> Path:
    return DATA


@pytest.fixture(scope="session")
def hazard_expectations() -> list[Expectation]:
    return read_expectations(DATA / "hazards.py")


@pytest.fixture(scope="session")
def marker_findings(hazard_expectations: list[Expectation]) -> list[Finding]:
    return [finding_at(e.path, e.line, e.code) for e in hazard_expectations if e.code]


@pytest.fixture(scope="session")
def make_finding() -> Callable[..., Finding]:
    return finding_at
