"""CL137: compiled code calls a function, class or method of a compiled extension module."""

from __future__ import annotations

import ast

from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule


class CompiledExtensionCall(Rule):
    """Checks for calls into compiled extension modules (Cython, pybind11, the C API).

    ## What it does
    Flags, inside a compiled region, a call of a function, a class or a method of an
    object that an installed package defines in a compiled extension module (a `.so` or
    `.pyd` file): `pywt.Wavelet("db2")`, `Modes.from_object(mode)`, `wavelet.wavefun()`
    on an instance held in `self`, `scipy.special.gamma(x)`, `cKDTree(points)`. Where a
    name comes from is read off the installed files without importing them, through the
    package's re-exports (`from ._extensions._pywt import *`), so it needs
    `follow-imports = "installed"` (the default). `torch`, NumPy and the standard
    library are left out: Dynamo has its own handling for them. A package function
    written in Python that calls its extension is reported at the call as CL150.

    ## Why is this bad?
    Dynamo traces Python bytecode; an extension's functions have none. Measured on
    torch 2.13, in the default mode, with `dynamic=True` and under `fullgraph=True` (an
    error there), with PyWavelets, SciPy and kiwisolver: calling a Cython function or
    ufunc, building an instance of an extension class (`pywt.Wavelet("db1")`,
    `cKDTree(...)`) and calling a method of one (`Modes.from_object("zero")`,
    `tree.query(...)`) break the graph with GB0156 ("Unsupported method call"); a C or
    pybind11 function (`scipy.fft._pocketfft.pypocketfft.good_size`) breaks with GB0007
    ("Attempted to call function marked as skipped"). Reading an attribute of such an
    object (`wavelet.dec_len`, `wavelet.dec_lo`) or testing `isinstance` does not break.
    pytorch-wavelets' DWT reaches `pywt.dwt_coeff_len`, whose `Modes.from_object(mode)`
    breaks every forward with a padding mode other than periodization.

    ## Example
    ```python
    from kiwisolver import strength  # a C++ extension (kiwisolver/_cext.*.so)

    class Weighted(nn.Module):
        def forward(self, x):
            return x * strength.create(1.0, 0.0, 0.0)
    ```

    ## Use instead
    ```python
    from kiwisolver import strength

    class Weighted(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = strength.create(1.0, 0.0, 0.0)  # once, eagerly

        def forward(self, x):
            return x * self.weight
    ```
    Compute what the extension gives once, in `__init__` (filters, lengths, tables as
    buffers), write the few lines in Python or torch (`dwt_coeff_len` is one line), or
    keep the call out of the graph with `torch.compiler.disable`.

    ## Fix safety
    No automatic fix: what replaces the extension's call depends on what it computes.
    """

    code = "CL137"
    name = "compiled-extension-call"
    message = "a call into a compiled extension module breaks the graph"
    gb_ids = ("GB0156", "GB0007")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if ctx.packages is None or ctx.evaluator is None:
            return
        for target in ctx.package_targets(node):
            module = ctx.packages.compiled_extension(target)
            if module is not None:
                ctx.report(
                    node,
                    f"`{ast.unparse(node.func)}` runs `{target}`, compiled code from `{module}` that Dynamo "
                    "cannot trace: the graph breaks at the call (GB0156, or GB0007 for a C function)",
                )
                return
