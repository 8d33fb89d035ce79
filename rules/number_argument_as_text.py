"""CL145: an int/float argument of a compiled function turned into text: no graph once it varies."""

from __future__ import annotations

import ast

from compilelint.analysis.parameters import number_operands, number_parameters, rebinds
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

BOTH = (Mode.DEFAULT, Mode.FULLGRAPH)
# builtin -> GB id, measured on torch 2.13 (backend eager, CPU)
TEXT_BUILTINS = {"str": "GB0059", "repr": "GB6053"}


class NumberArgumentAsText(Rule):
    """Checks for int/float arguments of compiled functions turned into strings.

    ## What it does
    Flags, in a `forward` or `@torch.compile` function that Dynamo starts at, `str(n)` and
    `repr(n)` of a parameter annotated `int` or `float` (or with a number default), also of
    arithmetic on it (`str(n + 1)`), and the number itself formatted into text: an f-string
    part (`f"h{n}"`) or `"%d" % n`. The function must not rebind `n`; the message of a
    `raise` or an `assert` is left alone (it is built only when the check fails).

    ## Why is this bad?
    Dynamo first specialises a Python number argument on its value; when a call passes
    another value it recompiles with the number as a symbolic input, and `dynamic=True`
    makes it symbolic from the start. A symbolic number cannot become text while tracing.
    Measured on torch 2.13 (backend eager, CPU), calls with 6, 12 and 7: once the value
    changes, `str(n)` breaks the graph (GB0059 "Failed to trace builtin operator"), so
    does `str(n + 1)` and `str()` of a float argument, `repr(n)` (GB6053), an f-string part
    `f"h{n}"` (GB0021 "BUILD_STRING type error") and `"%d" % n` (GB0088); with
    `dynamic=True` from the first call; `fullgraph=True` fails at the second value. The
    same calls with one value compile once and never break. torch 2.14 and 2.15 trace
    the f-string part (measured on 2.14.1 and 2.15.0: no break, no failure); `str()`,
    `repr()` and `%` break there too. `"{}".format(n)` fails the same way on 2.13, but
    Dynamo names the line after it (not flagged); an f-string part computed from the
    number (`f"{n + 1}"`) is specialised instead: a recompile for each value, no break
    (not flagged). A module container keyed by the text (`self.heads[str(horizon)]`) is
    the common case.

    ## Example
    ```python
    class MultiHorizon(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = nn.ModuleDict({str(h): nn.Linear(8, h) for h in (1, 6, 12)})

        def forward(self, x, horizon: int = 6):
            return self.heads[str(horizon)](x)
    ```

    ## Use instead
    ```python
    class MultiHorizon(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = nn.ModuleDict({str(h): nn.Linear(8, h) for h in (1, 6, 12)})

        def forward(self, x, head: str = "6"):
            return self.heads[head](x)
    ```
    Pass the text itself (a string argument is a constant Dynamo guards on), pick the
    module outside the compiled function, or fix the number at construction.

    ## Fix safety
    No automatic fix: the remedy changes the function's signature or its callers.
    """

    code = "CL145"
    name = "number-argument-as-text"
    message = "a number argument turned into text: once its value changes Dynamo cannot trace it"
    gb_ids = ("GB0059", "GB6053", "GB0021", "GB0088")
    breaks = BOTH
    nodes = (ast.Call, ast.JoinedStr, ast.BinOp)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if not ctx.is_entry_point or ctx.function is None:
            return
        if isinstance(ctx.statement, (ast.Raise, ast.Assert)):
            return  # an error message is built only on the way out, where the call fails anyway
        numbers = number_parameters(ctx.function.node)
        if not numbers:
            return
        if isinstance(node, ast.Call):
            builtin = ctx.builtin(node.func)
            if builtin in TEXT_BUILTINS and len(node.args) == 1 and not node.keywords:
                name = self._number(node.args[0], numbers, ctx)
                if name is not None:
                    ctx.report(
                        node,
                        f"`{builtin}()` of argument `{name}`: once a call passes another value Dynamo makes it "
                        f"symbolic, and `{builtin}()` of it breaks the graph ({TEXT_BUILTINS[builtin]}; "
                        "with `dynamic=True` from the first call) and fails `fullgraph=True`; pass the text as a "
                        "string argument, or choose outside the compiled code",
                        gb_ids=(TEXT_BUILTINS[builtin],),
                    )
        elif isinstance(node, ast.JoinedStr):
            for part in node.values:  # the first number part fails: one finding per f-string
                # traced from torch 2.14 on (rules/claims)
                if isinstance(part, ast.FormattedValue) and self._formatted(
                    part.value, numbers, ctx, "an f-string", part.value, "GB0021", claim="CL145:f-string"
                ):
                    return
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_text(node.left):
            values = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            for value in values:
                if self._formatted(value, numbers, ctx, "`%` formatting", node, "GB0088"):
                    return

    def _formatted(
        self, value: ast.expr, numbers: dict[str, str | None], ctx: RuleContext, how: str, node: ast.AST, gb_id: str,
        claim: str | None = None,
    ) -> bool:  # fmt: skip
        # only the bare argument: a part computed from it (`f"{n + 1}"`) is specialised instead
        if not isinstance(value, ast.Name) or self._number(value, numbers, ctx) is None:
            return False
        ctx.report(
            node,
            f"argument `{value.id}` formatted into text with {how}: once a call passes another value Dynamo "
            f"makes it symbolic and cannot build the text, which breaks the graph ({gb_id}; with `dynamic=True` "
            "from the first call) and fails `fullgraph=True`; pass the text as a string argument, or format "
            "outside the compiled code",
            gb_ids=(gb_id,),
            claim=claim,
        )
        return True

    @staticmethod
    def _number(value: ast.expr, numbers: dict[str, str | None], ctx: RuleContext) -> str | None:
        """The number argument ``value`` is, alone or in arithmetic with constants."""
        assert ctx.function is not None
        names = number_operands(value, numbers)
        if not names or any(rebinds(ctx.function.node, name) for name in names):
            return None
        return names[0]


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)
