"""How a call-site finding names what it reaches inside a package."""

from __future__ import annotations

from compilelint.findings import Mode, ReachedSite
from compilelint.installed import ReachedBreaks

SHOWN_SITES = 3


def reached_message(called: str, reached: ReachedBreaks) -> str:
    """"`odeint()` breaks the graph inside torchdiffeq 0.2.5 (via ...): `_impl/x.py:267`
    `if ...` (CL103, GB0170) and 11 more; ...". The path is the package's own."""
    sites = reached.sites
    shown = []
    for site in sites[:SHOWN_SITES]:
        ids = ", ".join((site.code,) + site.gb_ids)
        text = f" `{site.text}`" if site.text else ""
        shown.append(f"`{site.path}:{site.line}`{text} ({ids})")
    more = f" and {len(sites) - SHOWN_SITES} more" if len(sites) > SHOWN_SITES else ""
    chain = sites[0].chain
    via = f" (via {' -> '.join(chain)})" if len(chain) > 1 else ""
    if reached.summary.truncated:  # the summary stopped at its line budget (summaries.MAX_LINES)
        more += f" (the call runs into more of {reached.summary.package.name} than one summary follows: there may be more)"
    return (
        f"`{called}()` breaks the graph inside {reached.summary.package.label}{via}: {'; '.join(shown)}{more}; "
        "keep this call outside the compiled region, or compile only the code around it"
    )


def _modes(reached: ReachedBreaks) -> set[str]:
    return {mode for site in reached.sites for mode in site.breaks}


def reached_modes(reached: ReachedBreaks) -> tuple[Mode, ...]:
    modes = _modes(reached)
    return tuple(mode for mode in (Mode.DEFAULT, Mode.FULLGRAPH) if mode.value in modes)


def reached_gb_ids(reached: ReachedBreaks) -> tuple[str, ...]:
    return tuple(sorted({gb for site in reached.sites for gb in site.gb_ids}))


def reached_sites(reached: ReachedBreaks) -> tuple[ReachedSite, ...]:
    """Every site, for the JSON report and for tools that match Dynamo's breaks to them."""
    return tuple(
        ReachedSite(site.path, site.line, (site.start_line or site.line, max(site.end_line, site.line)), site.code,
                    site.gb_ids, tuple(Mode(mode) for mode in site.breaks if mode in {m.value for m in Mode}),
                    site.conditional)  # fmt: skip
        for site in reached.sites
    )
