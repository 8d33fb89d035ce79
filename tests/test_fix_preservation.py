"""--fix keeps every byte outside the ranges its fixes claim (issue 16, "bytes outside the fix change").

The three reports: a guard dropped the next statement's trailing ``;``, comments after a
rewritten ``if`` moved, mixed line endings were normalised. Each is a whole-file test on
the exact expected bytes plus the pass-by-pass check of ``compilelint.fix.preserve`` (the
one bench/fix_safety.py runs over real and generated code).
"""

from __future__ import annotations

import pytest

from compilelint.config import DEFAULT_SETTINGS
from compilelint.fix.loop import fix_source
from compilelint.fix.preserve import FixPass, changes_outside, first_outside_change, statement_claim

HEAD = b"import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
GUARD = b"if not torch.compiler.is_compiling():"


def fixed_and_checked(data: bytes) -> bytes:
    trace: list[FixPass] = []
    result = fix_source(data, "m.py", DEFAULT_SETTINGS, unsafe=True, trace=trace)
    assert result.error is None and result.changed and trace
    assert trace[0].before == data and trace[-1].after == result.fixed
    assert first_outside_change(trace) is None
    return result.fixed


# --- the check itself ----------------------------------------------------------------------
def test_a_change_inside_the_claims_passes_and_one_outside_is_named() -> None:
    before = b"a = 1\nprint(x); b = 2;\nc = 3\n"
    start = before.index(b"print")
    claim = statement_claim(before.decode(), start, start + len("print(x)"))
    assert before[claim[0] : claim[1]] == b"print(x); "
    guarded = b"a = 1\nif g:\n    print(x)\nb = 2;\nc = 3\n"
    assert changes_outside(before, guarded, [claim]) is None
    dropped = changes_outside(before, guarded.replace(b"b = 2;", b"b = 2"), [claim])
    assert dropped is not None and dropped.line == 2 and dropped.expected.startswith(";")
    crlf = changes_outside(before.replace(b"c = 3\n", b"c = 3\r\n"), guarded, [claim])
    assert crlf is not None and crlf.line == 3


def test_a_moved_comment_and_a_changed_first_or_last_piece_are_named() -> None:
    before = b"x = 1\ny = 2  # note\nz = 3\n"
    claim = (before.index(b"y"), before.index(b"y") + 5)
    assert changes_outside(before, b"x = 1\n# note\nw = 0\nz = 3\n", [claim]) is not None
    assert changes_outside(before, b"x = 2\ny = 2  # note\nz = 3\n", [claim]) is not None
    assert changes_outside(before, b"x = 1\nw = 0  # note\nz = 4\n", [claim]) is not None
    assert changes_outside(before, b"x = 1\nw = 0  # note\nz = 3\n", [claim]) is None


# --- report 1: a guard dropped the next statement's `;` -----------------------------------
@pytest.mark.parametrize(
    ("line", "expected"),
    [
        (b"        print(x);  y = 1;\n", b"        " + GUARD + b"\n            print(x)\n        y = 1;\n"),
        (b"        y = 1; print(x);  z = 2;  # c\n",
         b"        y = 1\n        " + GUARD + b"\n            print(x)\n        z = 2;  # c\n"),
        (b"        print(x); print(y);\n", b"        " + GUARD + b"\n            print(x)\n            print(y)\n"),
    ],
)
def test_a_guard_keeps_the_semicolons_it_does_not_claim(line: bytes, expected: bytes) -> None:
    tail = b"        z = 1;\n        return x;\n"
    assert fixed_and_checked(HEAD + line + tail) == HEAD + expected + tail


# --- report 2: comments after a rewritten `if` moved ---------------------------------------
def test_comments_on_and_after_a_rewritten_if_stay_where_the_fix_puts_them() -> None:
    data = HEAD + (
        b"        # before\n"
        b"        if x.sum() > 0:  # on if\n"
        b"            y = x * 2  # arm\n"
        b"        else:  # on else\n"
        b"            y = -x\n"
        b"        # after if\n"
        b"        print(y); w = 1;  # after print\n"
        b"        # before return\n"
        b"        return y  # ret\n"
        b"# end\n"
    )
    assert fixed_and_checked(data) == HEAD + (
        b"        # before\n"
        b"        # on if\n"
        b"        # arm\n"
        b"        # on else\n"
        b"        y = torch.where(x.sum() > 0, x * 2, -x)\n"
        b"        # after if\n"
        b"        " + GUARD + b"\n            print(y)\n        w = 1;  # after print\n"
        b"        # before return\n"
        b"        return y  # ret\n"
        b"# end\n"
    )


# --- report 3: mixed line endings were normalised ------------------------------------------
def test_mixed_line_endings_outside_the_fixes_are_kept_line_by_line() -> None:
    data = (
        b"import torch\r\n\r\n\r\nclass M(torch.nn.Module):\n    def forward(self, x):\r\n"
        b"        if x.sum() > 0:\n            y = x\r\n        else:\r\n            y = -x\n"
        b"        print(x); z = 1;\r\n        q = 2\n        return y\r\n"
    )
    fixed = fixed_and_checked(data)
    assert fixed.startswith(b"import torch\r\n\r\n\r\nclass M(torch.nn.Module):\n    def forward(self, x):\r\n")
    assert fixed.endswith(b"            print(x)\r\n        z = 1;\r\n        q = 2\n        return y\r\n")


def test_a_tab_indented_file_keeps_its_tabs_and_its_lone_carriage_returns() -> None:
    data = (
        b"import torch\n\n\nclass M(torch.nn.Module):\n\tdef forward(self, x):\n"
        b"\t\tprint(x); y = x;\r\t\tif x.sum() > 0:  # c\n\t\t\ty = x * 2\n\t\t# after\n\t\treturn y\n"
    )
    fixed = fixed_and_checked(data)
    assert b"\t\t" + GUARD + b"\n\t\t\tprint(x)\n\t\ty = x;\r\t\t# c\n" in fixed
    assert fixed.endswith(b"\t\t# after\n\t\treturn y\n")


def test_a_folded_return_takes_only_the_comments_of_the_lines_it_replaces() -> None:
    data = HEAD + (
        b"        if x.sum() > 0:  # on if\n"
        b"            return x * 2  # arm\n"
        b"        # between\n"
        b"        return -x  # ret\n"
        b"    # after the method\n"
        b"\n"
        b"    def g(self):  # g\n"
        b"        return 1;\n"
    )
    assert fixed_and_checked(data) == HEAD + (
        b"        # on if\n"
        b"        # arm\n"
        b"        # between\n"
        b"        # ret\n"
        b"        return torch.where(x.sum() > 0, x * 2, -x)\n"
        b"    # after the method\n"
        b"\n"
        b"    def g(self):  # g\n"
        b"        return 1;\n"
    )


# --- guards in files that mix tabs and spaces (reported: exit 2, bad indentation) -----------
CLASS = b"import torch\n\n\nclass M(torch.nn.Module):\n"


@pytest.mark.parametrize("body", [
    b"\tdef forward(self, x):\n\t    print(x)\n\t    return x\n",  # tab, then spaces
    b"    def forward(self, x):\n    \tprint(x)\n    \treturn x\n",  # spaces, then a tab
    b"    def forward(self, x):\n    \tif x.dim(): print(x); y = 1\n    \treturn x\n",  # a one-line suite
    b"\tdef forward(self, x):\n\t\tfor i in range(3):\n\t\t    print(x)\n\t\treturn x\n",
    b"\tdef forward(self, x):\n\t\tprint(x,\n  \t  x)\n\t\treturn x\n",  # a continuation line
], ids=["tab-spaces", "spaces-tab", "suite", "loop", "continuation"])
def test_a_guard_in_a_file_mixing_tabs_and_spaces_compiles_and_keeps_the_rest(body: bytes) -> None:
    fixed = fixed_and_checked(CLASS + body)
    compile(fixed, "m.py", "exec", dont_inherit=True)
    assert GUARD in fixed


def test_two_classes_indented_differently_are_both_guarded_in_their_own_style() -> None:
    data = CLASS + b"    def forward(self, x):\n        print(x)\n        return x\n\n\nclass B(torch.nn.Module):\n" \
        b"\tdef forward(self, x):\n\t\tprint(x)\n\t\treturn x\n"
    fixed = fixed_and_checked(data)
    assert b"        " + GUARD + b"\n            print(x)\n" in fixed
    assert b"\t\t" + GUARD + b"\n" in fixed
