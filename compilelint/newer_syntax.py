"""Which Python a file needs, when this interpreter's parser rejects it and libcst reads it.

``ast`` parses only the grammar of the Python running us, so ``type X = int`` or
``def f[T](x: T)`` (Python 3.12) is a SyntaxError on 3.11. libcst's parser reads newer
grammar; when it accepts the file, the CL900 says which Python the file needs instead of
calling valid code broken. libcst is imported only then (the static path stays light).
Other newer syntax (3.12's nested f-string quotes) still gets a plain SyntaxError.
"""

from __future__ import annotations

import re
import sys

# PEP 695 (Python 3.12): `type X = ...`, `def f[T](...)`, `class C[T]:`. Only a file with one
# of these goes to libcst, whose native parser crashes on the deep nesting CPython rejects.
PEP_695 = re.compile(r"(?m)^[ \t]*(type[ \t]+[A-Za-z_]\w*[ \t]*[\[=]|(async[ \t]+)?(def|class)[ \t]+[A-Za-z_]\w*[ \t]*\[)")


def needed_python(text: str) -> str | None:
    """``"3.12"`` if the file is valid Python 3.12 with its new syntax; else None."""
    if sys.version_info >= (3, 12) or not PEP_695.search(text):
        return None
    try:
        import libcst as cst
        from libcst import matchers as m
    except ImportError:
        return None
    try:
        module = cst.parse_module(text)
    except Exception:  # noqa: BLE001 - not valid in any grammar libcst knows: a real error
        return None
    return "3.12" if m.findall(module, m.TypeAlias() | m.TypeParameters()) else None


def syntax_message(message: str, text: str) -> str:
    """The CL900 message for a SyntaxError ``message`` of this interpreter."""
    needed = needed_python(text)
    if needed is None:
        return f"SyntaxError: {message}"
    here = ".".join(map(str, sys.version_info[:2]))
    return (f"needs Python {needed} or newer, and compilelint runs on Python {here} (SyntaxError: {message}); "
            f"run compilelint with the Python the file is written for")  # fmt: skip
