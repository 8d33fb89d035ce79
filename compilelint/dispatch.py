"""One pass over each compiled region that hands every node to the rules that asked for it."""

from __future__ import annotations

import ast
import traceback
from collections import defaultdict
from collections.abc import Sequence

from compilelint.analysis.expressions import Evaluator
from compilelint.analysis.interpreter import header_expressions
from compilelint.analysis.module_index import FunctionInfo
from compilelint.analysis.regions import FunctionState, is_entry_point
from compilelint.budget import NO_DEADLINE, Deadline
from compilelint.context import RuleContext
from compilelint.registry import Rule

NESTED_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


class RuleFailure(Exception):
    """A rule raised: reported as CL999 for the file, the other rules still run."""

    def __init__(self, rule: Rule, node: ast.AST, error: BaseException) -> None:
        super().__init__(f"{rule.code} ({rule.name}) crashed: {type(error).__name__}: {error}")
        self.rule = rule
        self.node = node
        self.trace = "".join(traceback.format_exception(error))


class RegionStopped(RuleFailure):
    """The analysis of one function gave up (nesting too deep): CL999 on that function,
    naming it; the other functions of the file keep their findings."""

    def __init__(self, info: FunctionInfo, why: str) -> None:
        Exception.__init__(self, f"analysis of {info.qualname} stopped: {why}; its findings may be incomplete")
        self.node = info.node
        self.trace = ""


class Dispatcher:
    """The StatementVisitor given to the interpreter during the reporting pass."""

    def __init__(self, rules: Sequence[Rule], ctx: RuleContext, deadline: Deadline = NO_DEADLINE) -> None:
        self.ctx = ctx
        self.deadline = deadline
        self.by_type: dict[type[ast.AST], list[Rule]] = defaultdict(list)
        for rule in rules:
            for node_type in rule.nodes:
                self.by_type[node_type].append(rule)
        self.failures: list[RuleFailure] = []
        self._broken: set[str] = set()

    def enter(self, state: FunctionState) -> None:
        self.ctx.region = state.chain
        self.ctx.function = state.info
        self.ctx.is_entry_point = is_entry_point(state, self.ctx.index)

    # --- StatementVisitor ----------------------------------------------------------------
    def statement(self, stmt: ast.stmt, evaluator: Evaluator) -> None:
        self.deadline.check()
        self.ctx.statement = stmt
        self.ctx.evaluator = evaluator
        self._dispatch(stmt)
        for expr in header_expressions(stmt):
            self.ctx.parents[id(expr)] = stmt
            self._walk(expr, evaluator)

    def _walk(self, node: ast.AST, evaluator: Evaluator) -> None:
        self._dispatch(node)
        for child in self._live_children(node, evaluator):
            self.ctx.parents[id(child)] = node
            self._walk(child, evaluator)

    @staticmethod
    def _live_children(node: ast.AST, evaluator: Evaluator) -> Sequence[ast.AST]:
        """Children Dynamo evaluates: dead arms of ``is_compiling()`` tests are skipped."""
        if isinstance(node, ast.IfExp):
            static = evaluator.static_value(node.test)
            if static is not None:
                return [node.test, node.body if static else node.orelse]
        elif isinstance(node, ast.BoolOp):
            return list(evaluator.live_operands(node))
        elif isinstance(node, NESTED_SCOPES):
            return []
        elif isinstance(node, ast.Call) and not _invokes_its_lambdas(node, evaluator):
            # a lambda handed to another function is a callback we cannot see run: the
            # message of torch._check(cond, lambda: msg) runs only when the check fails
            return [child for child in ast.iter_child_nodes(node) if not _is_lambda_argument(child)]
        return list(ast.iter_child_nodes(node))

    def walk_module(self, tree: ast.Module) -> None:
        """For rules of scope "module": every node of the file, with parents recorded."""
        stack: list[ast.AST] = [tree]
        seen = 0
        while stack:
            node = stack.pop()
            seen += 1
            if seen % 4096 == 0:
                self.deadline.check()
            self._dispatch(node)
            children = list(ast.iter_child_nodes(node))
            for child in children:
                self.ctx.parents[id(child)] = node
            stack.extend(reversed(children))

    def _dispatch(self, node: ast.AST) -> None:
        rules = self.by_type.get(type(node))
        if not rules:
            return
        for rule in rules:
            if rule.code in self._broken:
                continue
            self.ctx.rule = rule
            try:
                rule.check(node, self.ctx)
            except Exception as error:  # a rule bug must not lose the other findings
                self._broken.add(rule.code)
                self.failures.append(RuleFailure(rule, node, error))


# Functions that call the lambdas they are given, right away.
INVOKERS = frozenset(
    {"sorted", "min", "max", "map", "filter", "itertools.groupby", "functools.reduce", "itertools.accumulate"}
)


def _invokes_its_lambdas(node: ast.Call, evaluator: Evaluator) -> bool:
    name = evaluator.qualname(node.func) or ""
    return name in INVOKERS or name.endswith(".sort")


def _is_lambda_argument(child: ast.AST) -> bool:
    return isinstance(child, ast.Lambda) or (isinstance(child, ast.keyword) and isinstance(child.value, ast.Lambda))
