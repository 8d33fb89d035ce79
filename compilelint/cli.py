"""The ``compilelint`` command: ``check`` (the default), ``rule``, ``rules``, ``gb`` and ``verify``.

A thin adapter, like the flake8 plugin: it turns flags into ``Settings``, asks the engine
for ``FileResult``s, hands the findings to ``compilelint.report`` and picks the exit code.

Exit codes (ruff's): 0 no findings, 1 findings (CL900 and CL999 included), 2 a usage or
configuration error, a path on the command line that does not exist, or a crash of the CLI.
With ``--fix``: 0 nothing left, 1 findings left (or, with ``--exit-non-zero-on-fix``,
anything fixed), 2 a file that could not be fixed; with ``--diff``: 1 if there is a diff.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NoReturn

import click
from rich.console import Console
from rich.text import Text

from compilelint import __version__
from compilelint.config import ConfigError, Settings, SettingsResolver
from compilelint.engine import all_findings, lint_files, lint_source
from compilelint.files import Discovery, SourceError, decode_source, discover, read_source
from compilelint.findings import FileResult, Finding
from compilelint.graph_break_command import gb_command
from compilelint.positions import LineIndex
from compilelint.registry import all_rules
from compilelint.report import (
    count_by_rule,
    findings_to_json,
    render_concise,
    render_full,
    render_statistics,
    statistics_to_json,
    summarise,
)
from compilelint.report.rules import (
    ENGINE_CODES,
    RuleInfo,
    rule_markdown,
    rule_to_json,
    rules_plain,
    rules_table,
    rules_to_json,
)

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
EXIT_INTERRUPTED = 130
DEFAULT_COMMAND = "check"
STDIN = "-"
STDIN_PATH = "<stdin>"  # the reported path of stdin without --stdin-filename (the engine's)
DEBUG_VARIABLE = "COMPILELINT_DEBUG"
_GROUP_ARGS = frozenset({"--help", "-h", "--version"})


class CliError(click.ClickException):
    """An error the user can fix (bad config, missing path): one line on stderr, exit 2."""

    exit_code = EXIT_ERROR


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


@dataclass(frozen=True)
class CheckRequest:
    """Everything ``check`` was asked to do, decoupled from click.

    ``--fix``, ``--unsafe-fixes``, ``--diff`` and ``--exit-non-zero-on-fix`` are carried out
    by ``_run_fixes`` (with ``compilelint.fix.api.apply_fixes``).
    """

    paths: tuple[str, ...]
    overrides: Mapping[str, Any]
    config: str | None = None
    output_format: str = "text"
    statistics: bool = False
    quiet: bool = False
    exit_zero: bool = False
    jobs: int | None = None
    stdin_filename: str | None = None
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    exit_non_zero_on_fix: bool = False

    @property
    def reads_stdin(self) -> bool:
        return STDIN in self.paths or (not self.paths and self.stdin_filename is not None)

    @property
    def file_paths(self) -> list[str]:
        """The paths to lint from disk: ``.`` when none are given (and stdin is not read)."""
        files = [p for p in self.paths if p != STDIN]
        return files if files or self.reads_stdin else ["."]

    @property
    def stdin_path(self) -> str:
        return self.stdin_filename or STDIN_PATH


@dataclass(frozen=True)
class Linted:
    results: list[FileResult]
    stdin_text: str | None  # decoded stdin, for snippets (the file is not on disk)
    path_errors: list[tuple[str, str]]  # paths that do not exist or cannot be listed: exit 2
    settings: dict[str, Settings]  # each file's, from its nearest config


def run_check(request: CheckRequest, show_unsafe: bool = False) -> int:
    """Lint, report, and return the exit code."""
    resolver = SettingsResolver(dict(request.overrides), request.config)
    linted = _configured(lambda: _lint(request, resolver))
    for path, message in linted.path_errors:
        click.echo(f"compilelint: error: {path}: {message}", err=True)
    if request.fix or request.diff:
        code = _run_fixes(request, linted)
    else:
        findings = sorted(all_findings(linted.results), key=lambda f: f.sort_key)
        summary = _summary_line(summarise(findings).line(show_unsafe), len(linted.path_errors))
        _report(findings, request, _sources(findings, request, linted.stdin_text), show_unsafe, summary)
        code = EXIT_FINDINGS if findings and not request.exit_zero else EXIT_CLEAN
    return EXIT_ERROR if linted.path_errors else code


def _run_fixes(request: CheckRequest, linted: Linted) -> int:
    """``--fix`` / ``--diff``: fix, then report what is left (the summary says what was fixed)."""
    from compilelint.fix.api import apply_fixes  # libcst: only when fixing

    if request.reads_stdin:
        raise CliError("--fix and --diff work on files; stdin ('-') can only be linted")
    report = apply_fixes(
        linted.results, Settings(), unsafe=request.unsafe_fixes, diff=request.diff, jobs=request.jobs,
        settings_of=linted.settings.__getitem__,
    )
    for path, message in report.errors:
        click.echo(f"compilelint: error: {path}: {message}", err=True)
    if request.diff:
        if report.diffs:
            _write_utf8(report.diffs.rstrip("\n"))
        if not request.quiet:
            click.echo(report.summary_line(), err=True)
        return report.exit_code()
    findings = sorted(all_findings(report.results), key=lambda f: f.sort_key)
    sources = _sources(findings, request, None)
    _report(findings, request, sources, request.unsafe_fixes, summary=report.summary_line())
    code = report.exit_code(request.exit_non_zero_on_fix)
    if request.exit_zero and code == EXIT_FINDINGS and not (request.exit_non_zero_on_fix and report.fixed):
        return EXIT_CLEAN
    return code


def _summary_line(line: str, path_errors: int) -> str:
    if not path_errors:
        return line
    paths = "1 path" if path_errors == 1 else f"{path_errors} paths"
    return f"{'No findings' if line == 'All checks passed!' else line}; {paths} could not be linted"


def _configured(work: Callable[[], Linted]) -> Linted:
    """Configs are read as files are found: a bad one is a usage error (exit 2)."""
    try:
        return work()
    except ConfigError as error:
        raise CliError(str(error)) from error


def _lint(request: CheckRequest, resolver: SettingsResolver) -> Linted:
    discovery = discover(request.file_paths, resolver.for_path) if request.file_paths else Discovery()
    results = lint_files(discovery.files, jobs=request.jobs)
    stdin_text = None
    if request.reads_stdin:
        data = _read_stdin()
        # stdin is configured as its --stdin-filename would be (else as a file in this folder)
        settings = resolver.for_path(request.stdin_filename or os.path.join(os.getcwd(), STDIN_PATH))
        results.append(lint_source(data, request.stdin_path, settings))
        try:
            stdin_text = decode_source(data)
        except SourceError:
            stdin_text = None  # reported as CL900 by the engine; no snippet to show
    return Linted(results, stdin_text, discovery.errors, dict(discovery.files))


def _sources(findings: Sequence[Finding], request: CheckRequest, stdin_text: str | None) -> dict[str, list[str]]:
    """The lines of each file with findings, for snippets (only the text format needs them)."""
    if request.output_format != "text" or request.statistics:
        return {}
    sources: dict[str, list[str]] = {}
    for path in {finding.path for finding in findings}:
        if request.reads_stdin and path == request.stdin_path:
            text = stdin_text
        else:
            try:
                text = read_source(path)
            except SourceError:
                text = None
        if text is not None:
            sources[path] = LineIndex(text).lines
    return sources


def _report(
    findings: Sequence[Finding],
    request: CheckRequest,
    sources: Mapping[str, Sequence[str]],
    show_unsafe: bool,
    summary: str | None = None,
) -> None:
    if request.output_format == "json":
        if request.statistics:
            _write_utf8(statistics_to_json(count_by_rule(findings, show_unsafe)))
        else:
            _write_utf8(findings_to_json(findings))
        return
    console = _console()
    if request.statistics:
        _print_lines(console, render_statistics(count_by_rule(findings, show_unsafe)))
    elif request.output_format == "concise":
        _print_lines(console, render_concise(findings, show_unsafe))
    else:
        for block in render_full(findings, sources, show_unsafe, ascii_only=not _is_utf8(console)):
            console.print(block)
            console.print()
    if not request.quiet:
        line = summary if summary is not None else summarise(findings).line(show_unsafe)
        console.print(Text(line, style="bold" if findings else "bold green"))


def _console() -> Console:
    # soft_wrap: a piped line is never broken at 80 columns; markup/emoji off: source text
    # and messages are printed as they are. Colour follows rich: TTY, NO_COLOR, FORCE_COLOR.
    return Console(soft_wrap=True, highlight=False, markup=False, emoji=False)


def _is_utf8(console: Console) -> bool:
    return console.encoding.lower().replace("-", "").startswith("utf")


def _print_lines(console: Console, lines: Iterable[Text]) -> None:
    for line in lines:
        console.print(line)


def _read_stdin() -> bytes:
    """Bytes, so that the engine decodes them like a file (coding cookie, BOM)."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        data: bytes = buffer.read()
        return data
    return sys.stdin.read().encode("utf-8")


def _write_utf8(payload: str) -> None:
    """JSON is UTF-8 whatever the locale says (RFC 8259), so write bytes."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(payload + "\n")
        return
    sys.stdout.flush()
    buffer.write(payload.encode("utf-8") + b"\n")
    buffer.flush()


def _split(values: Iterable[str]) -> list[str]:
    """``--select CL1,CL2 --select CL3`` -> ``[CL1, CL2, CL3]``."""
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


@main.command("check")
@click.argument("paths", nargs=-1, type=click.Path(allow_dash=True))
@click.option("--select", multiple=True, metavar="CODES", help="Only these rule code prefixes (comma-separated, repeatable).")
@click.option("--ignore", multiple=True, metavar="CODES", help="Skip these rule code prefixes.")
@click.option("--extend-select", multiple=True, metavar="CODES", help="Add these prefixes to the selection.")
@click.option("--exclude", multiple=True, metavar="GLOBS", help="Replace the excluded file patterns.")
@click.option("--extend-exclude", multiple=True, metavar="GLOBS", help="Exclude these patterns as well.")
@click.option("--force-exclude/--no-force-exclude", default=None, help="Apply the excludes to files named on the command line too (pre-commit passes file names).")
@click.option("--respect-gitignore/--no-respect-gitignore", default=None, help="Skip files .gitignore excludes [default: respect].")
@click.option("--config", type=click.Path(exists=True, dir_okay=False), help="Use this pyproject.toml for every file.")
@click.option(
    "--output-format",
    "--format",
    "output_format",
    type=click.Choice(["text", "concise", "json"]),
    default="text",
    show_default=True,
    help="text: findings with source; concise: one line each; json: one array.",
)
@click.option("--statistics", is_flag=True, help="Show a count per rule instead of the findings.")
@click.option("--quiet", "-q", is_flag=True, help="Only the findings: no summary line.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, metavar="N", help="Processes [default: one per core].")
@click.option("--stdin-filename", metavar="PATH", help="The path to report, and match config against, for '-'.")
@click.option("--fix", is_flag=True, help="Apply safe fixes, then report what is left.")
@click.option("--unsafe-fixes", is_flag=True, help="Also apply (with --fix) or show as fixable the unsafe fixes.")
@click.option("--diff", is_flag=True, help="Print the diffs --fix would make, write nothing; exit 1 if any.")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="With --fix, exit 1 when anything was fixed.")
def check(
    paths: tuple[str, ...],
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    extend_select: tuple[str, ...],
    exclude: tuple[str, ...],
    extend_exclude: tuple[str, ...],
    force_exclude: bool | None,
    respect_gitignore: bool | None,
    config: str | None,
    output_format: str,
    statistics: bool,
    quiet: bool,
    exit_zero: bool,
    jobs: int | None,
    stdin_filename: str | None,
    fix: bool,
    unsafe_fixes: bool,
    diff: bool,
    exit_non_zero_on_fix: bool,
) -> int:
    """Lint PATHS (files or folders; '-' reads stdin). Default: the current folder.

    Exit status: 0 no findings, 1 findings, 2 usage or configuration error (or, with
    --fix, a file that could not be fixed).
    """
    overrides = {
        "select": _split(select),
        "ignore": _split(ignore),
        "extend_select": _split(extend_select),
        "exclude": _split(exclude),
        "extend_exclude": _split(extend_exclude),
        "force_exclude": force_exclude,
        "respect_gitignore": respect_gitignore,
    }
    request = CheckRequest(
        paths=paths,
        overrides=overrides,
        config=config,
        output_format=output_format,
        statistics=statistics,
        quiet=quiet,
        exit_zero=exit_zero,
        jobs=jobs,
        stdin_filename=stdin_filename,
        fix=fix,
        unsafe_fixes=unsafe_fixes,
        diff=diff,
        exit_non_zero_on_fix=exit_non_zero_on_fix,
    )
    return run_check(request, show_unsafe=unsafe_fixes)


# --- rule, rules ----------------------------------------------------------------------------


def rule_infos() -> list[RuleInfo]:
    return [RuleInfo.from_rule(rule) for rule in all_rules()] + list(ENGINE_CODES)


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
    console = _console()
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
    console = _console()
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
