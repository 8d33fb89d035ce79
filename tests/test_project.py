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
