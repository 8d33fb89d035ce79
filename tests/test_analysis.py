"""The analysis core against fixtures/analysis/, whose expectations sit on their lines."""

from __future__ import annotations

import ast
import re
import sys
from functools import reduce
from pathlib import Path

import pytest

from compilelint.analysis.expressions import Evaluator
from compilelint.analysis.kinds import Kind
from compilelint.analysis.module_index import build_index
from compilelint.analysis.regions import RegionAnalysis

ANALYSIS = Path(__file__).resolve().parent.parent / "fixtures" / "analysis"


def _analyse(path: Path) -> tuple[str, RegionAnalysis]:
    text = path.read_text(encoding="utf-8")
    analysis = RegionAnalysis(build_index(ast.parse(text), find_compile_calls=True))
    analysis.run()
    return text, analysis


def _comments(text: str, tag: str) -> dict[int, str]:
    found = {}
    for number, line in enumerate(text.splitlines(), start=1):
        match = re.search(rf"#\s*{tag}(?::\s*(.*))?$", line)
        if match:
            found[number] = (match.group(1) or "").strip()
    return found


def test_regions_and_chains() -> None:
    text, analysis = _analyse(ANALYSIS / "regions.py")
    chains = {state.info.node.lineno: " > ".join(state.chain) for state in analysis.regions()}
    expected = _comments(text, "region")
    assert {line: chains.get(line) for line in expected} == expected
    for line in _comments(text, "not-region"):
        assert line not in chains, f"line {line} should not be compiled, chain {chains[line]}"


class _ValueKinds:
    """A StatementVisitor recording the kind of each statement's value."""

    def __init__(self) -> None:
        self.kinds: dict[int, Kind] = {}

    def statement(self, stmt: ast.stmt, evaluator: Evaluator) -> None:
        value = getattr(stmt, "value", None)
        if isinstance(value, ast.expr):
            self.kinds[stmt.lineno] = evaluator.cache.get(id(value), Kind.NONE)


def _parse_kind(text: str) -> Kind:
    return reduce(lambda a, b: a | b, (Kind[name.strip()] for name in text.split("|")), Kind.NONE)


def test_value_kinds() -> None:
    text, analysis = _analyse(ANALYSIS / "kinds.py")
    visitor = _ValueKinds()
    for state in analysis.regions():
        analysis.interpret(state, visitor=visitor)
    expected = {line: _parse_kind(kind) for line, kind in _comments(text, "kind").items()}
    actual = {line: visitor.kinds.get(line, Kind.NONE) for line in expected}
    assert {k: v.name for k, v in actual.items()} == {k: v.name for k, v in expected.items()}


@pytest.mark.parametrize(
    "source",
    [
        "if not torch.compiler.is_compiling():\n        print(x)",
        "if torch.jit.is_scripting():\n        print(x)",
        "if torch.compiler.is_compiling():\n        pass\n    else:\n        print(x)",
        "if torch.compiler.is_compiling() or self.quiet:\n        pass\n    else:\n        print(x)",
        "if not is_torchdynamo_compiling() and self.verbose:\n        print(x)",
    ],
)
def test_branches_dynamo_never_enters_are_skipped(source: str) -> None:
    from compilelint.engine import lint_source

    module = (
        "import torch\nfrom transformers.utils import is_torchdynamo_compiling\n"
        f"class M(torch.nn.Module):\n  def forward(self, x):\n    {source}\n    return x\n"
    )
    assert lint_source(module, "m.py").findings == ()


ENTRY_CONDITIONS = """
import torch
from torch import nn

def helper(x):
    return x * 2

def tile(x):
    return helper(x)

def both(x):
    return x

def tiled_decode(x):
    return x

class Net(nn.Module):
    def forward(self, x):
        if self.use_tiling and x.shape[-1] > 8:
            y = tile(x)
        else:
            y = x if x.shape[1] == 1 else both(x)
        if self.use_tiling and (x.shape[-1] > 8 or x.shape[-2] > 8):
            y = tiled_decode(y)
        if self.use_tiling and (x.shape[-2] > 8 or x.shape[-1] > 8):
            y = tiled_decode(y)
        return both(y)
"""


def test_entry_conditions_are_what_every_call_site_shares() -> None:
    analysis = RegionAnalysis(build_index(ast.parse(ENTRY_CONDITIONS), find_compile_calls=True))
    analysis.run()
    found = {
        state.info.qualname: [c.source() for c in state.entry_conditions] for state in analysis.regions()
    }
    assert found["tile"] == ["self.use_tiling", "x.shape[-1] > 8"]
    assert found["helper"] == ["self.use_tiling", "x.shape[-1] > 8"]  # its caller's, inherited
    assert found["tiled_decode"] == ["self.use_tiling"]  # the size tests are written two ways
    assert found["both"] == []  # one call site is unconditional
    assert found["Net.forward"] == []


EARLY_RETURNS = """
import torch
from torch import nn

class Tiled(nn.Module):
    def forward(self, x):
        n = x.shape[1]
        if n <= 16:
            return x * 2
        if x.ndim != 3:
            raise ValueError("3-D input")
        out = x
        for start in range(0, n, 16):
            out = out + x[:, start : start + 16].sum()
        return out
"""


def test_loop_messages_state_the_early_returns_before_them() -> None:
    # the loop runs only when the fast path's test failed; a raising check is not a condition
    from compilelint.engine import lint_source

    (finding,) = [f for f in lint_source(EARLY_RETURNS, "m.py").findings if f.message.startswith("loop over")]
    assert "(reached only when `not (n <= 16)`)" in finding.message
    assert "ndim" not in finding.message


BOOL_OP_VALUE = """
import torch
from torch import nn

class Crf(nn.Module):
    def __init__(self, batch_first, strict):
        super().__init__()
        self.batch_first = batch_first
        self.strict = strict

    def forward(self, emissions, mask):
        no_empty = not self.batch_first and mask[0].all()
        if not no_empty:
            emissions = emissions + 1
        quiet = self.batch_first and self.strict
        if quiet:
            emissions = emissions * 2
        return emissions
"""


def test_a_value_and_or_lets_through_is_a_tensor_under_its_conditions() -> None:
    from compilelint.engine import lint_source

    (finding,) = lint_source(BOOL_OP_VALUE, "m.py").findings
    assert (finding.code, finding.line) == ("CL103", 13)
    assert "evaluated only when `not self.batch_first`" in finding.message


def test_isinstance_of_a_python_type_narrows_the_operands_after_it() -> None:
    # `isinstance(t, list) and all(...)`: where the test holds, t is a list of numbers
    source = (
        "import torch\n"
        "def check(thresholds):\n"
        "    if isinstance(thresholds, list) and not all(0 <= t <= 1 for t in thresholds):\n"
        "        raise ValueError('thresholds')\n"
        "    if isinstance(thresholds, torch.Tensor) and not all(0 <= t <= 1 for t in thresholds):\n"
        "        raise ValueError('thresholds')\n"
        "    if isinstance(thresholds, (int, float)) and thresholds > 2:\n"
        "        raise ValueError('thresholds')\n"
        "    return thresholds\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        check(x.sum(0))\n"
        "        return check([0.5])\n"
    )
    from compilelint.engine import lint_source

    assert [(f.line, f.code) for f in lint_source(source, "m.py").findings] == [(5, "CL122")]


def test_single_letter_index_parameters_of_a_root_are_not_taken_for_tensors() -> None:
    # x_transformers' RelativePositionBias.forward(self, i, j): the caller passes sequence
    # lengths; a root's x is still a tensor input
    source = (
        "import torch\n"
        "class Bias(torch.nn.Module):\n"
        "    def forward(self, i, j):\n"
        "        return torch.arange(j - i, j)\n"
        "class Ramp(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return torch.arange(x)\n"
    )
    from compilelint.engine import lint_source

    assert [(f.line, f.code) for f in lint_source(source, "m.py").findings] == [(7, "CL105")]


def test_a_tensor_every_caller_passes_is_never_none() -> None:
    # torchsde's BrownianInterval.__call__(ta, tb=None): `if tb is None: ta, tb = self._start, ta`
    # is dead when every call passes tb a tensor, so float(ta) reads a tensor (GB0124)
    source = (
        "import torch\n"
        "def span(ta, tb=None):\n"
        "    if tb is None:\n"
        "        ta, tb = 0.0, ta\n"
        "    return float(ta) + float(tb)\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x * span(x.min(), x.max())\n"
        "class Half(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x * span(x.min())\n"
    )
    from compilelint.engine import lint_source

    alone = source.rsplit("class Half", 1)[0]
    assert [(f.line, f.code) for f in lint_source(alone, "m.py").findings] == [(5, "CL105"), (5, "CL105")]
    # Half passes no tb: the branch may run, and ta may then be a Python number; tb is a
    # tensor on both paths (passed, or `ta` moved there), so float(tb) breaks in each
    # (measured on 2.13: Half breaks at line 5, GB0124)
    assert [(f.line, f.column, f.code) for f in lint_source(source, "m.py").findings] == [(5, 24, "CL105")]


def test_starred_unpacking_of_a_shape_gives_sizes() -> None:
    # st_moe's `*_, b, group_size, dim, top_n = *x.shape, self.top_n`: the names across
    # from *x.shape are sizes, the names at the end take the values at the end
    source = (
        "import torch\n"
        "class Gate(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        *_, b, n, heads = *x.shape, self.heads\n"
        "        if n > 2:\n"
        "            x = x * 2\n"
        "        if heads > 2:\n"
        "            x = x.float()\n"
        "        return x\n"
    )
    from compilelint.engine import lint_source

    assert [(f.line, f.code) for f in lint_source(source, "m.py").findings] == [(5, "CL201")]


def test_the_smaller_of_two_sizes_is_a_size() -> None:
    # min(n, m) of two sizes follows them; min(n, bound) is the bound once n is larger (a guard)
    source = (
        "import torch\n"
        "class Gate(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        n = x.shape[0]\n"
        "        if min(n, x.shape[1]) > 2:\n"
        "            x = x * 2\n"
        "        return x\n"
    )
    from compilelint.engine import lint_source

    assert [(f.line, f.code) for f in lint_source(source, "m.py").findings] == [(5, "CL201")]


def test_getattr_with_a_formatted_name_reads_the_attributes_so_named() -> None:
    # st_moe's `getattr(self, f'capacity_factor_{suffix}')`: one of capacity_factor_train /
    # capacity_factor_eval, Python numbers; times a size it is still a size
    source = (
        "import torch\n"
        "class Gate(torch.nn.Module):\n"
        "    def __init__(self, capacity_factor_train=1.25, capacity_factor_eval=2.0):\n"
        "        super().__init__()\n"
        "        self.capacity_factor_train = capacity_factor_train\n"
        "        self.capacity_factor_eval = capacity_factor_eval\n"
        "    def forward(self, x):\n"
        "        suffix = 'train' if self.training else 'eval'\n"
        "        factor = getattr(self, f'capacity_factor_{suffix}')\n"
        "        if x.shape[0] * factor > 2:\n"
        "            x = x * 2\n"
        "        return x\n"
    )
    from compilelint.engine import lint_source

    assert [(f.line, f.code) for f in lint_source(source, "m.py").findings] == [(10, "CL201")]


def test_the_tensor_method_table_covers_the_installed_torch() -> None:
    torch = pytest.importorskip("torch")
    from compilelint.analysis.kinds import tensor_attribute_names

    installed = {n for n in dir(torch.Tensor) if not (n.startswith("__") and n.endswith("__"))}
    missing = sorted(installed - tensor_attribute_names())
    assert not missing, f"torch {torch.__version__} has Tensor attributes the table lacks: {missing[:10]}; run bench/tensor_methods.py"


def test_a_numpy_draw_given_a_size_reaches_range_as_an_array() -> None:
    # normflows' Residual: `n_samples = sample_fn(m)` (a lambda over a helper returning
    # np.random.geometric(p, m)), `max(n_samples) + 20` handed to an estimator's range().
    # Measured on torch 2.13: geometric breaks (GB0294) and the resumed code's range breaks
    # again on the real array (GB0059); a draw without a size gives a Python int, no break
    source = (
        "import numpy as np\n"
        "import torch\n"
        "def draw(p, m):\n"
        "    return np.random.geometric(p, m)\n"
        "def estimate(x, n):\n"
        "    for k in range(1, n + 1):\n"
        "        x = x * 0.5\n"
        "    return x\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        sample_fn = lambda m: draw(0.5, m)\n"
        "        return estimate(x, max(sample_fn(4)) + 20)\n"
        "class One(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        for k in range(1, np.random.geometric(0.5) + 1):\n"
        "            x = x * 0.5\n"
        "        return x\n"
    )
    from compilelint.engine import lint_source
    from compilelint.findings import Mode

    found = [(f.line, f.code, f.breaks) for f in lint_source(source, "m.py").findings]
    assert found == [(4, "CL107", (Mode.DEFAULT, Mode.FULLGRAPH)), (6, "CL120", (Mode.DEFAULT, Mode.FULLGRAPH)),
                     (15, "CL107", (Mode.DEFAULT, Mode.FULLGRAPH))]  # fmt: skip


def test_a_lambda_bound_to_a_name_is_checked_once_as_its_own_function() -> None:
    # its body runs where the name is called, with what the call passes (two arms of an if
    # define it: both are followed), and its findings are reported once
    source = (
        "import numpy as np\n"
        "import torch\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        if x.dim() == 2:\n"
        "            draw = lambda m: print(m) or np.random.randint(1, 4, size=m)\n"
        "        else:\n"
        "            draw = lambda m: np.random.randint(1, 4, size=m)\n"
        "        for _ in range(max(draw(3))):\n"
        "            x = x + 1\n"
        "        return x\n"
    )
    from compilelint.engine import lint_source

    assert [(f.line, f.code) for f in lint_source(source, "m.py").findings] == [(6, "CL101"), (9, "CL120")]


def test_a_refused_non_module_leaves_a_module_after_the_test() -> None:
    # normflows' mem_eff_wrapper: `if not isinstance(gnet, nn.Module): raise ValueError(...)`
    source = (
        "import torch\n"
        "from torch import nn\n"
        "def run(net, x, checked):\n"
        "    if checked and not isinstance(net, nn.Module):\n"
        "        raise ValueError('a module')\n"
        "    if not isinstance(net, nn.Module):\n"
        "        raise ValueError('a module')\n"
        "    y = net(x)\n"
        "    return y.detach().requires_grad_(y.requires_grad)\n"
        "class Net(nn.Module):\n"
        "    def __init__(self, net):\n"
        "        super().__init__()\n"
        "        self.net = net\n"
        "    def forward(self, x):\n"
        "        return run(self.net, x, True)\n"
    )
    from compilelint.engine import lint_source

    (finding,) = lint_source(source, "m.py").findings
    assert (finding.line, finding.code, finding.only_when) == (9, "CL111", ("y.requires_grad",))
    unchecked = source.replace("    if not isinstance(net, nn.Module):\n        raise ValueError('a module')\n", "")
    assert lint_source(unchecked, "m.py").findings == ()


def test_a_value_that_is_a_tensor_on_another_path_is_not_taken_for_an_array() -> None:
    # transformers' center_to_corners_format returns a tensor for a tensor and an ndarray for
    # an ndarray; generalized_box_iou's `if not (boxes1[:, 2:] >= boxes1[:, :2]).all():`
    # then reads a tensor, not a NumPy result
    source = (
        "import numpy as np\n"
        "import torch\n"
        "def to_corners(b):\n"
        "    if isinstance(b, torch.Tensor):\n"
        "        return torch.stack([b - 1, b + 1], -1)\n"
        "    return np.stack([b - 1, b + 1], -1)\n"
        "def check(boxes):\n"
        "    if not (boxes[:, 2:] >= boxes[:, :2]).all():\n"
        "        raise ValueError('corners')\n"
        "    return boxes.sum()\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return check(to_corners(x))\n"
    )
    from compilelint.engine import lint_source

    assert [f.code for f in lint_source(source, "m.py").findings if f.code == "CL120"] == []


def test_a_name_keeps_the_imported_classes_of_every_branch() -> None:
    """``X = pkg.Linear(c)`` or ``X = pkg.Cubic(c)``: after the ``if`` X may be either (the
    methods of both are followed); a branch that rebinds X to something else adds nothing."""
    source = (
        "import torch\nimport pkg\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, c, linear: bool, old: bool):\n"
        "        if linear:\n"
        "            X = pkg.Linear(c)\n"
        "        else:\n"
        "            X = pkg.Cubic(c)\n"
        "        X\n"
        "        if old:\n"
        "            Y = pkg.Cache()\n"
        "        else:\n"
        "            Y = pkg.Cache.from_legacy(c)\n"
        "        Y\n"
    )
    analysis = RegionAnalysis(build_index(ast.parse(source), find_compile_calls=True))
    analysis.run()
    held: dict[int, tuple[str, ...]] = {}

    class Instances:
        def statement(self, stmt: ast.stmt, evaluator: Evaluator) -> None:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Name):
                held[stmt.lineno] = evaluator.imported_instances.get(stmt.value.id, ())

    for state in analysis.regions():
        analysis.interpret(state, visitor=Instances())
    assert held == {9: ("pkg.Linear", "pkg.Cubic"), 14: ("pkg.Cache",)}


def test_reading_a_property_on_self_runs_its_getter() -> None:
    """``self.temperature`` of a ``@property`` (of the class or a local base) is a call of
    the getter: the getter joins the region with the caller in its chain, and the read has
    the getter's kind. A later ``@temperature.setter`` def does not hide the getter; a
    plain attribute of the same name in a subclass's ``__init__`` is no property read."""
    source = (
        "import torch\n"
        "class Base(torch.nn.Module):\n"
        "    @property\n"
        "    def temperature(self):\n"
        "        return self.log_t.exp()\n"
        "    @temperature.setter\n"
        "    def temperature(self, value):\n"
        "        print(value)\n"
        "class Net(Base):\n"
        "    def forward(self, x):\n"
        "        t = self.temperature\n"
        "        return x / t\n"
    )
    index = build_index(ast.parse(source), find_compile_calls=True)
    getter = index.classes["Net"].find_property("temperature")
    assert getter is not None and getter.node.lineno == 4
    assert index.classes["Net"].find_property("forward") is None
    analysis = RegionAnalysis(index)
    analysis.run()
    chains = {state.info.qualname: state.chain for state in analysis.regions()}
    assert chains["Base.temperature"] == ("Net.forward", "Base.temperature")
    assert "Base.temperature.setter" not in chains and all(".setter" not in name for name in chains)
    kinds: dict[int, Kind] = {}

    class Reads:
        def statement(self, stmt: ast.stmt, evaluator: Evaluator) -> None:
            if isinstance(stmt, ast.Assign):
                kinds[stmt.lineno] = evaluator.kind(stmt.value)

    for state in analysis.regions():
        if state.info.qualname == "Net.forward":
            analysis.interpret(state, visitor=Reads())
    assert kinds[11] & Kind.TENSOR


def test_a_sort_key_lambda_sees_the_elements_it_orders() -> None:
    from compilelint.engine import lint_source

    source = (
        "import torch\n"
        "@torch.compile\n"
        "def f(x):\n"
        "    rows = list(x.unbind(0))\n"
        "    a = sorted(rows, key=lambda r: r.sum())\n"
        "    b = sorted(rows, key=lambda r: r.shape[0])\n"
        "    c = sorted([3, 1], key=lambda v: -v)\n"
        "    return a, b, c\n"
    )
    found = [(f.code, f.line, bool(f.only_when)) for f in lint_source(source, "m.py").findings]
    # tensor keys always; size keys once the sizes are dynamic (reported as holding then); Python keys never
    assert found == [("CL122", 5, False), ("CL122", 6, True)]


@pytest.mark.skipif(sys.version_info >= (3, 12), reason="Python 3.12 dropped cached_property's lock")
def test_only_the_first_read_of_a_cached_property_breaks() -> None:
    """The first read caches the value; reads inside a cached_property's own getter run in
    Python after the read that broke (chameleon's ``img2bpe_mapping_tensor`` reads
    ``self.img2bpe`` twice)."""
    from compilelint.engine import lint_source

    source = (
        "import functools\nimport torch\n"
        "class Net(torch.nn.Module):\n"
        "    @functools.cached_property\n"
        "    def table(self):\n"
        "        return {k: 2 * k for k in self.keys}\n"
        "    @functools.cached_property\n"
        "    def size(self):\n"
        "        return max(self.table) + len(self.table)\n"
        "    def forward(self, x):\n"
        "        return x * self.size + self.size + len(self.table)\n"
    )
    found = [(f.line, f.column) for f in lint_source(source, "m.py").findings if f.code == "CL107"]
    assert found == [(11, 20), (11, 48)]


def test_a_test_ruling_out_none_narrows_only_tensor_or_none_parameters() -> None:
    """``lengths: Optional[Tensor]`` is the tensor where ``is not None`` holds (int() of it
    breaks, GB0124); PyG's ``max_index: Optional[Union[int, Tensor]]`` may be the int there
    (the zoo passes one: no break at ``if max_index <= THRESHOLD``)."""
    from compilelint.engine import lint_source

    source = (
        "from typing import Optional, Union\n"
        "import torch\n"
        "from torch import Tensor\n"
        "def map_index(src: Tensor, max_index: Optional[Union[int, Tensor]] = None):\n"
        "    if max_index is None:\n"
        "        max_index = src.max()\n"
        "    if max_index <= 100:\n"
        "        return src + 1\n"
        "    return src\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x, lengths: Optional[Tensor] = None):\n"
        "        total = x.shape[1] if lengths is None else int(lengths.max())\n"
        "        return map_index(x[:, :total], 10)\n"
    )
    assert [(f.line, f.code) for f in lint_source(source, "m.py").findings] == [(12, "CL105")]


def test_an_optional_input_the_body_treats_as_a_tensor_is_one_when_given() -> None:
    # `attention_mask=None` with `attention_mask.sum(dim=1)`: a tensor whenever it is not
    # None, as `Optional[Tensor]` says (measured on 2.13: `int(mask.sum(1).max())` after the
    # fill-in is GB0124, and after `if gt is None: return` `if valid.sum() == 0` is GB0170)
    source = (
        "import torch\n"
        "class Truncate(torch.nn.Module):\n"
        "    def forward(self, ids, attention_mask=None):\n"
        "        if attention_mask is None:\n"
        "            attention_mask = ids.ne(0)\n"
        "        n = int(attention_mask.sum(dim=1).max())\n"
        "        return ids[:, :n]\n"
        "class Depth(torch.nn.Module):\n"
        "    def forward(self, pred, gt=None, max_len=None, scale=None):\n"
        "        if gt is None:\n"
        "            return pred\n"
        "        valid = gt.gt(0)\n"
        "        if valid.sum() == 0:\n"
        "            return pred\n"
        "        if max_len is not None:\n"
        "            pred = pred[:, : int(max_len)]\n"
        "        if scale is not None:\n"
        "            pred = pred * float(scale)\n"
        "        return pred\n"
    )
    from compilelint.engine import lint_source

    found = [(f.line, f.code) for f in lint_source(source, "m.py").findings]
    # `max_len` names a size and `scale` is never used as a tensor: both may be numbers
    assert found == [(6, "CL105"), (13, "CL103")]


def test_fields_of_a_dataclass_built_in_compiled_code_have_their_annotated_kinds() -> None:
    # a sampler's `params = params or SamplingParams()`: `params.bad_words` is the
    # `List[List[int]]` it declares, so comparing a `.tolist()` row with one of its entries
    # is a test on tensor data (measured on 2.13: fullgraph=True fails there, "Could not
    # guard on data-dependent expression")
    source = (
        "from dataclasses import dataclass, field\n"
        "from typing import List, Optional\n"
        "import torch\n"
        "@dataclass\n"
        "class Params:\n"
        "    bad_words: List[List[int]] = field(default_factory=list)\n"
        "class Sampler(torch.nn.Module):\n"
        "    def forward(self, logits, ids, params: Optional[Params] = None):\n"
        "        params = params or Params()\n"
        "        history = ids.tolist()\n"
        "        for words in params.bad_words:\n"
        "            for row, seq in enumerate(history):\n"
        "                if seq[-len(words):] == words:\n"
        "                    logits[row, 0] = 0.0\n"
        "        return logits\n"
    )
    from compilelint.engine import lint_source

    assert [(f.line, f.code) for f in lint_source(source, "m.py").findings] == [(10, "CL105"), (13, "CL103")]


def test_attributes_stored_by_tuple_assignment_keep_their_kinds() -> None:
    # `self.num_beams, self.eos_token_id = num_beams, eos_token_id`: the id is a Python
    # number, so `tok == self.eos_token_id` on an `.item()` is a test on tensor data
    # (measured on 2.13: fullgraph=True fails there, "Could not guard on data-dependent expression")
    source = (
        "import torch\n"
        "class Beam(torch.nn.Module):\n"
        "    def __init__(self, num_beams: int = 3, eos_token_id: int = 2):\n"
        "        super().__init__()\n"
        "        self.num_beams, self.eos_token_id = num_beams, eos_token_id\n"
        "    def forward(self, ids):\n"
        "        tok = ids[0].item()\n"
        "        if tok == self.eos_token_id:\n"
        "            return ids + 1\n"
        "        return ids\n"
    )
    from compilelint.engine import lint_source

    assert [(f.line, f.code) for f in lint_source(source, "m.py").findings] == [(7, "CL105"), (8, "CL103")]
