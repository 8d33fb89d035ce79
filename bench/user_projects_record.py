"""Dynamo ground truth for one user-project target (run in the userproj venv, one process each).

    /work/venvs/userproj/bin/python bench/user_projects_record.py TARGET OUT.json

Compiles the target three ways (default, fullgraph=True, dynamic=True; backend "eager")
and records every graph break with compilelint.verify's hooks: the user frame the break is
attributed to (in bench/user_projects) and the frames below it, inside installed packages.
"""
from __future__ import annotations

import json
import os
import sys
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECTS = os.path.join(HERE, "user_projects")
sys.path[:0] = [PROJECTS, os.path.dirname(HERE)]

import torch  # noqa: E402
import torch._dynamo  # noqa: E402

from compilelint.verify.attribution import UserFiles, merge_events  # noqa: E402
from compilelint.verify.dynamo_hooks import DynamoHooks, compile_error  # noqa: E402
from compilelint.verify.recorder import run_phase  # noqa: E402
from compilelint.verify.targets import normalize_input_set  # noqa: E402

MODES = {"default": {}, "fullgraph": {"fullgraph": True}, "dynamic": {"dynamic": True}}


def callers(fn: object, sets: list, user: UserFiles) -> dict[str, list[list[object]]]:
    """Ground truth for "reached through a package from which user line": one eager run
    under a tracer; for every package line that runs, the innermost user frames (file,
    line) on the Python stack. Key: "path:line"."""
    found: dict[str, set[tuple[str, int]]] = {}
    targets_file = os.path.join(PROJECTS, "targets.py")
    origin: dict[int, tuple[str, int] | None] = {}

    def user_site(frame):  # type: ignore[no-untyped-def]
        outer = frame.f_back
        while outer is not None and not (outer.f_code.co_filename in user and outer.f_code.co_filename != targets_file):
            outer = outer.f_back
        return (os.path.realpath(outer.f_code.co_filename), outer.f_lineno) if outer is not None else None

    def local(frame, event, arg):  # type: ignore[no-untyped-def]
        if event == "line":
            site = origin.get(id(frame))
            if site is not None:
                key = f"{os.path.realpath(frame.f_code.co_filename)}:{frame.f_lineno}"
                found.setdefault(key, set()).add(site)
        return local

    def trace(frame, event, arg):  # type: ignore[no-untyped-def]
        filename = frame.f_code.co_filename
        if event != "call" or "site-packages" not in filename or "/torch/" in filename:
            return None
        origin[id(frame)] = user_site(frame)
        return local

    sys.settrace(trace)
    try:
        with torch.no_grad():
            fn(*sets[0].args, **sets[0].kwargs)  # type: ignore[operator]
    finally:
        sys.settrace(None)
    return {key: sorted(map(list, sites)) for key, sites in found.items()}  # type: ignore[arg-type]


def record(name: str) -> dict[str, object]:
    from targets import TARGETS

    fn, raw_sets = TARGETS[name]()
    sets = [normalize_input_set(s) for s in raw_sets]
    user = UserFiles([PROJECTS])
    out: dict[str, object] = {"target": name, "torch": torch.__version__, "modes": {}}
    out["callers"] = callers(fn, sets, user)
    out["compiled_at"] = getattr(TARGETS[name], "compiled_at", None)
    for mode, options in MODES.items():
        torch._dynamo.reset()
        with DynamoHooks(user) as hooks:
            hooks.mode = mode
            phase = run_phase(torch.compile(fn, backend="eager", **options), sets, hooks=hooks)
        torch._dynamo.reset()
        error = compile_error(phase.error, user).to_json() if phase.error is not None else None
        out["modes"][mode] = {  # type: ignore[index]
            "events": [e.to_json() for e in merge_events(hooks.events)],
            "error": error,
        }
    return out


if __name__ == "__main__":
    target, path = sys.argv[1], sys.argv[2]
    try:
        result = record(target)
    except Exception as exc:  # noqa: BLE001 - a target that cannot build is a result
        result = {"target": target, "status": "error", "error": "".join(traceback.format_exception(exc))[-2000:]}
    with open(path, "w") as handle:
        json.dump(result, handle, indent=1)
