"""Calls into compiled extension modules (CL137): finding where a name is defined without
importing anything, through re-exports and star imports, and the call-site finding (CL150)
for a Python function of a package that calls its own extension."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from compilelint.config import DEFAULT_SETTINGS, Settings
from compilelint.engine import lint_source
from compilelint.installed.extensions import extension_module
from compilelint.installed.locate import Locator

EXTENSION = "_core.cpython-311-x86_64-linux-gnu.so"  # never imported: an empty file will do
PACKAGE = {
    "fastwave-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: fastwave\nVersion: 1.0\n",
    "fastwave/__init__.py": (
        "from ._ext._core import *\n"  # pywt: from ._extensions._pywt import *
        "from ._dwt import *\n"
        "from ._helpers import *\n"
        "from .speedups import escape\n"
    ),
    f"fastwave/_ext/{EXTENSION}": "",  # a namespace folder, no __init__.py (pywt/_extensions)
    "fastwave/_dwt.py": (
        "from ._ext._core import Modes, Wavelet\n"
        "__all__ = ['coeff_len', 'Modes']\n"
        "def coeff_len(n, mode):\n"
        "    return n + Modes.from_object(mode)\n"
    ),
    "fastwave/_helpers.py": "__all__ = ['scale']\ndef scale(x):\n    return x * 2\nclass Wavelet:\n    pass\n",
    "fastwave/speedups/__init__.py": "try:\n    from ._fast import escape\nexcept ImportError:\n    escape = str\n",
    "fastwave/speedups/_fast.abi3.so": "",
    "fastwave/speedups/_fast.py": "def escape(s):\n    return s\n",  # the extension beside it wins
    "onefile.cpython-311-x86_64-linux-gnu.so": "",
}


@pytest.fixture
def site(tmp_path: Path) -> Path:
    for name, text in PACKAGE.items():
        path = tmp_path / "site" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return tmp_path / "site"


def _settings(site: Path) -> Settings:
    return replace(DEFAULT_SETTINGS, package_paths=(str(site),), package_cache_dir="")


@pytest.mark.parametrize(
    ("target", "module"),
    [
        ("fastwave._ext._core.Modes.from_object", "fastwave._ext._core"),
        ("fastwave.Wavelet", "fastwave._ext._core"),  # _helpers' __all__ leaves its Wavelet out
        ("fastwave.Modes.from_object", "fastwave._ext._core"),  # through _dwt's __all__ and import
        ("fastwave._dwt.Wavelet", "fastwave._ext._core"),
        ("fastwave.escape", "fastwave.speedups._fast"),  # a try: import, and .so before .py
        ("onefile.compress", "onefile"),
        ("fastwave.coeff_len", None),  # Python: the follower reads it
        ("fastwave.scale", None),
        ("fastwave._private", None),  # a star import skips private names
        ("fastwave._ext._core", None),  # the module itself is not called
        ("numpy.sort", None),
        ("json.dumps", None),
    ],
)
def test_where_a_name_is_defined(site: Path, target: str, module: str | None) -> None:
    assert extension_module(Locator((str(site),)), target) == module


USER = (
    "import torch\nimport fastwave\nfrom fastwave import Wavelet, coeff_len, scale\n"
    "class Net(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.wavelet = Wavelet('db2')\n"
    "    def forward(self, x):\n"
    "        filters = self.wavelet.filter_bank()\n"
    "        n = coeff_len(x.shape[-1], 'zero')\n"
    "        length = self.wavelet.dec_len\n"
    "        if isinstance(self.wavelet, fastwave.Wavelet):\n"
    "            x = scale(x)\n"
    "        return x[..., :n] * length * fastwave.Wavelet('db1').dec_len\n"
)


def test_calls_into_the_extension_are_flagged_and_reached(site: Path) -> None:
    findings = lint_source(USER, "model.py", _settings(site)).findings
    assert [(f.line, f.code) for f in findings] == [(9, "CL137"), (10, "CL150"), (14, "CL137")]
    assert "`fastwave.Wavelet.filter_bank`, compiled code from `fastwave._ext._core`" in findings[0].message
    assert "`fastwave/_dwt.py:4` `return n + Modes.from_object(mode)` (CL137" in findings[1].message


def test_without_following_installed_packages_nothing_is_known(site: Path) -> None:
    settings = replace(_settings(site), follow_imports="project")
    assert lint_source(USER, "model.py", settings).findings == ()
