"""CL151: ``torch.compile`` is given a function or method of an installed package that breaks."""

from __future__ import annotations

import ast

from compilelint.analysis.roots import external_targets_of
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.installed.messages import reached_gb_ids, reached_message, reached_modes, reached_sites
from compilelint.registry import Rule


class CompiledPackageFunction(Rule):
    """Checks for `torch.compile(...)` of package code that breaks the graph inside the package.

    ## What it does
    Flags `torch.compile(obj.method)`, `torch.compile(package_function)` and
    `torch.compile(obj)` (in any spelling of compiling) where `obj` was built from a class
    of an installed package (`crf = CRF(5)`), when the compiled code
    breaks the graph inside that package. The message names the first sites there, with
    their rule codes and GB ids, and how many more (the package's summary, see CL150).

    ## Why is this bad?
    Compiling a package's method to speed it up gains nothing when Dynamo has to stop
    inside it. Measured on torch 2.13: `torch.compile(crf.decode)` of pytorch-crf 0.7.2
    breaks on `mask[0].all()` tests and on `.item()` in the Viterbi back-trace, and fails
    under `fullgraph=True`.

    ## Example
    ```python
    from torchcrf import CRF

    crf = CRF(5, batch_first=True)
    decode = torch.compile(crf.decode)
    ```

    ## Use instead
    ```python
    crf = CRF(5, batch_first=True)
    emissions = torch.compile(model.emissions)  # compile the tensor work, decode eagerly
    ```

    ## Fix safety
    No automatic fix: what to compile instead is a design choice.
    """

    code = "CL151"
    name = "compiled-package-function"
    message = "the package code given to `torch.compile` breaks the graph inside the package"
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)
    scope = "module"

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if ctx.packages is None or not node.args or not ctx.index.compile_sites.targets:
            return
        for target in external_targets_of(ctx.index, node):
            if target.startswith("."):
                continue  # a module of the project: compiled there, as code of the run
            reached = ctx.packages.reached(target, (), (), root=True)
            if reached is None:
                continue
            parts = target.split(".")
            called = ".".join(parts[-2:]) if len(parts) > 1 and parts[-2][:1].isupper() else parts[-1]
            ctx.report(
                node,
                reached_message(called, reached),
                breaks=reached_modes(reached),
                gb_ids=reached_gb_ids(reached),
                reaches=reached.summary.files,
                reached_sites=reached_sites(reached),
            )
            return
