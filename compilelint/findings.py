"""The values that flow out of the engine: findings, their fixes, and per-file results."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Any


class Mode(str, enum.Enum):
    """A way of calling ``torch.compile`` whose behaviour a rule predicts."""

    DEFAULT = "default"  # torch.compile(fn): breaks split the graph, the rest runs eager
    FULLGRAPH = "fullgraph"  # torch.compile(fn, fullgraph=True): any break is an error
    # torch.compile(fn) with its default backend: Dynamo traces the code without a break,
    # and Inductor then fails to compile the graph (measured with backend="inductor")
    INDUCTOR = "inductor"
    # torch.compile(fn, dynamic=True) only: Dynamo traces the code in the default mode with
    # the value as a constant (a float attribute or global), and dynamic=True makes it a
    # symbolic input from the first call. Where the default mode breaks, dynamic=True
    # breaks too, so findings that claim "default" do not name this mode as well
    DYNAMIC = "dynamic"


class Applicability(str, enum.Enum):
    """Whether a fix may change behaviour (ruff's vocabulary)."""

    SAFE = "safe"  # eager behaviour unchanged; applied by --fix
    UNSAFE = "unsafe"  # may change results, errors or gradients; needs --unsafe-fixes


@dataclass(frozen=True)
class Fix:
    """A fix a rule offers for one finding.

    The edit itself is built lazily by the rule (``Rule.build_fix``) on the libcst tree of
    the file, only when fixes are applied: linting never pays for libcst.
    """

    applicability: Applicability
    title: str

    def to_json(self) -> dict[str, str]:
        return {"applicability": self.applicability.value, "title": self.title}


@dataclass(frozen=True)
class ReachedSite:
    """A hazard inside an installed package that a call-site finding (CL150/CL151) reaches."""

    path: str  # relative to the site folder: "torchdiffeq/_impl/misc.py"
    line: int
    statement: tuple[int, int]  # first and last line of the statement holding it
    code: str
    gb_ids: tuple[str, ...]
    breaks: tuple[Mode, ...]
    conditional: bool = False  # reached only when Python conditions hold there

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "statement": list(self.statement), "code": self.code,
                "gb_ids": list(self.gb_ids), "breaks": [mode.value for mode in self.breaks],
                "conditional": self.conditional}  # fmt: skip


@dataclass(frozen=True)
class Finding:
    """One hazard at one place in one file.

    Lines and columns are 1-based; columns count characters (not UTF-8 bytes), end
    positions are exclusive, as in ruff's JSON output.
    """

    code: str
    name: str
    message: str
    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    region: tuple[str, ...] = ()
    breaks: tuple[Mode, ...] = ()
    gb_ids: tuple[str, ...] = ()
    fix: Fix | None = None
    # First and last line of the statement holding the finding: the verifier matches a
    # Dynamo event to a finding when the event's line lies in this span.
    statement_lines: tuple[int, int] = (0, 0)
    # Free-form data a rule keeps for building its fix later (never serialised).
    fix_data: Any = field(default=None, compare=False, repr=False)
    # Source of the Python conditions that must hold for the flagged expression to run at
    # all (`self.training` in `self.training and p < 0.1`): a run where they are false
    # cannot confirm the finding.
    only_when: tuple[str, ...] = ()
    # The measured behaviour the finding predicts (rules/claims/<release>.json); the rule's
    # code unless the rule distinguishes cases whose behaviour differs between releases.
    claim: str = ""
    # The measured torch release the finding was judged against, and why that one
    # (compilelint/torch_versions.py).
    torch_release: str = ""
    torch_reason: str = ""
    # Files inside installed packages the flagged call runs into (CL150): a Dynamo break
    # in one of them, reached from this line, confirms the finding.
    reaches: tuple[str, ...] = ()
    # Every site inside those packages the call reaches (the message shows the first few).
    reached_sites: tuple[ReachedSite, ...] = ()
    # The Python tests every way into the finding's function shares (analysis.call_conditions:
    # `if exists(config): return self.make(config)` reaches `make` only when it holds); a
    # package site under them is conditional for the call that reaches it.
    entry_conditions: tuple[str, ...] = ()

    @property
    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.code)

    def to_json(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "end_line": self.end_line,
            "end_column": self.end_column,
            "region": list(self.region),
            "breaks": [mode.value for mode in self.breaks],
            "gb_ids": list(self.gb_ids),
            "fix": self.fix.to_json() if self.fix else None,
            "torch": {"release": self.torch_release, "why": self.torch_reason} if self.torch_release else None,
            **({"reached": [site.to_json() for site in self.reached_sites]} if self.reached_sites else {}),
        }


@dataclass(frozen=True)
class FileResult:
    """What linting one file produced."""

    path: str
    findings: tuple[Finding, ...] = ()
    skipped: bool = False  # never parsed: no mention of torch
    # calls from compiled regions to functions imported from other modules, with absolute
    # targets (compilelint.project.ExternalCall); they drive cross-file analysis
    calls: tuple[Any, ...] = ()
    # what else the findings were computed from, as "kind:name" ("package:transformers"):
    # the results cache re-lints the file when one's fingerprint changes (compilelint.cache)
    depends_on: tuple[str, ...] = ()
    # (absolute name, compilelint.project.KnownReturn) of the entry functions analysed here
    returns: tuple[tuple[str, Any], ...] = ()
    # compilelint.project.ClassRecord of each top-level class: how calls dispatch across files
    classes: tuple[Any, ...] = ()
    # (absolute class name, attribute, absolute class names): what instances an attribute
    # of that class was found to hold (compilelint.analysis.objects)
    attributes: tuple[tuple[str, str, tuple[str, ...]], ...] = ()
    # lines of `if` statements whose test the analysis decided (`if bm is None:` with a None
    # default no call replaces): what they hold is not on a side path
    decided_ifs: tuple[int, ...] = ()
    # (name, absolute qualified name, called or its attributes read here) of the names
    # only module-level imports bind: what another file of the run gets by importing the
    # name from this module (compilelint.project.reexported_imports)
    imports: tuple[tuple[str, str, bool], ...] = ()
    # (absolute class name, argument key, callables, instances): what this file's constructions
    # of other files' classes pass them (compilelint.analysis.construction_facts)
    constructions: tuple[tuple[str, str, tuple[str, ...], tuple[str, ...]], ...] = ()
