"""Which code records no operation in Dynamo's graph, so that Dynamo skips its frame.

Measured on torch 2.13 (CPU, backend eager, default mode and ``dynamic=True``, Python 3.11):
when Dynamo traces a frame to its return and the graph holds no call (no torch function,
tensor method or operator, module call: ``count_calls() == 0``), it raises ``SkipFrame``
("No ops traced for the FX graph"). Python then runs the frame, and every function it
calls is offered to Dynamo as a frame of its own. The rest of a frame after a graph break
is a frame of its own too (the resume function), skipped the same way when it records no
operation. One operation is enough to keep the frame.

The answer here is kept on the safe side: a node records an operation unless the source
says it does not (Python values only, ``is None`` tests, containers of tensors indexed,
the metadata of a tensor, a small set of builtins and of ``torch`` queries, calls of this
file's functions that record none). Code the analysis never walked (an arm it decided
dead) is what Dynamo skips too.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from compilelint.analysis.kinds import Kind

# Builtins that record nothing whatever they are given.
QUERY_BUILTINS = frozenset({"isinstance", "issubclass", "hasattr", "callable", "type", "id", "len", "super"})
# Builtins that record nothing on Python values and on Python containers of tensors.
CONTAINER_BUILTINS = frozenset({"zip", "enumerate", "list", "tuple", "dict", "set", "frozenset", "reversed", "iter", "range", "str", "repr"})
TORCH_QUERIES = frozenset(
    {"torch.is_tensor", "torch.is_grad_enabled", "torch.is_inference_mode_enabled", "torch.is_autocast_enabled",
     "torch.get_default_dtype", "torch.compiler.is_compiling", "torch.compiler.is_dynamo_compiling",
     "torch._dynamo.is_compiling", "torch.jit.is_scripting", "torch.jit.is_tracing"}
)  # fmt: skip
TENSOR_METADATA = frozenset({"shape", "dtype", "device", "requires_grad", "is_cuda", "ndim", "is_leaf", "layout"})
# Methods of Python dicts, lists and strings that no tensor has: on anything but a tensor.
CONTAINER_METHODS = frozenset(
    {"get", "pop", "items", "keys", "append", "extend", "insert", "update", "setdefault", "format", "join",
     "startswith", "endswith", "strip", "lower", "upper"}
)  # fmt: skip
# Methods a tensor has too (``t.split(2)``, a sparse ``t.values()``): on a Python value only.
SHARED_METHODS = frozenset({"values", "copy", "index", "count", "replace", "split"})
TENSOR_ATTRIBUTES = frozenset({"T", "mT", "H", "mH", "real", "imag"})  # computed by torch when read
PLAIN = Kind.STATIC  # a Python constant for Dynamo: operating on it records nothing
# Values read back from tensor data (``.item()``, ``.tolist()``) count as plain too: reading
# them back broke the graph (the default mode does not capture scalars), so the code after
# it, the resume function, is given Python numbers and lists (measured on 2.13: `for a, b
# in zip(p.tolist(), q.tolist())`, `labels[k + 1]` and the lists it fills record nothing)

KindOf = Callable[[ast.expr], Kind]


@dataclass
class FunctionOps:
    """What one function's walked code records: nodes that record an operation (``several``:
    those that may record more than one, a call we cannot see into), and calls of this
    file's functions (call, callee qualname) that record what the callee records."""

    ops: list[ast.AST] = field(default_factory=list)
    several: list[ast.AST] = field(default_factory=list)
    calls: list[tuple[ast.AST, str]] = field(default_factory=list)


SEVERAL = "<several>"  # a verdict: the node may record more than one operation
# True: records one operation; False: none; SEVERAL; else a qualname: what that callee records
Verdict = bool | str


def records(node: ast.AST, kind: KindOf, builtin: Callable[[ast.expr], str | None],
            qualname: Callable[[ast.expr], str | None], callee: str | None, parent: ast.AST | None) -> Verdict:  # fmt: skip
    """Whether Dynamo records an operation for ``node`` itself (its children are asked apart)."""
    if isinstance(node, ast.Call):
        return _call(node, kind, builtin, qualname, callee)
    if isinstance(node, ast.Compare):
        if all(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
            return False
        return not all(_plain(kind(e)) for e in [node.left, *node.comparators])
    if isinstance(node, ast.BinOp):
        return not (_plain(kind(node.left)) and _plain(kind(node.right)))
    if isinstance(node, ast.UnaryOp):
        return not (isinstance(node.op, ast.Not) and not _tensor(kind(node.operand))) and not _plain(kind(node.operand))
    if isinstance(node, ast.AugAssign):
        return not (_plain(kind(node.target)) and _plain(kind(node.value)))
    if isinstance(node, ast.Subscript):
        held = kind(node.value)
        return not (_plain(held) or bool(held & Kind.CONTAINER) and not held & Kind.UNKNOWN)
    if isinstance(node, ast.Attribute):
        if isinstance(parent, ast.Call) and parent.func is node or qualname(node) is not None:
            return False  # the call decides; ``torch.autograd`` is a module
        return _reads_tensor(kind(node.value), node.attr)
    if isinstance(node, (ast.For, ast.comprehension)):
        return not _dict_view(node.iter, kind) and _iterates_a_tensor(kind(node.iter))
    if isinstance(node, ast.FormattedValue):
        return _tensor(kind(node.value))
    return False


OP_NODES = (ast.Call, ast.Compare, ast.BinOp, ast.UnaryOp, ast.AugAssign, ast.Subscript, ast.Attribute, ast.For,
            ast.comprehension, ast.FormattedValue)  # fmt: skip


def _call(node: ast.Call, kind: KindOf, builtin: Callable[[ast.expr], str | None],
          qualname: Callable[[ast.expr], str | None], callee: str | None) -> Verdict:  # fmt: skip
    if callee is not None:
        return callee
    if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
        return True
    arguments = [*node.args, *(k.value for k in node.keywords)]
    name = builtin(node.func)
    if name in QUERY_BUILTINS:
        return False
    if name == "getattr" and len(node.args) >= 2:
        attr = node.args[1]
        known = attr.value if isinstance(attr, ast.Constant) and isinstance(attr.value, str) else None
        return _reads_tensor(kind(node.args[0]), known)
    if name in CONTAINER_BUILTINS or name == "sorted" and _element_key(node):
        return any(_iterates_a_tensor(kind(a)) for a in arguments)
    if qualname(node.func) in TORCH_QUERIES:
        return False
    func = node.func
    if isinstance(func, ast.Attribute):
        held = kind(func.value)
        if func.attr in CONTAINER_METHODS and not _surely_tensor(held) or func.attr in SHARED_METHODS and _python_value(held):
            return False
    name = qualname(func) or ""
    if name.startswith("torch.") and not name.startswith("torch.nn.") or name.startswith("torch.nn.functional."):
        return True
    if isinstance(func, ast.Attribute) and _tensor(kind(func.value)) and not kind(func.value) & (Kind.UNKNOWN | Kind.MODULE):
        return True  # a tensor method
    return SEVERAL


def _element_key(node: ast.Call) -> bool:
    """``sorted(xs)``, or with a ``key`` lambda that reads only its own argument
    (``key=lambda v: -v[1]``): it sorts what it is given, recording what they are."""
    others = [k for k in node.keywords if k.arg != "reverse"]
    if not others:
        return True
    key = others[0].value if len(others) == 1 and others[0].arg == "key" else None
    if not isinstance(key, ast.Lambda):
        return False
    own = {a.arg for a in key.args.args}
    return all(n.id in own for n in ast.walk(key.body) if isinstance(n, ast.Name)) and not any(
        isinstance(n, (ast.Call, ast.Attribute)) for n in ast.walk(key.body)
    )


def _dict_view(node: ast.expr, kind: KindOf) -> bool:
    """``d.keys()``, ``d.items()``, ``d.values()`` of something that is no tensor."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and not node.args):
        return False
    return node.func.attr in ("keys", "items", "values") and not _surely_tensor(kind(node.func.value))


def _reads_tensor(held: Kind, attr: str | None) -> bool:
    """Reading ``attr`` (None: a name not known) of a value of kind ``held`` records an
    operation: a tensor's own attributes (its metadata apart), and the computed ones."""
    if attr in TENSOR_ATTRIBUTES:
        return True
    return _surely_tensor(held) and attr not in TENSOR_METADATA


def _surely_tensor(kind: Kind) -> bool:
    """A tensor itself, not a container of them or a module."""
    return bool(kind & (Kind.TENSOR | Kind.NUMPY)) and not kind & (Kind.CONTAINER | Kind.MODULE)


def _plain(kind: Kind) -> bool:
    """A Python constant to Dynamo, or a value read back from tensor data (see ``PLAIN``):
    arithmetic and tests on it record nothing."""
    return kind != Kind.NONE and not kind & ~(PLAIN | Kind.DATA_SCALAR)


def _tensor(kind: Kind) -> bool:
    return bool(kind & (Kind.TENSOR | Kind.MODULE | Kind.UNKNOWN | Kind.NUMPY))


def _python_value(kind: Kind) -> bool:
    """A dict, list or string: a container of tensors counts, an unknown value does not."""
    return _plain(kind) or bool(kind & Kind.CONTAINER) and not kind & (Kind.UNKNOWN | Kind.MODULE)


def _iterates_a_tensor(kind: Kind) -> bool:
    """Iterating it may unbind a tensor (or walk something the analysis cannot see)."""
    return not _python_value(kind)


def free_functions(ops: Mapping[str, FunctionOps]) -> frozenset[str]:
    """The functions (qualnames) whose walked code records no operation, with every
    function they call (a cycle records: Dynamo would not see its end)."""
    free: set[str] = set()
    changed = True
    while changed:
        changed = False
        for name, found in ops.items():
            if name not in free and not found.ops and all(callee in free for _, callee in found.calls):
                free.add(name)
                changed = True
    return frozenset(free)


def records_after(found: FunctionOps, point: ast.AST | None, statement: ast.AST | None, free: frozenset[str]) -> bool:
    """Whether the function records an operation once Python resumes it after ``point``, a
    graph break in ``statement`` (None: from the start): in a later statement, or in that
    statement around the break or after it (``x * x.sum().item()`` multiplies after)."""
    nodes = [*found.ops, *(call for call, callee in found.calls if callee not in free)]
    if point is None or statement is None:
        return bool(nodes)
    return any(after(node, point, statement) for node in nodes)


def after(node: ast.AST, point: ast.AST, statement: ast.AST) -> bool:
    """Whether ``node`` runs after the break at ``point`` in ``statement``: in a later
    statement, or in that one around the break or after it."""
    line: int = getattr(node, "lineno", 0)
    if line > (getattr(statement, "end_lineno", None) or 0):
        return True
    if line < getattr(statement, "lineno", 0) or node is point:
        return False
    end = (getattr(point, "end_lineno", 0) or 0, getattr(point, "end_col_offset", 0) or 0)
    return (line, getattr(node, "col_offset", 0)) >= end or any(child is point for child in ast.walk(node))


def operations_between(found: FunctionOps, start: Resume, line: int, free: frozenset[str], looping: Callable[[ast.AST], bool]) -> int:
    """At least how many operations the function records from ``start`` (a break and its
    statement, or (None, None): the function's start) to ``line``, 2 standing for "two or
    more" (a loop, a call we cannot see into)."""
    point, statement = start
    count = 0
    for node in [*found.ops, *(call for call, callee in found.calls if callee not in free)]:
        if getattr(node, "lineno", 0) >= line or point is not None and statement is not None and not after(node, point, statement):
            continue
        several = any(node is s for s in found.several) or any(node is call for call, _ in found.calls) or looping(node)
        count += 2 if several else 1
    return min(count, 2)


Resume = tuple["ast.AST | None", "ast.AST | None"]  # a break and its statement; (None, None): the start
