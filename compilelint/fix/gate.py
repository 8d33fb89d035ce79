"""The checks a file passes before libcst sees it, and that a fixed file passes after.

CPython's ``compile()`` comes first: it never executes anything, it catches errors that
``ast.parse`` lets through (``return`` outside a function), and it rejects in milliseconds
the deep nesting on which libcst 1.9 recurses until it crashes or runs for minutes.
libcst must then give back the very bytes it read: it drops a form feed at the start of a
file, CR-only newlines, and comments before a whitespace-only last line, and a fix must
never be the thing that loses them.
"""

from __future__ import annotations

import warnings

import libcst as cst


class GateError(Exception):
    """Why a file cannot be fixed (the file is then left as it is)."""


def check_compiles(data: bytes, path: str) -> None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarning for odd escapes is not ours to judge
            compile(data, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, OverflowError) as error:
        raise GateError(f"does not compile: {type(error).__name__}: {error}") from error
    except (RecursionError, MemoryError) as error:
        raise GateError(f"does not compile: {type(error).__name__} (nested too deeply)") from error


def parse_for_fix(data: bytes, path: str) -> cst.Module:
    """The libcst module of ``data``, only if it compiles and round-trips byte for byte."""
    check_compiles(data, path)
    try:
        module = cst.parse_module(data)  # bytes: libcst honours the BOM and coding cookie
    except cst.ParserSyntaxError as error:
        raise GateError(f"libcst cannot parse it: {str(error).splitlines()[0]}") from error
    except RecursionError as error:
        raise GateError("libcst cannot parse it: nested too deeply") from error
    except Exception as error:  # the native parser's own errors
        raise GateError(f"libcst cannot parse it: {type(error).__name__}: {error}") from error
    try:
        same = module.bytes == data
    except (UnicodeError, RecursionError) as error:
        raise GateError(f"libcst cannot write it back: {type(error).__name__}") from error
    if not same:
        raise GateError("libcst does not round-trip it byte for byte (CR-only newlines, a leading form feed, "
                        "or a whitespace-only last line)")
    return module
