"""Targets: the user's functions that return something to compile and inputs to call it with.

A target is a top-level function in a targets file, decorated ``@compilelint.target`` or
named ``target_*``. It returns ``(callable, [input sets])``; an input set is an args
tuple or an ``(args, kwargs)`` pair. The parent finds targets by reading the file with
``ast`` (it must never import user code); the child imports the file and calls one.
"""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import inspect
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from compilelint.verify.marker import TARGET_ATTRIBUTE, target
from compilelint.verify.statuses import describe_exception

__all__ = ["TARGET_ATTRIBUTE", "target"]  # re-exported: tests and targets import it from here

MODULE_PSEUDO_TARGET = "<module>"  # stands for every target of a file that does not parse


@dataclass(frozen=True)
class TargetSpec:
    """A target as the parent knows it, without importing anything."""

    path: str  # absolute path of the targets file
    name: str
    line: int
    timeout: float | None = None  # from @target(timeout=...), else the run's --timeout
    isolate: bool = False  # from @target(isolate=True): a process of its own, not a warm worker
    parse_error: str | None = None  # set on the pseudo-target of a file that does not parse

    @property
    def label(self) -> str:
        return f"{os.path.basename(self.path)}::{self.name}"


class TargetDefinitionError(Exception):
    """The target function returned something the verifier cannot run."""


@dataclass(frozen=True)
class _Mark:
    timeout: float | None = None
    isolate: bool = False


def _is_target_decorator(node: ast.expr) -> tuple[bool, _Mark]:
    call = node if isinstance(node, ast.Call) else None
    func = call.func if call is not None else node
    named = isinstance(func, ast.Name) and func.id == "target"
    dotted = (
        isinstance(func, ast.Attribute)
        and func.attr == "target"
        and isinstance(func.value, (ast.Name, ast.Attribute))
        and ast.unparse(func.value).split(".")[0] == "compilelint"
    )
    if not (named or dotted):
        return False, _Mark()
    timeout: float | None = None
    isolate = False
    for keyword in call.keywords if call is not None else ():
        value = keyword.value.value if isinstance(keyword.value, ast.Constant) else None
        if keyword.arg == "timeout" and isinstance(value, (int, float)) and not isinstance(value, bool):
            timeout = float(value)
        if keyword.arg == "isolate" and value is True:
            isolate = True
    return True, _Mark(timeout, isolate)


def discover_targets(path: str) -> list[TargetSpec]:
    """Targets of one file, in source order. A file that does not parse yields one
    pseudo-target carrying the SyntaxError, so the run reports it as ``import-error``."""
    path = os.path.abspath(path)
    with open(path, "rb") as handle:
        source = handle.read()
    try:
        tree = ast.parse(source, filename=path)
    except (SyntaxError, ValueError) as exc:
        line = getattr(exc, "lineno", 0) or 0
        return [TargetSpec(path, MODULE_PSEUDO_TARGET, line, parse_error=describe_exception(exc))]
    specs: list[TargetSpec] = []
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef):
            continue
        marks = [_is_target_decorator(dec) for dec in node.decorator_list]
        decorated = [mark for is_target, mark in marks if is_target]
        if decorated or node.name.startswith("target_"):
            mark = decorated[0] if decorated else _Mark()
            specs.append(TargetSpec(path, node.name, node.lineno, mark.timeout, isolate=mark.isolate))
    return specs


@dataclass(frozen=True)
class InputSet:
    args: tuple[Any, ...]
    kwargs: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LoadedTarget:
    fn: Callable[..., Any]
    input_sets: tuple[InputSet, ...]


def load_module(path: str) -> ModuleType:
    """Import a targets file under a private name, its folder first on sys.path."""
    path = os.path.abspath(path)
    folder = os.path.dirname(path)
    if folder not in sys.path:
        sys.path.insert(0, folder)
    digest = hashlib.sha1(path.encode()).hexdigest()[:8]
    name = f"_compilelint_targets_{os.path.splitext(os.path.basename(path))[0]}_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look the module up by name
    spec.loader.exec_module(module)
    return module


def normalize_input_set(raw: Any) -> InputSet:
    """``(args, kwargs)`` when the pair's shape says so, else an args tuple; a bare
    value (one tensor) is a one-argument call."""
    if isinstance(raw, InputSet):
        return raw
    if isinstance(raw, tuple):
        if len(raw) == 2 and isinstance(raw[0], (tuple, list)) and isinstance(raw[1], dict):
            return InputSet(tuple(raw[0]), dict(raw[1]))
        return InputSet(raw)
    if isinstance(raw, dict):
        return InputSet((), dict(raw))
    return InputSet((raw,))


def normalize_target_result(result: Any) -> LoadedTarget:
    if not (isinstance(result, (tuple, list)) and len(result) == 2):
        raise TargetDefinitionError(
            f"a target must return (callable, [input sets]); got {type(result).__name__}"
        )
    fn, raw_sets = result
    if not callable(fn):
        raise TargetDefinitionError(f"the first item is not callable: {type(fn).__name__}")
    if not isinstance(raw_sets, (list, tuple)) or not raw_sets:
        raise TargetDefinitionError("the second item must be a non-empty list of input sets")
    return LoadedTarget(fn, tuple(normalize_input_set(item) for item in raw_sets))


def call_target(module: ModuleType, name: str, device: str = "cpu") -> LoadedTarget:
    """Call one target function; it gets ``device=`` when its signature asks for it."""
    function = getattr(module, name, None)
    if not callable(function):
        raise TargetDefinitionError(f"{name} is not a function of {module.__file__}")
    try:
        wants_device = "device" in inspect.signature(function).parameters
    except (TypeError, ValueError):
        wants_device = False
    result = function(device=device) if wants_device else function()
    return normalize_target_result(result)


def load_target(path: str, name: str, device: str = "cpu") -> LoadedTarget:
    """In-process: import the targets file and call one target (used by fixture tests)."""
    return call_target(load_module(path), name, device)


def discover_all(paths: Sequence[str]) -> list[TargetSpec]:
    specs: list[TargetSpec] = []
    for path in paths:
        specs.extend(discover_targets(path))
    return specs
