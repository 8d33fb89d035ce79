"""Cross-file analysis: helpers imported by compiled regions are compiled code too."""

from __future__ import annotations

from pathlib import Path

from compilelint.engine import lint_paths
from compilelint.project import absolute_target, module_name


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


PROJECT = {
    "pkg/__init__.py": "",
    "pkg/utils.py": (
        "import torch\n"
        "def helper(x, scale):\n"
        "    print('helper')\n"
        "    if x.sum() > 0:\n"
        "        x = x * scale\n"
        "    return x\n"
        "def unrelated(x):\n"
        "    print('never compiled')\n"
    ),
    "pkg/sub/__init__.py": "from .more import deep\n",
    "pkg/sub/more.py": "def deep(t):\n    return t.item()\n",
    "pkg/sub/model.py": (
        "import torch\nfrom torch import nn\n"
        "from ..utils import helper\nfrom . import deep\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return deep(x) + helper(x, 2.0)\n"
    ),
}


def test_module_names_follow_packages(tmp_path: Path) -> None:
    _write(tmp_path, PROJECT)
    assert module_name(str(tmp_path / "pkg/sub/model.py")) == "pkg.sub.model"
    assert module_name(str(tmp_path / "pkg/sub/__init__.py")) == "pkg.sub"
    assert absolute_target("..utils.helper", "pkg.sub.model", False) == "pkg.utils.helper"
    assert absolute_target(".deep", "pkg.sub", True) == "pkg.sub.deep"
    assert absolute_target("....too.far", "pkg.sub.model", False) is None


def test_imported_helpers_are_analysed_as_compiled_code(tmp_path: Path) -> None:
    _write(tmp_path, PROJECT)
    found = {
        (Path(r.path).relative_to(tmp_path).as_posix(), f.line, f.code, f.region)
        for r in lint_paths([str(tmp_path)], jobs=1)
        for f in r.findings
    }
    assert found == {
        ("pkg/utils.py", 3, "CL101", ("Net.forward", "helper")),
        ("pkg/utils.py", 4, "CL103", ("Net.forward", "helper")),
        ("pkg/sub/more.py", 2, "CL105", ("Net.forward", "deep")),  # through the re-export
    }


def test_a_helper_alone_is_not_compiled_code(tmp_path: Path) -> None:
    _write(tmp_path, {k: v for k, v in PROJECT.items() if k != "pkg/sub/model.py"})
    assert [f for r in lint_paths([str(tmp_path)], jobs=1) for f in r.findings] == []


CROSS_FILE_ROOTS = {
    "pkg/__init__.py": "from .crf import *\n",
    "pkg/crf.py": (
        "import torch\nfrom torch import nn\n"
        "class CRF(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x\n"
        "    def decode(self, e):\n"
        "        if e.sum() > 0:\n"
        "            return e * 2\n"
        "        return e\n"
        "    def score(self, e):\n"
        "        print('never compiled')\n"
        "def step(x):\n"
        "    print('step')\n"
        "    return x\n"
    ),
    "pkg/layers.py": (
        "import torch\nfrom torch import nn\n"
        "class RelativePosition(nn.Module):\n"
        "    def forward(self, i, j):\n"
        "        return torch.arange(j - i, j)\n"
    ),
    "pkg/utils.py": "def peak(x):\n    return x.max().item()\n",
    "pkg/net.py": (
        "import torch\nfrom torch import nn\n"
        "from .layers import RelativePosition\nfrom .utils import *\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.rel = RelativePosition()\n"
        "    def forward(self, x):\n"
        "        n = x.shape[0]\n"
        "        return x + self.rel(0, n) + peak(x)\n"
    ),
    "train.py": (
        "import torch\nfrom pkg import CRF, step\n"
        "crf = CRF()\n"
        "decode = torch.compile(crf.decode)\n"
        "fast_step = torch.compile(backend='eager')(step)\n"
    ),
}


def test_what_another_file_compiles_is_a_root(tmp_path: Path) -> None:
    # crf.decode and step are compiled in train.py, through pkg/__init__'s star re-export;
    # the submodule's forward gets sizes (no implicit .item() on arange), peak() comes
    # through `from .utils import *`
    _write(tmp_path, CROSS_FILE_ROOTS)
    found = {
        (Path(r.path).relative_to(tmp_path).as_posix(), f.line, f.code, f.region)
        for r in lint_paths([str(tmp_path)], jobs=1)
        for f in r.findings
    }
    assert found == {
        ("pkg/crf.py", 7, "CL103", ("CRF.decode",)),
        ("pkg/crf.py", 13, "CL101", ("step",)),
        ("pkg/utils.py", 2, "CL105", ("Net.forward", "peak")),
    }


def test_literal_arguments_of_a_function_compiled_in_another_file(tmp_path: Path) -> None:
    # fast(x, True) in train.py: `flag` is a Python bool in steps.py; x stays a tensor
    _write(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/steps.py": (
                "def step(x, flag):\n"
                "    if flag:\n"
                "        x = x + 1\n"
                "    if x.sum() > 0:\n"
                "        return x\n"
                "    return x * 2\n"
            ),
            "train.py": (
                "import torch\nfrom pkg.steps import step\n"
                "fast = torch.compile(step)\n"
                "def main(x):\n"
                "    return fast(x, True) + fast(x, False)\n"
            ),
        },
    )
    found = {(Path(r.path).name, f.line, f.code) for r in lint_paths([str(tmp_path)], jobs=1) for f in r.findings}
    assert found == {("steps.py", 4, "CL103")}


AUGMENT = {
    "aug/__init__.py": "",
    "aug/base.py": (
        "import torch\nfrom torch import nn\n"
        "class Base(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return self.apply_func(x)\n"
        "    def apply_func(self, x):\n"
        "        return self.apply_transform(x)\n"
        "    def apply_transform(self, x):\n"
        "        raise NotImplementedError\n"
        "    def unused(self, x):\n"
        "        return x\n"
    ),
    "aug/mid.py": "import torch\nfrom .base import Base\nclass Intensity(Base):\n    pass\n",
    "aug/steps.py": (
        "import torch\n"
        "def dispatch(x, order):\n"
        "    for i in order.tolist():\n"
        "        x = x + i\n"
        "    return x\n"
    ),
    "aug/jitter.py": (
        "import torch\nfrom .mid import Intensity\nfrom .steps import dispatch\n"
        "class Jitter(Intensity):\n"
        "    def apply_transform(self, x):\n"
        "        return dispatch(x, torch.randperm(4))\n"
        "    def unused(self, x):\n"
        "        print('never called from forward')\n"
        "        return x\n"
    ),
    "aug/local.py": (
        "import torch\nfrom torch import nn\n"
        "class Base(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return self.apply_transform(x)\n"
        "    def apply_transform(self, x):\n"
        "        return x\n"
        "class Flip(Base):\n"
        "    def apply_transform(self, x):\n"
        "        if x.sum() > 0:\n"
        "            return x.flip(-1)\n"
        "        return x\n"
    ),
}


def test_an_override_runs_in_the_forward_a_subclass_inherits(tmp_path: Path) -> None:
    # compiling Jitter() traces Base.forward with self a Jitter: self.apply_transform(x) is
    # Jitter's override, two files below the forward (measured on torch 2.13: the override's
    # `.tolist()` and `if` break the graph); Jitter.unused is never called from forward
    _write(tmp_path, AUGMENT)
    found = sorted(
        (Path(f.path).name, f.line, f.code) for r in lint_paths([str(tmp_path / "aug")]) for f in r.findings
    )
    assert found == [("local.py", 10, "CL103"), ("steps.py", 3, "CL105")]


def _found(tmp_path: Path, jobs: int = 1) -> set[tuple[str, int, str]]:
    return {
        (Path(r.path).relative_to(tmp_path).as_posix(), f.line, f.code)
        for r in lint_paths([str(tmp_path)], jobs=jobs)
        for f in r.findings
    }


def test_what_a_helper_in_another_file_returns_reaches_its_caller(tmp_path: Path) -> None:
    # the mask comes back from utils.py: the model's `if mask.any()` tests tensor data
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils.py": "import torch\ndef make_mask(x):\n    return x > 0\n",
        "pkg/model.py": (
            "import torch\nfrom torch import nn\nfrom .utils import make_mask\n"
            "class Net(nn.Module):\n"
            "    def forward(self, x):\n"
            "        mask = make_mask(x)\n"
            "        if mask.any():\n"
            "            x = x * 2\n"
            "        return x\n"
        ),
    })  # fmt: skip
    assert ("pkg/model.py", 7, "CL103") in _found(tmp_path)


def test_what_a_method_of_another_files_class_returns_reaches_its_caller(tmp_path: Path) -> None:
    # transformers' HybridCache: a cache filled with tensors in __init__; its length is a tensor
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/cache.py": (
            "import torch\n"
            "class Cache:\n"
            "    def __init__(self, n):\n"
            "        self.keys = []\n"
            "        for _ in range(2):\n"
            "            layer = torch.zeros(2, n)\n"
            "            self.keys.append(layer)\n"
            "    def seen(self):\n"
            "        return self.keys[0][0].any(dim=-1).sum()\n"
        ),
        "pkg/model.py": (
            "import torch\nfrom torch import nn\nfrom .cache import Cache\n"
            "class Net(nn.Module):\n"
            "    def forward(self, x):\n"
            "        cache = Cache(x.shape[1])\n"
            "        start = cache.seen()\n"
            "        return x + torch.arange(start).sum()\n"
        ),
    })  # fmt: skip
    assert ("pkg/model.py", 8, "CL105") in _found(tmp_path)


def test_an_instance_stored_in_another_file_is_followed_in_the_run(tmp_path: Path) -> None:
    # model.py builds a Sampler and hands it to Runner (runner.py), which stores and calls it
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/sampler.py": "import torch\nclass Sampler:\n    def __call__(self, t):\n        return float(t)\n",
        "pkg/runner.py": (
            "class Runner:\n"
            "    def __init__(self, sampler):\n        self.sampler = sampler\n"
            "    def run(self, t):\n        return self.sampler(t)\n"
        ),
        "pkg/model.py": (
            "import torch\nfrom torch import nn\nfrom .runner import Runner\nfrom .sampler import Sampler\n"
            "class Net(nn.Module):\n"
            "    def forward(self, x):\n"
            "        runner = Runner(Sampler())\n"
            "        return x * runner.run(x.sum())\n"
        ),
    })  # fmt: skip
    assert ("pkg/sampler.py", 4, "CL105") in _found(tmp_path)


def test_an_instance_a_method_outside_compiled_code_stores_is_passed_to_another_file(tmp_path: Path) -> None:
    # kornia's mix generators: make_samplers (run before compiling) stores a Beta on self,
    # forward hands it to a helper of another file that samples it with a batch-sized shape.
    # Measured on torch 2.13 (backend eager, batch sizes 2, 3, 4): GB0090 at helpers.py:4 in
    # the default mode and with dynamic=True; fullgraph=True fails there.
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/helpers.py": "import torch\n\ndef draw(shape, dist):\n    return dist.sample(shape)\n",
        "pkg/mix.py": (
            "import torch\nfrom torch import nn\nfrom torch.distributions import Beta, Normal\n"
            "from .helpers import draw\n"
            "class Mix(nn.Module):\n"
            "    def make_samplers(self):\n"
            "        self.beta_sampler = Beta(torch.tensor(1.0), torch.tensor(1.0))\n"
            "        self.normal_sampler = Normal(torch.tensor(0.0), torch.tensor(1.0))\n"
            "    def forward(self, x):\n"
            "        noise = draw((x.shape[0],), self.normal_sampler)\n"
            "        return x * draw((x.shape[0],), self.beta_sampler).view(-1, 1) + noise.view(-1, 1)\n"
        ),
    })  # fmt: skip
    assert {site for site in _found(tmp_path) if site[2] == "CL136"} == {("pkg/helpers.py", 4, "CL136")}


def test_a_normal_sample_in_a_helper_is_not_flagged(tmp_path: Path) -> None:
    # the same helper, passed only a Normal: it compiles with dynamic sizes (torch 2.13)
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/helpers.py": "import torch\n\ndef draw(shape, dist):\n    return dist.sample(shape)\n",
        "pkg/mix.py": (
            "import torch\nfrom torch import nn\nfrom torch.distributions import Normal\n"
            "from .helpers import draw\n"
            "class Mix(nn.Module):\n"
            "    def make_samplers(self):\n"
            "        self.normal_sampler = Normal(torch.tensor(0.0), torch.tensor(1.0))\n"
            "    def forward(self, x):\n"
            "        return x * draw((x.shape[0],), self.normal_sampler).view(-1, 1)\n"
        ),
    })  # fmt: skip
    assert not {site for site in _found(tmp_path) if site[2] == "CL136"}


GRAPHS = {
    "graphs/__init__.py": "",
    "graphs/sparse.py": (
        "import torch\n"
        "def is_sparse(adj):\n"
        "    return adj.layout != torch.strided\n"
        "def to_edge_index(adj):\n"
        "    return adj.indices(), adj.values()\n"
    ),
    "graphs/loop.py": (
        "from .sparse import is_sparse, to_edge_index\n"
        "def remove_self_loops(edge_index):\n"
        "    if is_sparse(edge_index):\n"
        "        edge_index, _ = to_edge_index(edge_index)\n"
        "    mask = edge_index[0] != edge_index[1]\n"
        "    return edge_index[:, mask]\n"
    ),
    "graphs/conv.py": (
        "import torch\nfrom .loop import remove_self_loops\n"
        "class Conv(torch.nn.Module):\n"
        "    def forward(self, x, edge_index: torch.Tensor):\n"
        "        return x, remove_self_loops(edge_index)\n"
    ),
}


def test_what_a_function_of_another_file_returns_is_known_to_its_callers(tmp_path: Path) -> None:
    # remove_self_loops reassigns its tensor argument from to_edge_index(), analysed a
    # round later in its own file: once its tuple of tensors is known, edge_index is a
    # tensor on both paths and the mask indexing breaks (PyG's utils/loop.py:113, GB0036
    # on torch 2.13, default mode)
    _write(tmp_path, GRAPHS)
    found = sorted((Path(f.path).name, f.line, f.code) for r in lint_paths([str(tmp_path / "graphs")]) for f in r.findings)
    assert found == [("loop.py", 6, "CL106")]


# Measured on torch 2.13 (backend eager, default mode): the decoder's layer loop breaks, so
# Dynamo skips its frame and the cache is built in Python; the cache's `__init__` and its
# base's are compiled as frames of their own and break at `super().__init__()` (GB0119).
OWN_FRAME_CONSTRUCTORS = {
    "pkg/__init__.py": "",
    "pkg/cache.py": (
        "from torch import nn\n"
        "\n"
        "class Cache(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "\n"
        "class GrowingCache(Cache):\n"
        "    def __init__(self, layers=None):\n"
        "        super().__init__()\n"
        "        self.keys = []\n"
    ),
    "pkg/model.py": (
        "import torch\n"
        "from torch import nn\n"
        "from pkg.cache import GrowingCache\n"
        "\n"
        "class Decoder(nn.Module):\n"
        "    def forward(self, x):\n"
        "        cache = GrowingCache()\n"
        "        for step in range(2):\n"
        "            if x.sum() > 0:\n"
        "                x = -x\n"
        "        return x\n"
    ),
}


def test_a_module_built_in_code_run_in_python_breaks_in_its_own_file(tmp_path: Path) -> None:
    _write(tmp_path, OWN_FRAME_CONSTRUCTORS)
    found = _found(tmp_path)
    assert {site for site in found if site[2] == "CL125"} == {("pkg/cache.py", 5, "CL125"), ("pkg/cache.py", 9, "CL125")}
    assert ("pkg/model.py", 9, "CL103") in found


def test_a_module_built_in_traced_code_is_not_an_own_frame(tmp_path: Path) -> None:
    files = dict(OWN_FRAME_CONSTRUCTORS)
    files["pkg/model.py"] = files["pkg/model.py"].replace("if x.sum() > 0:", "if step > 0:")
    _write(tmp_path, files)
    assert not {site for site in _found(tmp_path) if site[2] == "CL125"}


def test_names_another_module_reexports_are_what_it_imported(tmp_path: Path) -> None:
    """``from .a import LSTM`` where a.py re-exports it from common.py, which imports it
    from torch: the name is torch's LSTM. A name the re-exporting module binds again
    (``GRU = Recurrent``) is not followed."""
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/common.py": "import torch\nimport torch.nn.functional as F\nfrom torch.nn import GRU, LSTM\nGRU = object\n",
        "pkg/a.py": "from .common import LSTM, torch\n",
        "pkg/b.py": (
            "import torch\nfrom .a import LSTM\nfrom .common import F, GRU\n"
            "class Net(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.rnn = LSTM(4, 4)\n"
            "        self.gru = GRU(4, 4)\n"
            "    def forward(self, x):\n"
            "        out, _ = self.rnn(F.relu(x))\n"
            "        return out\n"
            "class Other(torch.nn.Module):\n"
            "    def __init__(self):\n"
            "        super().__init__()\n"
            "        self.gru = GRU(4, 4)\n"
            "    def forward(self, x):\n"
            "        return self.gru(x)\n"
        ),
    })  # fmt: skip
    found = {(Path(r.path).name, f.line, f.code) for r in lint_paths([str(tmp_path)], jobs=1) for f in r.findings}
    assert found == {("b.py", 10, "CL109")}


def test_a_method_called_on_an_imported_class_s_new_instance_is_followed(tmp_path: Path) -> None:
    # zuko's transforms: `Transform(...).call_and_ladj(x)`, the object never bound to a name
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/transforms.py": (
            "import torch\n"
            "class Transform:\n"
            "    def __init__(self, w):\n        self.w = w\n"
            "    def call_and_ladj(self, x):\n"
            "        y = x * self.w\n"
            "        (j,) = torch.autograd.grad(y.sum(), x, create_graph=True)\n"
            "        return y, j.log()\n"
        ),
        "pkg/model.py": (
            "import torch\nfrom torch import nn\nfrom .transforms import Transform\n"
            "class Flow(nn.Module):\n"
            "    def forward(self, x, c):\n"
            "        y, ladj = Transform(c.mean()).call_and_ladj(x)\n"
            "        return y + ladj\n"
        ),
    })  # fmt: skip
    assert ("pkg/transforms.py", 7, "CL114") in _found(tmp_path)


def test_an_autograd_function_applied_from_another_file_runs_its_forward(tmp_path: Path) -> None:
    # pytorch_wavelets: DWTForward.forward calls lowlevel.AFB2D.apply(...), and Dynamo traces
    # AFB2D.forward(ctx, ...) and what it calls (afb1d), where the graph breaks
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/lowlevel.py": (
            "import torch\n"
            "def helper(x):\n"
            "    return x.sum().item()\n"
            "class Step(torch.autograd.Function):\n"
            "    @staticmethod\n"
            "    def forward(ctx, x, scale):\n"
            "        return x * helper(x) * scale\n"
            "    @staticmethod\n"
            "    def backward(ctx, grad):\n"
            "        return grad, None\n"
        ),
        "pkg/model.py": (
            "import torch\nimport pkg.lowlevel as lowlevel\n"
            "class Net(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return lowlevel.Step.apply(x, 2.0)\n"
        ),
    })  # fmt: skip
    results = {Path(r.path).name: r for r in lint_paths([str(tmp_path / "pkg")])}
    assert [(f.line, f.code) for f in results["lowlevel.py"].findings] == [(3, "CL105")]

def test_a_constructor_in_another_file_that_always_breaks_is_known_to_its_caller(tmp_path: Path) -> None:
    # parts.py's constructor breaks on every call and returns nothing a caller could type;
    # the model's file is analysed again with that fact, so its `*(generator)` call is CL129
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/parts.py": "class Parts:\n    def __init__(self, *parts):\n        print(len(parts))\n        self.parts = parts\n",
        "pkg/model.py": (
            "import torch\nfrom torch import nn\nfrom .parts import Parts\n"
            "class Net(nn.Module):\n"
            "    def forward(self, x):\n"
            "        held = Parts(*(x * i for i in range(3)))\n"
            "        return held.parts[0]\n"
        ),
    })  # fmt: skip
    found = _found(tmp_path)
    assert ("pkg/parts.py", 3, "CL101") in found
    assert ("pkg/model.py", 6, "CL129") in found


# Measured on torch 2.13 (CPU, backend eager): Net with Block(4, noisy_gelu) or
# GatedBlock(4, gate=noisy_gelu) gives GB0059 at acts.py:5 in both modes; with
# Block(4, make=Counter), GB0124 at acts.py:15 and GB0092 at layers.py:15 in the default mode
# (fullgraph=True captures the scalar and compiles); with Block(4), no break.
CONSTRUCTED_ELSEWHERE = {
    "pkg/__init__.py": "",
    "pkg/acts.py": (
        "import torch\n"
        "\n"
        "\n"
        "def noisy_gelu(x):\n"
        "    print('gelu on', x.shape)\n"
        "    return torch.nn.functional.gelu(x)\n"
        "\n"
        "\n"
        "class Counter:\n"
        "    def __init__(self, x):\n"
        "        self.x = x\n"
        "\n"
        "    def total(self, y):\n"
        "        z = y.sum()\n"
        "        return y * z.item()\n"
    ),
    "pkg/layers.py": (
        "import torch\n"
        "from torch import nn\n"
        "\n"
        "\n"
        "class Block(nn.Module):\n"
        "    def __init__(self, dim, act=torch.relu, make=None):\n"
        "        super().__init__()\n"
        "        self.proj = nn.Linear(dim, dim)\n"
        "        self.act = act\n"
        "        self.make = make\n"
        "\n"
        "    def forward(self, x):\n"
        "        y = self.act(self.proj(x))\n"
        "        if self.make is not None:\n"
        "            y = y + self.make(y).total(y)\n"
        "        return y\n"
    ),
    "pkg/wrappers.py": (
        "from .layers import Block\n"
        "\n"
        "\n"
        "class GatedBlock(Block):\n"
        "    def __init__(self, dim, gate):\n"
        "        super().__init__(dim, act=gate)\n"
    ),
}


def _constructed_by(model: str) -> dict[str, str]:
    return {**CONSTRUCTED_ELSEWHERE, "pkg/model.py": (
        "from torch import nn\n"
        "from .acts import Counter, noisy_gelu\n"
        "from .layers import Block\n"
        "from .wrappers import GatedBlock\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        f"        {model}\n"
        "    def forward(self, x):\n"
        "        return self.block(x)\n"
    )}  # fmt: skip


def test_a_function_another_file_hands_to_a_constructor_is_compiled_code(tmp_path: Path) -> None:
    _write(tmp_path, _constructed_by("self.block = Block(4, noisy_gelu)"))  # by position
    assert ("pkg/acts.py", 5, "CL101") in _found(tmp_path)


def test_what_a_subclass_hands_to_an_imported_base_follows_its_own_constructions(tmp_path: Path) -> None:
    # model.py -> wrappers.GatedBlock(gate=...) -> super().__init__(act=gate) -> layers.Block
    _write(tmp_path, _constructed_by("self.block = GatedBlock(4, gate=noisy_gelu)"))
    assert ("pkg/acts.py", 5, "CL101") in _found(tmp_path)


def test_a_class_another_file_hands_to_a_constructor_builds_a_new_object(tmp_path: Path) -> None:
    _write(tmp_path, _constructed_by("self.block = Block(4, make=Counter)"))
    found = _found(tmp_path)
    assert {("pkg/acts.py", 15, "CL105"), ("pkg/layers.py", 15, "CL124")} <= found
    assert ("pkg/acts.py", 5, "CL101") not in found  # the default, torch.relu, is what runs


def test_constructions_in_no_file_of_the_run_leave_the_default(tmp_path: Path) -> None:
    _write(tmp_path, _constructed_by("self.block = Block(4)"))
    assert ("pkg/acts.py", 5, "CL101") not in _found(tmp_path)
