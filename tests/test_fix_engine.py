"""The fix loop on sources: edits, bytes, the gates, and faults injected into rules' fixes."""

from __future__ import annotations

import time

import pytest

from compilelint.config import DEFAULT_SETTINGS
from compilelint.fix.loop import MAX_PASSES, SourceFix, fix_source
from compilelint.registry import all_rules

HEAD = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x):\n"
GUARD = "if not torch.compiler.is_compiling():"


def fix(source: str | bytes, unsafe: bool = False) -> SourceFix:
    data = source.encode() if isinstance(source, str) else source
    return fix_source(data, "m.py", DEFAULT_SETTINGS, unsafe=unsafe)


def body(*lines: str) -> str:
    return HEAD + "".join(f"        {line}\n" for line in lines)


def fixed_text(source: str, unsafe: bool = False) -> str:
    result = fix(source, unsafe)
    assert result.error is None, result.error
    return result.fixed.decode()


# --- guards (CL101, CL102, CL107) ---------------------------------------------------------


def test_adjacent_guarded_statements_share_one_block() -> None:
    out = fixed_text(body("y = x + 1", "print(y)", "# about the log", "print(x)", "return y"))
    assert out == body(
        "y = x + 1",
        GUARD,
        "    print(y)",
        "    # about the log",
        "    print(x)",
        "return y",
    )


def test_a_statement_next_to_an_existing_guard_joins_it() -> None:
    out = fixed_text(body(GUARD, "    print(1)", "print(2)", "return x"))
    assert out == body(GUARD, "    print(1)", "    print(2)", "return x")
    out = fixed_text(body("print(0)", GUARD, "    print(1)", "return x"))
    assert out == body(GUARD, "    print(0)", "    print(1)", "return x")


def test_statements_sharing_a_line_are_split_and_comments_kept() -> None:
    out = fixed_text(body("# above", "y = x; print(y); z = y  # trailing", "return z"))
    assert out == body("# above", "y = x", GUARD, "    print(y)", "z = y  # trailing", "return z")


def test_a_one_line_suite_becomes_a_block() -> None:
    out = fixed_text(body("if x.dim() > 1: print(x)  # note", "return x"))
    assert out == body("if x.dim() > 1:  # note", f"    {GUARD}", "        print(x)", "return x")


def test_no_fix_inside_an_expression_or_a_lambda() -> None:
    source = body("f = lambda: print(x)", "y = [print(v) for v in (1, 2)]", "return x")
    result = fix(source, unsafe=True)
    assert result.fixed == result.original and result.fixed_count == 0
    assert [f.code for f in result.findings] == ["CL101", "CL101"]


def test_unsafe_guard_needs_unsafe_fixes_and_seeding_gets_none() -> None:
    source = "import time\n" + body("time.sleep(0)", "torch.manual_seed(0)", "return x")
    assert fix(source).fixed_count == 0
    result = fix(source, unsafe=True)
    assert result.fixed_count == 1
    assert f"        {GUARD}\n            time.sleep(0)\n        torch.manual_seed(0)\n" in result.fixed.decode()


# --- import torch ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("top", "expected"),
    [
        ('"""Doc."""\nimport torch.nn as nn\n', '"""Doc."""\nimport torch\nimport torch.nn as nn\n'),
        ('"""Doc."""\nfrom __future__ import annotations\nfrom torch import nn\n',
         '"""Doc."""\nfrom __future__ import annotations\nimport torch\nfrom torch import nn\n'),
        ("#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nimport torch as th\nnn = th.nn\n",
         "#!/usr/bin/env python\n# -*- coding: utf-8 -*-\nimport torch\nimport torch as th\nnn = th.nn\n"),
    ],
)
def test_import_torch_goes_after_docstring_and_future_imports(top: str, expected: str) -> None:
    model = "\n\nclass M(nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n"
    out = fixed_text(top + model)
    assert out.startswith(expected)
    assert out.count("import torch\n") == 1


def test_no_second_import_when_torch_is_imported_in_a_try() -> None:
    source = "try:\n    import torch.nn as nn\n    import torch\nexcept ImportError:\n    pass\n\n\nclass M(nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n"
    assert fixed_text(source).count("import torch\n") == 1


# --- bytes ----------------------------------------------------------------------------------


def _only_changed(old: bytes, new: bytes) -> tuple[list[bytes], list[bytes]]:
    import difflib

    a, b = old.splitlines(keepends=True), new.splitlines(keepends=True)
    removed, added = [], []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if tag != "equal":
            removed += a[i1:i2]
            added += b[j1:j2]
    return removed, added


def test_bom_crlf_tabs_and_cookie_survive_and_only_the_fixed_line_changes() -> None:
    source = (
        b"\xef\xbb\xbf# -*- coding: utf-8 -*-\r\nimport torch\r\n\r\n\r\nclass M(torch.nn.Module):\r\n"
        b"\tdef forward(self, x):\r\n\t\ty = 'caf\xc3\xa9'  \r\n\t\tprint(y, x)  # \xc3\xa9\r\n\t\treturn x\r\n"
    )
    result = fix(source)
    assert result.error is None and result.fixed.startswith(b"\xef\xbb\xbf# -*- coding: utf-8 -*-\r\n")
    removed, added = _only_changed(source, result.fixed)
    assert removed == [b"\t\tprint(y, x)  # \xc3\xa9\r\n"]
    assert added == [b"\t\tif not torch.compiler.is_compiling():\r\n", b"\t\t\tprint(y, x)  # \xc3\xa9\r\n"]


def test_latin1_file_stays_latin1() -> None:
    source = b"# -*- coding: latin-1 -*-\nimport torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        print('caf\xe9', x)\n        return x\n"
    result = fix(source)
    assert result.error is None
    assert b"            print('caf\xe9', x)\n" in result.fixed


def test_a_file_without_final_newline_keeps_it_that_way() -> None:
    source = body("print(x)", "return x").rstrip("\n")
    assert fixed_text(source).endswith("        return x")


@pytest.mark.parametrize(
    "source",
    [
        b"import torch\rclass M(torch.nn.Module):\r    def forward(self, x):\r        print(x)\r        return x\r",
        b"\x0cimport torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\n",
        b"import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        print(x)\n        return x\nx=1\n   #0\n\n      ",
    ],
    ids=["cr-only", "leading-form-feed", "whitespace-last-line"],
)
def test_what_libcst_cannot_round_trip_gets_no_fix_and_keeps_its_findings(source: bytes) -> None:
    result = fix(source)
    assert result.fixed == source
    assert result.error is not None and result.error.startswith("fix unavailable")
    assert "CL101" in {f.code for f in result.findings}


def test_deep_nesting_is_rejected_fast() -> None:
    started = time.perf_counter()
    for expression in ("(" * 5000 + "1" + ")" * 5000, "-" * 900 + "x", "not " * 50000 + "x", "1+" * 100000 + "1"):
        source = body("print(x)", f"y = {expression}", "return x")
        result = fix(source)
        # rejected, or (900 unary minuses: CPython compiles them, and the deep-stack retry
        # lets libcst through) fixed into code that still compiles
        assert result.fixed == result.original or (result.error is None and b"is_compiling" in result.fixed)
    assert time.perf_counter() - started < 8  # libcst alone hangs for minutes on two of these


# --- CL103 / CL104 / CL106 ----------------------------------------------------------------------


def test_where_rewrites_and_their_limits() -> None:
    source = body(
        "z = x",
        "if x.sum() > 0:",
        "    y = x * 2",
        "    z = x - 1",
        "else:",
        "    y = -x",
        "    z = x + 1",
        "if y.mean() > 0:",
        "    y = self.proj(y)",  # a call of user code: no fix
        "if (x > 0).all():",
        "    w = x",  # w is not bound before: no fix
        "else:",
        "    w = torch.rand_like(x)",  # random: no fix
        "return y, z",
    )
    out = fixed_text(source, unsafe=True)
    assert "        y = torch.where(x.sum() > 0, x * 2, -x)\n        z = torch.where(x.sum() > 0, x - 1, x + 1)\n" in out
    assert "if y.mean() > 0:" in out and "if (x > 0).all():" in out


def test_nested_branches_converge_over_passes() -> None:
    source = body(
        "if x.sum() > 0:",
        "    y = x",
        "elif x.sum() < -1:",
        "    y = -x",
        "else:",
        "    y = x * 0",
        "return y",
    )
    result = fix(source, unsafe=True)
    assert result.error is None and result.passes == 2 and result.fixed_count == 2
    assert "y = torch.where(x.sum() > 0, x, torch.where(x.sum() < -1, -x, x * 0))" in result.fixed.decode()


def test_raise_becomes_assert_async_with_its_message() -> None:
    out = fixed_text(body("if (x > 10).any():", "    raise ValueError('too big')", "return x"), unsafe=True)
    assert "        torch._assert_async(~(x > 10).any(), 'too big')\n" in out


def test_assert_with_scalar_and_tensor_parts_gets_one_check_each() -> None:
    out = fixed_text(body("n = x.sum().item()", "assert n > 0 and (x > 0).all(), 'bad'", "return x"), unsafe=True)
    assert "        torch._check(n > 0, lambda: 'bad')\n        torch._assert_async((x > 0).all(), 'bad')\n" in out


def test_masked_sum_only_where_the_mask_has_the_shape_of_x() -> None:
    source = body("a = x[x > 0].sum()", "b = x[x[:, 0] > 0].sum()", "c = x[x > 0].mean()", "return a, b, c")
    out = fixed_text(source, unsafe=True)
    assert "a = torch.where(x > 0, x, 0).sum()" in out
    assert "b = x[x[:, 0] > 0].sum()" in out and "c = x[x > 0].mean()" in out


# --- faults (reliability F7) ------------------------------------------------------------------

SOURCE = body("print(x)", "return x")


def _patch_fix(monkeypatch: pytest.MonkeyPatch, build: object) -> None:
    monkeypatch.setattr(all_rules().by_code()["CL101"], "build_fix", build)


def test_a_fix_that_breaks_the_syntax_leaves_the_file_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    import libcst as cst

    from compilelint.fix.edits import FixEdit, ReplaceNode

    def broken(finding: object, context: object) -> FixEdit:
        call = context.node(finding.fix_data.statement.value)  # type: ignore[attr-defined]
        return FixEdit((ReplaceNode(call, cst.Name("def")),), needs_torch=False)

    _patch_fix(monkeypatch, broken)
    result = fix(SOURCE)
    assert result.fixed == result.original and "invalid code" in (result.error or "")
    assert [f.code for f in result.findings] == ["CL101"]


def test_a_fix_that_never_converges_leaves_the_file_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    import libcst as cst

    from compilelint.fix.edits import FixEdit, ReplaceNode

    def oscillate(finding: object, context: object) -> FixEdit:
        call = context.node(finding.fix_data.statement.value)  # type: ignore[attr-defined]
        return FixEdit((ReplaceNode(call, call.with_changes(args=[*call.args, cst.Arg(cst.Integer("1"))])),))

    _patch_fix(monkeypatch, oscillate)
    result = fix(SOURCE)
    assert result.fixed == result.original
    assert f"did not converge after {MAX_PASSES} passes" in (result.error or "")


def test_a_fix_that_raises_leaves_the_file_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    def explode(finding: object, context: object) -> None:
        raise ValueError("boom")

    _patch_fix(monkeypatch, explode)
    result = fix(SOURCE)
    assert result.fixed == result.original
    assert "internal error in the fix for CL101" in (result.error or "") and "boom" in (result.error or "")
