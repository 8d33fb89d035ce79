"""CL301: a NumPy array sliced backwards from a start or to a stop in compiled code: wrong values."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import is_numpy_array
from compilelint.context import RuleContext
from compilelint.registry import Rule


class NumpyNegativeStepSlice(Rule):
    """Checks for negative-step slices with a start or a stop on NumPy arrays in compiled code.

    ## What it does
    Flags, inside a compiled region, a slice with a negative step and a start or a stop
    (`a[-1:-k-1:-1]`, `a[:2:-1]`, `a[3::-1]`, `b[:, -1:-3:-1]`) of a NumPy array: one a NumPy
    function returned or a tensor's `.numpy()`, directly or through a local name.

    ## Why is this bad?
    Dynamo traces NumPy through `torch._numpy`, where an array is a tensor, and that layer
    gets these slices wrong: measured on torch 2.13, 2.14.1 and 2.15.0 (CPU, backend eager;
    default mode and `fullgraph=True` alike), `a[-1:-4:-1]` of `[0, 1, 2, 3, 4, 5]` gives `[]`
    instead of `[5, 4, 3]`, `a[:2:-1]` gives `[2, 1, 0]` instead of `[5, 4, 3]`, `a[3::-1]`
    gives `[5, 4, 3, 2]` instead of `[3, 2, 1, 0]`, and `a[4:1:-2]` gives `[3, 1]` instead of
    `[4, 2]`. Nothing breaks and nothing is raised: the compiled model silently computes
    something else. The top-k idiom `np.argsort(scores)[-1:-k-1:-1]` returns no index at
    all. A reversal without a start or a stop (`a[::-1]`, `a[::-2]`), `np.flip(a)` and tensor
    slicing compile correctly and are not flagged; a tensor has no negative-step slices
    (eager raises `ValueError`).

    ## Example
    ```python
    class TopStarts(nn.Module):
        def forward(self, logits):
            scores = logits.detach().numpy()
            return np.argsort(scores)[-1:-4:-1]
    ```

    ## Use instead
    ```python
    class TopStarts(nn.Module):
        def forward(self, logits):
            scores = logits.detach().numpy()
            return np.argsort(scores)[::-1][:3]
    ```
    Reverse first, then slice forward (`a[::-1][:k]`, `np.flip(a)[:k]`); or keep the
    tensor and use `torch.topk`.

    ## Fix safety
    No automatic fix: the rewrite depends on the start, the stop and the step.
    """

    code = "CL301"
    name = "numpy-negative-step-slice"
    message = "a negative-step slice with a start or stop of a NumPy array gives wrong values under torch.compile"
    breaks = ()
    nodes = (ast.Subscript,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Subscript)
        if ctx.function is None or not is_numpy_array(ctx.kind(node.value)):
            return
        parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        bad = next((part for part in parts if isinstance(part, ast.Slice) and _backwards_with_bound(part)), None)
        if bad is None:
            return
        ctx.report(
            node,
            f"`{ast.unparse(node)}`: Dynamo traces this NumPy array as a tensor, and a negative-step slice with a start "
            "or a stop comes back wrong under torch.compile (empty or other elements, with no error, in both modes); "
            "reverse first and slice forward (`a[::-1][:k]`, `np.flip(a)[:k]`), or use `torch.topk`",
        )


def _backwards_with_bound(part: ast.Slice) -> bool:
    step = part.step
    negative = isinstance(step, ast.UnaryOp) and isinstance(step.op, ast.USub) and isinstance(step.operand, ast.Constant)
    negative = negative or (isinstance(step, ast.Constant) and isinstance(step.value, int) and step.value < 0)
    return negative and (part.lower is not None or part.upper is not None)
