"""CL115: RNG state read, set or forked, and torch.Generator objects, in compiled code."""

from __future__ import annotations

import ast

from compilelint.analysis.constructors import attribute_constructors, self_name
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

GENERATOR = "torch.Generator"
# qualified name -> GB ids, measured on torch 2.13 (skipped functions, an unsupported
# context manager, an opaque object created mid-graph)
FUNCTIONS = {
    "torch.get_rng_state": ("GB0007",),
    "torch.set_rng_state": ("GB0007",),
    "torch.random.get_rng_state": ("GB0007",),
    "torch.random.set_rng_state": ("GB0007",),
    "torch.random.fork_rng": ("GB0142", "GB0208"),
    GENERATOR: ("GB0363",),
}
GENERATOR_METHODS = frozenset({"get_state", "set_state", "manual_seed", "seed", "initial_seed"})


class RngState(Rule):
    """Checks for RNG state handling and `torch.Generator` use inside compiled code.

    ## What it does
    Flags, inside a compiled region: `torch.get_rng_state()`, `torch.set_rng_state()` (also
    under `torch.random`), `torch.random.fork_rng()`, `torch.Generator(...)`, the state
    methods of a generator (`get_state`, `set_state`, `manual_seed`, `seed`) on
    `torch.default_generator`, on `self.<name>` built as a `torch.Generator` or on a local
    one, and a `generator=` argument given to a random op.

    ## Why is this bad?
    Dynamo models random ops with its own seed handling; explicit state cannot be put in
    the graph. Measured on torch 2.13, in the default mode, with `dynamic=True` and under
    `fullgraph=True` (an error there): `get_rng_state`/`set_rng_state` are skipped functions
    (GB0007), generator state methods break (GB7650 "torch.Generator method"), creating a
    generator breaks (GB0363 "An opaque object was created in the middle of the program"),
    a `generator=` argument cannot be put in the graph (GB0055), and `fork_rng` is an
    unsupported context manager (GB0142).

    ## Example
    ```python
    class Noisy(nn.Module):
        def forward(self, x):
            state = torch.get_rng_state()
            noise = torch.randn_like(x)
            torch.set_rng_state(state)
            return x + noise
    ```

    ## Use instead
    ```python
    class Noisy(nn.Module):
        def forward(self, x, noise):
            return x + noise
    ```
    Draw reproducible noise outside the compiled code (with your generator) and pass it in,
    or seed once before calling the compiled model.

    ## Fix safety
    No automatic fix: skipping state handling changes every later random number.
    """

    code = "CL115"
    name = "rng-state"
    message = "RNG state handling inside compiled code breaks the graph"
    gb_ids = ("GB0007", "GB7650", "GB0363", "GB0055", "GB0142", "GB0208")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        name = ctx.qualname(node.func)
        if name in FUNCTIONS:
            gb_ids = FUNCTIONS[name]
            ctx.report(node, f"`{name}()` inside compiled code breaks the graph ({'/'.join(gb_ids)}); handle RNG state outside", gb_ids=gb_ids)
        elif isinstance(node.func, ast.Attribute) and node.func.attr in GENERATOR_METHODS and _is_generator(node.func.value, ctx):
            ctx.report(node, f"`Generator.{node.func.attr}()` inside compiled code breaks the graph (GB7650); handle RNG state outside", gb_ids=("GB7650",))
        else:
            generator = next((k.value for k in node.keywords if k.arg == "generator"), None)
            if generator is not None and not (isinstance(generator, ast.Constant) and generator.value is None):
                ctx.report(
                    node,
                    "a `generator=` argument inside compiled code cannot be put in the graph: breaks it (GB0055); "
                    "draw with the generator outside and pass the tensor in",
                    gb_ids=("GB0055",),
                )


def _is_generator(receiver: ast.expr, ctx: RuleContext) -> bool:
    if ctx.qualname(receiver) == "torch.default_generator":
        return True
    function = ctx.function
    if function is None:
        return False
    if isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and function.owner is not None:
        if receiver.value.id == self_name(function):
            return GENERATOR in attribute_constructors(ctx.index, function.owner, receiver.attr)
    if isinstance(receiver, ast.Name):
        return any(
            isinstance(n, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == receiver.id for t in n.targets)
            and isinstance(n.value, ast.Call)
            and ctx.qualname(n.value.func) == GENERATOR
            for n in ast.walk(function.node)
        )
    return False
