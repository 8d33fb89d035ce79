"""``compilelint check``'s work, decoupled from click: find files, lint (through the cache),
filter (baseline), report in the asked format, pick the exit code.

Exit codes (ruff's): 0 no findings, 1 findings (CL900 and CL999 included), 2 a usage or
configuration error, a path that does not exist or a folder that cannot be listed (the
other files are still linted), or a crash of the CLI. With ``--fix``: 0 nothing left, 1
findings left (or, with ``--exit-non-zero-on-fix``, anything fixed), 2 a file that could
not be fixed; with ``--diff``: 1 if there is a diff.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import IO, Any

import click
from rich.console import Console
from rich.text import Text

from compilelint.config import ConfigError, Settings, SettingsResolver
from compilelint.engine import all_findings, lint_files, lint_source
from compilelint.files import Discovery, SourceError, decode_source, discover, read_source
from compilelint.findings import FileResult, Finding
from compilelint.positions import LineIndex
from compilelint.report import (
    count_by_rule,
    findings_to_json,
    render_concise,
    render_full,
    render_statistics,
    statistics_to_json,
    summarise,
)

EXIT_CLEAN = 0
EXIT_FINDINGS = 1
EXIT_ERROR = 2
STDIN = "-"
STDIN_PATH = "<stdin>"  # the reported path of stdin without --stdin-filename (the engine's)
TEXT_FORMATS = ("text", "concise")
OUTPUT_FORMATS = ("text", "concise", "json", "json-lines", "sarif", "github", "gitlab", "junit")
PROGRESS_AFTER_S = 2.0  # a bar only for runs long enough to want one


class CliError(click.ClickException):
    """An error the user can fix (bad config, missing path): one line on stderr, exit 2."""

    exit_code = EXIT_ERROR


@dataclass(frozen=True)
class CheckRequest:
    """Everything ``check`` was asked to do."""

    paths: tuple[str, ...]
    overrides: Mapping[str, Any]
    config: str | None = None
    output_format: str = "text"
    output_file: str | None = None
    statistics: bool = False
    quiet: bool = False
    verbose: bool = False
    color: str = "auto"
    exit_zero: bool = False
    jobs: int | None = None
    stdin_filename: str | None = None
    fix: bool = False
    unsafe_fixes: bool = False
    diff: bool = False
    exit_non_zero_on_fix: bool = False
    cache: bool = True
    cache_dir: str | None = None
    baseline: str | None = None
    write_baseline: str | None = None
    add_noqa: bool = False
    show_files: bool = False
    show_settings: bool = False

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


@dataclass
class Linted:
    results: list[FileResult]
    stdin_text: str | None  # decoded stdin, for snippets (the file is not on disk)
    path_errors: list[tuple[str, str]]  # paths that do not exist or cannot be listed: exit 2
    settings: dict[str, Settings]  # each file's, from its nearest config
    cache_hits: int = 0
    lines: dict[str, list[str] | None] = field(default_factory=dict)

    def lines_of(self, path: str) -> list[str] | None:
        """A file's lines (for snippets and baselines), read once."""
        if path not in self.lines:  # stdin's lines are put here when it is read
            try:
                self.lines[path] = LineIndex(read_source(path)).lines
            except SourceError:
                self.lines[path] = None
        return self.lines[path]


def run_check(request: CheckRequest, show_unsafe: bool = False) -> int:
    """Lint, report, and return the exit code."""
    started = time.perf_counter()
    resolver = SettingsResolver(dict(request.overrides), request.config)
    err = console_for(sys.stderr, request.color)
    if request.show_files or request.show_settings:
        return _show(request, resolver)
    linted = _configured(lambda: _lint(request, resolver, err))
    for path, message in linted.path_errors:
        click.echo(f"compilelint: error: {path}: {message}", err=True)
    if not linted.results and not linted.path_errors:
        click.echo(f"compilelint: warning: no Python files found under {', '.join(request.file_paths)}", err=True)
    if request.add_noqa:
        return _add_noqa(linted)
    if request.fix or request.diff:
        code = _run_fixes(request, linted)
    else:
        code = _report_findings(request, linted, show_unsafe)
    if request.verbose:
        _describe_run(err, resolver, linted, time.perf_counter() - started)
    return EXIT_ERROR if linted.path_errors else code


def _report_findings(request: CheckRequest, linted: Linted, show_unsafe: bool) -> int:
    findings = sorted(all_findings(linted.results), key=lambda f: f.sort_key)
    if request.write_baseline:
        from compilelint.baseline import write_baseline

        count = write_baseline(request.write_baseline, findings, linted.lines_of)
        click.echo(f"Wrote {count} findings to the baseline {request.write_baseline}", err=True)
        return EXIT_CLEAN
    hidden = 0
    if request.baseline:
        from compilelint.baseline import BaselineError, without_baselined

        try:
            findings, hidden = without_baselined(findings, request.baseline, linted.lines_of)
        except BaselineError as error:
            raise CliError(str(error)) from error
    line = summarise(findings).line(show_unsafe)
    if hidden:
        line += f" ({hidden} more in the baseline)" if findings else f" ({hidden} findings in the baseline)"
    report(findings, request, linted, show_unsafe, _summary_line(line, len(linted.path_errors)))
    return EXIT_FINDINGS if findings and not request.exit_zero else EXIT_CLEAN


def _run_fixes(request: CheckRequest, linted: Linted) -> int:
    """``--fix`` / ``--diff``: fix, then report what is left (the summary says what was fixed)."""
    from compilelint.fix.api import apply_fixes  # libcst: only when fixing

    if request.reads_stdin:
        raise CliError("--fix and --diff work on files; stdin ('-') can only be linted")
    fixes = apply_fixes(
        linted.results, Settings(), unsafe=request.unsafe_fixes, diff=request.diff, jobs=request.jobs,
        settings_of=linted.settings.__getitem__, roots=request.file_paths,
    )
    for path, message in fixes.errors:
        click.echo(f"compilelint: error: {path}: {message}", err=True)
    for note in fixes.notes:
        click.echo(f"compilelint: warning: {note}", err=True)
    if request.diff:
        if fixes.diffs:
            write_utf8(fixes.diffs.rstrip("\n"), errors="surrogateescape")  # the files' own bytes
        if not request.quiet:
            click.echo(fixes.summary_line(), err=True)
        return fixes.exit_code()
    findings = sorted(all_findings(fixes.results), key=lambda f: f.sort_key)
    report(findings, request, Linted(fixes.results, None, [], linted.settings), request.unsafe_fixes, fixes.summary_line())
    code = fixes.exit_code(request.exit_non_zero_on_fix)
    if request.exit_zero and code == EXIT_FINDINGS and not (request.exit_non_zero_on_fix and fixes.fixed):
        return EXIT_CLEAN
    return code


def _add_noqa(linted: Linted) -> int:
    from compilelint.add_noqa import add_noqa_to_files

    edits = add_noqa_to_files(all_findings(linted.results))
    for edit in edits:
        if edit.error:
            click.echo(f"compilelint: error: {edit.path}: not changed: {edit.error}", err=True)
    added = sum(edit.added for edit in edits)
    files = sum(1 for edit in edits if edit.added)
    click.echo(f"Added {added} noqa comments in {files} files", err=True)
    return EXIT_ERROR if any(edit.error for edit in edits) or linted.path_errors else EXIT_CLEAN


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


def _cache(request: CheckRequest) -> Any:
    if not request.cache or os.environ.get("COMPILELINT_NO_CACHE"):
        return None
    from compilelint.cache import DEFAULT_DIR, ResultCache

    return ResultCache(request.cache_dir or os.environ.get("COMPILELINT_CACHE_DIR") or DEFAULT_DIR)


def _lint(request: CheckRequest, resolver: SettingsResolver, err: Console) -> Linted:
    discovery = discover(request.file_paths, resolver.for_path) if request.file_paths else Discovery()
    cache = _cache(request)
    with ProgressBar(err, len(discovery.files), request) as progress:
        results = lint_files(discovery.files, jobs=request.jobs, cache=cache, progress=progress)
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
    linted = Linted(results, stdin_text, discovery.errors, dict(discovery.files), cache.hits if cache else 0)
    if stdin_text is not None:
        linted.lines[request.stdin_path] = LineIndex(stdin_text).lines
    return linted


class ProgressBar:
    """A rich progress bar on stderr (a terminal only), shown once a run passes two seconds."""

    def __init__(self, err: Console, total: int, request: CheckRequest) -> None:
        self.enabled = err.is_terminal and not request.quiet and total > 0
        self.err, self.total, self.started = err, total, time.perf_counter()
        self.bar: Any = None

    def __enter__(self) -> Callable[[int], None] | None:
        return self.update if self.enabled else None

    def update(self, done: int) -> None:
        if self.bar is None:
            if time.perf_counter() - self.started < PROGRESS_AFTER_S:
                return
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(TextColumn("linting"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                                console=self.err, transient=True)  # fmt: skip
            self.bar.start()
            self.task = self.bar.add_task("lint", total=self.total)
        self.bar.update(self.task, completed=min(done, self.total))

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()


def _describe_run(err: Console, resolver: SettingsResolver, linted: Linted, seconds: float) -> None:
    configs = sorted(str(path) for path in resolver.used if path is not None) or ["none (defaults)"]
    linted_files = sum(1 for r in linted.results if not r.skipped)
    skipped = sum(1 for r in linted.results if r.skipped)
    err.print(f"config: {', '.join(configs)}", markup=False, highlight=False)
    from compilelint.torch_versions import assume

    for described in sorted({assume(settings.torch_version).describe() for settings in resolver.used.values()}):
        err.print(f"findings assume {described}", markup=False, highlight=False)
    err.print(f"checked {len(linted.results)} files ({linted_files} parsed, {skipped} without torch, "
              f"{linted.cache_hits} results from the cache) in {seconds:.2f} s", markup=False, highlight=False)  # fmt: skip


def _show(request: CheckRequest, resolver: SettingsResolver) -> int:
    """``--show-files``: the files a run would lint; ``--show-settings``: the first one's settings."""
    try:
        found = discover(request.file_paths, resolver.for_path)
    except ConfigError as error:
        raise CliError(str(error)) from error
    for path, message in found.errors:
        click.echo(f"compilelint: error: {path}: {message}", err=True)
    if request.show_files:
        for path, _ in found.files:
            click.echo(path)
    else:
        anchor = found.files[0][0] if found.files else (request.file_paths or ["."])[0]
        write_utf8(json.dumps({"file": anchor, **resolver.for_path(anchor).to_json()}, indent=2))
    return EXIT_ERROR if found.errors else EXIT_CLEAN


# --- reports --------------------------------------------------------------------------------


def report(findings: Sequence[Finding], request: CheckRequest, linted: Linted, show_unsafe: bool, summary: str) -> None:
    fmt = request.output_format
    handle = open(request.output_file, "w", encoding="utf-8", newline="") if request.output_file else None  # noqa: SIM115
    try:
        if fmt in TEXT_FORMATS or (request.statistics and fmt != "json"):
            console = console_for(handle or sys.stdout, "never" if handle else request.color)
            _text_report(console, findings, request, linted, show_unsafe, summary)
        else:
            payload = _machine_report(fmt, findings, request, linted, show_unsafe)
            if handle is not None:
                handle.write(payload + ("\n" if payload else ""))
            elif payload:
                write_utf8(payload)
    finally:
        if handle is not None:
            handle.close()


def _machine_report(fmt: str, findings: Sequence[Finding], request: CheckRequest, linted: Linted, show_unsafe: bool) -> str:
    from compilelint.report import ci

    if fmt == "json":
        return statistics_to_json(count_by_rule(findings, show_unsafe)) if request.statistics else findings_to_json(findings)
    if fmt == "sarif":
        from compilelint.cli import rule_infos
        from compilelint.report.sarif import findings_to_sarif

        return findings_to_sarif(findings, rule_infos())
    if fmt == "junit":
        return ci.findings_to_junit(findings, [r.path for r in linted.results])
    renderers: dict[str, Callable[[Iterable[Finding]], str]] = {
        "json-lines": ci.findings_to_json_lines, "github": ci.findings_to_github, "gitlab": ci.findings_to_gitlab,
    }  # fmt: skip
    return renderers[fmt](findings)


def _text_report(console: Console, findings: Sequence[Finding], request: CheckRequest, linted: Linted,
                 show_unsafe: bool, summary: str) -> None:  # fmt: skip
    if request.statistics:
        _print_lines(console, render_statistics(count_by_rule(findings, show_unsafe)))
    elif request.output_format == "concise":
        _print_lines(console, render_concise(findings, show_unsafe))
    else:
        sources = {path: lines for path in {f.path for f in findings} if (lines := linted.lines_of(path)) is not None}
        for block in render_full(findings, sources, show_unsafe, ascii_only=not _is_utf8(console)):
            console.print(block)
            console.print()
    if not request.quiet:
        console.print(Text(summary, style="bold" if findings else "bold green"))


def console_for(file: IO[str], color: str = "auto") -> Console:
    # soft_wrap: a piped line is never broken at 80 columns; markup/emoji off: source text
    # and messages are printed as they are. "auto" follows rich: TTY, NO_COLOR, FORCE_COLOR.
    options: dict[str, Any] = {}
    if color == "always":
        options["force_terminal"] = True
    elif color == "never":
        options["no_color"] = True
        options["color_system"] = None
    return Console(file=file, soft_wrap=True, highlight=False, markup=False, emoji=False, **options)


def _is_utf8(console: Console) -> bool:
    return console.encoding.lower().replace("-", "").startswith("utf")


def _print_lines(console: Console, lines: Iterable[Text]) -> None:
    if console.color_system is None and not console.is_terminal:
        # no styles to render: rich's layout costs ~0.5 ms a line, a lot for 10,000 findings
        console.file.write("".join(f"{line.plain}\n" for line in lines))
        return
    for line in lines:
        console.print(line)


def _read_stdin() -> bytes:
    """Bytes, so that the engine decodes them like a file (coding cookie, BOM)."""
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        data: bytes = buffer.read()
        return data
    return sys.stdin.read().encode("utf-8")


def write_utf8(payload: str, errors: str = "strict") -> None:
    """JSON is UTF-8 whatever the locale says (RFC 8259), so write bytes."""
    buffer = getattr(sys.stdout, "buffer", None)
    if buffer is None:
        sys.stdout.write(payload + "\n")
        return
    sys.stdout.flush()
    buffer.write(payload.encode("utf-8", errors) + b"\n")
    buffer.flush()
