"""CL142: `step()`/`zero_grad()` of a `torch.optim` optimizer or learning-rate scheduler in compiled code."""

from __future__ import annotations

import ast

from compilelint.analysis.constructors import attribute_constructors, self_name
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

BOTH = (Mode.DEFAULT, Mode.FULLGRAPH)
# method -> (GB id, why), measured on torch 2.13 (backend eager, CPU): each breaks in the
# default mode and fails under fullgraph=True.
OPTIMIZER_METHODS = {
    # GB0007 where an lr_scheduler has wrapped the optimizer's step (a wrapper never traced)
    "step": ("GB0025/GB0007", "graph-breaks on purpose before and after the update (`torch._dynamo.graph_break()` in torch.optim)"),
    "zero_grad": ("GB0008", "is marked as never traced (`Optimizer.zero_grad`)"),
}
SCHEDULER_METHODS = {"step": ("GB0008", "is marked as never traced (`LRScheduler.step`)")}


class OptimizerCall(Rule):
    """Checks for optimizer and learning-rate scheduler calls inside compiled code.

    ## What it does
    Flags, inside a compiled region, `opt.step()` and `opt.zero_grad()` of a `torch.optim`
    optimizer, and `sched.step()` of a `torch.optim.lr_scheduler` scheduler, where `opt` or
    `sched` was built from `torch.optim` in the same function, at the file's top level
    (`OPT = torch.optim.AdamW(...)`) or in a method of the class (`self.opt = ...`).

    ## Why is this bad?
    Compiling a whole training step is a common way to use `torch.compile`, and these calls
    split it. Measured on torch 2.13 (backend eager, CPU): a built-in optimizer's `step()`
    calls `torch._dynamo.graph_break()` before and after the update on purpose, so that the
    update is traced under `no_grad` (GB0025), also in `torch.compile(opt.step)` itself;
    `Optimizer.zero_grad()` and `LRScheduler.step()` are marked as never traced (GB0008),
    and so is the wrapper a scheduler puts around its optimizer's `step` (GB0007).
    Each breaks the graph in the default mode and makes `fullgraph=True` fail. An
    `nn.Module.zero_grad()` and `clip_grad_norm_` are traced.

    ## Example
    ```python
    MODEL = nn.Linear(4, 4)
    OPT = torch.optim.SGD(MODEL.parameters(), lr=0.1)


    @torch.compile(fullgraph=True)
    def train_step(x, y):
        loss = F.mse_loss(MODEL(x), y)
        loss.backward()
        OPT.step()
        OPT.zero_grad()
        return loss
    ```

    ## Use instead
    ```python
    MODEL = nn.Linear(4, 4)
    OPT = torch.optim.SGD(MODEL.parameters(), lr=0.1)


    @torch.compile
    def loss_of(x, y):
        return F.mse_loss(MODEL(x), y)


    def train_step(x, y):
        loss = loss_of(x, y)
        loss.backward()
        OPT.step()
        OPT.zero_grad()
        return loss
    ```
    Compile the model (or the loss) and run the optimizer outside the compiled function.

    ## Fix safety
    No automatic fix: where the compiled region should end is the author's choice.
    """

    code = "CL142"
    name = "optimizer-call"
    message = "an optimizer or scheduler call in compiled code breaks the graph"
    gb_ids = ("GB0025", "GB0007", "GB0008")
    breaks = BOTH
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        if ctx.function is None or not isinstance(func, ast.Attribute) or func.attr not in OPTIMIZER_METHODS:
            return
        built = _torch_optim_classes(func.value, ctx)
        if not built:
            return
        scheduler = all(".lr_scheduler." in name for name in built)
        table = SCHEDULER_METHODS if scheduler else OPTIMIZER_METHODS
        if func.attr not in table:
            return
        gb_id, why = table[func.attr]
        what = "a learning-rate scheduler" if scheduler else "an optimizer"
        ctx.report(
            node,
            f"`.{func.attr}()` of {what} ({', '.join(sorted(built))}) {why}: breaks the graph in both modes "
            f"({gb_id.replace('/', ', ')}); compile the model or the loss, and run the optimizer outside",
            gb_ids=tuple(gb_id.split("/")),
        )


def _torch_optim_classes(receiver: ast.expr, ctx: RuleContext) -> tuple[str, ...]:
    """The ``torch.optim`` classes ``receiver`` may be an instance of (none: not known to be one)."""
    found: tuple[str, ...] = ()
    if isinstance(receiver, ast.Name):
        if ctx.evaluator is not None and receiver.id in ctx.evaluator.imported_instances:
            found = ctx.evaluator.imported_instances[receiver.id]
        elif ctx.evaluator is None or receiver.id not in ctx.evaluator.locals:
            value = ctx.index.assignments.get(receiver.id)
            name = ctx.index.qualname(value.func) if isinstance(value, ast.Call) else None
            found = (name,) if name else ()
    elif isinstance(receiver, ast.Attribute) and isinstance(receiver.value, ast.Name) and ctx.function is not None:
        owner = ctx.function.owner
        if owner is not None and receiver.value.id == self_name(ctx.function):
            found = tuple(attribute_constructors(ctx.index, owner, receiver.attr))
    return found if found and all(name.startswith("torch.optim.") for name in found) else ()
