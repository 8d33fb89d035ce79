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
    `__init__` of a module that `forward` constructs (CL117 then flags the GB0119 that
    follows at its `super().__init__()`).

    ## Why is this bad?
    Dynamo cannot create a parameter while tracing (GB0264 "Attempted to use
    `torch.nn.Parameter()` constructor with Dynamo"). Measured on torch 2.13: a graph break
    in the default mode and with `dynamic=True`, an error under `fullgraph=True`, at the line
    that builds the layer. A layer built per call is also re-initialised per call: its
    weights are random and never trained. Parameter-free layers (`nn.Dropout`, `nn.ReLU`,
    `nn.Identity`, `nn.Softmax`) and local modules without parameters compile when built in
    `forward`.

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
    gb_ids = ("GB0264",)
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
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
