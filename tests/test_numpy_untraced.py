"""CL127's table (compilelint/data/numpy_untraced-torch-2.13.json) is what the installed
torch's Dynamo maps, over the installed numpy's namespace."""

from __future__ import annotations

import json
from importlib import resources

import pytest

torch = pytest.importorskip("torch")
np = pytest.importorskip("numpy")

TABLE = json.loads((resources.files("compilelint") / "data" / "numpy_untraced-torch-2.13.json").read_text("utf-8"))


def _installed_untraced() -> set[str]:
    from torch._dynamo.variables.misc import get_np_to_tnp_map

    traced = get_np_to_tnp_map()
    return {
        name
        for name in dir(np)
        if not name.startswith("_") and name != "test"
        and callable(value := getattr(np, name)) and not isinstance(value, type) and value not in traced
    }


@pytest.mark.skipif(not torch.__version__.startswith("2.13") or np.__version__ != TABLE["numpy"],
                    reason="the table is torch 2.13's over the numpy it names")
def test_table_is_the_installed_torch_numpy_map() -> None:
    assert set(TABLE["functions"]) == _installed_untraced()
    assert set(TABLE["ufuncs"]) == {n for n in dir(np) if not n.startswith("_") and isinstance(getattr(np, n), np.ufunc)}


@pytest.mark.skipif(not torch.__version__.startswith("2.13") or np.__version__ != TABLE["numpy"],
                    reason="the table is torch 2.13's over the numpy it names")
def test_submodule_tables_are_the_installed_torch_numpy_map() -> None:
    from torch._dynamo.variables.misc import get_np_to_tnp_map

    traced = get_np_to_tnp_map()
    for name, listed in TABLE["submodule_functions"].items():
        module = getattr(np, name)
        found = {n for n in dir(module) if not n.startswith("_") and n != "test"
                 and callable(value := getattr(module, n)) and not isinstance(value, type) and value not in traced}
        assert set(listed) == found, name


def test_traced_functions_are_not_in_the_table() -> None:
    # functions Dynamo traces through torch._numpy, which the rule must never flag
    assert not {"asarray", "array", "where", "sum", "arange", "pad", "outer", "fmod", "copy"} & set(TABLE["functions"])
