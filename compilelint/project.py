"""Cross-file analysis: which file defines the helper a compiled region imports.

Phase one lints every file on its own and collects the calls its compiled regions make
to functions imported from elsewhere. Those that resolve to a file of the run become
extra roots of that file, which is analysed again in phase two (and so on, a few rounds):
a helper in ``utils.py`` called from ``modeling_x.py``'s ``forward`` is compiled code too.
The module map comes from paths alone, so phase one stays embarrassingly parallel.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from compilelint.analysis.kinds import Kind, join_passed

if TYPE_CHECKING:
    from compilelint.findings import FileResult


@dataclass(frozen=True)
class ExternalCall:
    """A call from a compiled region to a function imported from another module."""

    target: str  # fully qualified: "transformers.masking_utils.create_causal_mask"
    positional: tuple[Kind, ...]
    keywords: tuple[tuple[str, Kind], ...]
    chain: tuple[str, ...]  # the caller's region chain
    root: bool = False  # not a call: the caller's file compiles it (torch.compile(crf.decode))
    # the classes ``self`` may be an instance of, for a method inherited from another file
    # (``Dopri5Solver().integrate`` runs ``AdaptiveStepsizeODESolver.integrate``): its
    # ``self.step()`` calls run the receiver's override. "@Name" is a class of the caller's
    # own module (resolved to an absolute name with the caller's module).
    receivers: tuple[str, ...] = ()
    # (position "0".. or keyword, classes): the instances an argument may be, absolute
    # names once the engine resolves them (compilelint.analysis.objects)
    objects: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # the call spreads ``*args`` or ``**kwargs`` it does not see into: it may give any parameter
    spread: bool = False


@dataclass(frozen=True)
class KnownReturn:
    """What a function of another file returns, as its file's analysis found it: callers
    analysed after it see a tensor where it returns one (``t = _check_inputs(...)[3]``)."""

    kind: Kind
    elements: tuple[Kind, ...] | None = None  # per position, when it returns a tuple
    # absolute names of the classes or functions it returns (``return Euler``): a call of
    # the result constructs one of them (``solver = methods.select(m)(f)``)
    classes: tuple[str, ...] = ()
    # it breaks the graph whenever it runs (compilelint.analysis.breaking): a method call
    # on an object the caller built then fails to split the caller's graph (CL124)
    breaks: bool = False
    # a class whose instances hold bound methods of themselves (``self.f = self._default``,
    # analysis.method_attributes): one built in compiled code cannot be rebuilt at a graph
    # break while it is live (CL124, GB0092)
    holds_own_methods: bool = False
    # it may return a generator's return value read off ``StopIteration.value`` (a trampoline,
    # analysis.stop_values): Dynamo cannot type it, and using it breaks the graph (CL135)
    stop_value: bool = False
    # a @property (or cached_property) getter: reading the attribute runs it
    # (``X.interval`` of ``X = torchcde.CubicSpline(coeffs)``)
    is_property: bool = False


@dataclass
class EntryPoint:
    """What a file must treat as compiled because another file's region calls it."""

    name: str  # function name at the file's top level
    positional: list[Kind] = field(default_factory=list)
    keywords: dict[str, Kind] = field(default_factory=dict)
    chain: tuple[str, ...] = ()
    root: bool = False  # compiled by another file: Dynamo starts tracing here
    receivers: tuple[str, ...] = ()  # ExternalCall.receivers, of every call joined
    objects: dict[str, tuple[str, ...]] = field(default_factory=dict)  # ExternalCall.objects, joined
    spread: bool = False  # some call spreads arguments it does not see (ExternalCall.spread)

    def merge(self, call: ExternalCall) -> bool:
        """Join another call's argument kinds; True if anything changed."""
        changed = (call.root and not self.root) or (call.spread and not self.spread)
        self.spread |= call.spread
        for key, classes in call.objects:
            held = tuple(dict.fromkeys(self.objects.get(key, ()) + classes))
            if held != self.objects.get(key, ()):
                self.objects[key] = held
                changed = True
        self.root |= call.root
        if not set(call.receivers) <= set(self.receivers):
            self.receivers = join_receivers(self.receivers, call.receivers)
            changed = True
        for position, kind in enumerate(call.positional):
            if position >= len(self.positional):
                self.positional.append(kind)
                changed = True
            elif join_passed(self.positional[position], kind) != self.positional[position]:
                self.positional[position] = join_passed(self.positional[position], kind)
                changed = True
        for name, kind in call.keywords:
            joined = join_passed(self.keywords.get(name, Kind.NONE), kind)
            if joined != self.keywords.get(name):
                self.keywords[name] = joined
                changed = True
        if not self.chain or len(call.chain) + 1 < len(self.chain):
            self.chain = call.chain + (self.name,)
        return changed


def record_attributes(
    facts: Iterable[tuple[str, str, tuple[str, ...]]], attributes: dict[tuple[str, str], tuple[str, ...]]
) -> set[str]:
    """Join attribute facts (class, attribute, instance classes; FileResult.attributes) into
    ``attributes``; the classes whose attributes now hold something new."""
    owners: set[str] = set()
    for owner, attr, names in facts:
        held = tuple(dict.fromkeys(attributes.get((owner, attr), ()) + tuple(names)))
        if held != attributes.get((owner, attr), ()):
            attributes[(owner, attr)] = held
            owners.add(owner)
    return owners


def join_receivers(*groups: tuple[str, ...]) -> tuple[str, ...]:
    """The receiver classes of several calls or entries, each once, in a stable order."""
    return tuple(sorted({receiver for group in groups for receiver in group}))


def module_name(path: str, memo: dict[str, tuple[str, ...]] | None = None) -> str | None:
    """``/x/transformers/models/bert/modeling_bert.py`` -> ``transformers.models.bert.modeling_bert``.

    The package root is the topmost folder of an unbroken chain of ``__init__.py``.
    """
    folder, filename = os.path.split(os.path.abspath(path))
    stem = filename[:-3] if filename.endswith(".py") else filename[:-4] if filename.endswith(".pyi") else None
    if stem is None:
        return None
    parts = [*_packages(folder, {} if memo is None else memo), *([] if stem == "__init__" else [stem])]
    return ".".join(parts) if parts else None


def _packages(folder: str, memo: dict[str, tuple[str, ...]]) -> tuple[str, ...]:
    """The package names down to ``folder``; ``memo`` keeps each folder's answer for a run."""
    if folder not in memo:
        if not os.path.isfile(os.path.join(folder, "__init__.py")):
            memo[folder] = ()
        else:
            parent, package = os.path.split(folder)
            memo[folder] = (*_packages(parent, memo), package)
    return memo[folder]


def absolute_target(qualname: str, caller_module: str | None, caller_is_package: bool) -> str | None:
    """Resolve ``..utils.helper`` against the caller's module; absolute names pass through."""
    if not qualname.startswith("."):
        return qualname
    if caller_module is None:
        return None
    level = len(qualname) - len(qualname.lstrip("."))
    package = caller_module.split(".") if caller_is_package else caller_module.split(".")[:-1]
    if level - 1 > len(package):
        return None
    base = package[: len(package) - (level - 1)]
    rest = qualname[level:]
    return ".".join(base + ([rest] if rest else []))


class ModuleMap:
    """Dotted module names of the files in this run."""

    def __init__(self, paths: Iterable[str]) -> None:
        self.by_name: dict[str, str] = {}
        self.by_path: dict[str, str] = {}
        for path in paths:
            name = module_name(path)
            if name:
                self.by_name[name] = path
                self.by_path[path] = name

    def locate(self, target: str) -> tuple[str, str] | None:
        """(file, name) for ``pkg.mod.func`` or ``pkg.mod.Class.method``, when ``pkg.mod``
        is a file of the run; the name is ``func`` or ``Class.method``."""
        module, _, function = target.rpartition(".")
        path = self.by_name.get(module)
        if path is not None and function:
            return path, function
        module, _, cls = module.rpartition(".")
        path = self.by_name.get(module)
        return (path, f"{cls}.{function}") if path is not None and cls and function else None


@dataclass(frozen=True)
class ClassRecord:
    """A top-level class of a file of the run, as the cross-file rounds need it."""

    name: str  # absolute: "kornia.augmentation._2d.intensity.color_jitter.ColorJitter"
    bases: tuple[str, ...]  # absolute where the file's imports say
    methods: tuple[str, ...]  # defined in its own body
    module: bool  # an nn.Module by what its own file shows


MAX_MRO = 32  # bases walked per lookup: deeper (or cyclic) hierarchies stop there
ROOT_METHODS = ("forward", "__call__")


class ClassTable:
    """The classes of every file of the run: which class's method a call on an instance of a
    subclass runs, across files (Python's lookup, depth-first left to right, which agrees
    with the C3 order for single inheritance and mixins)."""

    def __init__(self, records: Iterable[ClassRecord]) -> None:
        self.by_name = {record.name: record for record in records}
        self._owners: dict[str, list[str]] | None = None

    def owners(self, method: str) -> list[str]:
        """The classes that define ``method`` in their own body (one index for the run)."""
        if self._owners is None:
            self._owners = {}
            for record in self.by_name.values():
                for name in record.methods:
                    self._owners.setdefault(name, []).append(record.name)
        return self._owners.get(method, [])

    def mro(self, name: str) -> list[ClassRecord]:
        found: list[ClassRecord] = []
        seen: set[str] = set()
        stack = [name]
        while stack and len(found) < MAX_MRO:
            current = stack.pop()
            record = self.by_name.get(current)
            if record is None or current in seen:
                continue
            seen.add(current)
            found.append(record)
            stack.extend(reversed(record.bases))
        return found

    def defining(self, name: str, method: str) -> str | None:
        """The class whose ``method`` an instance of ``name`` runs, if a file of the run has it."""
        return next((record.name for record in self.mro(name) if method in record.methods), None)

    def is_module(self, name: str) -> bool:
        return any(record.module for record in self.mro(name))

    def dispatched(self, target: str) -> str:
        """``pkg.mod.Sub.method`` -> the method Sub inherits (``pkg.base.Base.method``)."""
        cls, _, method = target.rpartition(".")
        if cls not in self.by_name:
            return target
        defining = self.defining(cls, method)
        return f"{defining}.{method}" if defining is not None else target

    def inherited_roots(self) -> list[ExternalCall]:
        """Each module class that defines no ``forward`` of its own but overrides other methods:
        compiling an instance traces the ``forward`` it inherits with ``self`` an instance of
        it, so ``self.apply_transform(...)`` there runs its override."""
        calls = []
        for record in self.by_name.values():
            if any(name in record.methods for name in ROOT_METHODS):
                continue
            if not any(not (name.startswith("__") and name.endswith("__")) for name in record.methods):
                continue
            forward = self.defining(record.name, "forward")
            if forward is None or forward == record.name or not self.is_module(record.name):
                continue
            calls.append(ExternalCall(f"{forward}.forward", (), (), (), root=True, receivers=(record.name,)))
        return calls


MAX_REEXPORT_HOPS = 8  # a -> b -> c ... re-exporting one name: longer chains are not followed


def reexported_imports(results: Iterable[FileResult], modules: ModuleMap) -> dict[str, tuple[tuple[str, str], ...]]:
    """Per file, the names it imports from modules of the run that only re-export them from
    outside the run (``from .common import F, nn`` where common.py does ``import
    torch.nn.functional as F``), with what they are: its analysis then reads ``F.relu`` as
    torch's. A name the module binds otherwise too (an assignment, a def) is not followed."""
    tables: dict[str, dict[str, str]] = {}
    used: dict[str, set[str]] = {}  # per module, the imported names it calls or reads attributes of
    for result in results:
        module = modules.by_path.get(result.path)
        if module is not None and result.imports:
            tables[module] = {name: target for name, target, _ in result.imports}
            used[module] = {name for name, _, called in result.imports if called}
    found: dict[str, tuple[tuple[str, str], ...]] = {}
    for module, table in tables.items():
        rebound = []
        for name in sorted(used[module]):
            target = table[name]
            final = _followed(target, tables)
            if final != target and not _in_run(final, modules):
                rebound.append((name, final))
        if rebound:
            found[modules.by_name[module]] = tuple(sorted(rebound))
    return found


def _followed(target: str, tables: Mapping[str, Mapping[str, str]]) -> str:
    """``pkg.common.F`` -> what common binds ``F`` to by importing it, and so on."""
    for _ in range(MAX_REEXPORT_HOPS):
        module, _, name = target.rpartition(".")
        table = tables.get(module)
        if table is None or name not in table or table[name] == target:
            return target
        target = table[name]
    return target


def _in_run(name: str, modules: ModuleMap) -> bool:
    """Whether ``name`` or a module it is in is a file of the run."""
    parts = name.split(".")
    return any(".".join(parts[:end]) in modules.by_name for end in range(1, len(parts) + 1))
