"""Method calls on objects of no known class reach the methods of that name (analysis.duck_calls)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from compilelint.analysis import duck_calls
from compilelint.config import DEFAULT_SETTINGS
from compilelint.engine import lint_paths, lint_source


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _codes_at(results: list, name: str) -> list[tuple[str, int]]:  # type: ignore[type-arg]
    return sorted((f.code, f.line) for r in results if r.path.endswith(name) for f in r.findings)


# the flow's transform comes from a constructor argument: nothing says which class it is
FLOWS = (
    "import torch\nfrom torch import nn\n"
    "class Shift:\n"
    "    def call_and_ladj(self, x):\n"
    "        return x + 1, torch.zeros_like(x)\n"
    "class Monotonic:\n"
    "    def call_and_ladj(self, x):\n"
    "        x = x.requires_grad_()\n"
    "        return x, torch.autograd.grad(x.sum(), x)[0]\n"
    "class Flow(nn.Module):\n"
    "    def __init__(self, transform):\n"
    "        super().__init__()\n"
    "        self.transform = transform\n"
    "    def forward(self, x):\n"
    "        z, ladj = self.transform.call_and_ladj(x)\n"
    "        return z + ladj\n"
)


def test_a_method_of_an_unknown_object_runs_each_method_of_that_name_in_the_file() -> None:
    findings = lint_source(FLOWS, "flows.py").findings
    assert {(f.code, f.line) for f in findings} == {("CL111", 8), ("CL114", 9)}
    chain = next(f for f in findings if f.code == "CL111").region
    assert chain[-1] == "Monotonic.call_and_ladj"


def test_an_attribute_built_by_a_torch_class_runs_torch_methods_only() -> None:
    """nflows' LotkaVolterraOscillating: ``self._gaussian = distributions.MultivariateNormal(...)``;
    ``self._gaussian.sample(...)`` is torch's sample, not the package's ``Distribution.sample``."""
    source = (
        "import torch\nfrom torch import nn, distributions\n"
        "class Distribution:\n"
        "    def sample(self, n):\n"
        "        if n > 0:\n"
        "            return torch.zeros(3)\n"
        "        return torch.ones(3)\n"
        "class Oscillating(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self._gaussian = distributions.MultivariateNormal(torch.zeros(4), torch.eye(4))\n"
        "        self.prior = make_prior()\n"
        "    def forward(self, x):\n"
        "        n = (x > 0).sum()\n"
        "        return self._gaussian.sample((n,)) + self.prior.sample(n)\n"
    )
    findings = lint_source(source, "oscillating.py").findings
    # only the unknown `self.prior` runs Distribution.sample with the tensor `n`
    assert [(f.code, f.line, f.region[-2:]) for f in findings if f.code == "CL103"] == [
        ("CL103", 5, ("Oscillating.forward", "Distribution.sample"))
    ]


def test_common_and_private_names_and_tensors_are_not_followed() -> None:
    source = (
        "import torch\nfrom torch import nn\n"
        "class Table:\n"
        "    def update(self, x):\n        print(x)\n"
        "    def view(self, x):\n        print(x)\n"
        "    def _step(self, x):\n        print(x)\n"
        "    def sample(self, x):\n        print(x)\n"
        "class Net(nn.Module):\n"
        "    def __init__(self, table):\n        super().__init__()\n        self.table = table\n"
        "    def forward(self, x: torch.Tensor):\n"
        "        self.table.update(x)\n"  # a dict's method: any dict has it
        "        self.table.view(x)\n"  # a tensor's method
        "        return x.sample(2)\n"  # the receiver is a tensor
    )
    assert [f for f in lint_source(source, "table.py").findings if f.code == "CL101"] == []


def test_module_functions_and_names_stored_as_attributes_are_not_methods() -> None:
    source = (
        "import torch\nfrom torch import nn\n"
        "class Codec(nn.Module):\n"
        "    def fold(self, x):\n        print(x)\n"
        "    def downsample(self, x):\n        print(x)\n"
        "class Encoder(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        down = nn.Module()\n"
        "        down.downsample = nn.Identity()\n"  # an attribute holding a submodule
        "        self.down = nn.ModuleList([down])\n"
        "    def forward(self, x):\n"
        "        x = nn.functional.fold(x, (4, 4), (2, 2))\n"  # torch's function, not Codec.fold
        "        return self.down[0].downsample(x)\n"
    )
    assert [f for f in lint_source(source, "codec.py").findings if f.code == "CL101"] == []


def test_a_module_level_instance_runs_its_own_class_method() -> None:
    source = (
        "import torch\nfrom torch import nn\n"
        "class Interface:\n    def get_interface(self, name):\n        return name\n"
        "class Experts:\n    def get_interface(self, name):\n        print(name)\n        return name\n"
        "FUNCTIONS = Interface()\n"
        "class Attention(nn.Module):\n"
        "    def forward(self, x):\n        FUNCTIONS.get_interface('sdpa')\n        return x\n"
    )
    assert [f for f in lint_source(source, "interfaces.py").findings if f.code == "CL101"] == []
    experts = source.replace("FUNCTIONS = Interface()", "FUNCTIONS = Experts()")
    assert [(f.code, f.line) for f in lint_source(experts, "interfaces.py").findings] == [("CL101", 8)]


def test_a_name_defined_by_too_many_classes_is_not_followed() -> None:
    classes = "".join(f"class S{i}:\n    def step_once(self, x):\n        print(x)\n" for i in range(duck_calls.MAX_OWNERS + 1))
    source = (
        "import torch\nfrom torch import nn\n" + classes
        + "class Net(nn.Module):\n"
        "    def __init__(self, s):\n        super().__init__()\n        self.s = s\n"
        "    def forward(self, x):\n        return self.s.step_once(x)\n"
    )  # fmt: skip
    assert lint_source(source, "many.py").findings == ()
    fewer = source.replace(f"class S{duck_calls.MAX_OWNERS}:", "class Other:").replace(
        "class Other:\n    def step_once", "class Other:\n    def other_step"
    )
    assert {f.code for f in lint_source(fewer, "many.py").findings} == {"CL101"}


def test_a_method_of_another_file_of_the_package_is_followed(tmp_path: Path) -> None:
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/transforms.py": FLOWS.split("class Flow")[0],
        "pkg/flows.py": "import torch\nfrom torch import nn\nclass Flow" + FLOWS.split("class Flow")[1],
        "other/__init__.py": "",
        "other/steps.py": "class Elsewhere:\n    def call_and_ladj(self, x):\n        print(x)\n        return x, x\n",
    })  # fmt: skip
    results = lint_paths([str(tmp_path / "pkg"), str(tmp_path / "other")])
    assert _codes_at(results, "pkg/transforms.py") == [("CL111", 8), ("CL114", 9)]
    assert _codes_at(results, "other/steps.py") == []  # another top-level package: not this flow's


INSTALLED = {
    "flowlib-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: flowlib\nVersion: 0.1\n",
    "flowlib/__init__.py": "from .flows import make\n",
    "flowlib/flows.py": (
        "import torch\nfrom torch import nn\n"
        "class Dist:\n"
        "    def __init__(self, transform):\n        self.transform = transform\n"
        "    def log_prob(self, x):\n"
        "        z, ladj = self.transform.call_and_ladj(x)\n"
        "        return z + ladj\n"
        "class Lazy(nn.Module):\n"
        "    def forward(self, c):\n        return Dist(None)\n"
        "def make():\n    return Lazy()\n"
    ),
    "flowlib/transforms.py": "import torch\nclass Monotonic:\n    def call_and_ladj(self, x):\n        x = x.requires_grad_()\n        return x, x\n",
}


def test_a_method_of_an_installed_package_is_followed_from_user_code(tmp_path: Path) -> None:
    _write(tmp_path / "site", INSTALLED)
    user = tmp_path / "user.py"
    user.write_text(
        "import torch\nimport flowlib\n"
        "class LogProb(torch.nn.Module):\n"
        "    def __init__(self, flow):\n        super().__init__()\n        self.flow = flow\n"
        "    def forward(self, x, c):\n        return self.flow(c).log_prob(x)\n"
    )
    settings = replace(DEFAULT_SETTINGS, package_paths=(str(tmp_path / "site"),), package_cache_dir="")
    (result,) = lint_paths([str(user)], settings)
    (finding,) = result.findings
    assert (finding.code, finding.line) == ("CL150", 8)
    assert [(s.path, s.line, s.code) for s in finding.reached_sites] == [("flowlib/transforms.py", 4, "CL111")]


def test_the_name_tables_are_the_installed_torch_ones() -> None:
    torch = pytest.importorskip("torch")
    if not torch.__version__.startswith("2.13"):
        pytest.skip("the tables are torch 2.13's")
    tensor = set(dir(torch.Tensor))
    assert duck_calls.DISTRIBUTION_ONLY == {n for n in dir(torch.distributions.Distribution) if not n.startswith("__")} - tensor
    assert duck_calls.MODULE_METHODS >= {n for n in dir(torch.nn.Module) if not n.startswith("__")}
