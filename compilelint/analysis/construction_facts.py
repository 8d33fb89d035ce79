"""Constructor arguments across files: what one file's constructions pass to another's classes.

``analysis.injected`` follows ``self.act = act`` to the constructions of the class in its
own file. A layer is as often built in another file of the package than the one that
defines it (zuko's flows build ``UnconditionalTransform(SoftclipTransform, bound=11.0)``,
a class of ``lazy.py`` whose ``super().__init__`` hands ``f`` on to ``utils.Partial``).
Dynamo traces whatever the attribute holds, wherever the construction was written. Each
file's side of it:

- ``outgoing``: for each call in this file of a name it imports (a class of another file,
  as far as the syntax says) and each ``super().__init__(...)`` or ``Base.__init__(self, ...)``
  that runs an imported base's constructor, the values the arguments name (classes,
  functions, bound methods, instances: ``injected.value_of``), by position after ``self``
  (up to the first ``*args``) and by keyword, with absolute names;
- ``incoming``: the facts about this file's classes, spelled as this file spells names,
  for ``injected.parameter_values`` to join with the file's own construction sites.

An argument that is a parameter of the constructor around the call is followed to what
that constructor receives, in this file and, once the run's rounds bring them, from other
files: ``Sub.__init__(self, f)`` handing ``f`` to an imported ``Base`` passes on what every
construction of ``Sub`` passes.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping

from compilelint.analysis.injected import calls_with_functions, value_of, value_id
from compilelint.analysis.module_index import ClassInfo, FunctionInfo, ModuleIndex

# (absolute class name, "0".. position after self or keyword, callables, instances)
ConstructionFact = tuple[str, str, tuple[str, ...], tuple[str, ...]]
# (absolute class name, key) -> (callables, instances): what the run's constructions pass
ConstructionTable = dict[tuple[str, str], tuple[tuple[str, ...], tuple[str, ...]]]
Absolute = Callable[[Iterable[str]], tuple[str, ...]]  # "@Name" and relative names -> absolute
MAX_BASE_HOPS = 8  # local bases without a constructor walked to find the imported one


def outgoing(index: ModuleIndex, absolute: Absolute) -> list[ConstructionFact]:
    """What this file's constructions of imported classes pass to each parameter."""
    found: list[ConstructionFact] = []
    for call, around in calls_with_functions(index):
        target, arguments = _imported_construction(index, call, around)
        if target is None:
            continue
        resolved = absolute([target])
        if not resolved or resolved[0].startswith("torch."):
            continue
        for key, value in arguments:
            held = value_of(index, value, around, 0)
            if held.callables or held.instances:
                found.append((resolved[0], key, absolute(held.callables), absolute(held.instances)))
    return found


def incoming(index: ModuleIndex, module: str, facts: Iterable[ConstructionFact]) -> ConstructionTable:
    """The facts about the top-level classes of ``module`` (this file), keyed by class name
    and argument key, with this file's names as "@Name"."""
    found: ConstructionTable = {}
    prefix = f"{module}."
    own = (
        (target[len(prefix) :], key, _local(index, prefix, callables), _local(index, prefix, instances))
        for target, key, callables, instances in facts
        if target.startswith(prefix) and target[len(prefix) :] in index.classes
    )
    joined(own, found)
    return found


def _local(index: ModuleIndex, prefix: str, names: tuple[str, ...]) -> tuple[str, ...]:
    """This module's own classes, functions and bound methods as "@Name" (``injected``'s spelling)."""
    spelled = []
    for name in names:
        rest = name[len(prefix) :] if name.startswith(prefix) else ""
        head = rest.split(".", 1)[0]
        spelled.append(f"@{rest}" if head and (head in index.classes or head in index.functions) else name)
    return tuple(spelled)


def _imported_construction(
    index: ModuleIndex, call: ast.Call, around: FunctionInfo | None
) -> tuple[str | None, list[tuple[str, ast.expr]]]:
    """(the imported class, as this file names it, and the arguments by key) when ``call``
    constructs one or runs its ``__init__``; (None, []) otherwise."""
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == "__init__":
        base = _initialised_base(index, func, around)
        if base is None:
            return None, []
        through_class = not (isinstance(func.value, ast.Call))  # Base.__init__(self, ...): self goes first
        return base, _keyed(call, skip=1 if through_class else 0)
    if not isinstance(func, (ast.Name, ast.Attribute)) or not (call.args or call.keywords):
        return None, []
    root = value_id(func)
    if root in index.classes or root in index.functions or root not in index.imports:
        return None, []
    return index.qualname(func), _keyed(call, skip=0)


def _initialised_base(index: ModuleIndex, func: ast.Attribute, around: FunctionInfo | None) -> str | None:
    """The imported base whose ``__init__`` ``super().__init__`` (in a method of a class of
    this file) or ``Base.__init__`` runs: the first base, followed through local classes that
    define no ``__init__`` (Python's order for single inheritance and a first base)."""
    receiver = func.value
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
        if around is None or around.owner is None or receiver.args:
            return None
        return _first_imported_base(index, around.owner)
    if isinstance(receiver, (ast.Name, ast.Attribute)) and value_id(receiver) in index.imports:
        return index.qualname(receiver)
    return None


def _first_imported_base(index: ModuleIndex, cls: ClassInfo) -> str | None:
    current = cls
    for _ in range(MAX_BASE_HOPS):
        if not current.bases:
            return None
        first = current.bases[0]
        local = index.classes.get(first)
        if local is None:  # qualified as the imports say: "torch.nn.Module", ".layers.Block"
            return first if "." in first else None
        if "__init__" in local.methods:
            return None  # analysis.injected follows it in this file
        current = local
    return None


def _keyed(call: ast.Call, skip: int) -> list[tuple[str, ast.expr]]:
    """The arguments by position after ``skip`` (up to the first ``*args``) and by keyword."""
    found: list[tuple[str, ast.expr]] = []
    for position, value in enumerate(call.args[skip:]):
        if isinstance(value, ast.Starred):
            break
        found.append((str(position), value))
    found.extend((keyword.arg, keyword.value) for keyword in call.keywords if keyword.arg is not None)
    return found


def joined(facts: Iterable[ConstructionFact], into: ConstructionTable) -> set[str]:
    """Join facts into the run's table; the classes (absolute names) that now receive more."""
    changed: set[str] = set()
    for target, key, callables, instances in facts:
        held = into.get((target, key), ((), ()))
        grown = (tuple(dict.fromkeys(held[0] + callables)), tuple(dict.fromkeys(held[1] + instances)))
        if grown != held:
            into[(target, key)] = grown
            changed.add(target)
    return changed


def for_module(table: Mapping[tuple[str, str], tuple[tuple[str, ...], tuple[str, ...]]], module: str | None) -> tuple[ConstructionFact, ...]:
    """The run's facts about the top-level classes of ``module``."""
    if module is None:
        return ()
    return tuple(sorted((t, k, c, i) for (t, k), (c, i) in table.items() if t.rpartition(".")[0] == module))

