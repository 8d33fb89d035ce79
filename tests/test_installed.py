"""Following compiled code into installed packages: locating, summaries, the cache, settings."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from compilelint.config import DEFAULT_SETTINGS, ConfigError, Settings, load_settings
from compilelint.engine import lint_paths, lint_source
from compilelint.installed import dependencies
from compilelint.installed.cache import analysis_stamp
from compilelint.installed.locate import Locator, site_dirs

PACKAGE = {
    "solvers-1.2.dist-info/METADATA": "Metadata-Version: 2.1\nName: solvers\nVersion: 1.2\n",
    "solvers/__init__.py": "from .core import solve, scale\nfrom .layers import *\n",
    "solvers/core.py": (
        "import torch\n"
        "from .checks import check\n"
        "def solve(y, t):\n"
        "    check(t)\n"
        "    return y * t\n"
        "def scale(x, factor):\n"
        "    if factor > 0:\n"
        "        return x * factor\n"
        "    return x\n"
    ),
    "solvers/checks.py": "import torch\ndef check(t):\n    if (t < 0).any():\n        raise ValueError('t')\n",
    "solvers/layers.py": (
        "import torch\n__all__ = ['Step']\n"
        "class Step(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return x.tolist()\n"
    ),
    "other_dist-3.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: other-dist\nVersion: 3.0\n",
    "other_dist-3.0.dist-info/top_level.txt": "shortname\n",
    "shortname/__init__.py": "def f(x):\n    return x\n",
}

USER = (
    "import torch\nfrom torch import nn\nfrom solvers import solve, scale\n"
    "class Net(nn.Module):\n"
    "    def forward(self, x):\n"
    "        y = solve(x, x)\n"
    "        return scale(y, 2.0)\n"
)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.fixture
def site(tmp_path: Path) -> Path:
    _write(tmp_path / "site", PACKAGE)
    return tmp_path / "site"


def _settings(site: Path, cache: Path | str = "") -> Settings:
    return replace(DEFAULT_SETTINGS, package_paths=(str(site),), package_cache_dir=str(cache))


def test_locates_without_importing(site: Path) -> None:
    locator = Locator((str(site),))
    found = locator.locate("solvers.core.solve")
    assert found is not None and found.path.endswith("solvers/core.py") and found.name == "solve"
    reexported = locator.locate("solvers.solve")
    assert reexported is not None and reexported.path.endswith("solvers/__init__.py")
    package = locator.package("solvers")
    assert package is not None and package.label == "solvers 1.2"
    other = locator.package("shortname")
    assert other is not None and (other.distribution, other.version) == ("other-dist", "3.0")
    assert locator.locate("torch.nn.functional.relu") is None
    assert locator.locate("json.dumps") is None


def test_call_site_finding_names_the_inner_site(site: Path) -> None:
    result = lint_source(USER, "model.py", _settings(site))
    assert [(f.line, f.code) for f in result.findings] == [(6, "CL150")]
    message = result.findings[0].message
    assert "`solve()` breaks the graph inside solvers 1.2 (via solve -> check)" in message
    assert "`solvers/checks.py:3` `if (t < 0).any():` (CL103, GB0170)" in message
    assert result.findings[0].reaches and all(p.endswith(".py") for p in result.findings[0].reaches)
    [dependency] = dependencies(result)
    assert dependency == f"package:{os.path.realpath(site / 'solvers')}"
    from compilelint.cache import DEPENDENCY_KINDS

    assert (DEPENDENCY_KINDS["package"](dependency.partition(":")[2]) or "").startswith("solvers==1.2@")


def test_argument_kinds_decide(site: Path) -> None:
    # scale(y, 2.0): a Python number, no break; scale(y, x.sum()): a tensor branch
    tensor_factor = USER.replace("scale(y, 2.0)", "scale(y, x.sum())")
    lines = [(f.line, f.code) for f in lint_source(tensor_factor, "model.py", _settings(site)).findings]
    assert lines == [(6, "CL150"), (7, "CL150")]


def test_submodule_of_an_imported_class_and_star_reexport(site: Path) -> None:
    user = (
        "import torch\nfrom solvers import Step\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.step = Step()\n"
        "    def forward(self, x):\n        return self.step(x)\n"
    )
    findings = lint_source(user, "model.py", _settings(site)).findings
    assert [(f.line, f.code) for f in findings] == [(8, "CL150")]


@pytest.mark.parametrize("name", ["CRF", "MLP"])
def test_a_submodule_whose_class_name_is_an_acronym(tmp_path: Path, name: str) -> None:
    # pytorch-crf's CRF, an MLP: a class named in capitals is a class all the same (measured on
    # torch 2.13: `self.crf(emissions, tags, mask=mask)` breaks in CRF._validate, GB0170)
    _write(tmp_path / "site", {
        **PACKAGE,
        "solvers/layers.py": (
            f"import torch\n__all__ = ['{name}']\n"
            f"class {name}(torch.nn.Module):\n"
            "    def forward(self, x):\n"
            "        return x.tolist()\n"
        ),
    })  # fmt: skip
    user = (
        f"import torch\nfrom solvers import {name}\n"
        "class Net(torch.nn.Module):\n"
        f"    def __init__(self):\n        super().__init__()\n        self.head = {name}()\n"
        "    def forward(self, x):\n        return self.head(x)\n"
    )
    findings = lint_source(user, "model.py", _settings(tmp_path / "site")).findings
    assert [(f.line, f.code) for f in findings] == [(8, "CL150")]


CONTAINERS_OF_IMPORTED_LAYERS = {
    "comprehension": "        self.steps = nn.ModuleList([Step() for _ in range(3)])\n",
    "append": "        self.steps = nn.ModuleList()\n        for _ in range(3):\n            self.steps.append(Step())\n",
    "sequential": "        self.steps = nn.Sequential(Step(), Step())\n",
}


@pytest.mark.parametrize("built", sorted(CONTAINERS_OF_IMPORTED_LAYERS))
def test_layers_of_an_imported_class_in_a_container_are_followed(site: Path, built: str) -> None:
    # PyG's `self.convs = ModuleList([GCNConv(d, d) ...])`, `for conv in self.convs: conv(x, e)`:
    # measured on torch 2.13 with torch_geometric 2.8.1, each layer breaks in gcn_norm (GB0036)
    user = (
        "import torch\nfrom torch import nn\nfrom solvers import Step\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n" + CONTAINERS_OF_IMPORTED_LAYERS[built] +
        "    def forward(self, x):\n"
        "        for step in self.steps:\n            x = step(x)\n"
        "        first = self.steps[0]\n"
        "        return first(x)\n"
    )  # fmt: skip
    findings = lint_source(user, "model.py", _settings(site)).findings
    lines = user.splitlines()
    assert [(lines[f.line - 1].strip(), f.code) for f in findings] == [("x = step(x)", "CL150"), ("return first(x)", "CL150")]


def test_a_container_of_torch_layers_reaches_no_package(site: Path) -> None:
    user = (
        "import torch\nfrom torch import nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.steps = nn.ModuleList([nn.Linear(2, 2)])\n"
        "    def forward(self, x):\n"
        "        for step in self.steps:\n            x = step(x)\n"
        "        return x\n"
    )  # fmt: skip
    assert lint_source(user, "model.py", _settings(site)).findings == ()


NUM_NODES = {
    "graphs-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: graphs\nVersion: 1.0\n",
    "graphs/__init__.py": (
        "import torch\n"
        "def num_nodes(index, n=None):\n"
        "    if n is not None:\n"
        "        return n\n"
        "    return int(index.max()) + 1\n"
        "def degree(index, n=None):\n"
        "    return torch.zeros(num_nodes(index, n)).index_add_(0, index, torch.ones(index.numel()))\n"
    ),
}


@pytest.mark.parametrize(("passed", "breaks"), [("x.size(0)", False), ("x.shape[0]", False), ("None", True), ("", True)])
def test_a_size_passed_for_an_optional_argument_is_not_none(tmp_path: Path, passed: str, breaks: bool) -> None:
    # PyG's degree(col, x.size(0)) -> maybe_num_nodes returns the size before int(index.max());
    # measured on torch 2.13 (torch_geometric 2.8.1): no break with the size, GB0124 without
    _write(tmp_path / "site", NUM_NODES)
    argument = f", {passed}" if passed else ""
    user = (
        "import torch\nfrom torch import nn\nfrom graphs import degree\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x, index):\n"
        f"        return x * degree(index{argument}).view(-1, 1)\n"
    )
    findings = lint_source(user, "model.py", _settings(tmp_path / "site")).findings
    assert [(f.line, f.code) for f in findings] == ([(6, "CL150")] if breaks else [])


def test_follow_imports_project_and_none(site: Path) -> None:
    for follow in ("project", "none"):
        assert lint_source(USER, "model.py", replace(_settings(site), follow_imports=follow)).findings == ()


def test_the_packages_own_files_are_project_code(site: Path) -> None:
    inside = site / "solvers" / "model.py"
    inside.write_text(USER)
    assert [f.code for r in lint_paths([str(inside)], _settings(site), jobs=1) for f in r.findings] == []


def test_summaries_are_cached_per_version_and_invalidated_by_edits(site: Path, tmp_path: Path) -> None:
    from compilelint.installed import _follower

    cache = tmp_path / "cache"
    first = lint_source(USER, "model.py", _settings(site, cache)).findings
    files = list((cache / "packages").iterdir())
    assert [f.name for f in files] == [f"solvers-1.2-compilelint{analysis_stamp()}.json"]
    entries = json.loads(files[0].read_text())["entries"]
    assert any(key.startswith("solvers:solve(") for key in entries)
    _follower.cache_clear()  # a new process: only the disk cache is left
    assert lint_source(USER, "model.py", _settings(site, cache)).findings == first
    checks = site / "solvers" / "checks.py"
    checks.write_text("import torch\ndef check(t):\n    return t\n")
    os.utime(checks, ns=(1, 1))
    _follower.cache_clear()
    assert lint_source(USER, "model.py", _settings(site, cache)).findings == ()


def test_settings_from_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.compilelint]\nfollow-imports = "project"\npython-executable = "/usr/bin/python3"\npackage-paths = ["vendor"]\n'
    )
    settings = load_settings([str(tmp_path)])
    assert settings.follow_imports == "project"
    assert settings.package_paths == (str(tmp_path / "vendor"),)
    (tmp_path / "pyproject.toml").write_text('[tool.compilelint]\nfollow-imports = "all"\n')
    with pytest.raises(ConfigError, match="follow-imports"):
        load_settings([str(tmp_path)])


def test_follow_imports_none_keeps_to_the_file(tmp_path: Path) -> None:
    _write(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/utils.py": "import torch\ndef helper(x):\n    print(x)\n    return x\n",
        "pkg/model.py": "import torch\nfrom .utils import helper\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return helper(x)\n",
    })  # fmt: skip
    followed = [f.code for r in lint_paths([str(tmp_path)], jobs=1) for f in r.findings]
    alone = [f.code for r in lint_paths([str(tmp_path)], replace(DEFAULT_SETTINGS, follow_imports="none"), jobs=1) for f in r.findings]
    assert (followed, alone) == (["CL101"], [])


def test_flake8_gets_the_same_call_site_finding(site: Path) -> None:
    import ast

    from compilelint.flake8_plugin import CompileLintChecker

    from_engine = lint_source(USER, "model.py", _settings(site)).findings
    checker = CompileLintChecker(ast.parse(USER), USER.splitlines(keepends=True), "model.py")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("compilelint.flake8_plugin.settings_for_folder", lambda folder: _settings(site))
        errors = list(checker.run())
    assert [(line, message.split()[0]) for line, _, message, _ in errors] == [(f.line, f.code) for f in from_engine]


# An ODE-solver-shaped package: a table of solver classes in one file, the solvers in
# another, their base class (with the loop that calls the steps) in a third.
SOLVER_PACKAGE = {
    "odes-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: odes\nVersion: 0.1\n",
    "odes/__init__.py": "from .api import integrate, integrate_adjoint\n",
    "odes/api.py": (
        "from .adaptive import Adaptive\n"
        "from .fixed import Fixed\n"
        "SOLVERS = {'adaptive': Adaptive, 'fixed': Fixed}\n"
        "def integrate(f, y, t, method='adaptive'):\n"
        "    solver = SOLVERS[method](f, y)\n"
        "    return solver.run(t)\n"
        "def integrate_adjoint(f, y, t, method='adaptive'):\n"
        "    return integrate(f, y, t, method)\n"
    ),
    "odes/base.py": (
        "import torch\n"
        "class Solver:\n"
        "    def __init__(self, f, y):\n"
        "        self.f, self.y = f, y\n"
        "    def run(self, t):\n"
        "        self.prepare(t)\n"
        "        return self.step(t)\n"
        "    def prepare(self, t):\n"
        "        pass\n"
        "    def step(self, t):\n"
        "        raise NotImplementedError\n"
    ),
    "odes/adaptive.py": (
        "import torch\n"
        "from .base import Solver\n"
        "class Adaptive(Solver):\n"
        "    def step(self, t):\n"
        "        dt = t[1] - t[0]\n"
        "        if dt > 0.5:\n"
        "            dt = dt / 2\n"
        "        return self.y + dt\n"
    ),
    "odes/fixed.py": (
        "import torch\n"
        "from .base import Solver\n"
        "class Fixed(Solver):\n"
        "    def prepare(self, t):\n"
        "        self.n = int(t[-1].item())\n"
        "    def step(self, t):\n"
        "        return self.y\n"
    ),
}


def _solver_site(tmp_path: Path) -> Path:
    _write(tmp_path / "site", SOLVER_PACKAGE)
    return tmp_path / "site"


def _reached(user: str, site: Path) -> list[tuple[str, int, str]]:
    result = lint_source(user, "model.py", _settings(site))
    return sorted((s.path, s.line, s.code) for f in result.findings for s in f.reached_sites)


def test_table_of_imported_classes_and_inherited_methods_are_followed(tmp_path: Path) -> None:
    # SOLVERS[method](...) builds either class; solver.run(t) is Solver.run, inherited from
    # another file, whose self.prepare()/self.step() run each subclass's override
    site = _solver_site(tmp_path)
    user = (
        "import torch\nimport odes\n"
        "class Block(torch.nn.Module):\n"
        "    def forward(self, x, t):\n"
        "        return odes.integrate(lambda s, y: y, x, t)\n"
    )
    # api.py builds the solver and calls its method, which breaks three files away: Dynamo
    # cannot split integrate's graph at the call (measured on torch 2.13: GB0092 at api.py:6)
    assert _reached(user, site) == [
        ("odes/adaptive.py", 6, "CL103"), ("odes/api.py", 6, "CL124"), ("odes/fixed.py", 5, "CL105"),
    ]  # fmt: skip
    result = lint_source(user, "model.py", _settings(site))
    [finding] = result.findings
    assert finding.to_json()["reached"][0] == {
        "path": "odes/adaptive.py", "line": 6, "statement": [6, 7], "code": "CL103", "gb_ids": ["GB0170"],
        "breaks": ["default", "fullgraph"], "conditional": False,
    }  # fmt: skip


def test_without_the_override_nothing_is_reached(tmp_path: Path) -> None:
    # Solver.step raises and Solver.prepare passes: the base alone breaks nowhere
    site = _solver_site(tmp_path)
    (site / "odes" / "api.py").write_text(
        "from .base import Solver\nSOLVERS = {'plain': Solver}\n"
        "def integrate(f, y, t, method='plain'):\n    return SOLVERS[method](f, y).run(t)\n"
        "def integrate_adjoint(f, y, t, method='plain'):\n    return integrate(f, y, t, method)\n"
    )
    user = "import torch\nimport odes\nclass Block(torch.nn.Module):\n    def forward(self, x, t):\n        return odes.integrate(None, x, t)\n"
    assert _reached(user, site) == []


def test_a_local_name_holding_either_package_function(tmp_path: Path) -> None:
    site = _solver_site(tmp_path)
    user = (
        "import torch\nimport odes\n"
        "class Block(torch.nn.Module):\n"
        "    def __init__(self, adjoint):\n"
        "        super().__init__()\n"
        "        self.adjoint = adjoint\n"
        "    def forward(self, x, t):\n"
        "        solve = odes.integrate_adjoint if self.adjoint else odes.integrate\n"
        "        return solve(None, x, t)\n"
    )
    result = lint_source(user, "model.py", _settings(site))
    assert [(f.line, f.code) for f in result.findings] == [(9, "CL150")]
    assert "`solve()`" not in result.findings[0].message  # named after the function it runs
    assert _reached(user, site) == [
        ("odes/adaptive.py", 6, "CL103"), ("odes/api.py", 6, "CL124"), ("odes/fixed.py", 5, "CL105"),
    ]  # fmt: skip


def test_a_function_returning_imported_classes_is_followed_to_their_methods(tmp_path: Path) -> None:
    # torchsde's shape: methods.select(m) returns one of the solver classes, imported in
    # another file; the caller builds it (solver_fn(f, y)) and calls its inherited run()
    site = _solver_site(tmp_path)
    (site / "odes" / "methods.py").write_text(
        "from .adaptive import Adaptive\nfrom .fixed import Fixed\n"
        "def select(method):\n    if method == 'adaptive':\n        return Adaptive\n    return Fixed\n"
    )
    (site / "odes" / "api.py").write_text(
        "from . import methods\n"
        "def integrate(f, y, t, method='adaptive'):\n"
        "    solver_fn = methods.select(method)\n"
        "    solver = solver_fn(f, y)\n"
        "    return solver.run(t)\n"
        "def integrate_adjoint(f, y, t, method='adaptive'):\n    return integrate(f, y, t, method)\n"
    )
    user = "import torch\nimport odes\nclass Block(torch.nn.Module):\n    def forward(self, x, t):\n        return odes.integrate(None, x, t)\n"
    # and the solver built there has a breaking method (measured on torch 2.13: GB0092 at api.py:5)
    assert _reached(user, site) == [
        ("odes/adaptive.py", 6, "CL103"), ("odes/api.py", 5, "CL124"), ("odes/fixed.py", 5, "CL105"),
    ]  # fmt: skip


def test_a_function_returning_a_class_of_its_own_file(tmp_path: Path) -> None:
    site = _solver_site(tmp_path)
    (site / "odes" / "api.py").write_text(
        "import torch\n"
        "class Stepper:\n"
        "    def __init__(self, y):\n        self.y = y\n"
        "    def run(self, t):\n        return self.y * t.max().item()\n"
        "def pick():\n    return Stepper\n"
        "def integrate(f, y, t, method='adaptive'):\n"
        "    make = pick()\n"
        "    stepper = make(y)\n    return stepper.run(t)\n"
        "def integrate_adjoint(f, y, t, method='adaptive'):\n    return integrate(f, y, t, method)\n"
    )
    user = "import torch\nimport odes\nclass Block(torch.nn.Module):\n    def forward(self, x, t):\n        return odes.integrate(None, x, t)\n"
    # the stepper is built in compiled code and its breaking method is called on it: Dynamo
    # cannot rebuild the bound method at that break (GB0092, measured on torch 2.13)
    assert _reached(user, site) == [("odes/api.py", 6, "CL105"), ("odes/api.py", 12, "CL124")]


# torchsde's shape: the API builds a noise source and a solver, passes the source to the
# solver's constructor, which hands it on through **kwargs to a base class in another file
# that stores it (self.noise = noise); the subclass's step calls it (self.noise(t)).
NOISE_PACKAGE = {
    "noisy-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: noisy\nVersion: 0.1\n",
    "noisy/__init__.py": "from .api import solve\n",
    "noisy/source.py": (
        "import torch\n"
        "class Source:\n"
        "    def __init__(self, size):\n        self.size = size\n"
        "    def __call__(self, t):\n        return torch.randn(self.size) * float(t)\n"
        "    def reset(self, t):\n        print(t)\n"
    ),
    "noisy/base.py": (
        "class Solver:\n"
        "    def __init__(self, f, noise, dt):\n        self.f, self.noise, self.dt = f, noise, dt\n"
        "    def run(self, y, t):\n        self.noise.reset(t)\n        return self.step(y, t)\n"
    ),
    "noisy/euler.py": (
        "from .base import Solver\n"
        "class Euler(Solver):\n"
        "    def __init__(self, f, **kwargs):\n        super().__init__(f=f, **kwargs)\n"
        "    def step(self, y, t):\n        return y + self.noise(t[0])\n"
    ),
    "noisy/api.py": (
        "from .euler import Euler\nfrom .source import Source\n"
        "def _prepare(y, t, noise):\n"
        "    if noise is None:\n        noise = Source(y.shape)\n"
        "    return y, t, noise\n"
        "def solve(f, y, t, noise=None):\n"
        "    y, t, noise = _prepare(y, t, noise)\n"
        "    solver = Euler(f=f, noise=noise, dt=0.1)\n"
        "    return solver.run(y, t)\n"
    ),
}


def test_an_instance_passed_to_a_constructor_and_stored_is_followed_to_its_methods(tmp_path: Path) -> None:
    _write(tmp_path / "site", NOISE_PACKAGE)
    user = "import torch\nimport noisy\nclass Block(torch.nn.Module):\n    def forward(self, x, t):\n        return noisy.solve(None, x, t)\n"
    # Source.__call__'s float(t) of a tensor, and Source.reset's print; then GB0092 at
    # solver.run(y, t), of the solver solve() built (measured on torch 2.13)
    assert _reached(user, tmp_path / "site") == [
        ("noisy/api.py", 10, "CL124"), ("noisy/source.py", 6, "CL105"), ("noisy/source.py", 8, "CL101"),
    ]  # fmt: skip


def test_an_attribute_holding_a_plain_value_is_no_instance(tmp_path: Path) -> None:
    files = dict(NOISE_PACKAGE)
    files["noisy/api.py"] = (
        "from .euler import Euler\n"
        "def solve(f, y, t, noise=None):\n"
        "    solver = Euler(f=f, noise=noise, dt=0.1)\n"
        "    return solver.run(y, t)\n"
    )
    _write(tmp_path / "site", files)
    user = "import torch\nimport noisy\nclass Block(torch.nn.Module):\n    def forward(self, x, t):\n        return noisy.solve(None, x, t)\n"
    # no Source is built, so self.noise(t[0]) runs no Source.__call__ (source.py:6); the
    # method self.noise.reset(t) names is Source's, the one class defining it (duck_calls)
    assert _reached(user, tmp_path / "site") == [("noisy/source.py", 8, "CL101")]


SEEDED_PACKAGE = {
    "seeded-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: seeded\nVersion: 0.1\n",
    "seeded/__init__.py": "from .api import noisy, noisy_forwarded, noisy_none, noisy_seeded\nfrom .spread import noisy_with\n",
    "seeded/api.py": (
        "import numpy as np\nimport torch\n"
        "def _noise(x, seed=None):\n"
        "    if seed is None:\n"
        "        seed = np.random.randint(0, 2 ** 31 - 1)\n"
        "    return x * (seed % 7)\n"
        "def noisy(x):\n    return _noise(x)\n"
        "def noisy_seeded(x, seed):\n    return _noise(x, seed)\n"
        "def noisy_forwarded(x, seed=None):\n    return _noise(x, seed)\n"
        "def noisy_none(x):\n    return _noise(x, None)\n"
    ),
    "seeded/spread.py": "from .api import _noise\ndef noisy_with(x, options):\n    return _noise(x, **options)\n",
}


def test_a_none_default_no_call_replaces_decides_its_test(tmp_path: Path) -> None:
    # torchsde's BrownianInterval(entropy=None): `if entropy is None:` always runs its body,
    # so the NumPy draw there is no side path (GB0033 measured on torch 2.13); a caller that
    # passes a seed leaves the test open, and the draw under it does not count
    _write(tmp_path / "site", SEEDED_PACKAGE)
    user = "import torch\nimport seeded\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return seeded.noisy(x)\n"
    assert _reached(user, tmp_path / "site") == [("seeded/api.py", 5, "CL107")]
    passing = user.replace("seeded.noisy(x)", "seeded.noisy_seeded(x, 3)")
    assert _reached(passing, tmp_path / "site") == []
    # options spread into the call may hold the seed: the test stays open (torchdiffeq's
    # SOLVERS[method](func=func, y0=y0, **options) gives step_size through **options)
    spreading = user.replace("seeded.noisy(x)", "seeded.noisy_with(x, {'seed': 3})")
    assert _reached(spreading, tmp_path / "site") == []
    # a None passed on, as a literal or as a name that is None there, gives no value:
    # sdeint(bm=None) calls check_contract(sde, y0, ts, bm), and `if bm is None:` is decided
    for call in ("seeded.noisy_forwarded(x)", "seeded.noisy_none(x)"):
        assert _reached(user.replace("seeded.noisy(x)", call), tmp_path / "site") == [("seeded/api.py", 5, "CL107")]


def test_classes_built_in_a_factory_function_are_compiled_code(tmp_path: Path) -> None:
    # def build(): import odes; class Block(nn.Module): ...; return Block()
    site = _solver_site(tmp_path)
    user = (
        "import torch\n"
        "def build(scale):\n"
        "    import odes\n"
        "    class Block(torch.nn.Module):\n"
        "        def forward(self, x, t):\n"
        "            print(x)\n"
        "            return odes.integrate(None, x * scale, t)\n"
        "    return Block()\n"
    )
    result = lint_source(user, "model.py", _settings(site))
    assert [(f.line, f.code) for f in result.findings] == [(6, "CL101"), (7, "CL150")]
    assert result.findings[0].region == ("Block.forward",)


NORMS_USER = "import torch\nimport norms\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return norms.run(x)\n"


def _norms_reached(tmp_path: Path, files: dict[str, str]) -> list[tuple[str, int, str]]:
    """What NORMS_USER's call of norms.run reaches in a package `norms` of these files."""
    header = {"norms-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: norms\nVersion: 0.1\n",
              "norms/__init__.py": "from .core import run\n"}  # fmt: skip
    _write(tmp_path / "site", {**header, **files})
    return _reached(NORMS_USER, tmp_path / "site")


def test_what_a_function_of_another_file_returns_reaches_its_callers(tmp_path: Path) -> None:
    # checks.normalise returns (tensor, python flag); the branch on its first element in
    # core.py breaks, the branch on its second does not
    files = {
        "norms/checks.py": (
            "import torch\n"
            "def normalise(y, flag=False):\n"
            "    return y.abs().sum(), flag\n"
        ),
        "norms/core.py": (
            "from .checks import normalise\n"
            "def run(y):\n"
            "    size, flag = normalise(y)\n"
            "    if flag:\n"
            "        y = -y\n"
            "    if size > 1:\n"
            "        return y / size\n"
            "    return y\n"
        ),
    }
    assert _norms_reached(tmp_path, files) == [("norms/core.py", 6, "CL103")]


def test_a_return_learned_later_replaces_the_unknown_passed_before(tmp_path: Path) -> None:
    # core.run passes normalise()'s result on to decide() in a third file: in the first
    # round core does not know it is a tensor yet; once it does, decide sees a tensor
    files = {
        "norms/checks.py": "import torch\ndef normalise(y):\n    return y.abs().sum()\n",
        "norms/decide.py": "def decide(size, y):\n    if size > 1:\n        return y / size\n    return y\n",
        "norms/core.py": (
            "from .checks import normalise\nfrom .decide import decide\n"
            "def run(y):\n    return decide(normalise(y), y)\n"
        ),
    }
    assert _norms_reached(tmp_path, files) == [("norms/decide.py", 2, "CL103")]


def test_a_tensor_from_one_caller_outweighs_an_unknown_from_another(tmp_path: Path) -> None:
    # interp.linear gets a tensor from run and whatever a lambda's caller gives from the
    # lambda: it runs with the tensor, and its test breaks there (measured on torch 2.13:
    # GB0170 at `if t == t0`); `unseen` gets only what the lambda's caller gives
    files = {
        "norms/interp.py": (
            "def linear(t0, t):\n"
            "    if t == t0:\n"
            "        return t\n"
            "    return t * 2\n"
            "def unseen(t0, t):\n"
            "    if t == t0:\n"
            "        return t\n"
            "    return t * 2\n"
        ),
        "norms/core.py": (
            "from .interp import linear, unseen\n"
            "def run(y):\n"
            "    f = lambda s: linear(y.max(), s) + unseen(s, s)\n"
            "    return linear(0.5, y[1])\n"
        ),
    }
    assert _norms_reached(tmp_path, files) == [("norms/interp.py", 2, "CL103")]


def test_a_method_given_a_tensor_by_one_call_and_an_unknown_by_another() -> None:
    # the same within one file: self._linear(t0, t[1]) and a lambda's self._linear(t0, s)
    user = (
        "import torch\n"
        "class Interp:\n"
        "    def __init__(self, grid):\n"
        "        self.grid = grid\n"
        "    def _linear(self, t0, t):\n"
        "        if t == t0:\n"
        "            return t\n"
        "        return t * 2\n"
        "    def integrate(self, t):\n"
        "        f = lambda s: self._linear(self.grid[0], s)\n"
        "        return self._linear(self.grid[0], t[1])\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        interp = Interp(x)\n"
        "        return interp.integrate(x)\n"
    )
    result = lint_source(user, "model.py", DEFAULT_SETTINGS)
    assert [(f.line, f.code) for f in result.findings] == [(6, "CL103")]


def test_a_return_through_a_reexport_reaches_its_callers(tmp_path: Path) -> None:
    # core imports count() through the package's __init__.py (PyG's
    # `from torch_geometric.utils import scatter`): what count returns is what the
    # re-export returns, so int() of it in core takes a Python number from tensor data
    files = {
        "norms/__init__.py": "from .core import run\nfrom .counting import count\n",
        "norms/counting.py": "import torch\ndef count(batch):\n    return torch.ones_like(batch).cumsum(0)\n",
        "norms/core.py": (
            "from norms import count\n"
            "def run(y):\n"
            "    n = int(count(y).max())\n"
            "    return y[:n]\n"
        ),
    }
    assert _norms_reached(tmp_path, files) == [("norms/core.py", 3, "CL105")]


def test_a_constant_set_under_a_tensor_branch_leaves_the_tensor_on_the_other_path() -> None:
    # torchdiffeq's step control: `if dt > max_step` breaks, and Dynamo resumes with
    # `accept` the tensor unless that branch ran (measured on torch 2.13: GB0170 at
    # `if accept:` with max_step=inf, none with max_step=0); a Python test keeps it quiet
    user = (
        "import torch\n"
        "class Step(torch.nn.Module):\n"
        "    def forward(self, x, dt):\n"
        "        accept = x.abs().max() <= 1\n"
        "        if dt > self.max_step:\n"
        "            accept = False\n"
        "        if accept:\n"
        "            x = x * 2\n"
        "        keep = x.abs().max() <= 1\n"
        "        if self.training:\n"
        "            keep = False\n"
        "        if keep:\n"
        "            return x\n"
        "        return -x\n"
    )
    result = lint_source(user, "model.py", DEFAULT_SETTINGS)
    assert [(f.line, f.code, f.only_when) for f in result.findings] == [
        (5, "CL103", ()), (7, "CL103", ("not dt > self.max_step",)),
    ]  # fmt: skip


def test_a_value_that_calls_a_tensor_only_method_is_a_tensor(tmp_path: Path) -> None:
    # norm is a parameter (any callable); norm(y).abs() is a tensor: no number, array,
    # container or module has .abs()
    user = (
        "import torch\n"
        "def step(norm, y):\n"
        "    d = norm(y).abs()\n"
        "    if d < 1e-5:\n"
        "        return y\n"
        "    m = norm(y).float()\n"  # modules have .float() too: not evidence
        "    if m < 1e-5:\n"
        "        return y * 2\n"
        "    return y / d\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        return step(torch.linalg.norm, x)\n"
    )
    result = lint_source(user, "model.py", DEFAULT_SETTINGS)
    assert [(f.line, f.code) for f in result.findings] == [(4, "CL103")]


def test_a_package_function_imported_inside_forward_is_followed(site: Path) -> None:
    # `from solvers import solve` in the method body, as PyG users write to_dense_batch
    user = (
        "import torch\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, x):\n"
        "        from solvers import solve\n"
        "        import solvers.core as core\n"
        "        return solve(x, x) + core.solve(x, x)\n"
    )
    result = lint_source(user, "model.py", _settings(site))
    assert [(f.line, f.code) for f in result.findings] == [(6, "CL150"), (6, "CL150")]


# torchsde's shape: sdeint's check_contract builds a ForwardSDE (base_sde.py), whose
# __init__ stores bound methods of itself, then calls something that breaks while it is live.
HOLDER_PACKAGE = {
    "holding-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: holding\nVersion: 0.1\n",
    "holding/__init__.py": "from .api import solve, solve_plain, solve_dead, solve_in_arm, solve_noise\n",
    "holding/noise.py": (
        "class Noise:\n"
        "    def __init__(self, x):\n"
        "        if x.dim() > 2:\n            raise ValueError('x')\n"
        "        self.scale = float(x.sum())\n"
    ),
    "holding/rules.py": (
        "class Rules:\n"
        "    def __init__(self, kind):\n"
        "        self.apply = {'zero': self._zero}.get(kind, self._identity)\n"
        "    def _zero(self, x):\n        return x * 0\n"
        "    def _identity(self, x):\n        return x\n"
        "class Plain:\n"
        "    def __init__(self, kind):\n        self.kind = kind\n"
        "    def apply(self, x):\n        return x\n"
    ),
    "holding/api.py": (
        "from . import noise, rules\n"
        "def _noisy(x):\n    return x * float(x.sum())\n"
        "def solve(x):\n"
        "    r = rules.Rules('zero')\n"
        "    y = _noisy(x)\n"
        "    return r.apply(y)\n"
        "def solve_plain(x):\n"
        "    r = rules.Plain('zero')\n"
        "    y = _noisy(x)\n"
        "    return r.apply(y)\n"
        "def solve_dead(x):\n"
        "    r = rules.Rules('zero')\n"
        "    y = r.apply(x)\n"
        "    return _noisy(y)\n"
        "def solve_in_arm(x, flag=True):\n"
        "    r = rules.Rules('zero')\n"
        "    if flag:\n"
        "        x = _noisy(x)\n"
        "    return r.apply(x)\n"
        "def solve_noise(x):\n"
        "    r = rules.Rules('zero')\n"
        "    n = noise.Noise(x)\n"
        "    return r.apply(x) * n.scale\n"
    ),
}
HOLDER_CLAIMS = {  # (api.py line, rule) per function, measured on torch 2.13 (test_holder_claims_are_what_dynamo_does)
    "solve": [(3, "CL105"), (6, "CL124")],
    "solve_plain": [(3, "CL105")],
    "solve_dead": [(3, "CL105")],
    "solve_in_arm": [(3, "CL105"), (19, "CL124")],
    # Noise's constructor rejects bad input, then always breaks: a break at the call
    "solve_noise": [(23, "CL124")],
}


def _holder_claims(site: Path, function: str) -> list[tuple[int, str]]:
    user = f"import torch\nimport holding\nclass Block(torch.nn.Module):\n    def forward(self, x):\n        return holding.{function}(x)\n"
    return [(line, code) for path, line, code in _reached(user, site) if path == "holding/api.py"]


@pytest.mark.parametrize("function", sorted(HOLDER_CLAIMS))
def test_an_object_of_another_file_holding_its_own_bound_methods_meets_a_break(tmp_path: Path, function: str) -> None:
    # the class's file tells the caller's that its instances hold bound methods of
    # themselves (KnownReturn.holds_own_methods): a break while one is live is GB0092
    _write(tmp_path / "site", HOLDER_PACKAGE)
    assert _holder_claims(tmp_path / "site", function) == HOLDER_CLAIMS[function]


@pytest.mark.dynamo
def test_holder_claims_are_what_dynamo_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    from dynamo_recorder import record

    _write(tmp_path / "site", HOLDER_PACKAGE)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    import holding

    api = str(tmp_path / "site" / "holding" / "api.py")
    for function in HOLDER_CLAIMS:
        broke = record(getattr(holding, function), [(torch.randn(3),)], api, fullgraph=False).breaks
        gb092 = sorted({line for _, line, gb_type in broke if gb_type == "Reconstruction failure"})
        assert gb092 == [line for line, code in HOLDER_CLAIMS[function] if code == "CL124"], function


# torchsde's Brownian interval drives generators with the `trampoline` package, which
# returns what they returned, read off StopIteration.value; and it calls its tree nodes'
# private methods on objects read from lists (intervals[0]._increment_and_levy_area()).
DRIVER_PACKAGE = {
    "driver-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: driver\nVersion: 0.1\n",
    "driver/__init__.py": (
        "def run(gen):\n"
        "    try:\n        next(gen)\n"
        "    except StopIteration as e:\n        retval = e.value\n"
        "    return retval\n"
    ),
    "intervals-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: intervals\nVersion: 0.1\n",
    "intervals/__init__.py": "from .nodes import query\n",
    "intervals/nodes.py": (
        "import driver\n"
        "class Node:\n"
        "    def __init__(self, w):\n        self.w = w\n"
        "    def _pair(self):\n"
        "        if False:\n            yield\n"
        "        return self.w, self.w + 1\n"
        "    def _value(self):\n"
        "        w, h = driver.run(self._pair())\n"
        "        return w * h\n"
        "def query(x):\n"
        "    nodes = [Node(x)]\n"
        "    return nodes[0]._value()\n"
    ),
}


def test_a_value_an_installed_package_read_off_stop_iteration_is_used(tmp_path: Path) -> None:
    # Summary.stop_value of driver.run; Node._value reached through the one class defining it
    _write(tmp_path / "site", DRIVER_PACKAGE)
    user = "import torch\nimport intervals\nclass Block(torch.nn.Module):\n    def forward(self, x):\n        return intervals.query(x)\n"
    assert _reached(user, tmp_path / "site") == [("intervals/nodes.py", 10, "CL135")]


@pytest.mark.dynamo
def test_the_stop_value_claim_is_what_dynamo_does(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    torch = pytest.importorskip("torch")
    from dynamo_recorder import record

    _write(tmp_path / "site", DRIVER_PACKAGE)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    import intervals

    nodes = str(tmp_path / "site" / "intervals" / "nodes.py")
    for fullgraph in (False, True):
        result = record(intervals.query, [(torch.randn(3),)], nodes, fullgraph=fullgraph)
        untyped = {line for _, line, gb_type in result.breaks if gb_type == "Unsupported python_type() call"}
        assert untyped | {line for _, line in result.error_sites} == {10}, (fullgraph, result)


def test_site_folders_a_pth_file_puts_on_the_path_are_searched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a venv layered over another's packages (a .pth naming its site-packages): the
    # packages installed there are installed for this interpreter too
    folder = tmp_path / "shared" / "site-packages"
    folder.mkdir(parents=True)
    monkeypatch.setattr(sys, "path", [*sys.path, str(folder)])
    site_dirs.cache_clear()
    try:
        assert os.path.realpath(folder) in site_dirs()
    finally:
        site_dirs.cache_clear()


LINALG_PACKAGE = {  # scipy.linalg's shape: an __init__ star-importing compiled and Python modules
    "linal-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: linal\nVersion: 1.0\n",
    "linal/__init__.py": "from ._fast import *\nfrom ._flapack import *\nfrom ._basic import *\n",
    "linal/_fast.cpython-311-x86_64-linux-gnu.so": "",
    "linal/_flapack.abi3.so": "",
    "linal/_basic.py": "import torch\ndef eig(x):\n    if (x < 0).any():\n        return -x\n    return x\n",
}


def test_a_name_star_imported_past_compiled_extensions_is_found_in_python(tmp_path: Path) -> None:
    _write(tmp_path / "site", LINALG_PACKAGE)
    locator = Locator((str(tmp_path / "site"),))
    # a compiled module holds no source and is no name of the package's __init__.py
    assert locator.locate("linal._fast.eig") is None
    assert locator.locate("linal._flapack.eig") is None
    user = "import torch\nimport linal\nclass Net(torch.nn.Module):\n    def forward(self, x):\n        return linal.eig(x)\n"
    result = lint_source(user, "model.py", _settings(tmp_path / "site"))
    assert [(f.line, f.code) for f in result.findings] == [(5, "CL150")]
    assert sorted(os.path.basename(p) for p in result.findings[0].reaches) == ["__init__.py", "_basic.py"]
    assert [(s.path, s.line) for s in result.findings[0].reached_sites] == [("linal/_basic.py", 3)]


def test_a_summary_stops_at_its_line_budget_and_says_so(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from compilelint.installed import summaries

    files = {
        "norms/core.py": "import torch\nfrom .deep import deeper\ndef run(x):\n    if x.sum() > 0:\n        x = -x\n    return deeper(x)\n",
        "norms/deep.py": "import torch\ndef deeper(x):\n    return x.tolist()\n",
    }
    assert _norms_reached(tmp_path / "all", files) == [("norms/core.py", 4, "CL103"), ("norms/deep.py", 3, "CL105")]
    # __init__.py (2 lines) and core.py (7) fit; deep.py (4), analysed in a later round, does not
    monkeypatch.setattr(summaries, "MAX_LINES", 10)
    assert _norms_reached(tmp_path / "cut", files) == [("norms/core.py", 4, "CL103")]
    [finding] = lint_source(NORMS_USER, "model.py", _settings(tmp_path / "cut" / "site")).findings
    assert "than one summary follows: there may be more" in finding.message


SELECTOR_PACKAGE = {
    "selectors_pkg-0.2.dist-info/METADATA": "Metadata-Version: 2.1\nName: selectors-pkg\nVersion: 0.2\n",
    "selectors_pkg/__init__.py": (
        "import torch\nfrom torch import nn\n"
        "def exists(v):\n    return v is not None\n"
        "class Selector(nn.Module):\n"
        "    def __init__(self, indices):\n"
        "        super().__init__()\n"
        "        indices = torch.tensor(indices)\n"
        "        assert indices.unique().numel() == indices.numel()\n"
        "        self.indices = indices\n"
        "class Embed(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.selector = Selector([0, 1])\n"
        "    def get_selector(self, config=None):\n"
        "        if exists(config):\n"
        "            return self.build(config)\n"
        "        return self.selector\n"
        "    def build(self, config):\n"
        "        return Selector(config)\n"
        "    def forward(self, x, config=None):\n"
        "        selector = self.get_selector(config)\n"
        "        return x[..., selector.indices]\n"
        "    def loud(self, x):\n"
        "        print(x)\n"
        "        return self.forward(x)\n"
    ),
}


def test_sites_behind_a_test_on_the_way_in_make_the_call_site_claim_conditional(tmp_path: Path) -> None:
    # discrete-continuous-embed-readout 0.2.12: Embed.forward builds a new selector only
    # `if exists(selector_config):`; tab_transformer's FTTransformer passes none, and
    # Dynamo (torch 2.13) traced the call without a break, where CL150 had claimed one
    _write(tmp_path / "site", SELECTOR_PACKAGE)
    user = (
        "import torch\nfrom selectors_pkg import Embed\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self):\n        super().__init__()\n        self.embed = Embed()\n"
        "    def forward(self, x):\n        return self.embed(x)\n"
    )
    [finding] = lint_source(user, "model.py", _settings(tmp_path / "site")).findings
    assert finding.code == "CL150" and {s.line for s in finding.reached_sites} == {7, 9}
    assert all(site.conditional for site in finding.reached_sites)
    assert finding.only_when and "each site is reached only under conditions inside selectors_pkg" in finding.message
    # a site on every way in keeps the claim sure, though others are conditional
    always = user.replace("self.embed(x)", "self.embed.loud(x)")
    [finding] = lint_source(always, "model.py", _settings(tmp_path / "site")).findings
    assert finding.only_when == ()


SPLINES = {
    "splines-0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: splines\nVersion: 0.1\n",
    "splines/__init__.py": "from .cubic import Cubic, Linear\n",
    "splines/cubic.py": (
        "import torch\n"
        "class Cubic(torch.nn.Module):\n"
        "    def __init__(self, coeffs, t=None):\n"
        "        super().__init__()\n"
        "        if t is None:\n"
        "            t = torch.linspace(0, 1, coeffs.size(-2))\n"
        "        self.register_buffer('_t', t)\n"
        "        self.register_buffer('_c', coeffs)\n"
        "    @property\n"
        "    def interval(self):\n"
        "        return torch.stack([self._t[0], self._t[-1]])\n"
        "    @property\n"
        "    def grid(self):\n"
        "        return self._t\n"
        "    def evaluate(self, t):\n"
        "        index = torch.bucketize(t, self._t).clamp(0, 4)\n"
        "        return self._c[..., index, :]\n"
        "class Linear(Cubic):\n"
        "    pass\n"
    ),
}


@pytest.mark.parametrize(
    ("read", "reached"),
    [
        ("X.interval[0]", [("splines/cubic.py", 17, "CL105")]),  # a 0-d knot time: a 0-d index
        ("X.interval", []),  # a vector of times: a 1-d index, traced
        ("X.grid[2]", [("splines/cubic.py", 17, "CL105")]),
        ("t", []),  # a graph input of no known rank
    ],
)
def test_a_property_of_an_imported_instance_gives_what_its_getter_returns(tmp_path: Path, read: str, reached: list) -> None:  # type: ignore[type-arg]
    _write(tmp_path / "site", SPLINES)
    user = (
        "import torch\nimport splines\n"
        "class Net(torch.nn.Module):\n"
        "    def forward(self, coeffs, t, linear: bool):\n"
        "        if linear:\n"
        "            X = splines.Linear(coeffs)\n"
        "        else:\n"
        "            X = splines.Cubic(coeffs)\n"
        f"        return X.evaluate({read})\n"
    )
    assert sorted(set(_reached(user, tmp_path / "site"))) == reached
