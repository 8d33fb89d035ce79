"""CL102: logging, warnings and other output inside a compiled region."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from compilelint.context import RuleContext
from compilelint.findings import Applicability, Fix, Mode
from compilelint.fix.plans import GuardPlan
from compilelint.registry import Rule

if TYPE_CHECKING:
    from compilelint.findings import Finding
    from compilelint.fix.edits import FixContext, FixEdit

GUARD_FIX = Fix(Applicability.SAFE, "Guard with `if not torch.compiler.is_compiling():`")

LOGGER_METHODS = frozenset(
    {
        "debug",
        "info",
        "warning",
        "warn",
        "error",
        "exception",
        "critical",
        "fatal",
        "log",
        "isEnabledFor",
        "warning_once",
        "info_once",
        "warning_advice",
    }
)
LOGGER_FACTORIES = ("getLogger", "get_logger")
LOGGER_NAMES = frozenset({"logger", "_logger", "LOGGER", "log", "_log", "LOG"})
# qualified function -> (GB id measured on torch 2.13, what Dynamo says)
OUTPUT_FUNCTIONS = {
    "warnings.warn": ("GB0007", "`warnings.warn()`"),
    "warnings.warn_explicit": ("GB0007", "`warnings.warn_explicit()`"),
    "sys.stdout.write": ("GB0156", "`sys.stdout.write()`"),
    "sys.stderr.write": ("GB0156", "`sys.stderr.write()`"),
    "sys.stdout.flush": ("GB0156", "`sys.stdout.flush()`"),
    "sys.stderr.flush": ("GB0156", "`sys.stderr.flush()`"),
    # pprint's break depends on what it prints (GB0156 for an int, "sort with non-constant
    # keys" for a dict): no single GB id to predict.
    "pprint.pprint": ("", "`pprint.pprint()`"),
}


class LoggingCall(Rule):
    """Checks for logging, `warnings.warn` and other output in code that `torch.compile` traces.

    ## What it does
    Flags, inside a compiled region: methods of a `logging.Logger` (`logger.info(...)`,
    `logger.warning_once(...)`, `logger.isEnabledFor(...)`), the module-level functions of
    `logging` (`logging.warning(...)`), `warnings.warn(...)`, writes to `sys.stdout` /
    `sys.stderr`, and `pprint.pprint`. A logger is a name bound to `logging.getLogger(...)`
    or a library's `get_logger(...)` (transformers, diffusers), or named `logger`.

    ## Why is this bad?
    Dynamo traces none of these. Measured on torch 2.13, each breaks the graph in the
    default mode and fails under `fullgraph=True`: Logger methods with GB0291 ("logging.Logger
    method not supported for non-export cases", even when the level is disabled),
    `logging.warning()` with GB4841, `warnings.warn` with GB0007 ("Attempted to call
    function marked as skipped"), stream writes and `pprint` with GB0156.

    ## Example
    ```python
    logger = logging.getLogger(__name__)

    class Net(nn.Module):
        def forward(self, x):
            logger.info("forward called")
            return self.proj(x)
    ```

    ## Use instead
    ```python
    logger = logging.getLogger(__name__)

    class Net(nn.Module):
        def forward(self, x):
            if not torch.compiler.is_compiling():
                logger.info("forward called")
            return self.proj(x)
    ```
    Or register the function in `torch._dynamo.config.ignore_logging_functions` (drops the
    call while compiled) or `reorderable_logging_functions` (runs it after the graph).

    ## Fix safety
    The fix wraps the statement in `if not torch.compiler.is_compiling():`. Safe: eager
    behaviour is unchanged, and the compiled program computes the same tensors; only the
    message is skipped while compiled. No fix when the call is part of an expression.
    """

    code = "CL102"
    name = "logging-call"
    message = "logging in a compiled region breaks the graph"
    gb_ids = ("GB0291", "GB4841", "GB0007", "GB0156")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)
    fix_applicability = Applicability.SAFE

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        found = self._classify(node, ctx)
        if found is None:
            return
        gb_id, what = found
        statement = ctx.statement
        fixable = isinstance(statement, ast.Expr) and statement.value is node
        reason = f" ({gb_id})" if gb_id else ""
        ctx.report(
            node,
            f"{what} in a compiled region breaks the graph{reason}; guard it with `torch.compiler.is_compiling()`",
            gb_ids=(gb_id,) if gb_id else (),
            fix=GUARD_FIX if fixable else None,
            fix_data=GuardPlan(statement) if fixable and statement is not None else None,
        )

    def build_fix(self, finding: Finding, fix: FixContext) -> FixEdit | None:
        from compilelint.fix.edits import guard_edit

        assert isinstance(finding.fix_data, GuardPlan)
        return guard_edit(finding.fix_data.statement, fix)

    def _classify(self, node: ast.Call, ctx: RuleContext) -> tuple[str, str] | None:
        name = ctx.qualname(node.func)
        if name in OUTPUT_FUNCTIONS:
            return OUTPUT_FUNCTIONS[name]
        if not isinstance(node.func, ast.Attribute) or node.func.attr not in LOGGER_METHODS:
            return None
        if name == f"logging.{node.func.attr}":
            return "GB4841", f"`logging.{node.func.attr}()`"
        if _is_logger(node.func.value, ctx):
            return "GB0291", f"`Logger.{node.func.attr}()`"
        return None


def _is_logger(node: ast.expr, ctx: RuleContext) -> bool:
    if isinstance(node, ast.Attribute):  # self.logger
        return node.attr in LOGGER_NAMES and node.attr not in ("log", "_log", "LOG")
    if not isinstance(node, ast.Name):
        return False
    value = ctx.index.assignments.get(node.id)
    if isinstance(value, ast.Call):
        factory = ctx.qualname(value.func) or ""
        return factory.endswith(LOGGER_FACTORIES)
    imported = ctx.index.imports.get(node.id)
    return imported is not None and imported.rsplit(".", 1)[-1] in ("logger", "LOGGER", "_logger")
