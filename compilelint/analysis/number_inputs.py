"""Python numbers Dynamo receives as inputs, followed into the functions they are passed to.

Dynamo treats a Python int or float that enters compiled code in one of two ways, and
the difference decides whether code that needs its exact value (turning it into text)
can be traced (measured on torch 2.13, backend eager, CPU):

- an **argument** of the function Dynamo starts at (an ``int``/``float`` parameter): a
  constant while every call passes the same value; once a call passes another one,
  Dynamo recompiles with it as a symbolic input, and ``dynamic=True`` makes it symbolic
  from the first call;
- a **float constant** the code reads from its surroundings: a float attribute of an
  object (``self.eps`` set from a ``float`` argument of ``__init__`` or a literal) or a
  float global (``EPS = 1e-6``): a constant in the default mode, whatever happens, and
  symbolic from the first call under ``dynamic=True``. Int attributes stay constants
  there too (Dynamo specialises integers held by modules).

Both stay what they are when passed on unchanged, as an argument of a call Dynamo
inlines (``check(lo <= hi, f"{lo}>{hi}")`` in a helper) or under another local name
(``lo = self.lo``); a value computed from them (``self.lo * 2``) is specialised instead.
This module finds, per function of a file's compiled regions, the parameters that hold
such a number on some call path, and the expressions that are one.
"""

from __future__ import annotations

import ast
import weakref
from dataclasses import dataclass

from compilelint.analysis.comprehension_frames import assigned_values, is_self, local_names, parameter_names
from compilelint.analysis.frames import own_nodes
from compilelint.analysis.module_index import ClassInfo, FunctionInfo, ModuleIndex
from compilelint.analysis.parameters import number_parameters, rebinds
from compilelint.analysis.regions import FunctionState, RegionAnalysis, is_entry_point

ARGUMENT = "argument"  # varies with the calls: symbolic once it changes
FLOAT_CONSTANT = "float constant"  # a float attribute or global: symbolic under dynamic=True only


@dataclass(frozen=True)
class NumberInput:
    """What an expression holds: which input, and how Dynamo sees it."""

    name: str  # how the message names it: ``horizon``, ``self.eps``, ``EPS``
    origin: str  # ARGUMENT or FLOAT_CONSTANT


# id(FunctionInfo) -> parameter -> the origins callers pass it, per analysed file
_PARAMETERS: weakref.WeakKeyDictionary[RegionAnalysis, dict[int, dict[str, frozenset[str]]]] = (
    weakref.WeakKeyDictionary()
)


def number_input(value: ast.expr, function: FunctionInfo, analysis: RegionAnalysis, index: ModuleIndex) -> NumberInput | None:
    """The input number ``value`` is, unchanged, in ``function`` (None when it is not one)."""
    return _NumberInputs(analysis, index).of(value, function)


class _NumberInputs:
    def __init__(self, analysis: RegionAnalysis, index: ModuleIndex) -> None:
        self.analysis = analysis
        self.index = index
        known = _PARAMETERS.get(analysis)
        if known is None:
            known = _PARAMETERS[analysis] = {}
            self.parameters = known
            self._propagate(known)  # `of` reads what is known so far
        self.parameters = known

    def of(self, value: ast.expr, function: FunctionInfo, seen: frozenset[str] = frozenset()) -> NumberInput | None:
        if isinstance(value, ast.Attribute) and is_self(value.value, function) and function.owner is not None:
            if float_attribute(function.owner, value.attr):
                return NumberInput(f"self.{value.attr}", FLOAT_CONSTANT)
            return None
        if not isinstance(value, ast.Name):
            return None
        name = value.id
        origins = self.parameters.get(id(function), {}).get(name)
        if origins is not None:
            if rebinds(function.node, name):
                return None
            return NumberInput(name, ARGUMENT if ARGUMENT in origins else FLOAT_CONSTANT)
        if name in seen or name in parameter_names(function.node):
            return None
        values = assigned_values(function.node, name)  # `lo = self.lo`, its only binding
        if len(values) == 1:
            return self.of(values[0], function, seen | {name})
        if name not in local_names(function.node) and name not in function.declared_globals:
            return NumberInput(name, FLOAT_CONSTANT) if float_global(self.index, name) else None
        return None

    def _propagate(self, params: dict[int, dict[str, frozenset[str]]]) -> None:
        for state in self.analysis.order:
            if is_entry_point(state, self.index):
                numbers = number_parameters(state.info.node)
                if numbers:
                    params[id(state.info)] = {name: frozenset({ARGUMENT}) for name in numbers}
        changed = True
        while changed:
            changed = False
            for state in self.analysis.order:
                for call, callee in self._calls(state):
                    for param, argument in _bound_arguments(call, callee):
                        found = self.of(argument, state.info)
                        if found is None:
                            continue
                        known = params.setdefault(id(callee), {}).get(param, frozenset())
                        if found.origin not in known:
                            params[id(callee)][param] = known | {found.origin}
                            changed = True

    def _calls(self, state: FunctionState) -> list[tuple[ast.Call, FunctionInfo]]:
        calls = []
        for node in own_nodes(state.info.node):
            if isinstance(node, ast.Call):
                callee = self.analysis.resolved_calls.get(id(node))
                if callee is not None and id(callee) in self.analysis.states:
                    calls.append((node, callee))
        return calls


def _bound_arguments(call: ast.Call, callee: FunctionInfo) -> list[tuple[str, ast.expr]]:
    """(parameter, argument) pairs of a call to ``callee``; positional ones up to the first
    ``*args``. A method called through an attribute (``self.check(...)``) binds ``self``
    itself."""
    args = callee.node.args
    positional = [a.arg for a in args.posonlyargs + args.args]
    if callee.owner is not None and not callee.is_static and isinstance(call.func, ast.Attribute):
        positional = positional[1:]
    pairs: list[tuple[str, ast.expr]] = []
    for name, argument in zip(positional, call.args):
        if isinstance(argument, ast.Starred):
            break
        pairs.append((name, argument))
    names = set(positional) | {a.arg for a in args.kwonlyargs}
    pairs += [(k.arg, k.value) for k in call.keywords if k.arg is not None and k.arg in names]
    return pairs


def float_attribute(cls: ClassInfo, attr: str) -> bool:
    """Every value the class (with its bases in the file) gives ``attr`` is a float: a
    literal, or a ``float`` parameter of the method storing it that it does not rebind."""
    values: list[bool] = []
    for klass in cls.mro():
        for statement in klass.node.body:
            name, literal = _class_level(statement)
            if name == attr:
                values.append(literal is not None and _float_literal(literal))
        for method in klass.methods.values():
            floats = number_parameters(method.node)
            for node in own_nodes(method.node):
                if isinstance(node, (ast.AugAssign, ast.AnnAssign)) and _stores(node.target, attr, method):
                    values.append(False)  # updated in place, or declared: not a constant we can read
                if not isinstance(node, ast.Assign):
                    continue
                for target, stored in _pairs(node):
                    if _stores(target, attr, method):
                        values.append(stored is not None and _float_value(stored, floats, method))
                    elif stored is None and _stores_inside(target, attr, method):
                        values.append(False)  # `self.a, self.b = pair`: not read here
    return bool(values) and all(values)


def _pairs(node: ast.Assign) -> list[tuple[ast.expr, ast.expr | None]]:
    """(target, value) of ``a = b = v`` and, element by element, ``self.a, self.b = a, b``;
    None as the value of a target whose value the statement does not spell out."""
    pairs: list[tuple[ast.expr, ast.expr | None]] = []
    for target in node.targets:
        if isinstance(target, (ast.Tuple, ast.List)):
            values = node.value.elts if isinstance(node.value, (ast.Tuple, ast.List)) else None
            if values is not None and len(values) == len(target.elts) and not any(isinstance(v, ast.Starred) for v in values):
                pairs += list(zip(target.elts, values))
            else:
                pairs.append((target, None))
        else:
            pairs.append((target, node.value))
    return pairs


def _float_value(value: ast.expr, floats: dict[str, str | None], method: FunctionInfo) -> bool:
    """A float literal, or a ``float`` parameter of the method that it does not rebind."""
    if _float_literal(value):
        return True
    return isinstance(value, ast.Name) and floats.get(value.id) == "float" and not rebinds(method.node, value.id)


def float_global(index: ModuleIndex, name: str) -> bool:
    """``NAME = 0.5`` once at module level, and no function declares it ``global``."""
    value = index.assignments.get(name)
    if value is None or index.top_level_stores.get(name, 0) != 1 or not _float_literal(value):
        return False
    return not any(name in function.declared_globals for function in index.functions.values())


def _float_literal(value: ast.expr) -> bool:
    if isinstance(value, ast.UnaryOp) and isinstance(value.op, (ast.USub, ast.UAdd)):
        value = value.operand
    return isinstance(value, ast.Constant) and isinstance(value.value, float)


def _class_level(statement: ast.stmt) -> tuple[str | None, ast.expr | None]:
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        return statement.targets[0].id, statement.value
    if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
        return statement.target.id, statement.value
    return None, None


def _stores(target: ast.expr, attr: str, method: FunctionInfo) -> bool:
    return isinstance(target, ast.Attribute) and target.attr == attr and is_self(target.value, method)


def _stores_inside(target: ast.expr, attr: str, method: FunctionInfo) -> bool:
    return isinstance(target, (ast.Tuple, ast.List)) and any(
        isinstance(n, ast.Attribute) and _stores(n, attr, method) for n in ast.walk(target)
    )
