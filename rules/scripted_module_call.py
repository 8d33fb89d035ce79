"""CL143: a TorchScript module (`torch.jit.script`/`trace`/`freeze`/`load`) called in compiled code."""

from __future__ import annotations

import ast

from compilelint.analysis.comprehension_frames import stored_in_mro
from compilelint.analysis.constructors import self_name
from compilelint.analysis.module_index import ModuleIndex
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

# What each gives a module built from, and the break calling that module gives (torch 2.13).
FROM_A_MODULE = {"torch.jit.script": "GB4695", "torch.jit.trace": "GB0008"}
ALWAYS_A_MODULE = {"torch.jit.freeze": "GB4695", "torch.jit.load": "GB4695", "torch.jit.optimize_for_inference": "GB4695"}
# Methods that hand back the module they are called on.
SAME_MODULE = frozenset({"eval", "train", "to", "cuda", "cpu", "half", "float", "double", "bfloat16", "requires_grad_"})


class ScriptedModuleCall(Rule):
    """Checks for calls of TorchScript modules inside compiled code.

    ## What it does
    Flags, inside a compiled region, a call of a module (or of one of its methods) that
    `torch.jit.script` or `torch.jit.trace` made of an `nn.Module`, or that
    `torch.jit.freeze`, `torch.jit.load` or `torch.jit.optimize_for_inference` returned,
    held in an attribute of `self` (every assignment to it in the class is such a module)
    or in a name the file's top level binds once.

    ## Why is this bad?
    A TorchScript module runs in the TorchScript interpreter, not in Python, so Dynamo
    cannot trace into it. Measured on torch 2.13 (backend eager): calling a scripted,
    frozen or loaded module, or its `forward`, breaks the graph in the default mode and
    with `dynamic=True` (GB4695 "torch.jit.script/freeze modules unsupported") and fails
    under `fullgraph=True`; a traced module breaks the same way on its cached forward
    (GB0008). A function that `torch.jit.script` or `torch.jit.trace` compiled is traced
    as the Python it was made from, and is not flagged.

    ## Example
    ```python
    class Head(nn.Module):
        def forward(self, x):
            return x * 2


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = torch.jit.script(Head())

        def forward(self, x):
            return self.head(x) + 1
    ```

    ## Use instead
    ```python
    class Head(nn.Module):
        def forward(self, x):
            return x * 2


    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.head = Head()

        def forward(self, x):
            return self.head(x) + 1
    ```
    Keep the eager module for the compiled model (script or trace it separately for
    export), or load the weights into the Python class instead of a TorchScript archive.

    ## Fix safety
    No automatic fix: the Python module may not be at hand (a loaded archive).
    """

    code = "CL143"
    name = "scripted-module-call"
    message = "a TorchScript module called in compiled code breaks the graph (GB4695)"
    gb_ids = ("GB4695", "GB0008")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        holder = node.func.value if isinstance(node.func, ast.Attribute) and _held(node.func.value, ctx) else node.func
        made = _held(holder, ctx)
        if made is None:
            return
        maker, gb_id = made
        why = "runs in the TorchScript interpreter, which Dynamo cannot trace" if gb_id == "GB4695" else (
            "runs its cached forward, which Dynamo is marked to skip"
        )
        ctx.report(
            node,
            f"`{ast.unparse(holder)}` is a module `{maker}` made: calling it {why}, so the graph breaks here in both "
            f"modes ({gb_id}); call the eager `nn.Module` in compiled code",
            gb_ids=(gb_id,),
        )


def _held(node: ast.expr, ctx: RuleContext) -> tuple[str, str] | None:
    """(the ``torch.jit`` function, the break) when ``node`` holds a TorchScript module."""
    function = ctx.function
    values: list[ast.expr] = []
    if isinstance(node, ast.Attribute) and function is not None and function.owner is not None:
        if isinstance(node.value, ast.Name) and node.value.id == self_name(function):
            values = stored_in_mro(function.owner, node.attr)
    elif isinstance(node, ast.Name) and ctx.index.top_level_stores[node.id] == 1 and ctx.evaluator is not None:
        if node.id not in ctx.evaluator.locals and node.id in ctx.index.assignments:
            values = [ctx.index.assignments[node.id]]
    made = [_jit_module(value, ctx.index) for value in values]
    if not made or any(m is None for m in made):
        return None
    return made[0]


def _jit_module(value: ast.expr, index: ModuleIndex) -> tuple[str, str] | None:
    value = _unchained(value)
    if not isinstance(value, ast.Call):
        return None
    maker = index.qualname(value.func)
    if maker in ALWAYS_A_MODULE:
        return maker, ALWAYS_A_MODULE[maker]
    if maker in FROM_A_MODULE and value.args and _builds_a_module(value.args[0], index):
        return maker, FROM_A_MODULE[maker]
    return None


def _builds_a_module(node: ast.expr, index: ModuleIndex) -> bool:
    """``Head()``, ``nn.Linear(4, 4)``, ``Head().eval()``: a class of the file that is an
    ``nn.Module``, or an imported ``torch.nn`` class."""
    node = _unchained(node)
    if not isinstance(node, ast.Call):
        return False
    if isinstance(node.func, ast.Name) and node.func.id in index.classes:
        return index.classes[node.func.id].is_module
    name = index.qualname(node.func) or ""
    return name.startswith("torch.nn.") and name.rsplit(".", 1)[-1][:1].isupper()


def _unchained(node: ast.expr) -> ast.expr:
    """``m.eval().to(device)`` -> ``m``."""
    while isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in SAME_MODULE:
        node = node.func.value
    return node
