"""The dynamic verifier: run targets under ``torch.compile`` and check the static findings.

Nothing in this package imports torch at import time, so ``compilelint verify --help``
and static linting work without it. Only the child process (:mod:`.child`) and the
in-process recorder (:mod:`.recorder`) import torch, when they run.
"""

from __future__ import annotations
