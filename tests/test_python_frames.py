"""Frames Dynamo skips because nothing in them lands in the graph (analysis/traced_ops.py,
analysis/python_frames.py), and the comprehensions CL123 then finds run on their own.

Each case was run on torch 2.13 (CPU, backend eager, default mode and ``dynamic=True``):
the claims below are where Dynamo reported GB4347, the silences where it did not."""

from __future__ import annotations

import ast
import sys
import textwrap

import pytest

from compilelint.analysis.traced_ops import FunctionOps, records_after
from compilelint.engine import lint_source

HEADER = "import torch\nfrom torch import nn\n\n\ndef brk(x):\n    return x * x.sum().item()\n\n\n"
FILL = "def fill(grads, like):\n    return [torch.zeros_like(q) if g is None else g for g, q in zip(grads, like)]\n\n\n"
py311 = pytest.mark.skipif(sys.version_info >= (3, 12), reason="Python 3.12 inlines comprehensions (PEP 709)")


def _codes(body: str, header: str = HEADER) -> list[tuple[int, str]]:
    source = header + textwrap.dedent(body)
    offset = header.count("\n")
    return sorted((f.line - offset, f.code) for f in lint_source(source, "m.py").findings)


@py311
def test_rest_of_a_frame_after_its_last_break_records_nothing() -> None:
    # GB4347 in fill's comprehension: the resume function after .item() records no op
    assert _codes("""\
        class Net(nn.Module):
            def forward(self, x):
                y = x * 2
                n = y.sum().item()
                return fill([y, y], [x, x])
        """, HEADER + FILL) == [(-2, "CL123"), (4, "CL105")]


@py311
def test_an_operation_after_the_break_keeps_the_frame() -> None:
    assert _codes("""\
        class Net(nn.Module):
            def forward(self, x):
                y = x * 2
                n = y.sum().item()
                z = fill([y, y], [x, x])
                return z[0] + n
        """, HEADER + FILL) == [(4, "CL105")]


@py311
def test_a_compiled_function_that_records_nothing_at_all() -> None:
    # f is skipped ("No ops traced"), then keep(...) is called from Python, records nothing
    # either, and its comprehension (it names torch) fails on the enumerate; a module's
    # forward may be inlined into a bigger model's trace: not claimed (measured compiled
    # on its own, it fails the same way)
    assert _codes("""\
        def keep(values):
            return [v for _, v in enumerate(values) if torch.is_tensor(v)]


        @torch.compile
        def f(x):
            return keep([x, x])


        @torch.compile
        def one_op(x):
            return keep([x + 1, x])


        class Net(nn.Module):
            def forward(self, x):
                return keep([x, x])
        """) == [(2, "CL123")]


@py311
def test_gradients_are_a_tuple_and_a_dead_arm_records_nothing() -> None:
    # torchsde's vjp: autograd.grad breaks (GB9186), and fill runs on its tuple
    assert _codes("""\
        class Net(nn.Module):
            def forward(self, x):
                grads = torch.autograd.grad([x.sum()], [x])
                return fill(grads, [x])
        """, HEADER + FILL) == [(-2, "CL123"), (3, "CL114")]


@py311
def test_a_break_that_may_not_happen_says_nothing_of_the_rest() -> None:
    assert _codes("""\
        class Net(nn.Module):
            def forward(self, x, verbose: bool = False):
                y = x * 2
                if verbose:
                    y = brk(y)
                return fill([y, y], [x, x])
        """, HEADER + FILL) == [(-6, "CL105")]


def test_what_follows_a_break_in_its_own_statement_counts() -> None:
    statement = ast.parse("y = x * x.sum().item()\nz = 1").body[0]
    assert isinstance(statement, ast.Assign) and isinstance(statement.value, ast.BinOp)
    point = statement.value.right
    multiply = FunctionOps(ops=[statement.value, point])
    assert records_after(multiply, point, statement, frozenset())  # x * ... runs after the break
    inner = FunctionOps(ops=[point, point.func.value])  # type: ignore[attr-defined]
    assert not records_after(inner, point, statement, frozenset())  # x.sum() ran before it


REGISTRY = HEADER + 'FLAGS = {"a": 1, "b": 2}\n\n\n'


@py311
@pytest.mark.parametrize(
    ("before", "claimed"),
    [("", True), ("        y = x + 1\n", True), ("        y = x + 1\n        y = y * 2\n", False),
     ("        y = (x + 1) * 2\n", False), ("        y = self.scale(x)\n", False)],
    ids=["no op", "one op", "two ops", "two ops on a line", "a call it cannot see into"],
)
def test_a_break_in_a_try_with_fewer_than_two_operations_before_it(before: str, claimed: bool) -> None:
    # measured on torch 2.13: no checkpoint before the `try` ("Failed to handle graph break
    # gracefully"): the whole frame runs in Python, the dict comprehension before it too
    body = (
        "class Net(nn.Module):\n    def forward(self, x):\n"
        '        flags = {k: getattr(self, "training") for k in FLAGS.keys()}\n'
        f"{before}        try:\n            x = brk(x)\n        finally:\n            pass\n        return x\n"
    )
    expected = [(-5, "CL105")] + ([(3, "CL123")] if claimed else [])
    assert _codes(body, REGISTRY) == expected


@py311
def test_operations_inside_the_try_give_no_checkpoint() -> None:
    assert _codes("""\
        class Net(nn.Module):
            def forward(self, x):
                flags = {k: getattr(self, "training") for k in FLAGS.keys()}
                try:
                    y = x + 1
                    y = y * 2
                    x = brk(y)
                except ValueError:
                    pass
                return x
        """, REGISTRY) == [(-5, "CL105"), (3, "CL123")]


@py311
def test_the_frame_given_up_on_starts_at_the_break_before() -> None:
    # measured on torch 2.13: the resume function after .item() has no checkpoint before the
    # `try` and is skipped whole (GB4347 at `late`); `early` was traced into the first graph
    assert _codes("""\
        class Net(nn.Module):
            def forward(self, x):
                early = {k: getattr(self, "training") for k in FLAGS.keys()}
                y = x + 1
                y = y * 2
                n = y.sum().item()
                late = {k: getattr(self, "training") for k in FLAGS.keys()}
                try:
                    x = brk(y)
                finally:
                    pass
                return x, n, early, late
        """, REGISTRY) == [(-5, "CL105"), (6, "CL105"), (7, "CL123")]


@py311
def test_a_break_in_the_iterable_of_a_for_resumes_before_the_loop() -> None:
    # GB0033/GB0109 at the `for` line, then the resume function walks the Python lists
    # .tolist() gave back, records nothing and is skipped: GB4347 at the comprehension
    # (measured). Before this, the loop was taken to hold the break (a frame skipped
    # whole, no line to claim from) and the values read back to be tensors.
    assert _codes("""\
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.top_k = 2
                self.lin = nn.Linear(4, 3)

            def forward(self, x):
                best_p, best = self.lin(x).softmax(-1).max(dim=-1)
                rows = [[] for _ in range(2)]
                for i, (k, p) in enumerate(zip(best.tolist(), best_p.tolist())):
                    rows[i % 2].append((k, p))
                return [sorted(r, key=lambda v: -v[1])[: self.top_k] for r in rows]
        """) == [(10, "CL105"), (10, "CL105"), (12, "CL123")]


@py311
def test_a_tensor_op_on_the_values_read_back_keeps_the_frame() -> None:
    assert _codes("""\
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.top_k = 2
                self.lin = nn.Linear(4, 3)

            def forward(self, x):
                best_p, best = self.lin(x).softmax(-1).max(dim=-1)
                rows = [[] for _ in range(2)]
                for i, (k, p) in enumerate(zip(best.tolist(), best_p.tolist())):
                    rows[i % 2].append(x[k] * p)
                return [r[: self.top_k] for r in rows]
        """) == [(10, "CL105"), (10, "CL105")]


@py311
def test_a_break_in_an_arm_skips_the_rest_of_that_arm() -> None:
    # measured on 2.13 (eval mode): the `if` arm's .tolist() reads break, the resume
    # function (the rest of the arm and of forward) records nothing and is skipped:
    # GB4347 at the comprehension. An annotated list (`rows: list = [...]`) is a list too.
    assert _codes("""\
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.top_k = 2
                self.lin = nn.Linear(4, 3)

            def forward(self, x):
                logits = self.lin(x)
                out = {"logits": logits}
                if not self.training:
                    best_p, best = logits.softmax(-1).max(dim=-1)
                    rows: list = [[] for _ in range(2)]
                    for i, (k, p) in enumerate(zip(best.tolist(), best_p.tolist())):
                        rows[i % 2].append((k, p))
                    out["rows"] = [sorted(r, key=lambda v: -v[1])[: self.top_k] for r in rows]
                return out
        """) == [(13, "CL105"), (13, "CL105"), (15, "CL123")]


@py311
def test_a_comprehension_in_another_arm_is_not_claimed() -> None:
    assert _codes("""\
        class Head(nn.Module):
            def __init__(self):
                super().__init__()
                self.top_k = 2
                self.lin = nn.Linear(4, 3)

            def forward(self, x):
                logits = self.lin(x)
                rows = [[] for _ in range(2)]
                if not self.training:
                    for i, k in enumerate(logits.argmax(-1).tolist()):
                        rows[i % 2].append(k)
                else:
                    rows = [[v + 1 for v in r] for r in rows]
                return rows
        """) == [(11, "CL105")]
