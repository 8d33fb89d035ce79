"""CL204: int/float arguments of compiled functions used where Dynamo specialises on them."""

from __future__ import annotations

import ast

from compilelint.analysis.frames import own_nodes
from compilelint.analysis.guards import only_raises
from compilelint.analysis.kinds import Kind
from compilelint.analysis.parameters import number_operands, number_parameters
from compilelint.analysis.python_containers import built_as_container
from compilelint.context import RuleContext
from compilelint.registry import Rule


class PythonNumberArgument(Rule):
    """Checks for int/float arguments of compiled functions used as loop counts or branch tests.

    ## What it does
    Flags, in a `forward` or `@torch.compile` function, a parameter annotated `int` or
    `float` (or with a number default) that is used as a loop count (`range(n)`), to
    repeat a list (`[0.0] * n`), in a branch test (`if p > 0.5:`), in a `math`
    function (`math.exp(t)`), or to index or slice a Python list, tuple, dict or module
    container (`self.sigmas[step]`, `self.sigmas[step + 1]`, `self.blocks[i](x)`).

    ## Why is this bad?
    Python numbers are not graph inputs: Dynamo guards on their value. Measured on torch
    2.13, a number used only in tensor arithmetic (`x / temperature`, `x[:n]`,
    `torch.zeros(n)`, a tensor buffer indexed: `self.sigmas[step]`) recompiles once, then
    becomes a dynamic input (not flagged). Used as a loop count, a list length, in `math.*`
    or as the index of a Python container it recompiles for every new value (5 values, 5
    graphs; a scheduler's `self.sigmas[step]` over 10 steps reaches the limit, with
    `dynamic=True` too), and in a branch test once more on each side of the threshold,
    until the recompile limit (8) sends the function to eager.

    ## Example
    ```python
    class Sampler(nn.Module):
        def forward(self, x, steps: int):
            for _ in range(steps):
                x = x - 0.1 * x.tanh()
            return x
    ```

    ## Use instead
    ```python
    class Sampler(nn.Module):
        def forward(self, x, steps: int = 10):
            return self.step_once(x)

        def step_once(self, x):
            return x - 0.1 * x.tanh()
    ```
    Keep per-call numbers out of Python control flow: loop outside the compiled function,
    pass a tensor (`torch.tensor(p)`) and use tensor ops (`torch.where`), keep per-step
    tables in a tensor buffer (`register_buffer("sigmas", torch.tensor(sigmas))`), or fix
    the value at construction.

    ## Fix safety
    No automatic fix: the remedy moves code across the compiled boundary.
    """

    code = "CL204"
    name = "python-number-argument"
    message = "int/float argument used where Dynamo specialises on its value: recompiles per value"
    breaks = ()
    nodes = (ast.Call, ast.BinOp, ast.If, ast.While, ast.IfExp, ast.Subscript)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if not ctx.is_entry_point or ctx.function is None:
            return
        numbers = number_parameters(ctx.function.node)
        if not numbers:
            return
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            self._check_test(node, numbers, ctx)
            return
        used = self._specialising_use(node, numbers, ctx)
        if used is not None:
            name, how = used
            ctx.report(node, f"argument `{name}` is {how}: Dynamo recompiles for each new value; pass a tensor or move it out of the compiled code")

    @staticmethod
    def _check_test(node: ast.If | ast.While | ast.IfExp, numbers: dict[str, str | None], ctx: RuleContext) -> None:
        """An int in a test: after one recompile it is a dynamic input, guarded by the test;
        an input on the other side of it compiles again (a float: each new value). A test
        whose other side raises validates the argument (``if scale not in self.scales:
        raise``): every valid call takes the same side (measured on diffusers' Kandinsky 6
        upscaler bank: no recompile from the test)."""
        if isinstance(node, ast.If) and (only_raises(node.body) or only_raises(node.orelse)):
            return
        for part, guards in ctx.guarded_parts(node.test):
            if isinstance(part, ast.Compare) and any(isinstance(op, (ast.Is, ast.IsNot)) for op in part.ops):
                continue  # `n is None` guards on None-ness only
            if isinstance(part, ast.Compare) and _against_zero_or_one(part):
                continue  # Dynamo specialises ints 0 and 1 anyway: `n > 0` adds no recompile
            operands = [part.left, *part.comparators] if isinstance(part, ast.Compare) else [part]
            for operand in operands:
                if isinstance(operand, ast.Name) and operand.id in numbers:
                    only_when, when = ctx.conditions(guards)
                    floats = "" if numbers[operand.id] == "int" else " (a float: for each new value)"
                    ctx.report(
                        part,
                        f"argument `{operand.id}` is tested in a branch{when}: Dynamo guards on the outcome and "
                        f"recompiles when a value lands on the other side{floats}; pass a tensor "
                        "and use `torch.where`, or move the test out of the compiled code",
                        only_when=only_when,
                    )
                    return

    @staticmethod
    def _specialising_use(node: ast.AST, numbers: dict[str, str | None], ctx: RuleContext) -> tuple[str, str] | None:
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            names = number_operands(node.slice, numbers)
            if not names or _indexed_before(node, names, ctx):
                return None
            what = _python_container(ctx.kind(node.value))
            if what is None and built_as_container(node.value, ctx.function, ctx.builtin):
                what = "list, tuple or dict"
            return (names[0], f"the index of a Python {what}") if what else None
        if isinstance(node, ast.Call):
            name = ctx.qualname(node.func) or ""
            for arg in node.args:
                if isinstance(arg, ast.Name) and arg.id in numbers:
                    if ctx.builtin(node.func) == "range":
                        return arg.id, "a loop count"
                    if name.startswith("math."):
                        return arg.id, f"passed to `{name}`"
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mult):
            for display, count in ((node.left, node.right), (node.right, node.left)):
                if isinstance(display, (ast.List, ast.Tuple)) and isinstance(count, ast.Name) and count.id in numbers:
                    return count.id, "a list length"
        return None


def _python_container(kind: Kind) -> str | None:
    """What a subscripted value is when it is a Python container: Dynamo looks the item up
    while tracing, so it guards on the index's exact value (a tensor is indexed in the graph)."""
    if kind & (Kind.UNKNOWN | Kind.NUMPY) or kind == Kind.NONE:
        return None
    if kind & Kind.MODULE:
        return "module container"
    if kind & Kind.CONTAINER:
        return "list, tuple or dict of tensors"
    if not kind & ~Kind.STATIC:
        return "list, tuple or dict"
    return None


def _indexed_before(node: ast.Subscript, names: list[str], ctx: RuleContext) -> bool:
    """The same container indexed by the same argument earlier in the function
    (``self.sigmas[step]``, then ``self.sigmas[step + 1]``): the guard on the argument's value
    is in place from there, and this use adds no recompile of its own."""
    assert ctx.function is not None
    container = ast.dump(node.value)
    here = (node.lineno, node.col_offset)
    return any(
        isinstance(other, ast.Subscript) and (other.lineno, other.col_offset) < here and ast.dump(other.value) == container
        and set(number_operands(other.slice, dict.fromkeys(names))) & set(names)
        for other in own_nodes(ctx.function.node)
    )  # fmt: skip


def _against_zero_or_one(test: ast.Compare) -> bool:
    constants = [o for o in (test.left, *test.comparators) if isinstance(o, ast.Constant)]
    return bool(constants) and all(type(c.value) is int and c.value in (0, 1) for c in constants)
