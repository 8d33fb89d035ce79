"""``compilelint verify``: run targets under torch.compile and check the static findings.

This module must import without torch: the CLI loads it for ``--help`` and for static
linting. Torch is imported only in the child processes the runner starts.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import click
from rich.console import Console

from compilelint.findings import Finding
from compilelint.verify import statuses
from compilelint.verify.matching import match_target
from compilelint.verify.progress import Progress
from compilelint.verify.report import VerifyReport, build_report, to_json
from compilelint.verify.runner import RunOptions, run_all
from compilelint.verify.scope import default_lint_paths, project_root
from compilelint.verify.targets import TargetSpec, discover_all

EXIT_FAULT = 2


class VerifyError(click.ClickException):
    """A problem the user can fix (no GPU, no targets, bad config): one line, exit 2."""

    exit_code = EXIT_FAULT


def lint_findings(paths: Sequence[str], ran: str | None = None) -> tuple[list[Finding], str]:
    """The static linter over ``paths`` (files named explicitly are always linted), judged
    against ``ran``, the torch release the targets ran on; and a note when the settings
    assumed another release."""
    from dataclasses import replace

    from compilelint.config import ConfigError, load_settings
    from compilelint.engine import all_findings, lint_paths
    from compilelint.torch_versions import assume

    if not paths:
        return [], ""
    try:
        settings = load_settings(list(paths))
    except ConfigError as error:
        raise VerifyError(str(error)) from error
    note = ""
    if ran:
        assumed, running = assume(settings.torch_version), assume(ran)
        if assumed.release != running.release:
            note = (f"findings judged against torch {running.release}, the release the targets ran on "
                    f"(torch {ran}); the settings assume {assumed.describe()}")
        settings = replace(settings, torch_version=ran)
    findings = all_findings(lint_paths(list(paths), settings))
    return [f for f in findings if not f.code.startswith("CL9")], note  # CL9xx: cannot lint


def run_config(paths: Sequence[str]) -> tuple[str | None, list[str]]:
    """The pyproject.toml above PATHS (or here) and its ``[tool.compilelint.verify] targets``.

    The lookup stops at the project root, and targets outside the project are refused
    (``compilelint.config``): a config planted above the project is never run."""
    from compilelint.config import ConfigError, load_settings

    try:
        settings = load_settings(list(paths) or [os.getcwd()])
    except ConfigError as error:
        raise VerifyError(str(error)) from error
    return settings.config_path, list(settings.verify_targets)


def configured_targets(paths: Sequence[str]) -> list[str]:
    return run_config(paths)[1]


def check_cuda(python: str) -> None:
    """Fail early, with one clear message, when --device cuda cannot work."""
    probe = "import sys, torch; print(torch.__version__); sys.exit(0 if torch.cuda.is_available() else 3)"
    try:
        done = subprocess.run([python, "-c", probe], capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired as error:
        raise VerifyError("--device cuda: checking for a GPU timed out") from error
    if done.returncode == 3:
        raise VerifyError(
            f"--device cuda: torch {done.stdout.strip()} sees no CUDA GPU "
            "(CUDA_VISIBLE_DEVICES, driver, or a CPU-only torch build?). Use --device cpu."
        )
    if done.returncode != 0:
        last = (done.stderr.strip().splitlines() or ["unknown error"])[-1]
        raise VerifyError(f"--device cuda: cannot import torch: {last}")


@dataclass(frozen=True)
class VerifyRequest:
    paths: tuple[str, ...]
    target_files: tuple[str, ...]
    names: tuple[str, ...]
    options: RunOptions
    quiet: bool = False


def select_targets(files: Sequence[str], names: Sequence[str]) -> list[TargetSpec]:
    missing = [path for path in files if not os.path.isfile(path)]
    if missing:
        raise VerifyError(f"targets file not found: {', '.join(missing)}")
    specs = discover_all(files)
    if names:
        specs = [s for s in specs if s.name in names or s.parse_error is not None]
    if not specs:
        raise VerifyError(
            "no targets found: define functions named target_* or decorated @compilelint.target"
        )
    return specs


def verify(request: VerifyRequest, err: Console) -> VerifyReport:
    """Run the targets, lint, match. The CLI's work without the CLI."""
    specs = select_targets(request.target_files, request.names)
    with Progress(err, len(specs), enabled=not request.quiet) as progress:
        outcomes = run_all(specs, request.options, on_done=progress.done)
    if request.paths:
        lint_paths = sorted({os.path.abspath(p) for p in request.paths})
    else:
        callable_files = {p for o in outcomes for p in o.run.callable_files}
        root = request.options.project_root or project_root(request.target_files[0])
        lint_paths = default_lint_paths(callable_files, root)
    ran = next((o.run.torch_version for o in outcomes if o.run.torch_version), None)
    findings, note = lint_findings(lint_paths, ran)
    matches = [match_target(outcome.run, findings) for outcome in outcomes]
    return build_report(outcomes, matches, lint_paths, findings, torch_note=note)


def _default_jobs(device: str, measure: bool) -> int:
    """Up to 4 at once. On one GPU with --measure, one at a time: a target timed while
    others compile beside it (CPU-bound, launch-bound small models) would be timed slow,
    even though the measure phases take turns (RunOptions.measure_lock)."""
    if device.startswith("cuda") and measure:
        return 1
    return max(1, min(4, os.cpu_count() or 1))


def _positive_finite(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """A limit must be a real number of seconds or MB: nan, inf, 0 and negatives are mistakes."""
    if value is not None and not (math.isfinite(value) and value > 0):
        raise click.BadParameter(f"must be a positive number, not {value!r}")
    return value


@click.command("verify")
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--targets", "target_files", multiple=True, type=click.Path(exists=True, dir_okay=False),
              help="Targets file (repeatable). Default: [tool.compilelint.verify] targets.")
@click.option("--target", "names", multiple=True, help="Run only the target(s) with this name.")
@click.option("--timeout", type=float, default=300.0, show_default=True, callback=_positive_finite,
              help="Wall-clock limit per target, in seconds (@target(timeout=...) overrides).")
@click.option("--memory-limit", "memory_limit", type=float, default=None, callback=_positive_finite,
              help="Resident memory limit per target in MB, over all its processes; status memory-limit.")
@click.option("--device", default="cpu", show_default=True, help="cpu or cuda[:N].")
@click.option("--backend", default=None, help="torch.compile backend [default: eager on CPU, inductor on CUDA].")
@click.option("--measure", is_flag=True, help="Time eager against compiled (median of --repeats).")
@click.option("--mode", "compile_mode", type=click.Choice(["default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"]),
              default="default", show_default=True, help="torch.compile(mode=...) for the default-mode phase.")
@click.option("--warmup", type=click.IntRange(min=0), default=5, show_default=True)
@click.option("--repeats", type=click.IntRange(min=1), default=20, show_default=True)
@click.option("--jobs", "-j", type=int, default=None,
              help="Targets run at once [default: up to 4; 1 on CUDA with --measure].")
@click.option("--isolate", is_flag=True,
              help="Every target in a fresh process of its own (default: warm workers reused by targets).")
@click.option("--dynamic", is_flag=True, help="Run the input sets again under torch.compile(dynamic=True).")
@click.option("--compile-time", "compile_time", is_flag=True,
              help="Time the first compiled call cold, with regional compilation and with warm caches (fresh processes).")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "markdown"]), default="text",
              show_default=True)
@click.option("--output", "-o", type=click.Path(dir_okay=False, writable=True), help="Write the report here.")
@click.option("--summary", type=click.Path(dir_okay=False, writable=True),
              help="Also write a markdown summary to paste into an issue.")
@click.option("--plot", type=click.Path(dir_okay=False, writable=True),
              help="Also draw eager vs compiled time per target (PNG/SVG/PDF; needs matplotlib).")
@click.option("--quiet", "-q", is_flag=True, help="No progress output.")
def verify_command(paths: tuple[str, ...], target_files: tuple[str, ...], names: tuple[str, ...],
                   **settings: Any) -> None:  # fmt: skip
    """Confirm findings by running targets under torch.compile (default and fullgraph=True).

    Exit status: 0 when every target ran and no break was found, 1 when findings are
    confirmed or breaks were missed, 2 when a target could not run.
    """
    config, configured = run_config(paths)
    files = target_files or tuple(configured)
    if not files:
        raise click.UsageError("no targets: pass --targets FILE or set [tool.compilelint.verify] targets")
    if settings["plot"]:
        _check_plotting()
    if str(settings["device"]).startswith("cuda"):
        check_cuda(sys.executable)
    options = _with_measure_lock(run_options(settings, project_root(files[0])))
    _terminate_on_sigterm()
    err = Console(stderr=True)
    quiet = bool(settings["quiet"])
    if not quiet:
        err.print(f"config: {config or 'none'} · targets: {', '.join(files)}", markup=False, highlight=False)
    report = verify(VerifyRequest(paths, tuple(os.path.abspath(f) for f in files), names, options, quiet), err)
    report = dataclasses.replace(report, config=config, targets_files=tuple(os.path.abspath(f) for f in files))
    emit(report, settings["output_format"], settings["output"])
    if settings["summary"]:
        emit(report, "markdown", settings["summary"])
    if settings["plot"]:
        from compilelint.verify.plot import write_plot

        write_plot(settings["plot"], [("run", to_json(report))])
    sys.exit(report.exit_code())


def run_options(settings: dict[str, Any], root: str | None) -> RunOptions:
    device = str(settings["device"])
    return RunOptions(
        device=device, backend=settings["backend"] or ("inductor" if device.startswith("cuda") else "eager"),
        timeout=settings["timeout"], memory_limit_mb=settings["memory_limit"], measure=settings["measure"],
        compile_mode=settings["compile_mode"], warmup=settings["warmup"], repeats=settings["repeats"],
        jobs=settings["jobs"] or _default_jobs(device, settings["measure"]), project_root=root,
        isolate=settings["isolate"], dynamic=settings["dynamic"], compile_time=settings["compile_time"],
    )  # fmt: skip


def _check_plotting() -> None:
    """Before the run, not after minutes of it: --plot without matplotlib is a usage error."""
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        raise VerifyError("--plot needs matplotlib: pip install 'compilelint[plot]'")


def _with_measure_lock(options: RunOptions) -> RunOptions:
    """Several targets on one GPU take turns to be timed: they share a lock file."""
    if not (options.measure and options.jobs > 1 and options.device.startswith("cuda")):
        return options
    import tempfile

    handle, path = tempfile.mkstemp(prefix="compilelint-measure-", suffix=".lock")
    os.close(handle)
    import atexit
    import contextlib

    def remove() -> None:
        with contextlib.suppress(OSError):
            os.remove(path)

    atexit.register(remove)
    return dataclasses.replace(options, measure_lock=path)


def _terminate_on_sigterm() -> None:
    """SIGTERM (a CI timeout, `timeout(1)`) unwinds like Ctrl-C: the runner then kills every
    target's process group. By default SIGTERM would end us and leave them running."""

    def stop(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, stop)


def emit(report: VerifyReport, output_format: str, output: str | None) -> None:
    from compilelint.verify.render_text import render

    handle = open(output, "w", encoding="utf-8") if output else None  # noqa: SIM115
    try:
        if output_format == "json":
            text = json.dumps(to_json(report), indent=2)
            click.echo(text, file=handle)
        elif output_format == "markdown":
            from compilelint.verify.render_markdown import render_markdown

            click.echo(render_markdown(report), file=handle, nl=False)
        else:
            console = Console(file=handle) if handle else Console()
            if not console.is_terminal:
                console.width = max(console.width, 160)  # files and CI logs: no 80-column wrap
            render(console, report)
    finally:
        if handle is not None:
            handle.close()


__all__ = ["verify_command", "verify", "VerifyRequest", "statuses"]
