"""CL112: nn.Parameter, or a layer that owns parameters, built inside compiled code."""

from __future__ import annotations

import ast

from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

PARAMETER = frozenset({"torch.nn.Parameter", "torch.nn.parameter.Parameter"})
# torch.nn layers that create parameters in __init__ with their default arguments; each is
# built inside a compiled function by tests/test_dynamo_layer_table.py (GB0264 on torch 2.13).
LAYERS_WITH_PARAMETERS = frozenset(
    f"torch.nn.{name}"
    for name in (
        "Linear", "Bilinear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
        "ConvTranspose3d", "Embedding", "EmbeddingBag", "LayerNorm", "GroupNorm", "RMSNorm", "BatchNorm1d",
        "BatchNorm2d", "BatchNorm3d", "PReLU", "MultiheadAttention", "LSTMCell", "GRUCell", "RNNCell",
        "LSTM", "GRU", "RNN", "TransformerEncoderLayer", "TransformerDecoderLayer",
    )
)  # fmt: skip


class ParameterInCompiledCode(Rule):
    """Checks for `nn.Parameter` and parameter-owning layers constructed in compiled code.

    ## What it does
    Flags, inside a compiled region, calls of `nn.Parameter(...)` and of `torch.nn` layers
    that create parameters when built (`nn.Linear`, `nn.Conv2d`, `nn.Embedding`,
    `nn.LayerNorm`, `nn.BatchNorm2d`, ...): typically a layer built in `forward`, or in the
    `__init__` of a module that `forward` constructs. In such an `__init__` it also flags
    `super().__init__()`, where Dynamo reports GB0119 (below).

    ## Why is this bad?
    Dynamo cannot create a parameter while tracing (GB0264 "Attempted to use
    `torch.nn.Parameter()` constructor with Dynamo"). Measured on torch 2.13: a graph break
    in the default mode and with `dynamic=True`, an error under `fullgraph=True`, at the line
    that builds the layer. A layer built per call is also re-initialised per call: its
    weights are random and never trained. Parameter-free layers (`nn.Dropout`, `nn.ReLU`,
    `nn.Identity`, `nn.Softmax`) and local modules without parameters compile when built in
    `forward`. When the constructor of a module built in compiled code breaks for any
    reason, Dynamo resumes with a module whose `__init__` has not finished and reports
    GB0119 "Uninitialized nn.Module" at each `super().__init__()` on the way (transformers
    4.46's `HybridCache`), in the default mode only: the cause is the first break inside
    that constructor.

    ## Example
    ```python
    class Head(nn.Module):
        def forward(self, x):
            proj = nn.Linear(x.shape[-1], 10)
            return proj(x)
    ```

    ## Use instead
    ```python
    class Head(nn.Module):
        def __init__(self, features):
            super().__init__()
            self.proj = nn.Linear(features, 10)

        def forward(self, x):
            return self.proj(x)
    ```
    Build layers in `__init__` (or use `nn.LazyLinear` there when the size is only known
    from the first input).

    ## Fix safety
    No automatic fix: moving construction into `__init__` changes which weights are used.
    """

    code = "CL112"
    name = "parameter-in-compiled-code"
    message = "a parameter created inside compiled code breaks the graph (GB0264)"
    gb_ids = ("GB0264", "GB0119")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if _is_super_init(node):
            self._uninitialized_module(node, ctx)
            return
        name = ctx.qualname(node.func)
        if name in PARAMETER:
            what = "`nn.Parameter(...)`"
        elif name in LAYERS_WITH_PARAMETERS:
            what = f"`nn.{name.rsplit('.', 1)[1]}(...)` creates parameters; building it"
        else:
            return
        ctx.report(
            node,
            f"{what} inside compiled code breaks the graph (GB0264); build it once in `__init__`",
        )

    def _uninitialized_module(self, node: ast.Call, ctx: RuleContext) -> None:
        """The constructor breaks further down: Dynamo then compiles it as a frame of its own,
        meets ``self`` before ``nn.Module.__init__`` has run and breaks here too (GB0119)."""
        function = ctx.function
        if function is None or function.name != "__init__" or function.owner is None or not function.owner.is_module:
            return
        builds = [
            call
            for call in ast.walk(function.node)
            if isinstance(call, ast.Call) and ctx.index.qualname(call.func) in PARAMETER | LAYERS_WITH_PARAMETERS
        ]
        if builds:
            ctx.report(
                node,
                f"this constructor runs in compiled code and breaks the graph at line {builds[0].lineno} (a parameter "
                "is built); Dynamo then resumes it with an uninitialized module and breaks here too (GB0119)",
                breaks=(Mode.DEFAULT,),
                gb_ids=("GB0119",),
            )


def _is_super_init(node: ast.Call) -> bool:
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "__init__"
        and isinstance(func.value, ast.Call)
        and isinstance(func.value.func, ast.Name)
        and func.value.func.id == "super"
    )
