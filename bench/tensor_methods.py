"""Write compilelint/data/tensor_methods.json: the attribute names of ``torch.Tensor``,
and of ``torch.distributions.Distribution`` (the other object a ``torch.*`` call returns
whose methods give tensors: ``Categorical(logits=l).entropy()``).

    python bench/tensor_methods.py .venv/bin/python /work/venvs/torch-2.15.0/bin/python ...

Each interpreter's torch is asked for ``dir()`` of both (dunder names left out); the
file holds their union and the releases it came from. The static analysis reads it to tell
a method of a tensor from one of an object it took for a tensor (a wrong annotation:
``cache: torch.Tensor | None`` holding a Cache), without importing torch.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "compilelint" / "data" / "tensor_methods.json"
PROBE = (
    "import json, torch; print(json.dumps([torch.__version__, "
    "sorted(n for c in (torch.Tensor, torch.distributions.Distribution) for n in dir(c) "
    "if not (n.startswith('__') and n.endswith('__')))]))"
)


def main(pythons: list[str]) -> int:
    if not pythons:
        print(__doc__, file=sys.stderr)
        return 2
    releases: list[str] = []
    names: set[str] = set()
    for python in pythons:
        version, found = json.loads(subprocess.run([python, "-c", PROBE], check=True, capture_output=True, text=True).stdout)
        releases.append(version)
        names.update(found)
    OUT.write_text(json.dumps({"releases": sorted(releases), "names": sorted(names)}, indent=0) + "\n", encoding="utf-8")
    print(f"{OUT}: {len(names)} names from torch {', '.join(sorted(releases))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
