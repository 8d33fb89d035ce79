"""CL150: compiled code calls into an installed package, and the graph breaks in there."""

from __future__ import annotations

import ast

from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.installed.messages import reached_gb_ids, reached_message, reached_modes, reached_sites
from compilelint.registry import Rule


class PackageGraphBreak(Rule):
    """Checks for calls from compiled code into installed packages that break the graph there.

    ## What it does
    Follows a call from a compiled region into a package installed in the environment
    (site-packages; `follow-imports = "installed"`, the default), with the kinds of the
    arguments the call passes, and reports at the call the graph breaks it reaches in the
    package: the first few sites, with their rule codes and GB ids, how many more, and the
    chain of functions that leads there. When every site lies behind a test on the way in
    (`if exists(config): return self.build(config)` inside the package), the finding says
    so and is conditional: Dynamo breaks there only when the call makes the test hold
    (discrete-continuous-embed-readout's `Embed` without a `selector_config` traces
    whole, measured on torch 2.13). `torch` and the standard library are not
    followed. Set `follow-imports = "project"` to stop at the project's own files.

    ## Why is this bad?
    Dynamo traces into third-party code like any other Python: a data-dependent `if` in
    an ODE solver's step-size control or a `.tolist()` in a CRF's Viterbi loop breaks the
    user's graph as surely as one in their own `forward`, and the user cannot fix it
    there. Measured on torch 2.13: torchdiffeq's adaptive solvers break on
    `if not torch.isfinite(...)`-style tests (GB0170) in the default mode and fail under
    `fullgraph=True`.

    ## Example
    ```python
    from torchdiffeq import odeint

    class ODEBlock(nn.Module):
        def forward(self, x):
            return odeint(self.func, x, self.t, method="dopri5")[-1]
    ```

    ## Use instead
    ```python
    class ODEBlock(nn.Module):
        def forward(self, x):
            return rk4_steps(self.func, x, self.t)  # fixed steps, no data-dependent control

    # or compile only the dynamics: odeint(torch.compile(func), x, t)
    ```

    ## Fix safety
    No automatic fix: which code to keep out of the compiled region is a design choice.
    The finding carries code CL150 whatever the inner rule was, so `# noqa: CL150` and
    `ignore = ["CL150"]` silence a package the user cannot change; which inner hazards
    count follows the selection of their own codes (ignoring CL101 drops prints there).
    """

    code = "CL150"
    name = "package-graph-break"
    message = "this call breaks the graph inside an installed package"
    gb_ids = ()
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        if ctx.packages is None:
            return
        reached = ctx.package_breaks(node)
        if reached is None:
            return
        called = reached.summary.target.split(".")[-1] if not reached.summary.target.endswith(".forward") else reached.summary.target.split(".")[-2]
        message = reached_message(called, reached)
        only_when: tuple[str, ...] = ()
        if all(site.conditional for site in reached.sites):
            # every site sits behind a test inside the package (``if exists(config):``)
            # the call may never pass: a claim the run can leave unconfirmed
            only_when = (f"conditions inside {reached.summary.package.name} hold",)
            message += f" (each site is reached only under conditions inside {reached.summary.package.name})"
        ctx.report(
            node,
            message,
            only_when=only_when,
            breaks=reached_modes(reached),
            gb_ids=reached_gb_ids(reached),
            reaches=reached.summary.files,
            reached_sites=reached_sites(reached),
        )
