"""What a function of an installed package breaks on, given the kinds of its arguments.

A summary is computed the way a project is linted, restricted to what the call reaches:
the function's file is analysed with the function as its only entry point (no other
roots: a package file full of modules compiles only what the call runs), the calls it
makes into other files of the same package become entry points there, for a few rounds.
Calls into other installed packages are summarised in turn (the CL150 rule runs inside
package files too), so a summary's sites include theirs. Summaries are memoised in the
process and kept on disk (``cache.py``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from compilelint.analysis import duck_calls
from compilelint.analysis.kinds import Kind
from compilelint.installed.cache import SummaryStore, file_stamp
from compilelint.installed.locate import Located, Locator, Package
from compilelint.installed.package_facts import DIAGNOSTIC_CODES, conditional_lines, method_owners, registered_in_graph
from compilelint.project import EntryPoint, ExternalCall, KnownReturn, module_name, record_attributes

if TYPE_CHECKING:
    from compilelint.config import Settings
    from compilelint.findings import FileResult, Finding

MAX_ROUNDS = 16  # cross-file rounds inside one package (an inherited method costs a round per class)
MAX_FILES = 60  # files of a package one summary may analyse
# Source lines one summary may analyse, all rounds together: a call that fans out into a
# large library (scipy.sparse.linalg.eigs reaches 55 files of scipy.linalg, re-analysed
# round after round as kinds settle) stops there instead of running for minutes. The sites
# found by then are kept, and the summary says it stopped (``Summary.truncated``).
MAX_LINES = 250_000


@dataclass(frozen=True)
class InnerSite:
    """One hazard inside a package that a call reaches."""

    path: str  # relative to the site folder: "torchdiffeq/_impl/rk_common.py"
    line: int
    code: str
    gb_ids: tuple[str, ...]
    breaks: tuple[str, ...]  # Mode values
    text: str  # the source line, stripped
    chain: tuple[str, ...]  # functions from the called one to the one holding the site
    end_line: int = 0  # the statement's last line (0: the site's line)
    start_line: int = 0  # the statement's first line (0: the site's line)
    # runs only when Python conditions hold: around it (Finding.only_when) or on the way
    # into its function from the called one (Finding.entry_conditions)
    conditional: bool = False

    def to_json(self) -> dict[str, Any]:
        return {"path": self.path, "line": self.line, "code": self.code, "gb_ids": list(self.gb_ids),
                "breaks": list(self.breaks), "text": self.text, "chain": list(self.chain),
                "end_line": self.end_line, "start_line": self.start_line, "conditional": self.conditional}  # fmt: skip

    @staticmethod
    def from_json(data: dict[str, Any]) -> InnerSite:
        return InnerSite(data["path"], data["line"], data["code"], tuple(data["gb_ids"]), tuple(data["breaks"]),
                         data["text"], tuple(data["chain"]), int(data.get("end_line", 0)), int(data.get("start_line", 0)),
                         bool(data.get("conditional", False)))  # fmt: skip


@dataclass(frozen=True)
class Summary:
    target: str
    package: Package
    sites: tuple[InnerSite, ...]
    # "package:<root folder>" of this package and of those it calls into (compilelint.cache)
    depends_on: tuple[str, ...]
    files: tuple[str, ...] = ()  # the package files the call runs into (absolute)
    # the function may return a ``StopIteration.value`` it read (KnownReturn.stop_value)
    stop_value: bool = False
    truncated: bool = False  # stopped at MAX_LINES: later rounds might have found more
    returns: Kind = Kind.NONE  # what the function returns (NONE: not known)
    is_property: bool = False  # a property getter (KnownReturn.is_property)


def summary_key(name: str, positional: Sequence[Kind], keywords: Iterable[tuple[str, Kind]], root: bool) -> str:
    kinds = ",".join(str(int(k)) for k in positional)
    named = ",".join(f"{n}={int(k)}" for n, k in sorted(keywords))
    return f"{name}({kinds};{named}){'root' if root else ''}"


class PackageFollower:
    """Summaries of installed packages for one configuration (site folders, cache)."""

    def __init__(self, locator: Locator, store: SummaryStore, settings: Settings) -> None:
        self.locator = locator
        self.store = store
        self.settings = settings
        self._memo: dict[str, Summary | None] = {}
        self._in_progress: set[str] = set()

    def summary(
        self, target: str, positional: Sequence[Kind], keywords: Sequence[tuple[str, Kind]], root: bool = False
    ) -> Summary | None:
        """What calling ``target`` (a dotted name) with these argument kinds breaks on."""
        located = self.locator.locate(target)
        if located is None or not located.name:
            return None
        package = located.package
        key = f"{located.module}:" + summary_key(located.name, positional, keywords, root)
        if key in self._memo:
            return self._memo[key]
        if key in self._in_progress:
            return None  # a cycle between packages: the outer summary covers it
        stored = self.store.get(package.distribution, package.version, key)
        if stored is not None:
            result = _from_entry(target, package, stored)
        else:
            self._in_progress.add(key)
            try:
                result, entry = self._compute(target, located, positional, keywords, root)
            finally:
                self._in_progress.discard(key)
            self.store.put(package.distribution, package.version, key, entry)
        self._memo[key] = result
        return result

    def _compute(
        self, target: str, located: Located, positional: Sequence[Kind], keywords: Sequence[tuple[str, Kind]], root: bool
    ) -> tuple[Summary, dict[str, Any]]:
        from compilelint.engine import lint_file  # the engine imports this module

        package = located.package
        opaque = self._registered(package)
        short = target.rsplit(".", 1)[-1] if "." not in located.name else located.name
        start = EntryPoint(name=located.name, positional=list(positional), keywords=dict(keywords), chain=(short,), root=root)
        entries: dict[str, dict[str, EntryPoint]] = {located.path: {located.name: start}}
        contributions: dict[tuple[str, str], dict[str, list[ExternalCall]]] = {}
        results: dict[str, FileResult] = {}
        returns: dict[str, KnownReturn] = {}  # what the functions analysed so far return
        attributes: dict[tuple[str, str], tuple[str, ...]] = {}  # what instances attributes hold
        pending = {located.path} if (located.path, located.name) not in opaque else set()
        budget = _LineBudget(MAX_LINES)
        for _ in range(MAX_ROUNDS):
            analysed = budget.take(sorted(pending))
            if not analysed:
                break
            for path in analysed:
                results[path] = lint_file(path, self.settings, tuple(entries[path].values()), module_name(path),
                                          roots=False, known_returns=returns, known_attributes=attributes)  # fmt: skip
            pending = set(analysed)
            changed = _new_returns([results[p] for p in pending], returns)
            stored = record_attributes((fact for p in pending for fact in results[p].attributes), attributes)
            pending = self._new_entries([results[p] for p in pending], package, entries, opaque, contributions,
                                        ((located.path, located.name), start))  # fmt: skip
            pending |= {path for path, result in results.items() if any(c.target in changed for c in result.calls)}
            if stored:  # an attribute holds new instances: any file may call methods on it
                pending |= set(results)
            pending = {p for p in pending if p in results or len(results) < MAX_FILES}
        site_dir = os.path.dirname(package.root)
        unique = {(s.path, s.line, s.code): s for s in (_site(f, site_dir) for r in results.values() for f in r.findings if _counts(f, r.decided_ifs))}
        sites = sorted(unique.values(), key=lambda s: (s.path, s.line))  # one per line and rule: `a < 0 or b < 0`
        depends = {f"package:{package.root}"}
        for result in results.values():
            depends.update(result.depends_on)
        known = returns.get(f"{located.module}.{located.name}")
        stop_value = known is not None and known.stop_value
        returned = known.kind if known is not None else Kind.NONE
        getter = known is not None and known.is_property
        summary = Summary(target, package, tuple(sites), tuple(sorted(depends)), tuple(sorted(results)), stop_value,
                          budget.exceeded, returned, getter)  # fmt: skip
        entry = {
            "sites": [s.to_json() for s in sites],
            "stop_value": stop_value,
            "returns": int(returned),
            "is_property": getter,
            "truncated": budget.exceeded,
            "depends_on": summary.depends_on,
            "files": {path: file_stamp(path) for path in results},
        }
        return summary, entry

    def _registered(self, package: Package) -> frozenset[tuple[str, str]]:
        """(file, name) of the package's functions registered with ``allow_in_graph``."""
        key = "allow_in_graph"
        stored = self.store.get(package.distribution, package.version, key)
        names = stored["names"] if stored is not None else registered_in_graph(package.root)
        if stored is None:
            self.store.put(package.distribution, package.version, key, {"names": names, "files": {}})
        places = (self.locator.locate(name) for name in names)
        return frozenset((p.path, p.name) for p in places if p is not None)

    def _new_entries(
        self,
        results: Iterable[FileResult],
        package: Package,
        entries: dict[str, dict[str, EntryPoint]],
        opaque: frozenset[tuple[str, str]],
        contributions: dict[tuple[str, str], dict[str, list[ExternalCall]]],
        start: tuple[tuple[str, str], EntryPoint],
    ) -> set[str]:
        """The files whose entry points changed. Each caller file's latest calls replace
        its earlier ones: kinds it passed before it knew what a callee returns
        (UNKNOWN) do not stick to the entry once it passes a tensor."""
        touched: set[tuple[str, str]] = set()
        for result in results:
            mine: dict[tuple[str, str], list[ExternalCall]] = {}
            for call in _with_duck_targets(result.calls, package):
                located = self.locator.locate(call.target)
                if located is None or located.package != package or not located.name:
                    continue
                if (located.path, located.name) in opaque:
                    continue  # Dynamo calls it whole, never tracing the body
                if located.path == result.path and located.name in entries.get(result.path, {}):
                    continue
                mine.setdefault((located.path, located.name), []).append(call)
            for key, by_caller in contributions.items():
                if result.path in by_caller and key not in mine:
                    del by_caller[result.path]
                    touched.add(key)
            for key, calls in mine.items():
                contributions.setdefault(key, {})[result.path] = calls
                touched.add(key)
        changed: set[str] = set()
        for path, name in touched:
            rebuilt = _entry_from(name, contributions.get((path, name), {}), start[1] if (path, name) == start[0] else None)
            old = entries.get(path, {}).get(name)
            if rebuilt is None or (old is not None and _same_entry(old, rebuilt)):
                continue
            entries.setdefault(path, {})[name] = rebuilt
            changed.add(path)
        return changed


class _LineBudget:
    """The source lines a summary has analysed, counted each time a file is analysed."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.spent = 0
        self.exceeded = False
        self._lines: dict[str, int] = {}

    def take(self, paths: Iterable[str]) -> list[str]:
        """The paths, in order, that the budget still allows, spending their lines (the
        first file of a summary is always analysed)."""
        taken = []
        for path in paths:
            lines = self.lines(path)
            if self.spent and self.spent + lines > self.limit:
                self.exceeded = True
                continue
            self.spent += lines
            taken.append(path)
        return taken

    def lines(self, path: str) -> int:
        if path not in self._lines:
            try:
                with open(path, "rb") as handle:
                    self._lines[path] = handle.read().count(b"\n") + 1
            except OSError:
                self._lines[path] = 1
        return self._lines[path]


def _with_duck_targets(calls: Iterable[ExternalCall], package: Package) -> Iterator[ExternalCall]:
    """The calls, ``obj.name(...)`` on an object of no known class (``"*.name"``,
    analysis.duck_calls) becoming one call per class of the package that defines ``name``."""
    for call in calls:
        method = duck_calls.method_of(call.target)
        if method is None:
            yield call
            continue
        for owner in duck_calls.capped(method_owners(package.root, method, MAX_FILES)):
            yield replace(call, target=f"{owner}.{method}")


def _entry_from(name: str, by_caller: dict[str, list[ExternalCall]], start: EntryPoint | None) -> EntryPoint | None:
    if start is None and not by_caller:
        return None
    entry = replace(start, positional=list(start.positional), keywords=dict(start.keywords), objects=dict(start.objects)) if start else EntryPoint(name=name)
    for caller in sorted(by_caller):
        for call in by_caller[caller]:
            if not entry.chain:
                entry.chain = call.chain + (name,)
            entry.merge(call)
    return entry


def _same_entry(a: EntryPoint, b: EntryPoint) -> bool:
    return (a.positional, a.keywords, a.receivers, a.root, a.objects, a.spread) == (
        b.positional, b.keywords, b.receivers, b.root, b.objects, b.spread
    )


def _new_returns(results: Iterable[FileResult], returns: dict[str, KnownReturn]) -> set[str]:
    """Record the returns these results found; the names whose return changed (their
    callers are analysed again, with it)."""
    changed = set()
    for result in results:
        for name, known in result.returns:
            if returns.get(name) != known:
                returns[name] = known
                changed.add(name)
    return changed


def _counts(finding: Finding, decided: tuple[int, ...] = ()) -> bool:
    """A graph break a call meets: not a diagnostic on a side path (``package_facts``);
    an ``if`` the analysis decided is no side path."""
    if not finding.breaks or not finding.code.startswith("CL1"):
        return False
    return finding.code not in DIAGNOSTIC_CODES or finding.line not in conditional_lines(finding.path, frozenset(decided))


def _site(finding: Finding, site_dir: str) -> InnerSite:
    try:
        with open(finding.path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().splitlines()
        text = lines[finding.line - 1].strip() if 0 < finding.line <= len(lines) else ""
    except OSError:
        text = ""
    return InnerSite(
        os.path.relpath(finding.path, site_dir).replace(os.sep, "/"),
        finding.line,
        finding.code,
        finding.gb_ids,
        tuple(mode.value for mode in finding.breaks),
        text[:120],
        finding.region,
        max(finding.statement_lines[1], finding.line),
        min(finding.statement_lines[0] or finding.line, finding.line),
        bool(finding.only_when or finding.entry_conditions),
    )


def _from_entry(target: str, package: Package, entry: Any) -> Summary:
    sites = tuple(InnerSite.from_json(site) for site in entry["sites"])
    return Summary(target, package, sites, tuple(entry["depends_on"]), tuple(sorted(entry["files"])),
                   bool(entry.get("stop_value", False)), bool(entry.get("truncated", False)),
                   Kind(int(entry.get("returns", 0))), bool(entry.get("is_property", False)))  # fmt: skip


def with_follow(settings: Settings) -> Settings:
    """The settings a package's files are linted with: every graph-break rule, no noqa
    (a package's ``# noqa`` is for its own linters), the same site folders and cache."""
    from compilelint.config import Selection

    return replace(settings, layers=(Selection(select=("CL1",)),), per_file_ignores=(), apply_noqa=False)
