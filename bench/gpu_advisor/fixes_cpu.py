"""The by-hand fixes before and after, on the CPU with the eager backend: Dynamo's breaks,
graphs and recompiles only (no timing, no Inductor).

    PYTHONPATH=REPO python bench/gpu_advisor/fixes_cpu.py OUT.json TARGET [TARGET ...]

For a venv that has the models' packages (timm, torch_geometric, torchdiffeq) but not
compilelint's own dependencies installed as a package: the static lint is skipped (every
break then counts as missed), which is why this is not ``compilelint verify``.
"""

import json
import os
import sys

from rich.console import Console

from compilelint.verify import command
from compilelint.verify.report import to_json
from compilelint.verify.runner import RunOptions

TARGETS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "targets.py")


def main() -> None:
    command.lint_findings = lambda paths, ran=None: ([], "")
    options = RunOptions(device="cpu", backend="eager", timeout=600, jobs=2, measure=False)
    request = command.VerifyRequest((), (TARGETS,), tuple(sys.argv[2:]), options, quiet=False)
    report = command.verify(request, Console(stderr=True))
    with open(sys.argv[1], "w", encoding="utf-8") as handle:
        json.dump(to_json(report), handle, indent=1)


if __name__ == "__main__":
    main()
