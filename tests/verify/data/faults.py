"""Targets that fail in every way reliability.md §4.6 lists for the CPU. Each test run
sets COMPILELINT_TEST_DIR so targets can leave evidence (a grandchild's pid)."""

import os
import signal
import subprocess
import sys
import threading
import time

import torch

from compilelint.verify.targets import target


def _double(x):
    return x * 2


def target_segfault():
    import ctypes

    ctypes.string_at(0)


def target_abort():
    os.abort()


@target(timeout=3)
def target_infinite_loop():
    while True:
        pass


@target(timeout=3)
def target_ignores_sigterm():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        time.sleep(0.05)


def target_orphan_grandchild():
    child = subprocess.Popen(["sleep", "1000"])
    with open(os.path.join(os.environ["COMPILELINT_TEST_DIR"], "grandchild.pid"), "w") as f:
        f.write(str(child.pid))
    return _double, [(torch.ones(3),)]


def target_stdout_flood():
    chunk = "x" * (1 << 20)
    for _ in range(50):
        sys.stdout.write(chunk)
    return _double, [(torch.ones(3),)]


def target_hang_at_exit():
    threading.Thread(target=time.sleep, args=(10**6,), daemon=False).start()
    return _double, [(torch.ones(3),)]


def _mismatch(x):
    return x @ torch.ones(5, 5)


def target_eager_failure():
    return _mismatch, [(torch.ones(3, 3),)]


class Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.step = 0

    def forward(self, x):
        self.step += 1
        return x * self.step


def target_recompile_storm():
    torch._dynamo.config.recompile_limit = 2
    return Counter(), [(torch.ones(3),) for _ in range(6)]


def target_suppress_errors():
    torch._dynamo.config.suppress_errors = True
    return _double, [(torch.ones(3),)]


def target_bad_return():
    return _double


def target_dynamo_config_disabled():
    torch._dynamo.config.disable = True
    return _double, [(torch.ones(3),)]


def target_compile_patched_away():
    torch.compile = lambda fn=None, **kwargs: fn
    return _double, [(torch.ones(3),)]


def target_memory_hog():
    hoard = []
    for _ in range(32):  # 256 MB at a time, up to 8 GB: the --memory-limit stops it first
        hoard.append(bytearray(256 << 20))
        time.sleep(0.05)
    return _double, [(torch.ones(3),)]


def target_printing_loop():
    line = "y" * 1023 + "\n"
    for _ in range(200 * 1024):  # 200 MB, over the 64 MB cap on captured output
        sys.stdout.write(line)
    return _double, [(torch.ones(3),)]
