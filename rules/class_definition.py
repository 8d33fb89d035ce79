"""CL116: a class statement executed inside compiled code."""

from __future__ import annotations

import ast

from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule


class ClassDefinition(Rule):
    """Checks for `class` statements inside compiled functions.

    ## What it does
    Flags a `class` statement in the body of a compiled region: a class defined inside
    `forward`, or inside a function that compiled code calls.

    ## Why is this bad?
    A `class` statement runs `__build_class__` each time the function runs, and Dynamo
    cannot trace it. Measured on torch 2.13: a graph break in the default mode and with
    `dynamic=True` (GB8977 "Invalid call to `__build_class__`"), an error under
    `fullgraph=True`, for a plain class and for a `@dataclass` alike; applying the
    `@dataclass` decorator breaks on its own line first in the default mode (GB0059, GB0082).

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            class Output:
                pass

            out = Output()
            out.value = x * 2
            return out.value
    ```

    ## Use instead
    ```python
    class Output:
        pass


    class Net(nn.Module):
        def forward(self, x):
            out = Output()
            out.value = x * 2
            return out.value
    ```
    Define the class at module level: it is built once, at import.

    ## Fix safety
    No automatic fix: a class defined inside a function may close over its locals.
    """

    code = "CL116"
    name = "class-definition"
    message = "a `class` statement inside compiled code breaks the graph (GB8977); define the class at module level"
    gb_ids = ("GB8977", "GB0059", "GB0082")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.ClassDef,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.ClassDef)
        ctx.report(node, f"`class {node.name}` inside compiled code breaks the graph (GB8977); define it at module level")
        if node.decorator_list:
            # Applying the decorator breaks on its own line, before the class line.
            statement, ctx.statement = ctx.statement, None
            ctx.report(
                node.decorator_list[0],
                f"decorating `class {node.name}` inside compiled code breaks the graph (GB0059); define it at module level",
                breaks=(Mode.DEFAULT,),  # under fullgraph=True the class line fails first
                gb_ids=("GB0059", "GB0082"),
            )
            ctx.statement = statement
