"""The conditions a call is made under, and what they make of a function's every entry.

``if self.use_tiling and x.shape[-1] > tile: return self.tiled_encode(x)`` reaches
``tiled_encode`` only when both hold; a function every caller reaches under ``seq_len == 1``
runs on the one-token decode path only. A function's entry conditions are the conditions
all of its call sites share (its callers' own included): none for roots, for functions
another file calls, and as soon as one call site is unconditional.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class Condition:
    """``test`` held (or, when ``negated``, did not) when the call was made."""

    test: ast.expr
    negated: bool = False

    def source(self) -> str:
        text, negated = self.key
        return f"not ({text})" if negated else text

    @cached_property
    def key(self) -> tuple[str, bool]:
        """What compares equal across call sites (each site has its own nodes); unparsed
        once, since settling entry conditions compares keys pass after pass."""
        return ast.unparse(self.test), self.negated


# Scopes of their own: their bodies run in another frame, under other conditions.
NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def parent_map(function: ast.AST) -> dict[int, ast.AST]:
    parents: dict[int, ast.AST] = {}
    for node in ast.walk(function):
        for child in ast.iter_child_nodes(node):
            parents[id(child)] = node
    return parents


def enclosing_conditions(call: ast.AST, parents: dict[int, ast.AST]) -> tuple[Condition, ...]:
    """The tests around ``call`` inside its function, outermost first."""
    found: list[Condition] = []
    child, parent = call, parents.get(id(call))
    while parent is not None and not isinstance(parent, NESTED_SCOPES):
        if isinstance(parent, (ast.If, ast.IfExp)) and child is not parent.test:
            body = parent.body if isinstance(parent.body, list) else [parent.body]
            if any(child is node for node in body):
                # conjunct by conjunct, so `a and (h > t or w > t)` and `a and (w > t or h > t)`
                # at two call sites still share `a`
                found.extend(Condition(part) for part in reversed(_conjuncts(parent.test)))
            else:
                found.append(Condition(parent.test, negated=True))
        elif isinstance(parent, ast.BoolOp) and child in parent.values:
            for earlier in parent.values[: parent.values.index(child)]:
                found.append(Condition(earlier, negated=isinstance(parent.op, ast.Or)))
        child, parent = parent, parents.get(id(parent))
    return tuple(reversed(found))


def early_returns(statement: ast.AST, parents: dict[int, ast.AST]) -> tuple[Condition, ...]:
    """``if n <= tile: return fast(x)`` before ``statement`` in its function: the statement
    runs only when the test failed. Outermost first; tests whose branch raises are checks
    of the input, not conditions worth stating."""
    found: list[Condition] = []
    child, parent = statement, parents.get(id(statement))
    while parent is not None:
        for block in (getattr(parent, name, None) for name in ("body", "orelse", "finalbody")):
            if not isinstance(block, list):
                continue
            position = next((i for i, s in enumerate(block) if s is child), None)
            if position is None:
                continue
            for earlier in reversed(block[:position]):
                if isinstance(earlier, ast.If) and not earlier.orelse and earlier.body and isinstance(earlier.body[-1], ast.Return):
                    found.append(Condition(earlier.test, negated=True))
        if isinstance(parent, NESTED_SCOPES):
            break  # the function's own body was the last block
        child, parent = parent, parents.get(id(parent))
    return tuple(reversed(found))


def shared(sites: list[tuple[Condition, ...]]) -> tuple[Condition, ...]:
    """The conditions every call site has (in the first site's order)."""
    if not sites:
        return ()
    common = set.intersection(*({c.key for c in site} for site in sites))
    return tuple(c for c in sites[0] if c.key in common)


def _conjuncts(test: ast.expr) -> list[ast.expr]:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [part for value in test.values for part in _conjuncts(value)]
    return [test]


def describe(conditions: tuple[Condition, ...]) -> str:
    return " and ".join(f"`{c.source()}`" for c in conditions)


def pins_a_size_to_one(conditions: tuple[Condition, ...]) -> bool:
    """``seq_len == 1`` among the conditions: the single-step (decode) path, where sizes
    compared with 1 are 1, a value Dynamo specialises anyway."""
    for test in (t for c in conditions if not c.negated for t in _conjuncts(c.test)):
        if not isinstance(test, ast.Compare) or len(test.ops) != 1:
            continue
        if isinstance(test.ops[0], ast.Eq) and any(
            isinstance(o, ast.Constant) and type(o.value) is int and o.value == 1 for o in (test.left, *test.comparators)
        ):
            return True
    return False
