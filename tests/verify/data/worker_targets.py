"""Targets that share warm workers, or must not: each leaves what it saw in
COMPILELINT_TEST_DIR (its pid and the recompile limit), so a test can tell."""

import json
import os

import torch

from compilelint.verify.targets import target


def _double(x):
    return x * 2


def _leave(name):
    seen = {"pid": os.getpid(), "recompile_limit": torch._dynamo.config.recompile_limit,
            "variable": os.environ.get("COMPILELINT_TEST_VARIABLE")}
    with open(os.path.join(os.environ["COMPILELINT_TEST_DIR"], f"{name}.json"), "w") as handle:
        json.dump(seen, handle)


def target_clean_first():
    _leave("clean_first")
    return _double, [(torch.ones(3),)]


def target_clean_second():
    _leave("clean_second")
    return _double, [(torch.ones(3),)]


def target_sets_config():
    _leave("sets_config")
    torch._dynamo.config.recompile_limit = 1
    return _double, [(torch.ones(3),)]


def target_after_config():
    _leave("after_config")
    return _double, [(torch.ones(3),)]


def target_sets_environment():
    _leave("sets_environment")
    os.environ["COMPILELINT_TEST_VARIABLE"] = "set"
    return _double, [(torch.ones(3),)]


def target_after_environment():
    _leave("after_environment")
    return _double, [(torch.ones(3),)]


@target(isolate=True)
def target_isolated():
    _leave("isolated")
    return _double, [(torch.ones(3),)]
