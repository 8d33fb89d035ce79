"""CL119: a `unittest.TestCase` assertion method called in compiled code."""

from __future__ import annotations

import ast

from compilelint.analysis.module_index import ClassInfo, FunctionInfo
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

# unittest.TestCase's assertion methods (Python 3.9-3.13, aliases included)
ASSERTIONS = frozenset(
    {
        "assertAlmostEqual", "assertAlmostEquals", "assertCountEqual", "assertDictContainsSubset",
        "assertDictEqual", "assertEqual", "assertEquals", "assertFalse", "assertGreater",
        "assertGreaterEqual", "assertIn", "assertIs", "assertIsInstance", "assertIsNone",
        "assertIsNot", "assertIsNotNone", "assertLess", "assertLessEqual", "assertListEqual",
        "assertLogs", "assertMultiLineEqual", "assertNoLogs", "assertNotAlmostEqual",
        "assertNotAlmostEquals", "assertNotEqual", "assertNotEquals", "assertNotIn",
        "assertNotIsInstance", "assertNotRegex", "assertNotRegexpMatches", "assertRaises",
        "assertRaisesRegex", "assertRaisesRegexp", "assertRegex", "assertRegexpMatches",
        "assertSequenceEqual", "assertSetEqual", "assertTrue", "assertTupleEqual", "assertWarns",
        "assertWarnsRegex", "assert_",
    }
)
# torch's TestCase (torch.testing._internal.common_utils) overrides assertEqual with code
# Dynamo traces: on Python values it does not break, on tensors it breaks on their data.
TRACED_BY_TORCH_TESTCASE = frozenset({"assertEqual", "assertEquals"})
UNITTEST_BASES = frozenset({"unittest.TestCase", "unittest.case.TestCase"})
# used as `with self.assertRaises(...):` Dynamo reports the context manager (GB0142)
CONTEXT_MANAGERS = frozenset({"assertRaises", "assertRaisesRegex", "assertRaisesRegexp", "assertWarns",
                              "assertWarnsRegex", "assertLogs", "assertNoLogs"})


class TestCaseAssertion(Rule):
    """Checks for `self.assert...()` of a `unittest.TestCase` called in code `torch.compile` traces.

    ## What it does
    Flags a call of a `unittest.TestCase` assertion method on `self` (`self.assertTrue(...)`,
    `self.assertIsInstance(...)`, `self.assertIn(...)`, `self.assertRaises(...)`, ...) inside
    a compiled region, where `self` is the test case: the first parameter of a method of a
    class deriving from a `...TestCase` or holding `test...` methods (a mixin of tests), also
    when a function compiled inside the test method closes over it. `self.assertEqual` is
    flagged only on a class deriving from `unittest.TestCase` itself.

    ## Why is this bad?
    Dynamo skips the `unittest` module: measured on torch 2.13, every assertion method of
    `unittest.TestCase` breaks the graph in the default mode and with `dynamic=True`
    (GB0008, "Attempted to inline function marked as skipped") and fails under
    `fullgraph=True`. The overrides of PyTorch's own `TestCase` (`assertNotEqual`,
    `assertRaises`) break too (GB0007, "Attempted to call function marked as skipped");
    `with self.assertRaises(...):` on a plain `unittest.TestCase` is reported as an
    unsupported context manager (GB0142);
    its `assertEqual` is traced, and breaks only on the data of tensors it compares.

    ## Example
    ```python
    class ShapeTest(unittest.TestCase):
        def test_shape(self):
            def fn(x):
                self.assertTrue(x.dim() == 2)
                return x + 1

            torch.compile(fn)(torch.ones(2, 3))
    ```

    ## Use instead
    ```python
    class ShapeTest(unittest.TestCase):
        def test_shape(self):
            def fn(x):
                return x.dim(), x + 1

            dim, _ = torch.compile(fn)(torch.ones(2, 3))
            self.assertTrue(dim == 2)
    ```
    Return what the check needs and assert on it outside the compiled function.

    ## Fix safety
    No automatic fix: moving an assertion out of the function changes what it checks.
    """

    code = "CL119"
    name = "test-case-assertion"
    message = "a `unittest.TestCase` assertion in compiled code breaks the graph"
    gb_ids = ("GB0008", "GB0007", "GB0142", "GB0060")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        func = node.func
        if not (isinstance(func, ast.Attribute) and func.attr in ASSERTIONS and isinstance(func.value, ast.Name)):
            return
        cls = _test_case_of(func.value.id, ctx.function)
        if cls is None or cls.find_method(func.attr) is not None:
            return
        plain = _derives_from_unittest(cls)
        if func.attr in TRACED_BY_TORCH_TESTCASE and not plain:
            return
        gb_ids: tuple[str, ...] = ("GB0008",) if plain else ("GB0008", "GB0007")
        if func.attr in CONTEXT_MANAGERS:
            gb_ids += ("GB0142",)
        ctx.report(
            node,
            f"`self.{func.attr}()` of a `unittest.TestCase` in a compiled region breaks the graph "
            f"({'/'.join(gb_ids)}: Dynamo skips unittest); assert on the result outside the compiled function",
            gb_ids=gb_ids,
        )


def _test_case_of(name: str, function: FunctionInfo | None) -> ClassInfo | None:
    """The test-case class whose instance ``name`` holds in ``function``: ``name`` is the
    first parameter of a method of that class, or a closure variable bound so."""
    info = function
    while info is not None:
        arguments = info.node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        bound = {a.arg for a in [*positional, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg] if a}
        if name in bound:
            first = positional[0].arg if positional else None
            is_method = info.owner is not None and not info.is_static and info.parent is None
            if first != name or not is_method or info.owner is None:
                return None
            return info.owner if _is_test_case(info.owner) else None
        info = info.parent
    return None


def _is_test_case(cls: ClassInfo) -> bool:
    for klass in cls.mro():
        if any(base.rsplit(".", 1)[-1].endswith("TestCase") for base in klass.bases):
            return True
        if any(method.startswith("test") for method in klass.methods):
            return True
    return False


def _derives_from_unittest(cls: ClassInfo) -> bool:
    return any(base in UNITTEST_BASES for klass in cls.mro() for base in klass.bases)
