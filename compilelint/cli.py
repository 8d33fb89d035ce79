"""The ``compilelint`` command: ``check`` (the default), ``rule``, ``rules``, ``gb``, ``config``
and ``verify``.

A thin adapter, like the flake8 plugin: it turns flags into a ``CheckRequest`` for
``compilelint.check``, which finds the files, asks the engine for ``FileResult``s, hands the
findings to ``compilelint.report`` and picks the exit code (see there).
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

import click
from rich.console import Console

from compilelint import __version__
from compilelint.check import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, OUTPUT_FORMATS, CheckRequest, CliError, run_check
from compilelint.check import console_for as _console_for
from compilelint.check import write_utf8 as _write_utf8
from compilelint.config import ConfigError, SettingsResolver
from compilelint.graph_break_command import gb_command
from compilelint.registry import all_rules
from compilelint.report.rules import (
    ENGINE_CODES,
    RuleInfo,
    rule_markdown,
    rule_to_json,
    rules_plain,
    rules_table,
    rules_to_json,
)

EXIT_INTERRUPTED = 130
DEFAULT_COMMAND = "check"
DEBUG_VARIABLE = "COMPILELINT_DEBUG"
_GROUP_ARGS = frozenset({"--help", "-h", "--version"})


class DefaultGroup(click.Group):
    """A group whose first argument, unless it names a command, belongs to ``check``.

    So ``compilelint src/`` is ``compilelint check src/`` (ruff's muscle memory), and a
    path that happens to be called ``rule`` is linted with ``compilelint check rule``.
    """

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if not args:
            click.echo(ctx.get_help())
            ctx.exit(EXIT_ERROR)
        if args[0] not in self.commands and args[0] not in _GROUP_ARGS:
            args = [DEFAULT_COMMAND, *args]
        return super().parse_args(ctx, args)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Click's main, but every error is one ``compilelint: error: ...`` line on stderr."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except click.UsageError as error:
            _fail(_usage_message(error), EXIT_ERROR)
        except click.ClickException as error:
            _fail(error.format_message(), error.exit_code)
        except click.Abort:
            sys.exit(EXIT_INTERRUPTED)
        except BrokenPipeError:
            # `compilelint src | head`: the reader left; say nothing, leave like a pipe would.
            _silence_stdout()
            sys.exit(EXIT_FINDINGS)
        except Exception as error:
            if os.environ.get(DEBUG_VARIABLE):
                raise
            _fail(
                f"internal error: {type(error).__name__}: {error} "
                f"(please report it; set {DEBUG_VARIABLE}=1 for the traceback)",
                EXIT_ERROR,
            )
        sys.exit(code if isinstance(code, int) else EXIT_CLEAN)


def _usage_message(error: click.UsageError) -> str:
    hint = f" (see '{error.ctx.command_path} --help')" if error.ctx is not None else ""
    return f"{error.format_message()}{hint}"


def _fail(message: str, code: int) -> NoReturn:
    click.echo(f"compilelint: error: {message}", err=True)
    sys.exit(code)


def _silence_stdout() -> None:
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass  # not a real file (tests): nothing will be flushed to a closed pipe anyway


@click.group("compilelint", cls=DefaultGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", prog_name="compilelint", message="%(prog)s %(version)s")
def main() -> None:
    """Find what makes torch.compile graph-break or recompile.

    `compilelint PATHS...` is `compilelint check PATHS...`; its options are in
    `compilelint check --help`.
    """


# --- check ----------------------------------------------------------------------------------


def _split(values: Iterable[str]) -> list[str]:
    """``--select CL1,CL2 --select CL3`` -> ``[CL1, CL2, CL3]``."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


@main.command("check")
@click.argument("paths", nargs=-1, type=click.Path(allow_dash=True, readable=False))  # we report it, and go on
@click.option("--select", multiple=True, metavar="CODES", help="Only these rule code prefixes (comma-separated, repeatable).")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these rule code prefixes.")
@click.option("--extend-select", multiple=True, metavar="CODES", help="Add these prefixes to the selection.")
@click.option("--exclude", multiple=True, metavar="GLOBS", help="Replace the excluded file patterns.")
@click.option("--extend-exclude", multiple=True, metavar="GLOBS", help="Exclude these patterns as well.")
@click.option("--force-exclude/--no-force-exclude", default=None, help="Apply the excludes to files named on the command line too (pre-commit passes file names).")
@click.option("--respect-gitignore/--no-respect-gitignore", default=None, help="Skip files .gitignore excludes [default: respect].")
@click.option("--config", type=click.Path(exists=True, dir_okay=False), help="Use this pyproject.toml for every file.")
@click.option("--output-format", "--format", "output_format", type=click.Choice(OUTPUT_FORMATS), default="text",
              help="text (default): findings with source; concise: one line each; json: one array; json-lines; sarif; github: workflow annotations; gitlab: code quality; junit: XML.")
@click.option("--output-file", "-o", metavar="FILE", type=click.Path(dir_okay=False), help="Write the report to FILE instead of stdout.")
@click.option("--follow-imports", type=click.Choice(["installed", "project", "none"]), default=None,
              help="Follow compiled code into installed packages (default), only the run's files, or no other file.")
@click.option("--python-executable", metavar="PYTHON", default=None, help="Follow into this interpreter's site-packages.")
@click.option("--statistics", is_flag=True, help="Show a count per rule instead of the findings.")
@click.option("--quiet", "-q", is_flag=True, help="Only the findings: no summary line, no progress bar.")
@click.option("--verbose", "-v", is_flag=True, help="Also say which configs were used, how many files were checked, and the time.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", help="Colour the text output [default: auto: on a terminal; NO_COLOR and FORCE_COLOR count].")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, metavar="N", help="Processes [default: one per core].")
@click.option("--stdin-filename", metavar="PATH", help="The path to report, and match config against, for '-'.")
@click.option("--fix", is_flag=True, help="Apply safe fixes, then report what is left.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply (with --fix) or show as fixable the unsafe fixes.")
@click.option("--diff", is_flag=True, help="Print the diffs --fix would make, write nothing; exit 1 if any.")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="With --fix, exit 1 when anything was fixed.")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` comments to the lines with findings (idempotent); exit 0.")
@click.option("--baseline", metavar="FILE", type=click.Path(exists=True, dir_okay=False), help="Report only findings not in this baseline.")
@click.option("--write-baseline", metavar="FILE", type=click.Path(dir_okay=False), help="Write the current findings to a baseline FILE; exit 0.")
@click.option("--no-cache", is_flag=True, help="Lint every file again; do not read or write the results cache.")
@click.option("--cache-dir", metavar="DIR", type=click.Path(file_okay=False), help="Where the results cache lives [default: .compilelint_cache].")
@click.option("--show-files", is_flag=True, help="List the files that would be linted, and exit.")
@click.option("--show-settings", is_flag=True, help="Print the settings of the first file as JSON, and exit.")
@click.option("--torch-version", metavar="X.Y", help="The torch release findings assume [default: the installed one].")
def check(paths: tuple[str, ...], select: tuple[str, ...], ignore: tuple[str, ...], extend_select: tuple[str, ...],
          exclude: tuple[str, ...], extend_exclude: tuple[str, ...], force_exclude: bool | None,
          respect_gitignore: bool | None, no_cache: bool, torch_version: str | None, follow_imports: str | None,
          python_executable: str | None, **options: Any) -> int:  # fmt: skip
    """Lint PATHS (files or folders; '-' reads stdin). Default: the current folder.

    Exit status: 0 no findings, 1 findings, 2 usage or configuration error, or a path that
    could not be linted (or, with --fix, a file that could not be fixed).
    """
    overrides = {
        "select": _split(select),
        "ignore": _split(ignore),
        "extend_select": _split(extend_select),
        "exclude": _split(exclude),
        "extend_exclude": _split(extend_exclude),
        "force_exclude": force_exclude,
        "respect_gitignore": respect_gitignore,
        "torch_version": torch_version,
        "follow_imports": follow_imports or "",
        "python_executable": python_executable or "",
    }
    request = CheckRequest(paths=paths, overrides=overrides, cache=not no_cache, **options)
    return run_check(request, show_unsafe=request.unsafe_fixes)


# --- rule, rules ----------------------------------------------------------------------------


def rule_infos() -> list[RuleInfo]:
    return [RuleInfo.from_rule(rule) for rule in all_rules()] + list(ENGINE_CODES)


def markdown_console() -> Console:
    """Not the reports' soft-wrapping console: rendered Markdown must wrap at the terminal's
    width, where soft wrapping crops list items and code lines instead."""
    return Console(highlight=False, emoji=False)


def find_rule(query: str, infos: Sequence[RuleInfo]) -> RuleInfo:
    """A rule by code (``CL101``, any case) or name (``print-call``); else a CliError."""
    for info in infos:
        if query.upper() == info.code or query.lower() == info.name:
            return info
    codes = [info.code for info in infos]
    names = [info.name for info in infos]
    close = [code for code in codes if code.startswith(query.upper())] if query.upper().startswith("CL") else []
    close = close or difflib.get_close_matches(query.upper(), codes, n=3, cutoff=0.6)
    close += difflib.get_close_matches(query.lower(), names, n=3, cutoff=0.6)
    hint = f"; did you mean {', '.join(dict.fromkeys(close))}?" if close else "; 'compilelint rules' lists them"
    raise CliError(f"unknown rule {query!r}{hint}")


@main.command("rule")
@click.argument("code")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rule(code: str, output_format: str) -> int:
    """Explain a rule: what it flags, why, an example, the fix (CODE or name)."""
    info = find_rule(code, rule_infos())
    if output_format == "json":
        _write_utf8(rule_to_json(info))
        return EXIT_CLEAN
    console = markdown_console()
    if console.is_terminal:
        from rich.markdown import Markdown  # markdown-it costs 30 ms: only for this command

        console.print(Markdown(rule_markdown(info)))
    else:
        click.echo(rule_markdown(info), nl=False)
    return EXIT_CLEAN


@main.command("rules")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rules(output_format: str) -> int:
    """List every rule: code, name, fix applicability, summary."""
    infos = rule_infos()
    if output_format == "json":
        _write_utf8(rules_to_json(infos))
        return EXIT_CLEAN
    console = _console_for(sys.stdout)
    if console.is_terminal:
        console.print(rules_table(infos))
    else:
        for line in rules_plain(infos):
            click.echo(line)
    return EXIT_CLEAN


@main.command("config")
@click.option("--schema", is_flag=True, help="Print the JSON Schema of [tool.compilelint] (for editors).")
@click.argument("path", required=False, type=click.Path())
def config_command(schema: bool, path: str | None) -> int:
    """Show the settings that apply to PATH (default: the current folder), as JSON."""
    import json

    if schema:
        from compilelint.config_schema import json_schema

        _write_utf8(json.dumps(json_schema(), indent=2))
        return EXIT_CLEAN
    try:
        settings = SettingsResolver().for_path(path or os.getcwd())
    except ConfigError as error:
        raise CliError(str(error)) from error
    _write_utf8(json.dumps(settings.to_json(), indent=2))
    return EXIT_CLEAN


# --- verify ---------------------------------------------------------------------------------


def _unavailable(name: str, error: ImportError) -> click.Command:
    """A stand-in that explains why a command is missing, rather than linting a path 'verify'."""

    def unavailable(args: tuple[str, ...]) -> None:
        raise CliError(f"'{name}' is not available: {error}")

    return click.Command(
        name,
        callback=unavailable,
        params=[click.Argument(["args"], nargs=-1)],
        context_settings={"ignore_unknown_options": True},
        help=f"(not available: {error})",
    )


def _add_verify(group: click.Group) -> None:
    try:
        from compilelint.verify.command import verify_command
    except ImportError as error:  # only a missing module; anything else is a bug to see
        group.add_command(_unavailable("verify", error))
    else:
        group.add_command(verify_command)


_add_verify(main)
main.add_command(gb_command)
