"""CL112's table of parameter-owning layers: each one, built in compiled code, breaks."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest
from fixture_support import load_module

from compilelint.engine import lint_source

torch = pytest.importorskip("torch")
from dynamo_recorder import record  # noqa: E402

pytestmark = pytest.mark.dynamo

ARGUMENTS = {
    "Bilinear": "4, 4, 4",
    "GroupNorm": "1, 4",
    "MultiheadAttention": "4, 1",
    "PReLU": "",
    "LayerNorm": "4",
    "RMSNorm": "4",
    "BatchNorm1d": "4",
    "BatchNorm2d": "4",
    "BatchNorm3d": "4",
    "TransformerEncoderLayer": "4, 2",
    "TransformerDecoderLayer": "4, 2",
}


def _layers() -> list[str]:
    table = importlib.import_module("compilelint.rules.parameter_in_compiled_code").LAYERS_WITH_PARAMETERS
    return sorted(name.rsplit(".", 1)[1] for name in table)


@pytest.mark.parametrize("layer", _layers())
def test_every_layer_in_the_table_breaks_when_built(layer: str, tmp_path: Path) -> None:
    arguments = ARGUMENTS.get(layer, "1, 1, 1" if layer.startswith("Conv") else "4, 4")
    source = (
        "import torch\nfrom torch import nn\n\n\n"
        f"def f(x):\n    layer = nn.{layer}({arguments})\n    return x + 1, layer\n\n\ncompiled = torch.compile(f)\n"
    )
    path = tmp_path / "probe.py"
    path.write_text(source)
    assert [f.line for f in lint_source(source, str(path)).findings if f.code == "CL112"] == [6]
    default = record(load_module(path).f, [(torch.randn(2),)], str(path), fullgraph=False)
    assert 6 in {line for _, line, _ in default.breaks}
