"""``import torch`` for fixes that name ``torch``, when the module does not bind it."""

from __future__ import annotations

import libcst as cst


def binds_torch(module: cst.Module) -> bool:
    """A module-level ``import torch`` or ``import torch.x`` (not ``as``), also inside if/try."""
    return any(_binds(statement) for statement in _top_level(module.body))


def _top_level(body: object) -> list[cst.CSTNode]:
    statements: list[cst.CSTNode] = []
    for statement in body if isinstance(body, (list, tuple)) else []:
        statements.append(statement)
        if isinstance(statement, (cst.If, cst.Try, cst.TryStar)):
            for suite in _suites(statement):
                statements += _top_level(getattr(suite, "body", []))
    return statements


def _suites(statement: cst.If | cst.Try | cst.TryStar) -> list[cst.CSTNode]:
    suites: list[cst.CSTNode] = [statement.body]
    if isinstance(statement, cst.If):
        orelse = statement.orelse
        if isinstance(orelse, cst.If):
            suites.append(orelse)  # an elif: its own body and else
        elif orelse is not None:
            suites.append(orelse.body)
        return suites
    suites += [handler.body for handler in statement.handlers]
    if statement.orelse is not None:
        suites.append(statement.orelse.body)
    return suites


def _binds(statement: cst.CSTNode) -> bool:
    if not isinstance(statement, cst.SimpleStatementLine):
        return False
    for small in statement.body:
        if isinstance(small, cst.Import):
            for alias in small.names:
                root: cst.BaseExpression = alias.name
                while isinstance(root, cst.Attribute):
                    root = root.value
                if isinstance(root, cst.Name) and root.value == "torch" and alias.asname is None:
                    return True
    return False


def add_torch_import(module: cst.Module) -> cst.Module:
    """Insert ``import torch`` after the docstring and ``from __future__`` imports."""
    body = list(module.body)
    index = import_index(module)
    line = cst.SimpleStatementLine(body=[cst.Import(names=[cst.ImportAlias(name=cst.Name("torch"))])])
    return module.with_changes(body=[*body[:index], line, *body[index:]])


def import_index(module: cst.Module) -> int:
    """Where ``import torch`` goes in ``module.body``."""
    body = module.body
    index = 1 if body and _is_docstring(body[0]) else 0
    while index < len(body) and _is_future_import(body[index]):
        index += 1
    return index


def _is_docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, (cst.SimpleString, cst.ConcatenatedString))
    )


def _is_future_import(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and any(
            isinstance(small, cst.ImportFrom)
            and isinstance(small.module, cst.Name)
            and small.module.value == "__future__"
            for small in statement.body
        )
    )
