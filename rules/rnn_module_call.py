"""CL109: an nn.RNN / nn.GRU / nn.LSTM submodule used in compiled code, or a packed sequence."""

from __future__ import annotations

import ast

from compilelint.analysis import objects
from compilelint.analysis.constructors import attribute_constructors, local_bases, self_name
from compilelint.analysis.frames import first_in_source
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

RNN_CLASSES = frozenset(
    f"torch.nn{module}.{name}" for module in ("", ".modules.rnn") for name in ("RNN", "GRU", "LSTM")
)
# Skipped by Dynamo (GB0007 "Attempted to call function marked as skipped"), measured on 2.13.
PACKING = frozenset(
    f"torch.nn.utils.rnn.{name}" for name in ("pack_padded_sequence", "pad_packed_sequence", "pack_sequence")
)
ADVICE = (
    "keep the RNN outside the compiled code (compile the blocks around it, or call it from a "
    "`torch.compiler.disable`d helper); `torch._dynamo.config.allow_rnn = True` traces it, but "
    "Inductor then ran it slower than eager on an H200 and fails on CPU"
)


class RnnModuleCall(Rule):
    """Checks for `nn.LSTM`, `nn.GRU` and `nn.RNN` submodules used in compiled code.

    ## What it does
    Flags, inside a compiled region, every use of `self.<name>` where `<name>` holds an
    `nn.LSTM`, `nn.GRU` or `nn.RNN` (or a local subclass), built in any method of the class,
    a base or a subclass, directly, inside an `nn.Sequential` / `nn.ModuleList` /
    `nn.ModuleDict`, or by a builder of the file that returns one (`self.rnn = _rnn(d)`,
    `self.decoder = self._make_decoder(d)`); the first call or attribute read of a name that holds one (a closure
    variable the enclosing function bound to `nn.LSTM(...)`, a parameter it was passed to);
    and calls of `pack_padded_sequence`, `pad_packed_sequence` and `pack_sequence`.

    ## Why is this bad?
    Dynamo refuses to wrap these modules (GB0014 "Attempted to wrap RNN, GRU, or LSTM"):
    calling the module, `self.lstm.flatten_parameters()`, even reading
    `self.lstm.hidden_size`. It cannot resume after that point, so it gives up on the whole
    function: measured on torch 2.13, a `forward` with work before and after two LSTMs
    compiled no graph at all, and only the first use was reported (so only the first use in
    each function is flagged). A break in the default mode and with `dynamic=True`, an error
    under `fullgraph=True`; the packing functions are marked as skipped (GB0007) in all
    modes. On an H200, timm's `sequencer2d_s` ran 2.2x slower
    compiled than eager because of it; an 8-block bidirectional-LSTM model ran 0.88x eager
    (H200, torch 2.11). `torch._dynamo.config.allow_rnn = True` lets Dynamo trace the module
    in all three modes (backend eager), but Inductor is no answer: that model then ran 0.40x
    eager on the H200, and on CPU it fails
    (`expected Tensor() for op: aten.mkldnn_rnn_layer`). `nn.LSTMCell`/`nn.GRUCell` and
    `pad_sequence` compile as one graph.

    ## Example
    ```python
    class Encoder(nn.Module):
        def __init__(self):
            super().__init__()
            self.rnn = nn.LSTM(64, 128, batch_first=True)

        def forward(self, x):
            out, _ = self.rnn(x)
            return out[:, -1]
    ```

    ## Use instead
    ```python
    class Encoder(nn.Module):
        def __init__(self, steps=16):
            super().__init__()
            self.steps = steps
            self.cell = nn.LSTMCell(64, 128)

        def forward(self, x):
            h = x.new_zeros(x.shape[0], 128)
            c = x.new_zeros(x.shape[0], 128)
            for t in range(self.steps):
                h, c = self.cell(x[:, t], (h, c))
            return h
    ```
    The cell loop compiles as one graph, unrolled: a fixed step count keeps it from
    recompiling per sequence length (a loop over `x.shape[1]` is CL201). Or keep the RNN in eager code: compile the layers before and after it, or call it from a
    helper under `torch.compiler.disable` (one break, by choice), so that the rest of the
    function still compiles.

    ## Fix safety
    No automatic fix: each alternative changes how the model runs.
    """

    code = "CL109"
    name = "rnn-module-call"
    message = "an `nn.LSTM`/`nn.GRU`/`nn.RNN` used in compiled code breaks the graph (GB0014)"
    gb_ids = ("GB0014", "GB0007")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Attribute, ast.Call, ast.Name)
    _cached: tuple[ast.AST, ast.Attribute | None] | None = None
    _first_name: tuple[ast.AST, ast.Name] | None = None

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, ast.Call):
            name = ctx.qualname(node.func)
            if name in PACKING:
                what = name.rsplit(".", 1)[1]
                ctx.report(node, f"`{what}()` is skipped by Dynamo: breaks the graph (GB0007); {ADVICE}", gb_ids=("GB0007",))
            return
        if isinstance(node, ast.Name):
            self._check_name(node, ctx)
            return
        assert isinstance(node, ast.Attribute)
        rnn = _rnn_held(node, ctx)
        if rnn is None or node is not self._first_use(ctx):
            return
        ctx.report(
            node,
            f"`self.{node.attr}` holds {_a(rnn)}, which Dynamo will not wrap: the whole function runs "
            f"eagerly from here on (GB0014); {ADVICE}",
            gb_ids=("GB0014",),
        )

    def _check_name(self, node: ast.Name, ctx: RuleContext) -> None:
        """A name holding an RNN (a closure's ``mod = nn.LSTM(...)``, a parameter it was
        passed to), where it is used: Dynamo wraps the value there, not where it is loaded
        (measured: ``m = mod`` passes, ``m(y)`` breaks; so does ``mod.hidden_size``)."""
        rnn = _rnn_named(node, ctx)
        function = ctx.function
        if rnn is None or function is None:
            return
        if self._first_name is not None and self._first_name[0] is function.node:
            return  # the function's first RNN use was reported: Dynamo gave up there
        attribute = self._first_use(ctx) if function.owner is not None else None
        if attribute is not None and (attribute.lineno, attribute.col_offset) < (node.lineno, node.col_offset):
            return
        self._first_name = (function.node, node)
        ctx.report(
            node,
            f"`{node.id}` holds {_a(rnn)}, which Dynamo will not wrap: the whole function runs "
            f"eagerly from here on (GB0014); {ADVICE}",
            gb_ids=("GB0014",),
        )

    def _first_use(self, ctx: RuleContext) -> ast.Attribute | None:
        """The function's first RNN use in source order: Dynamo gives up on the frame there."""
        function = ctx.function
        assert function is not None
        if self._cached is None or self._cached[0] is not function.node:
            uses = [n for n in ast.walk(function.node) if isinstance(n, ast.Attribute) and _rnn_held(n, ctx)]
            self._cached = (function.node, first_in_source(uses))
        return self._cached[1]


def _rnn_held(node: ast.Attribute, ctx: RuleContext) -> str | None:
    """The RNN class ``self.<attr>`` holds (directly or in a container), if any."""
    function = ctx.function
    if function is None or function.owner is None or not isinstance(node.value, ast.Name):
        return None
    if node.value.id != self_name(function) or not isinstance(node.ctx, ast.Load):
        return None
    classes = attribute_constructors(ctx.index, function.owner, node.attr)
    return next((n for c in sorted(classes) for n in local_bases(ctx.index, c) if n in RNN_CLASSES), None)


def _rnn_named(node: ast.Name, ctx: RuleContext) -> str | None:
    """The RNN class a name may hold where it is called or its attribute is read."""
    parent = ctx.parent(node)
    used = (isinstance(parent, ast.Call) and parent.func is node) or isinstance(parent, ast.Attribute)
    if not used or not isinstance(node.ctx, ast.Load) or ctx.evaluator is None:
        return None
    for held in objects.of_name(ctx.evaluator, node.id):
        name = held[1:] if held.startswith("@") else held
        found = next((n for n in sorted(local_bases(ctx.index, name)) if n in RNN_CLASSES), None)
        if found is not None:
            return found
    return None


def _a(rnn: str) -> str:
    """"an `LSTM`", "an `RNN`", "a `GRU`": the article as the name is spoken."""
    name = rnn.rsplit(".", 1)[1]
    return f"{'a' if name == 'GRU' else 'an'} `{name}`"
