"""Targets that leave processes behind in sessions of their own (tests/verify/test_verify_leaks.py)."""

import os
import subprocess

import torch


def _double(x):
    return x * 2


def _evidence(name, pid):
    with open(os.path.join(os.environ["COMPILELINT_TEST_DIR"], name), "w") as handle:
        handle.write(str(pid))


def _daemons():
    """A setsid child; one with an empty environment; one already orphaned (double fork)."""
    _evidence("setsid.pid", subprocess.Popen(["sleep", "60"], start_new_session=True).pid)
    bare = subprocess.Popen(["sleep", "61"], start_new_session=True, env={"PATH": os.environ.get("PATH", "")})
    _evidence("bare.pid", bare.pid)
    shell = "env -i setsid sleep 62 & echo $! > " + os.path.join(os.environ["COMPILELINT_TEST_DIR"], "daemon.pid")
    subprocess.run(["sh", "-c", shell], check=True)


def target_setsid_grandchildren():
    _daemons()
    return _double, [(torch.ones(3),)]


def target_holds_the_gil():
    _daemons()
    _evidence("looping", os.getpid())
    sum(range(10**15))  # one C call: no other thread of ours runs until it ends
    return _double, [(torch.ones(3),)]
