"""CL145: an int/float input of compiled code turned into text: no graph once it is symbolic."""

from __future__ import annotations

import ast

from compilelint.analysis.number_inputs import ARGUMENT, NumberInput, number_input
from compilelint.analysis.parameters import number_operands, number_parameters, rebinds
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

BOTH = (Mode.DEFAULT, Mode.FULLGRAPH)
DYNAMIC_ONLY = (Mode.DYNAMIC,)
# builtin -> GB id, measured on torch 2.13 (backend eager, CPU)
TEXT_BUILTINS = {"str": "GB0059", "repr": "GB6053"}


class NumberArgumentAsText(Rule):
    """Checks for int/float arguments of compiled functions turned into strings.

    ## What it does
    Flags `str(n)` and `repr(n)` (also of arithmetic on `n`), an f-string part `{n}` and
    `"%d" % n` in compiled code where `n` is a Python number Dynamo receives as an input:
    - an `int`/`float` parameter (annotated, or with a number default) of a `forward` or
      `@torch.compile` function Dynamo starts at, which the function does not rebind, also
      passed on unchanged to a helper it calls (`_window_name(size)`);
    - a float constant of the surroundings: an attribute the class only ever sets to a
      float (`self.eps = eps` with `eps: float`, `self.scale = 0.5`) or a float global
      (`EPS = 1e-6`), read directly, under another name or in a helper it is passed to.
    The message of a `raise` or an `assert` is left alone (it is built only when the check
    fails).

    ## Why is this bad?
    Dynamo first specialises a Python number argument on its value; when a call passes
    another value it recompiles with the number as a symbolic input, and `dynamic=True`
    makes it symbolic from the start. A symbolic number cannot become text while tracing.
    Measured on torch 2.13 (backend eager, CPU), calls with 6, 12 and 7: once the value
    changes, `str(n)` breaks the graph (GB0059 "Failed to trace builtin operator"), so
    does `str(n + 1)` and `str()` of a float argument, `repr(n)` (GB6053), an f-string part
    `f"h{n}"` (GB0021 "BUILD_STRING type error") and `"%d" % n` (GB0088), in the function
    itself or in a helper it passes `n` to; with `dynamic=True` from the first call;
    `fullgraph=True` fails at the second value. The same calls with one value compile once
    and never break.

    Float attributes and float globals are constants in the default mode whatever the
    calls do, but `dynamic=True` makes every Python float Dynamo reads from its
    surroundings symbolic from the first call: the same operations break there (mode
    "dynamic" in the finding), two helper calls down as well (measured on 2.13: a
    threshold check's message `f"low={low} > high={high}"` in a helper given
    `self.low`). Int attributes stay constants (Dynamo specialises integers held by
    modules), and a value computed from the float (`self.scale * 2`) is specialised: no
    break, not flagged.

    torch 2.14 and 2.15 trace the f-string part (measured on 2.14.1 and 2.15.0: no break,
    no failure, in any mode); `str()`, `repr()` and `%` break there too. `"{}".format(n)`
    fails the same way on 2.13, but Dynamo names the line after it (not flagged); an
    f-string part computed from the number (`f"{n + 1}"`) is specialised instead: a
    recompile for each value, no break (not flagged). A module container keyed by the
    text (`self.heads[str(horizon)]`) is the common case.

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
        if ctx.function is None or ctx.analysis is None:
            return
        if isinstance(ctx.statement, (ast.Raise, ast.Assert)):
            return  # an error message is built only on the way out, where the call fails anyway
        if isinstance(node, ast.Call):
            builtin = ctx.builtin(node.func)
            if builtin in TEXT_BUILTINS and len(node.args) == 1 and not node.keywords:
                found = self._number(node.args[0], ctx, arithmetic=True)
                if found is not None:
                    gb_id = TEXT_BUILTINS[builtin]
                    self._report(node, found, f"`{builtin}()` of", gb_id, ctx, claim=None)
        elif isinstance(node, ast.JoinedStr):
            for part in node.values:  # the first number part fails: one finding per f-string
                if isinstance(part, ast.FormattedValue):
                    found = self._number(part.value, ctx, arithmetic=False)
                    if found is not None:  # traced from torch 2.14 on (rules/claims)
                        self._report(part.value, found, "an f-string part of", "GB0021", ctx, claim="f-string")
                        return
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod) and _is_text(node.left):
            values = node.right.elts if isinstance(node.right, ast.Tuple) else [node.right]
            for value in values:
                found = self._number(value, ctx, arithmetic=False)
                if found is not None:
                    self._report(node, found, "`%` formatting of", "GB0088", ctx, claim=None)
                    return

    def _report(self, node: ast.AST, found: NumberInput, how: str, gb_id: str, ctx: RuleContext, claim: str | None) -> None:
        if found.origin == ARGUMENT:
            ctx.report(
                node,
                f"{how} number argument `{found.name}`: once a call passes another value Dynamo makes it symbolic "
                f"and cannot turn it into text, which breaks the graph ({gb_id}; with `dynamic=True` from the "
                "first call) and fails `fullgraph=True`; pass the text as a string argument, or format outside "
                "the compiled code",
                gb_ids=(gb_id,),
                claim="CL145" + (f":{claim}" if claim else ""),
            )
            return
        ctx.report(
            node,
            f"{how} float `{found.name}`: `torch.compile(dynamic=True)` makes Python floats read by compiled code "
            f"symbolic from the first call, and a symbolic float cannot become text: the graph breaks ({gb_id}) "
            "under `dynamic=True` (the default mode keeps it a constant); format it outside the compiled code, "
            "or keep the text beside the number",
            breaks=DYNAMIC_ONLY,
            gb_ids=(gb_id,),
            claim="CL145:dynamic-float" + (f"-{claim}" if claim else ""),
        )

    @staticmethod
    def _number(value: ast.expr, ctx: RuleContext, arithmetic: bool) -> NumberInput | None:
        """The input number ``value`` is: a number argument of the entry point, alone or
        (``arithmetic``) with constants; or one passed on unchanged."""
        assert ctx.function is not None and ctx.analysis is not None
        if ctx.is_entry_point:
            numbers = number_parameters(ctx.function.node)
            names = number_operands(value, numbers) if numbers else []
            if not arithmetic and not isinstance(value, ast.Name):
                # only the bare argument: a part computed from it (`f"{n + 1}"`) is specialised instead
                names = []
            if names and not any(rebinds(ctx.function.node, name) for name in names):
                return NumberInput(names[0], ARGUMENT)
        return number_input(value, ctx.function, ctx.analysis, ctx.index)


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)
