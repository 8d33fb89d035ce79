"""Fixtures as tests: expected findings written on the offending lines, targets to compile."""

from __future__ import annotations

import importlib.util
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from dataclasses import replace
from typing import Any

from compilelint.config import DEFAULT_SETTINGS, Settings

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"
MARKER = re.compile(r"#\s*error:\s*\[([A-Z0-9,\s]+)\]")


@dataclass(frozen=True)
class RuleFixtures:
    code: str
    folder: Path

    @property
    def flagged(self) -> Path:
        return self.folder / "flagged.py"

    @property
    def clean(self) -> Path:
        return self.folder / "clean.py"

    @property
    def settings(self) -> Settings:
        """Default settings; a ``site-packages/`` folder in the fixture folder holds the
        packages its files call into (CL150), searched first, with summaries in memory."""
        packages = self.folder / "site-packages"
        if not packages.is_dir():
            return DEFAULT_SETTINGS
        return replace(DEFAULT_SETTINGS, package_paths=(str(packages),), package_cache_dir="")


def rule_fixture_folders() -> list[RuleFixtures]:
    folders = sorted(p for p in FIXTURES.iterdir() if p.is_dir() and re.match(r"CL\d{3}_", p.name))
    return [RuleFixtures(p.name[:5], p) for p in folders]


def expected_findings(path: Path) -> set[tuple[int, str]]:
    """(line, code) pairs written as ``# error: [CL101, CL105]`` comments."""
    expected = set()
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = MARKER.search(line)
        if match:
            for code in re.split(r"[,\s]+", match.group(1).strip()):
                expected.add((number, code))
    return expected


def load_module(path: Path) -> ModuleType:
    name = f"_fixture_{path.parent.name}_{path.stem}".replace("-", "_").replace(".", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def rebuilt(module: ModuleType, name: str) -> tuple[Any, list[Any]]:
    """A fresh callable and fresh inputs from the target ``name``: each mode compiles a model
    of its own, as a user's would be (state a first run leaves behind, a cached property, a
    flag set in place on an input, is not shared)."""
    fn, inputs = getattr(module, name)()
    return fn, list(inputs)


def targets(module: ModuleType) -> Iterator[tuple[str, Any, list[Any]]]:
    """(name, callable, input sets) for every ``target_*`` function of a fixture module."""
    for name in sorted(vars(module)):
        if name.startswith("target_") and callable(getattr(module, name)):
            fn, inputs = getattr(module, name)()
            yield name, fn, list(inputs)
