"""A target that crashes on its first run only (tests/verify/test_verify_leaks.py)."""

import os

import torch


def _double(x):
    return x * 2


def target_crashes_once():
    marker = os.path.join(os.environ["COMPILELINT_TEST_DIR"], "crashed-once")
    if not os.path.exists(marker):
        open(marker, "w").close()
        os.abort()
    return _double, [(torch.ones(3),)]
