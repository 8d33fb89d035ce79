"""CL136: sampling a Beta / Dirichlet / Binomial / LKJCholesky distribution with a size taken from a tensor."""

from __future__ import annotations

import ast

from compilelint.analysis.constructors import attribute_constructors, local_bases, self_name
from compilelint.analysis.kinds import Kind
from compilelint.analysis.objects import of_name
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

# Their samplers run aten._sample_dirichlet (Beta, Dirichlet, LKJCholesky) or aten.binomial,
# which have no fake-tensor kernel for symbolic sizes (measured on torch 2.13).
SAMPLERS = frozenset({"Beta", "Dirichlet", "Binomial", "LKJCholesky"})
METHODS = frozenset({"sample", "rsample"})


class SampleWithoutFakeKernel(Rule):
    """Checks for `Beta`/`Dirichlet`/`Binomial`/`LKJCholesky` samples whose size holds a tensor size.

    ## What it does
    Flags, inside a compiled region, `.sample(size)` and `.rsample(size)` of a
    `torch.distributions` `Beta`, `Dirichlet`, `Binomial` or `LKJCholesky` (built in the
    function, at module level, stored on `self` in any method of the class, or passed in as
    an argument by compiled code) when `size` holds a tensor size (`(x.shape[0],)`,
    `x.shape[:1]`, `(batch * n,)`).

    ## Why is this bad?
    These samplers run `aten._sample_dirichlet` or `aten.binomial`, which Dynamo's fake
    tensors can only run for concrete sizes. Once the size is dynamic (the second input size
    under automatic dynamic shapes, or `dynamic=True`), the call breaks the graph (GB0090
    "Operator does not support running with fake tensors"), and `fullgraph=True` fails.
    Measured on torch 2.13 (backend eager, batch sizes 2, 3, 4): a mixup coefficient
    `Beta(a, a).rsample((x.shape[0],))` compiles for the first batch size and breaks from the
    second on; the same sample with a constant size, and `Uniform`, `Normal`, `Bernoulli`,
    `Gamma`, `Poisson`, `Categorical` and the other distributions compile with a dynamic
    size. A distribution built in the compiled function itself can also fail to be rebuilt at
    that break (GB0092 "Reconstruction failure"; measured for a `Dirichlet` and a local
    `Binomial`, not for a local `Beta` of two literal tensors), and the function then runs in
    Python. Transformers 5.x's PI0 samples its flow-matching timestep this way
    (`Beta(...).sample((batch_size,))`, modeling_pi0.py; reduced and measured). The zoo hit it in kornia's mix augmentations (`RandomCutMixV2`, `PatchMix`): a
    generator's `make_samplers()`, run before compiling, stores the `Beta` on `self`, and
    `forward` passes it to a helper of another file that samples it; the distribution a
    parameter holds is what the callers pass, so that helper's line is flagged.

    ## Example
    ```python
    class MixUp(nn.Module):
        def __init__(self, alpha=0.4):
            super().__init__()
            self.beta = torch.distributions.Beta(torch.tensor(alpha), torch.tensor(alpha))

        def forward(self, x):
            lam = self.beta.sample((x.shape[0],))
            return lam.view(-1, 1, 1, 1) * x + (1 - lam.view(-1, 1, 1, 1)) * x.flip(0)
    ```

    ## Use instead
    ```python
    class MixUp(nn.Module):
        def __init__(self, alpha=0.4):
            super().__init__()
            self.gamma = torch.distributions.Gamma(torch.tensor(alpha), torch.tensor(1.0))

        def forward(self, x):
            a, b = self.gamma.sample((2, x.shape[0]))
            lam = a / (a + b)  # a Beta(alpha, alpha) draw, from two Gamma draws
            return lam.view(-1, 1, 1, 1) * x + (1 - lam.view(-1, 1, 1, 1)) * x.flip(0)
    ```
    Two Gamma draws give a Beta draw (`Gamma` samples compile with dynamic sizes); or draw
    the coefficients outside the compiled code and pass them in.

    ## Fix safety
    No automatic fix: the rewrite draws other random numbers.
    """

    code = "CL136"
    name = "sample-without-fake-kernel"
    message = "a Beta/Dirichlet/Binomial sample sized by a tensor size breaks once shapes are dynamic (GB0090)"
    gb_ids = ("GB0090", "GB0092")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if not isinstance(node.func, ast.Attribute) or node.func.attr not in METHODS:
            return
        size = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "sample_shape"), None)
        if size is None or not ctx.kind(size) & Kind.SHAPE:
            return
        found = _distribution(node.func.value, ctx)
        if found is None:
            return
        distribution, built_here = found
        ctx.report(
            node,
            f"`{distribution}.{node.func.attr}()` with a size taken from a tensor: its sampler has no fake-tensor "
            "kernel for symbolic sizes, so once the size is dynamic (the second input size, or `dynamic=True`) "
            "this breaks the graph (GB0090) and `fullgraph=True` fails; draw a Beta or Dirichlet as normalised "
            "Gamma samples, or draw it outside the compiled code",
            gb_ids=("GB0090", "GB0092") if built_here else ("GB0090",),
        )


def _distribution(receiver: ast.expr, ctx: RuleContext) -> tuple[str, bool] | None:
    """The sampler class ``receiver`` is built from, if it is one of SAMPLERS, and whether
    the compiled function builds it (then the object cannot be rebuilt at the break)."""
    classes: set[str] = set()
    built_here = isinstance(receiver, ast.Call)
    if isinstance(receiver, ast.Call):
        classes.add(ctx.qualname(receiver.func) or "")
    elif isinstance(receiver, ast.Name):
        local = _local_value(receiver.id, ctx)
        built_here = local is not None
        value = local or ctx.index.assignments.get(receiver.id)
        if isinstance(value, ast.Call):
            classes.add(ctx.qualname(value.func) or "")
        if ctx.evaluator is not None:  # a parameter: what the callers pass (kornia's helpers)
            classes.update(of_name(ctx.evaluator, receiver.id))
    elif isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name):
        function = ctx.function
        if function is not None and function.owner is not None and receiver.value.id == self_name(function):
            classes |= attribute_constructors(ctx.index, function.owner, receiver.attr)
    for name in sorted(classes):
        for base in local_bases(ctx.index, name):
            if base.startswith("torch.distributions.") and base.rsplit(".", 1)[1] in SAMPLERS:
                return base.rsplit(".", 1)[1], built_here
    return None


def _local_value(name: str, ctx: RuleContext) -> ast.expr | None:
    """The value of the one plain assignment to ``name`` in the function, if there is one."""
    function = ctx.function
    if function is None:
        return None
    values = [
        node.value
        for node in ast.walk(function.node)
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == name for t in node.targets)
    ]
    return values[0] if len(values) == 1 else None
