"""CL134: `scaled_dot_product_attention(is_causal=...)` given a test on a tensor size."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import Kind
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

SDPA = frozenset({"torch.nn.functional.scaled_dot_product_attention", "torch._C._nn.scaled_dot_product_attention"})
IS_CAUSAL_POSITION = 5  # (query, key, value, attn_mask, dropout_p, is_causal)


class SizeDependentCausalFlag(Rule):
    """Checks for `is_causal=` of `F.scaled_dot_product_attention` computed from a tensor size.

    ## What it does
    Flags, inside a compiled region, the part of a `scaled_dot_product_attention` call's
    `is_causal` argument that compares a tensor size (`is_causal=tgt_len > 1`, where
    `tgt_len = q.shape[2]`; `is_causal=self.is_causal and mask is None and q_len > 1`).

    ## Why is this bad?
    `is_causal` must be a Python `bool`. Once the size is dynamic (the second input size
    under automatic dynamic shapes, or `dynamic=True`), the comparison is a symbolic
    `SymBool`, and the attention kernel refuses it while Dynamo traces with fake tensors.
    Measured on torch 2.13 (backend eager, sequence lengths 4, 6, 8): the default mode and
    `dynamic=True` break the graph at the call (GB0112 "TypeError when making fake tensor
    call": "argument 'is_causal' must be bool, not SymBool"), and `fullgraph=True` fails
    there; `is_causal=True` and a flag that short-circuits to `False` first compile. The
    zoo hit it in transformers 4.3x's BART and Whisper SDPA attention.

    ## Example
    ```python
    class Attention(nn.Module):
        def forward(self, q, k, v):
            return F.scaled_dot_product_attention(q, k, v, is_causal=q.shape[2] > 1)
    ```

    ## Use instead
    ```python
    class Attention(nn.Module):
        def forward(self, q, k, v):
            if q.shape[2] > 1:
                return F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return F.scaled_dot_product_attention(q, k, v)
    ```
    Branch on the size in Python (Dynamo guards on it and each side passes a constant), or
    pass a causal `attn_mask` built with tensor ops.

    ## Fix safety
    No automatic fix: splitting the call changes the code's structure.
    """

    code = "CL134"
    name = "size-dependent-causal-flag"
    message = "`is_causal` compares a tensor size: a SymBool once shapes are dynamic, which SDPA rejects (GB0112)"
    gb_ids = ("GB0112",)
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if ctx.qualname(node.func) not in SDPA:
            return
        flag = next((k.value for k in node.keywords if k.arg == "is_causal"), None)
        if flag is None and len(node.args) > IS_CAUSAL_POSITION:
            flag = node.args[IS_CAUSAL_POSITION]
        if flag is None or ctx.static_value(flag) is not None:
            return
        for part in _values(flag):
            if _only_a_size_test(ctx.kind(part)) and ctx.static_value(part) is None:
                ctx.report(  # an operand Python may skip gets its conditions (only_when) from report
                    part,
                    "`is_causal` compares a tensor size: once the size is dynamic (the second input size, or "
                    "`dynamic=True`) it is a SymBool, which `scaled_dot_product_attention` rejects: breaks the graph "
                    "(GB0112), and `fullgraph=True` fails; branch on the size in Python and pass a constant",
                )
                return


def _values(flag: ast.expr) -> list[ast.expr]:
    """The operands whose value can become the argument itself: the last of an `and`/`or`
    chain (an earlier one only when it short-circuits, and Dynamo has then guarded on it,
    measured: `q.shape[2] > 1 and mask is None` compiles) and both arms of a ternary."""
    if isinstance(flag, ast.BoolOp):
        return _values(flag.values[-1])
    if isinstance(flag, ast.IfExp):
        return _values(flag.body) + _values(flag.orelse)
    return [flag]


def _only_a_size_test(kind: Kind) -> bool:
    """A size or a comparison of sizes on every path (not also a Python constant)."""
    return bool(kind & Kind.SHAPE) and not kind & (
        Kind.STATIC | Kind.UNKNOWN | Kind.TENSOR | Kind.DATA_SCALAR | Kind.MODULE
    )
