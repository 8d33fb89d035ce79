"""Which Python a file needs, when this interpreter's parser rejects it and libcst reads it.

``ast`` parses only the grammar of the Python running us, so code written for a newer
Python is a SyntaxError here. libcst's parser reads newer grammar; when it accepts the
file and finds newer syntax at the line the SyntaxError names, the CL900 says which
Python the file needs (the newest among the file's newer constructs) instead of calling
valid code broken:

- 3.12: ``type X = ...`` and type parameters (PEP 695); f-strings that nest their own
  quotes, hold backslashes or comments in their replacement fields (PEP 701);
- 3.13: type parameter defaults, ``def f[T = int]`` (PEP 696);
- 3.14: ``except A, B:`` without parentheses (PEP 758); template strings ``t"..."``
  (PEP 750).

libcst is imported only then (the static path stays light), and only for a file with
one of these spellings and an error that is not about nesting depth: libcst's native
parser can crash on the deep nesting CPython rejects (it runs on a deep stack anyway).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass

from compilelint.deep import call_with_deep_stack

Version = tuple[int, int]
# Spellings of the constructs above; a file without any never reaches libcst.
NEWER_SPELLINGS = re.compile(
    r"(?m)^[ \t]*(type[ \t]+[A-Za-z_]\w*[ \t]*[\[=]|(async[ \t]+)?(def|class)[ \t]+[A-Za-z_]\w*[ \t]*\[)"
    r"|(?i:(?<![\w.])(f|rf|fr|t|rt|tr)['\"])"
    r"|^[ \t]*except\*?[ \t]+[^:#\n(]*,"
)
TOO_DEEP = ("too many", "nested too deeply", "too complex")


@dataclass(frozen=True)
class Construct:
    version: Version
    what: str
    first_line: int
    last_line: int


def needed_python(text: str, line: int | None = None) -> Construct | None:
    """The newest construct of the file that this Python lacks, if the file is valid in
    libcst's grammar and (when ``line`` is given) the SyntaxError lies inside one; else None."""
    if not NEWER_SPELLINGS.search(text):
        return None
    try:
        import libcst  # noqa: F401
    except ImportError:
        return None
    try:
        found = call_with_deep_stack(lambda: _newer_constructs(text))
    except Exception:  # noqa: BLE001 - not valid in any grammar libcst knows: a real error
        return None
    if not found or (line is not None and not any(c.first_line <= line <= c.last_line for c in found)):
        return None
    return max(found, key=lambda c: c.version)


def _newer_constructs(text: str) -> list[Construct]:
    from compilelint.newer_grammar import newer_constructs

    here = sys.version_info[:2]
    return [Construct(*found) for found in newer_constructs(text) if found[0] > here]


def syntax_message(message: str, text: str, line: int | None = None) -> str:
    """The CL900 message for a SyntaxError ``message`` (at ``line``) of this interpreter."""
    if any(word in message for word in TOO_DEEP):
        return f"SyntaxError: {message}"
    needed = needed_python(text, line)
    if needed is None:
        return f"SyntaxError: {message}"
    here = ".".join(map(str, sys.version_info[:2]))
    version = ".".join(map(str, needed.version))
    return (f"needs Python {version} or newer for {needed.what}, and compilelint runs on Python {here} "
            f"(SyntaxError: {message}); run compilelint with the Python the file is written for")  # fmt: skip
