"""CL146: an nn.TransformerEncoder/Decoder given a mask without `is_causal`: torch tests it."""

from __future__ import annotations

import ast

from compilelint.analysis.comprehension_frames import assigned_values
from compilelint.analysis.constructors import attribute_constructors, local_bases, self_name
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

BOTH = (Mode.DEFAULT, Mode.FULLGRAPH)
# class -> (mask parameter, its position after self, the causal flag that skips the test)
MASKS: dict[str, tuple[tuple[str, int, str], ...]] = {
    "TransformerEncoder": (("mask", 1, "is_causal"),),
    "TransformerDecoder": (("tgt_mask", 2, "tgt_is_causal"),),
    "Transformer": (("src_mask", 2, "src_is_causal"), ("tgt_mask", 3, "tgt_is_causal")),
}
CLASSES = {f"torch.nn{module}.{name}": name for module in ("", ".modules.transformer") for name in MASKS}
# Calls that build one (L, L) matrix
SQUARE_MASKS = frozenset({"generate_square_subsequent_mask", "_generate_square_subsequent_mask"})
TRIANGLES = frozenset({"torch.triu", "torch.tril"})
FILLED = frozenset({"torch.ones", "torch.zeros", "torch.full", "torch.empty", "torch.rand", "torch.randn"})


class TransformerMaskCheck(Rule):
    """Checks for `nn.TransformerEncoder`/`nn.TransformerDecoder`/`nn.Transformer` calls
    given an attention mask without saying whether it is causal.

    ## What it does
    Flags, in a compiled region, a call of `self.<name>` where `<name>` holds an
    `nn.TransformerEncoder` (or a local subclass; built in the class, or returned by a
    builder of the file such as `_encoder(width, depth)`) with a `mask`, an `nn.TransformerDecoder`
    with a `tgt_mask`, or an `nn.Transformer` with a `src_mask` or `tgt_mask`, when the call
    does not pass the matching `is_causal` / `tgt_is_causal` / `src_is_causal`. A mask built
    in view (`nn.Transformer.generate_square_subsequent_mask(n)`, `torch.triu(torch.ones(n,
    n), 1)`, directly or through a local name) is one `(L, L)` matrix; for any other mask the
    finding holds when it is one.

    ## Why is this bad?
    Left to `None`, the causal flag is worked out by torch: `_detect_is_causal_mask`
    compares the mask with a causal one of the same size and reads the answer back,
    `bool((mask == causal).all())`. That is a Python bool computed from tensor data.
    Measured on torch 2.13 (backend eager, CPU, eval and train mode): an encoder given a
    square mask breaks the graph at the call (GB0124 "Unsupported Tensor.item() call"),
    with `dynamic=True` too, and `fullgraph=True` fails there ("Could not guard on
    data-dependent expression"); so does a decoder given a `tgt_mask` and an
    `nn.Transformer` given a `src_mask` or a `tgt_mask`, by keyword or position. With
    `is_causal=True` (or `tgt_is_causal=True`) nothing breaks, nor without a mask, with a
    key-padding mask, a decoder's `memory_mask`, a batched 3-D mask (its size differs from
    the comparison's, so the test is skipped), `nn.TransformerEncoderLayer(src_mask=...)`
    or `nn.MultiheadAttention(attn_mask=...)`.

    ## Example
    ```python
    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            layer = nn.TransformerEncoderLayer(64, 4, batch_first=True)
            self.blocks = nn.TransformerEncoder(layer, 2)

        def forward(self, h):
            causal = nn.Transformer.generate_square_subsequent_mask(h.shape[1])
            return self.blocks(h, mask=causal)
    ```

    ## Use instead
    ```python
    class Decoder(nn.Module):
        def __init__(self):
            super().__init__()
            layer = nn.TransformerEncoderLayer(64, 4, batch_first=True)
            self.blocks = nn.TransformerEncoder(layer, 2)

        def forward(self, h):
            causal = nn.Transformer.generate_square_subsequent_mask(h.shape[1])
            return self.blocks(h, mask=causal, is_causal=True)
    ```
    Say what the mask is: `is_causal=True` for a causal mask (torch may then use a faster
    kernel), `is_causal=False` for any other.

    ## Fix safety
    No automatic fix: only the author knows whether the mask is causal, and a wrong
    `is_causal=True` computes something else.
    """

    code = "CL146"
    name = "transformer-mask-check"
    message = "a transformer given a mask without `is_causal`: torch reads back whether it is causal"
    gb_ids = ("GB0124",)
    breaks = BOTH
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        held = _transformer_held(node.func, ctx)
        if held is None or any(k.arg is None for k in node.keywords):
            return
        attr, cls = held
        keywords = {k.arg: k.value for k in node.keywords}
        for mask_name, position, flag in MASKS[cls]:
            mask = keywords.get(mask_name)
            if mask is None and len(node.args) > position and not any(isinstance(a, ast.Starred) for a in node.args):
                mask = node.args[position]
            if mask is None or _is_none(mask) or not _is_none(keywords.get(flag, ast.Constant(None))):
                continue
            square = _square(mask, ctx)
            ctx.report(
                node,
                f"`self.{attr}` (an `nn.{cls}`) is given `{mask_name}` without `{flag}`: torch compares the mask "
                f"with a causal one and reads the answer back as a Python bool, which breaks the graph (GB0124) "
                f"and fails `fullgraph=True`; pass `{flag}=True` for a causal mask, `{flag}=False` for any other",
                only_when=() if square else (f"`{ast.unparse(mask)}` is one (L, L) matrix",),
            )
            return  # the first test breaks; one finding per call


def _transformer_held(func: ast.expr, ctx: RuleContext) -> tuple[str, str] | None:
    """``self.<attr>`` holding only transformers of one class: (attr, class name)."""
    function = ctx.function
    if function is None or function.owner is None or not isinstance(func, ast.Attribute):
        return None
    if not isinstance(func.value, ast.Name) or func.value.id != self_name(function):
        return None
    classes = attribute_constructors(ctx.index, function.owner, func.attr)
    if not classes:
        return None
    found = {next((CLASSES[n] for n in sorted(local_bases(ctx.index, c)) if n in CLASSES), None) for c in classes}
    if len(found) != 1 or None in found:
        return None
    return func.attr, found.pop()  # type: ignore[return-value]


def _is_none(node: ast.expr | None) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _square(mask: ast.expr, ctx: RuleContext, depth: int = 0) -> bool:
    """The mask is one (L, L) matrix as the source shows it."""
    if isinstance(mask, ast.Name) and ctx.function is not None and depth < 3:
        values = assigned_values(ctx.function.node, mask.id)
        return len(values) == 1 and _square(values[0], ctx, depth + 1)
    if not isinstance(mask, ast.Call):
        return False
    if isinstance(mask.func, ast.Attribute) and mask.func.attr in SQUARE_MASKS:
        return True
    if ctx.qualname(mask.func) in TRIANGLES and mask.args:
        built = mask.args[0]
        if isinstance(built, ast.Call) and ctx.qualname(built.func) in FILLED:
            first = built.args[0] if built.args else None
            if isinstance(first, (ast.Tuple, ast.List)):
                sizes = first.elts
            elif ctx.qualname(built.func) == "torch.full":
                return False  # its size is the first argument, a tuple when it is seen
            else:
                sizes = built.args
            return len(sizes) == 2 and not any(isinstance(s, ast.Starred) for s in sizes)
    return False
