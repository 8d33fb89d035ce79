"""What a test evaluates to while Dynamo traces: the branches it never enters.

Measured on torch 2.13 (tests/test_dynamo_facts.py re-checks): under Dynamo,
``torch.compiler.is_compiling()``, ``torch._dynamo.is_compiling()`` and
``torch.compiler.is_dynamo_compiling()`` are True, while ``torch.jit.is_scripting()``,
``torch.jit.is_tracing()``, ``torch.compiler.is_exporting()`` and FX's ``is_fx_tracing()``
are False. So the body of ``if not torch.jit.is_scripting():`` *is* traced (a print there
breaks), and the body of ``if torch.jit.is_scripting():`` is not.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

TRUE_WHILE_COMPILING = frozenset(
    {
        "torch.compiler.is_compiling",
        "torch.compiler.is_dynamo_compiling",
        "torch._dynamo.is_compiling",
        "torch._dynamo.external_utils.is_compiling",
        "torch._utils.is_compiling",
    }
)
FALSE_WHILE_COMPILING = frozenset(
    {
        "torch.jit.is_scripting",
        "torch.jit.is_tracing",
        "torch._C._get_tracing_state",
        "torch.compiler.is_exporting",
        "torch.fx._symbolic_trace.is_fx_tracing",
        "torch.onnx.is_in_onnx_export",
    }
)
# Wrappers that libraries define around the functions above (transformers, diffusers,
# timm, accelerate), recognised by the last part of the imported name.
TRUE_WRAPPER_NAMES = frozenset({"is_torchdynamo_compiling", "is_compiling", "is_dynamo_compiling"})
FALSE_WRAPPER_NAMES = frozenset(
    {"is_scripting", "is_tracing", "is_torch_fx_proxy", "is_fx_tracing", "is_exporting"}
)


def compile_time_value(
    test: ast.expr,
    qualname: Callable[[ast.expr], str | None],
    constant: Callable[[str], bool | None] = lambda name: None,
) -> bool | None:
    """True/False when ``test`` has that value under Dynamo whatever the inputs; else None.

    ``constant`` gives the value of a local name assigned such a test
    (``is_tracing = torch.jit.is_tracing() or is_torchdynamo_compiling()``).
    """
    if isinstance(test, ast.Name):
        return constant(test.id)
    if isinstance(test, ast.Call) and not test.keywords:
        name = qualname(test.func)
        if name is None:
            return None
        if name in TRUE_WHILE_COMPILING:
            return True
        if name in FALSE_WHILE_COMPILING:
            return False
        last = name.rsplit(".", 1)[-1]
        if last in TRUE_WRAPPER_NAMES and "." in name:
            return True
        if last in FALSE_WRAPPER_NAMES and "." in name:
            return False
        return None
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        value = compile_time_value(test.operand, qualname, constant)
        return None if value is None else not value
    if isinstance(test, ast.BoolOp):
        return _bool_op_value(test, qualname, constant)
    return None


def _bool_op_value(
    test: ast.BoolOp, qualname: Callable[[ast.expr], str | None], constant: Callable[[str], bool | None]
) -> bool | None:
    values = [compile_time_value(v, qualname, constant) for v in test.values]
    if isinstance(test.op, ast.And):
        if False in values:
            return False
        return True if all(v is True for v in values) else None
    if True in values:
        return True
    return False if all(v is False for v in values) else None


def only_raises(body: list[ast.stmt]) -> bool:
    """A branch that only raises (maybe after logging): valid inputs never take it, so the
    test is a check, and the side that would compile again raises instead."""
    return bool(body) and isinstance(body[-1], ast.Raise) and all(isinstance(s, (ast.Expr, ast.Raise)) for s in body)


# Calls whose text other rules already flag (CL101 print, CL102 logging and warnings): the
# same line breaks once, so the formatting of their arguments is not reported again.
OUTPUT_CALLS = frozenset({"print", "warn", "debug", "info", "warning", "error", "exception", "critical", "log", "write"})


def on_output_or_failure_path(node: ast.AST, enclosing: Callable[[ast.AST], ast.AST | None]) -> bool:
    """Inside a `print`/logging/`warn` call, a `raise` or an `assert` message, or an `if`
    arm that ends by raising (the message built before the `raise`): code that runs only
    to report, or only on failure. ``enclosing``: each node's parent, up to the function."""
    child, parent = node, enclosing(node)
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        if isinstance(parent, ast.Raise) or isinstance(parent, ast.Assert) and child is parent.msg:
            return True
        if isinstance(parent, ast.If) and any(child in arm and isinstance(arm[-1], ast.Raise) for arm in (parent.body, parent.orelse)):
            return True
        if isinstance(parent, ast.Call) and child is not parent.func:
            func = parent.func
            name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if name in OUTPUT_CALLS:
                return True
        child, parent = parent, enclosing(parent)
    return False
