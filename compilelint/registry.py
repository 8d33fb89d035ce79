"""Rules: the base class every rule file subclasses, and discovery of the rules package.

Adding a rule touches its file in ``rules/`` and its fixture folder, nothing else: rules
are found by walking the package, and a rule with bad metadata fails at import, by name.
"""

from __future__ import annotations

import ast
import importlib
import pkgutil
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from compilelint.findings import Applicability, Mode

if TYPE_CHECKING:
    from compilelint.analysis.regions import RegionAnalysis
    from compilelint.context import RawFinding, RuleContext
    from compilelint.findings import Finding
    from compilelint.fix.edits import FixContext, FixEdit

DOC_SECTIONS = ("## What it does", "## Why is this bad?", "## Example", "## Use instead", "## Fix safety")
CODE_PATTERN = re.compile(r"^CL[1-8]\d\d$")
NAME_PATTERN = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)*$")


class RuleDefinitionError(TypeError):
    """A rule's metadata is incomplete or inconsistent."""


class Rule:
    """One hazard: its metadata, its docs (the class docstring) and its check.

    ``check`` is called for every node of a type in ``nodes`` that lies inside a compiled
    region (or anywhere in the file when ``scope == "module"``), and reports through
    ``ctx.report``. It never walks the tree or prints.
    """

    code: ClassVar[str]
    name: ClassVar[str]
    message: ClassVar[str]
    gb_ids: ClassVar[tuple[str, ...]] = ()
    breaks: ClassVar[tuple[Mode, ...]] = (Mode.DEFAULT, Mode.FULLGRAPH)
    # What was measured, and where: shown by `compilelint rule`.
    torch_versions: ClassVar[str] = "measured on torch 2.13 (CPU, backend eager)"
    nodes: ClassVar[tuple[type[ast.AST], ...]]
    scope: ClassVar[str] = "region"
    fix_applicability: ClassVar[Applicability | None] = None
    # True for a rule whose findings follow from where other rules' graph breaks lie: the
    # engine then runs the break rules even when unselected and calls ``derive``.
    derived_from_breaks: ClassVar[bool] = False

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        problems = _problems(cls)
        if problems:
            raise RuleDefinitionError(f"rule {cls.__module__}.{cls.__qualname__}: " + "; ".join(problems))

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        raise NotImplementedError

    def derive(self, breaks: Sequence[RawFinding], analysis: RegionAnalysis) -> list[RawFinding]:
        """Findings that follow from ``breaks`` (every rule's findings of this file), for
        rules with ``derived_from_breaks``; ``check`` may then be a no-op."""
        return []

    def build_fix(self, finding: Finding, fix: FixContext) -> FixEdit | None:
        """The libcst edits for ``finding`` (used by ``--fix``), from its ``fix_data``.

        Rules that attach a ``Fix`` override this; ``None`` means no fix after all (the
        finding stays). Import libcst inside: linting never pays for it.
        """
        raise NotImplementedError(f"{self.code} offers no fix")

    @classmethod
    def doc(cls) -> str:
        import inspect

        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def summary(cls) -> str:
        return cls.doc().split("\n", 1)[0]


def _problems(cls: type[Rule]) -> list[str]:
    problems = []
    code = getattr(cls, "code", "")
    if not CODE_PATTERN.match(code):
        problems.append(f"code {code!r} is not CL100-CL899")
    if not NAME_PATTERN.match(getattr(cls, "name", "")):
        problems.append("name must be a kebab-case slug")
    if not getattr(cls, "message", ""):
        problems.append("message is empty")
    if not getattr(cls, "nodes", ()):
        problems.append("nodes lists no ast node types")
    if cls.scope not in ("region", "module"):
        problems.append(f"scope {cls.scope!r} is not 'region' or 'module'")
    doc = cls.doc()
    missing = [section for section in DOC_SECTIONS if section not in doc]
    if missing:
        problems.append(f"docstring lacks {', '.join(missing)}")
    if any(not re.match(r"^GB\d{4}$", gb) for gb in cls.gb_ids):
        problems.append("gb_ids must look like GB0170")
    return problems


@dataclass(frozen=True)
class RuleSet:
    rules: tuple[Rule, ...]

    def by_code(self) -> dict[str, Rule]:
        return {rule.code: rule for rule in self.rules}

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)


_ALL: RuleSet | None = None


def all_rules() -> RuleSet:
    """Every rule in ``compilelint.rules``, sorted by code; duplicates are an error."""
    global _ALL
    if _ALL is None:
        _ALL = RuleSet(tuple(sorted((cls() for cls in _discover()), key=lambda r: r.code)))
    return _ALL


def _discover(package_name: str = "compilelint.rules") -> Iterator[type[Rule]]:
    package = importlib.import_module(package_name)
    seen: dict[str, str] = {}
    for module_info in sorted(pkgutil.iter_modules(package.__path__), key=lambda m: m.name):
        if module_info.ispkg or module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{package_name}.{module_info.name}")
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Rule) and value is not Rule:
                if value.__module__ != module.__name__:
                    continue  # imported into this module, defined elsewhere
                if value.code in seen:
                    raise RuleDefinitionError(
                        f"duplicate rule code {value.code}: {seen[value.code]} and {module.__name__}"
                    )
                seen[value.code] = module.__name__
                yield value
