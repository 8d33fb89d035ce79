"""``compilelint gb [GB_ID]``: Dynamo's graph-break registry, classified.

The registry is the installed torch's (found through package metadata; torch is not
imported), else the copy of torch 2.13's shipped with compilelint; the output says which.
"""

from __future__ import annotations

import re
import sys

import click
from rich.console import Console

from compilelint.graph_breaks import Category, GraphBreak, GraphBreakError, Registry, graph_breaks, load_registry
from compilelint.registry import all_rules
from compilelint.report.graph_breaks import graph_break_markdown, graph_breaks_plain, graph_breaks_to_json
from compilelint.report.rules import RuleInfo
from compilelint.zoo_hits import read_zoo_hits, repository_results_dir, zoo_files

GB_ID = re.compile(r"^(?:GB)?(\d{1,4})$", re.I)


class GraphBreakUsageError(click.ClickException):
    exit_code = 2


def normalise_gb_id(query: str) -> str:
    """``GB0014``, ``gb0014``, ``14`` -> ``GB0014``; anything else is a usage error."""
    match = GB_ID.match(query.strip())
    if not match:
        raise GraphBreakUsageError(f"{query!r} is not a GB id (like GB0014)")
    return f"GB{int(match.group(1)):04d}"


def _classified() -> tuple[Registry, list[GraphBreak], list[str]]:
    try:
        registry = load_registry()
        results = repository_results_dir()
        reading = read_zoo_hits(zoo_files(results), registry.entries, results.parent.parent if results else None)
        return registry, graph_breaks(registry, reading.hits, strict=False), list(reading.files)
    except (GraphBreakError, OSError) as error:
        raise GraphBreakUsageError(str(error)) from error


@click.command("gb")
@click.argument("gb_id", required=False)
@click.option(
    "--classification",
    type=click.Choice([category.value for category in Category]),
    help="List only the entries of this classification.",
)
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def gb_command(gb_id: str | None, classification: str | None, output_format: str) -> int:
    """Explain a graph-break id (GB0014), or list every id of Dynamo's registry.

    Each id is covered by a rule, statically visible with no rule yet, needs runtime values
    (`compilelint verify` reports it), or is internal to Dynamo.
    """
    if gb_id is not None and classification is not None:
        raise GraphBreakUsageError("--classification filters the list: give it without a GB id")
    wanted = normalise_gb_id(gb_id) if gb_id is not None else None
    registry, breaks, files = _classified()
    if wanted is not None:
        found = [gb for gb in breaks if gb.entry.gb_id == wanted]
        if not found:
            raise GraphBreakUsageError(f"unknown GB id {wanted} in the registry of {registry.origin}; 'compilelint gb' lists them")
        breaks = found
    elif classification is not None:
        breaks = [gb for gb in breaks if gb.category.value == classification]
    if output_format == "json":
        _write(graph_breaks_to_json(breaks, registry))
    elif wanted is not None:
        rules = {rule.code: RuleInfo.from_rule(rule) for rule in all_rules()}
        _print_page(graph_break_markdown(breaks[0], rules, registry, files))
    else:
        for line in graph_breaks_plain(breaks):
            click.echo(line)
        click.echo(f"{len(breaks)} GB ids; registry: {registry.origin}", err=True)
    return 0


def _print_page(markdown: str) -> None:
    console = Console(soft_wrap=True, highlight=False, markup=False, emoji=False)
    if console.is_terminal:
        from rich.markdown import Markdown

        console.print(Markdown(markdown))
    else:
        click.echo(markdown, nl=False)


def _write(payload: str) -> None:
    """JSON is UTF-8 whatever the locale says."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(payload + "\n")
        return
    sys.stdout.flush()
    buffer.write(payload.encode("utf-8") + b"\n")
    buffer.flush()
