"""A local name bound only to functions is called as each of them (analysis/function_aliases)."""

from __future__ import annotations

from pathlib import Path

from compilelint.engine import lint_paths

SPLINES = (
    "def plain(inputs):\n"
    "    mask = inputs > 0\n"
    "    return inputs[mask]\n"
    "def unconstrained(inputs, tails=None):\n"
    "    mask = inputs > 0\n"
    "    return inputs[mask]\n"
    "def never_bound(inputs):\n"
    "    return inputs[inputs > 0]\n"
)
MODEL = (
    "import torch\nfrom torch import nn\nfrom pkg import splines\n"
    "def neumann(g, x):\n"
    "    return torch.autograd.grad(g, x)[0]\n"
    "def basic(g, x):\n"
    "    return torch.autograd.grad(g, x, create_graph=True)[0]\n"
    "class Spline(nn.Module):\n"
    "    def __init__(self, tails=None):\n"
    "        super().__init__()\n"
    "        self.tails = tails\n"
    "    def forward(self, x):\n"
    "        if self.tails is None:\n"
    "            spline_fn = splines.plain\n"
    "            kwargs = {}\n"
    "        else:\n"
    "            spline_fn = splines.unconstrained\n"
    "            kwargs = {'tails': self.tails}\n"
    "        return spline_fn(inputs=x, **kwargs)\n"
    "class Residual(nn.Module):\n"
    "    def forward(self, x, exact: bool):\n"
    "        estimator_fn = neumann if exact else basic\n"
    "        return estimator_fn(x.sum(), x)\n"
    "class Rebound(nn.Module):\n"
    "    def forward(self, x):\n"
    "        fn = splines.never_bound\n"
    "        fn = torch.relu\n"
    "        return fn(x)\n"
)


def _findings(tmp_path: Path) -> set[tuple[str, int, str]]:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "splines.py").write_text(SPLINES)
    (tmp_path / "pkg" / "model.py").write_text(MODEL)
    return {
        (Path(r.path).name, f.line, f.code)
        for r in lint_paths([str(tmp_path)], jobs=1)
        for f in r.findings
    }


def test_each_function_a_local_name_may_hold_is_compiled_code(tmp_path: Path) -> None:
    found = _findings(tmp_path)
    assert ("splines.py", 3, "CL106") in found  # spline_fn on the `if` side
    assert ("splines.py", 6, "CL106") in found  # and on the `else` side
    assert ("model.py", 5, "CL114") in found  # estimator_fn = neumann if exact else basic
    assert ("model.py", 7, "CL114") in found


def test_a_name_also_bound_to_something_else_is_not_followed(tmp_path: Path) -> None:
    assert ("splines.py", 8, "CL106") not in _findings(tmp_path)
