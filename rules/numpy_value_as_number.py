"""CL120: a NumPy result read back as a Python number inside a compiled region."""

from __future__ import annotations

import ast

from compilelint.analysis.comprehension_frames import assigned_values
from compilelint.analysis.kinds import Kind
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

DEFAULT_ONLY = (Mode.DEFAULT,)
BOTH = (Mode.DEFAULT, Mode.FULLGRAPH)
# Creation functions whose positional arguments are sizes (torch.* and numpy.*).
SIZED_FUNCTIONS = frozenset({"zeros", "ones", "empty", "full", "arange", "eye", "rand", "randn", "randint"})
# Tensor methods given sizes: measured on 2.13, a NumPy size breaks here under
# fullgraph=True too (Dynamo fails with "pending unbacked symbols").
RESHAPING_METHODS = frozenset({"view", "reshape", "new_zeros", "new_ones", "new_empty", "expand", "repeat"})
# builtin -> (modes, GB id), measured on 2.13
BUILTINS = {"int": (DEFAULT_ONLY, "GB0033"), "float": (DEFAULT_ONLY, "GB0033"), "range": (BOTH, "GB0059")}


class NumpyValueAsNumber(Rule):
    """Checks for NumPy results used where Python needs a number: sizes, bounds, `int()`.

    ## What it does
    Flags, inside a compiled region, a value returned by a NumPy function (`np.sum`,
    `np.max`, `np.prod`, `np.cumsum`, `np.array`, `np.linalg.norm`, a `numpy.random` draw
    given a size, ...) or a tensor's `.numpy()` (`float(x.numpy().std())`, measured: GB0033),
    directly or through a local name, an element or a method of it, arithmetic with Python
    numbers, `max`/`min`/`sum`/`abs`, or a helper or lambda returning it) that is used as a
    Python number: given to `int()` or `float()`, as any bound of `range()`, used as a slice
    bound, as a size of `np.zeros`/`torch.zeros`-style creation functions, or as a size of
    `x.view`/`x.reshape`, or tested by `if`/`while`.

    ## Why is this bad?
    Dynamo traces NumPy through `torch._numpy`: every NumPy call becomes a tensor in the
    graph, even on Python lists and sizes, so a number that looks static is read back from
    tensor data. Measured on torch 2.13: `int(np.sum(lens))`, `np.zeros(np.sum(lens))`,
    `torch.zeros(np.max([a, b]))` and `x[: np.max(sizes)]` break the graph in the default
    mode (GB0033, a data-dependent operator) and compile under `fullgraph=True`, which
    captures the scalar; `x.reshape(b, np.prod(x.shape[1:]))` fails under `fullgraph=True`
    as well; `range(np.sum(lens))` (GB0059) and `if np.sum(lens) > 2:` (GB0170) break in
    both modes, and so does `range(1, max(counts) + 1)` for `counts` drawn by
    `np.random.randint(1, 4, size=n)`. A draw PyTorch's NumPy layer lacks
    (`np.random.geometric(p, n)`) breaks first (GB0294, CL107), and the code resumed after
    that break receives the real array as an array input: its `range(1, max(n) + 1)` breaks
    again (GB0059), while a draw without a size returns a Python number, which does not.
    Elementwise functions of Python numbers (`int(np.ceil(n / 4))`,
    `x / np.sqrt(d)`) do not break and are not flagged; of an array they give an array
    (`range(bins[1], bins[2])` for `bins = np.floor(np.linspace(0, n, 4)).astype(int)`
    breaks in both modes, GB0059); `np.lcm`/`np.gcd` used as a number
    fail in both modes (GB0208) and are flagged where the call is the number itself.
    `int()`/`float()` of `np.percentile`, `np.quantile` or `np.median` over a whole array
    breaks too, and the code resumed after the break raises TypeError: Dynamo hands it a
    one-element array (`fullgraph=True` compiles; the message says so).

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x, lens: list[int]):
            total = np.sum(lens)
            return x[:, :total]
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x, lens: list[int]):
            total = sum(lens)
            return x[:, :total]
    ```
    Use Python's `sum`, `max`, `math.prod` and `math.lcm` on Python numbers and sizes; keep
    NumPy for arrays that stay arrays.

    ## Fix safety
    No automatic fix: Python's builtins differ from NumPy's on arrays and dtypes.
    """

    code = "CL120"
    name = "numpy-value-as-number"
    message = "NumPy result used as a Python number is read back from tensor data"
    gb_ids = ("GB0033", "GB0059", "GB0170", "GB0208")
    breaks = DEFAULT_ONLY
    nodes = (ast.Call, ast.Subscript, ast.If, ast.While)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, (ast.If, ast.While)):
            tested = [part for test in ctx.truth_tested(node.test) for part in _operands(test)]
            self._report_numbers(node.test, tested, ctx, "an `if`/`while` test", BOTH, "GB0170")
        elif isinstance(node, ast.Subscript):
            slices = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            bounds = [b for s in slices if isinstance(s, ast.Slice) for b in (s.lower, s.upper, s.step) if b is not None]
            self._report_numbers(node, bounds, ctx, "a slice bound", DEFAULT_ONLY, "GB0033")
        else:
            assert isinstance(node, ast.Call)
            self._check_call(node, ctx)

    def _check_call(self, node: ast.Call, ctx: RuleContext) -> None:
        builtin = ctx.builtin(node.func)
        # range's start, stop and step alike (measured on 2.13: `range(1, max(a) + 1)`, GB0059)
        if builtin in BUILTINS and (len(node.args) == 1 or builtin == "range") and node.args and not node.keywords:
            modes, gb_id = BUILTINS[builtin]
            self._report_numbers(node, node.args, ctx, f"`{builtin}()`", modes, gb_id)
            return
        func = node.func
        name = ctx.qualname(func) or ""
        module, _, function = name.rpartition(".")
        if module in ("torch", "numpy") and function in SIZED_FUNCTIONS:
            sizes = node.args[:1] if function == "full" else node.args
            self._report_numbers(node, _elements(sizes), ctx, f"a size of `{name}()`", DEFAULT_ONLY, "GB0033")
        elif isinstance(func, ast.Attribute) and func.attr in RESHAPING_METHODS and not name:
            self._report_numbers(node, _elements(node.args), ctx, f"a size of `.{func.attr}()`", BOTH, "GB0033")

    def _report_numbers(
        self, node: ast.AST, values: list[ast.expr], ctx: RuleContext, where: str, modes: tuple[Mode, ...], gb_id: str
    ) -> None:
        for value in values:
            if _is_integer_ufunc(value, ctx):
                modes, gb_id = BOTH, "GB0208"
            elif not ctx.kind(value) & Kind.NUMPY:
                continue
            claim = "in both modes" if Mode.FULLGRAPH in modes else "unless `fullgraph=True`"
            quantile = _quantile_of(value, ctx) if where in ("`int()`", "`float()`") else None
            then = (
                f"; after the break Dynamo hands `{where[1:-3]}()` the `np.{quantile}` result as a one-element array it "
                "cannot convert, so the compiled call raises TypeError ('only 0-dimensional arrays can be converted to "
                "Python scalars'); take `.item()` of it, or compute it with `torch.quantile`"
                if quantile else "; compute it with Python (`sum`, `max`, `math.prod`) on Python numbers and sizes"
            )
            ctx.report(
                value,
                f"NumPy result `{_short(value)}` used as {where}: Dynamo traces NumPy as tensors, so this reads the "
                f"number back from tensor data and breaks the graph {claim} ({gb_id}){then}",
                breaks=modes,
                gb_ids=(gb_id,),
            )
            return


def _elements(values: list[ast.expr]) -> list[ast.expr]:
    """Size arguments, with the members of a size tuple: ``np.zeros((n, np.sum(k)))``."""
    return [e for v in values for e in (v.elts if isinstance(v, (ast.Tuple, ast.List)) else [v])]


def _operands(test: ast.expr) -> list[ast.expr]:
    return [test.left, *test.comparators] if isinstance(test, ast.Compare) else [test]


# torch._numpy's quantile reductions over a whole array: measured on 2.13, int()/float() of
# their result breaks (GB0033) and the code resumed after the break raises TypeError
# (fullgraph=True captures the scalar and compiles); the same of np.mean/max/average/std,
# or of np.median(a, axis=0), only breaks.
QUANTILES = {"numpy.percentile": 2, "numpy.quantile": 2, "numpy.median": 1}  # -> the axis argument's position


def _quantile_of(value: ast.expr, ctx: RuleContext) -> str | None:
    """The quantile function whose whole-array result ``value`` is, directly or through
    every binding of a local name."""
    calls = [value]
    if isinstance(value, ast.Name) and ctx.function is not None:
        calls = assigned_values(ctx.function.node, value.id) or [value]
    names = {_whole_array_quantile(call, ctx) for call in calls}
    name = names.pop() if len(names) == 1 else None
    return name.rpartition(".")[2] if name else None


def _whole_array_quantile(call: ast.expr, ctx: RuleContext) -> str | None:
    if not isinstance(call, ast.Call):
        return None
    name = ctx.qualname(call.func)
    axis = QUANTILES.get(name or "")
    if axis is None or len(call.args) > axis or any(k.arg in ("axis", None) for k in call.keywords):
        return None
    return name


def _is_integer_ufunc(value: ast.expr, ctx: RuleContext) -> bool:
    return isinstance(value, ast.Call) and ctx.qualname(value.func) in ("numpy.lcm", "numpy.gcd")


def _short(value: ast.expr) -> str:
    text = ast.unparse(value)
    return text if len(text) <= 40 else text[:37] + "..."
