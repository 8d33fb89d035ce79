"""flake8 plugin: the engine's findings as flake8 errors (``flake8 --select CL``).

A thin adapter over ``lint_source``: same findings, same positions as ``compilelint
check`` (flake8 wants a 0-based column; ``Finding.column`` is 1-based, in characters).
It never raises: flake8 7 loses every file's results when a plugin's generator raises
while being iterated, so any exception becomes one CL999 at line 1 of its file.
"""

from __future__ import annotations

import ast
import dataclasses
import functools
import os
from collections.abc import Iterator, Sequence

from compilelint import __version__
from compilelint.config import ConfigError, Settings, load_settings
from compilelint.engine import INTERNAL_ERROR, SYNTAX_ERROR, lint_source

Error = tuple[int, int, str, type]


@functools.lru_cache(maxsize=256)
def settings_for_folder(folder: str) -> Settings | ConfigError:
    """``[tool.compilelint]`` from the pyproject.toml above ``folder``, once per folder.

    flake8 calls the plugin per file; walking up and parsing TOML each time would cost
    more than linting most files. A bad config is cached too, and reported on each file.
    """
    try:
        return load_settings([folder])
    except ConfigError as error:
        return error


class CompileLintChecker:
    name = "compilelint"
    version = __version__
    disable_noqa = False

    @classmethod
    def parse_options(cls, options: object) -> None:
        """flake8 hands every plugin its options once: honour ``--disable-noqa``."""
        cls.disable_noqa = bool(getattr(options, "disable_noqa", False))

    # flake8 picks the arguments by parameter name; asking for `tree` makes this a tree
    # plugin (run once per file, never on a file with a syntax error). We lint `lines`,
    # never `filename` from disk: in an editor the buffer is not the file.
    def __init__(self, tree: ast.AST, lines: Sequence[str], filename: str) -> None:
        self.tree = tree
        self.lines = lines
        self.filename = filename

    def run(self) -> Iterator[Error]:
        try:
            errors = list(self._errors())  # all of it inside the try: see the module doc
        except Exception as error:
            message = f"compilelint internal error ({type(error).__name__}: {error}), please report"
            errors = [(1, 0, f"{INTERNAL_ERROR[0]} {message}", type(self))]
        yield from errors

    def _errors(self) -> Iterator[Error]:
        folder = os.path.dirname(os.path.abspath(self.filename))
        settings = settings_for_folder(folder)
        if isinstance(settings, ConfigError):
            yield (1, 0, f"{INTERNAL_ERROR[0]} compilelint configuration error: {settings}", type(self))
            return
        # flake8 matches `# noqa` on the reported line only; the engine applies it on every
        # line of the finding's statement, as the CLI does (and not at all under
        # --disable-noqa). flake8 has parsed the file already: reuse the tree.
        settings = dataclasses.replace(settings, apply_noqa=not self.disable_noqa)
        tree = self.tree if isinstance(self.tree, ast.Module) else None
        result = lint_source("".join(self.lines), self.filename, settings, tree=tree)
        for finding in result.findings:
            if finding.code == SYNTAX_ERROR[0]:
                continue  # flake8 reports its own E999 for the file
            yield (finding.line, finding.column - 1, f"{finding.code} {finding.message}", type(self))
