"""Which compiled functions of a file break the graph whenever they run.

Built from the breaks the rules found (default mode, not behind Python conditions) and
from what other files' analyses say about the functions called there
(``KnownReturn.breaks``), through ``frames``' propagation: a break on every path, or a
call on every path of a function that always breaks (as ``eager_code.break_points``
counts a callee). The engine passes each entry function's answer on
to its callers' files (``KnownReturn.breaks``), so that a package's ``solver.integrate(t)``
learns that ``integrate``, three files away, breaks (CL124: GB0092 at that call).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Protocol

from compilelint.analysis.frames import always_breaking_functions, breaking_functions, own_nodes
from compilelint.analysis.module_index import FunctionInfo
from compilelint.findings import Mode

if TYPE_CHECKING:
    from compilelint.analysis.regions import RegionAnalysis

class Break(Protocol):
    """What this module reads of a finding (compilelint.context.RawFinding)."""

    @property
    def code(self) -> str: ...

    @property
    def node(self) -> ast.AST: ...

    @property
    def region(self) -> tuple[str, ...]: ...

    @property
    def breaks(self) -> tuple[Mode, ...]: ...

    @property
    def only_when(self) -> tuple[str, ...]: ...


def always_breaking(breaks: Iterable[Break], analysis: RegionAnalysis) -> frozenset[str]:
    """Qualnames of the region's functions that break the graph whenever they run."""
    direct = direct_breaks(breaks, analysis)
    if not direct:
        return frozenset()
    functions, callers = call_graph(analysis)
    return always_breaking_functions(functions, direct, analysis.resolved_calls, callers, analysis.parents_of)


def break_points(breaks: Iterable[Break], analysis: RegionAnalysis) -> dict[str, list[ast.AST]]:
    """Per compiled function (qualname), where it breaks whenever execution gets there: its
    unconditional default-mode breaks and its calls of functions that always break."""
    direct = direct_breaks(breaks, analysis)
    if not direct:
        return {}
    functions, callers = call_graph(analysis)
    return breaking_functions(functions, direct, analysis.resolved_calls, callers, analysis.parents_of)


def direct_breaks(breaks: Iterable[Break], analysis: RegionAnalysis, ignored: Iterable[str] = ()) -> dict[str, list[ast.AST]]:
    """Per compiled function (qualname), the default-mode breaks in it that hold whenever it
    runs (not a short-circuited operand's), and its calls of other files' functions that
    always break (``KnownReturn.breaks``); rules named in ``ignored`` do not count."""
    skip = frozenset(ignored)
    direct: dict[str, list[ast.AST]] = {}
    for finding in breaks:
        if finding.code.startswith("CL1") and finding.code not in skip and Mode.DEFAULT in finding.breaks and finding.region:
            if not finding.only_when:
                direct.setdefault(finding.region[-1], []).append(finding.node)
    for caller, call in breaking_external_calls(analysis):
        direct.setdefault(caller, []).append(call)
    return direct


def call_graph(analysis: RegionAnalysis) -> tuple[list[FunctionInfo], dict[str, list[FunctionInfo]]]:
    """The region's functions, and for each (qualname) the functions of the region that call it."""
    functions: list[FunctionInfo] = []
    callers: dict[str, list[FunctionInfo]] = {}
    for state in analysis.regions():
        functions.append(state.info)
        callers[state.info.qualname] = [analysis.states[c].info for c in state.callers if c in analysis.states]
    return functions, callers


def breaking_external_calls(analysis: RegionAnalysis) -> Iterator[tuple[str, ast.Call]]:
    """(calling function's qualname, call) for calls into other files whose analysis found
    that the callee always breaks."""
    by_name = {state.info.qualname: state.info for state in analysis.regions()}
    for (target, chain), sites in analysis.external_sites.items():
        known = analysis.known_return(target)
        if known is None or not known.breaks or not chain or chain[-1] not in by_name:
            continue
        caller = by_name[chain[-1]]
        for node in own_nodes(caller.node):
            if isinstance(node, ast.Call) and id(node) in sites:
                yield caller.qualname, node
