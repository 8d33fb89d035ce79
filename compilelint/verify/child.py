"""The child process: import one target, run it eager and compiled, write a result file.

Run as ``python -m compilelint.verify.child REQUEST.json``. The parent never reads our
stdout (user code may flood it); the verdict goes to ``request["result"]`` by atomic
rename, and the phase we are in goes to ``request["phase"]`` so a timeout or a crash
can say where it happened. We end with ``os._exit`` once the result is written: a
process that used torch.compile can hang at exit (pytorch #115366).
"""

from __future__ import annotations

import faulthandler
import json
import os
import shutil
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from compilelint.verify import statuses
from compilelint.verify.model import TargetRun
from compilelint.verify.reaper import become_warden
from compilelint.verify.statuses import describe_exception
from compilelint.verify.targets import LoadedTarget, call_target, load_module


def write_json_atomic(path: str, data: dict[str, Any]) -> None:
    temporary = f"{path}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        json.dump(data, handle)
    os.replace(temporary, path)


class PhaseFile:
    """Tells the parent which phase we are in (read only on timeout or crash); ``on_enter``
    hears of each phase too (a warm worker notes the state when the compiler takes over)."""

    def __init__(self, path: str | None, on_enter: Callable[[str], None] | None = None) -> None:
        self.path = path
        self.on_enter = on_enter

    def enter(self, name: str) -> None:
        if self.on_enter is not None:
            self.on_enter(name)
        if self.path:
            with open(self.path, "w", encoding="utf-8") as handle:
                handle.write(name)


def _cuda_available() -> bool:
    try:
        import torch
    except BaseException:  # noqa: BLE001 - no torch: certainly no CUDA
        return False
    return bool(torch.cuda.is_available())


def _load(request: dict[str, Any], phases: PhaseFile) -> LoadedTarget | TargetRun:
    """Import the targets file and call the target; a failure is the run's status."""
    phases.enter("import")
    if not _torch_installed():  # before the targets file, whose `import torch` would fail first
        return TargetRun(statuses.ENVIRONMENT_ERROR,
                         f"torch is not installed for {sys.executable} (pip install 'compilelint[verify]')")  # fmt: skip
    root = request.get("project_root")
    if root and root not in sys.path:
        sys.path.insert(0, root)  # targets import the user's package from the project root
    try:
        module = load_module(request["path"])
    except BaseException as exc:  # noqa: BLE001 - SystemExit and KeyboardInterrupt too
        return TargetRun(statuses.IMPORT_ERROR, describe_exception(exc))
    if str(request.get("device", "cpu")).startswith("cuda") and not _cuda_available():
        return TargetRun(statuses.ENVIRONMENT_ERROR, "CUDA is not available in the child process")
    phases.enter("target")
    try:
        return call_target(module, request["name"], request.get("device", "cpu"))
    except BaseException as exc:  # noqa: BLE001
        return TargetRun(statuses.TARGET_ERROR, f"target function failed: {describe_exception(exc)}")


def _torch_installed() -> bool:
    import importlib.util

    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False


def run_request(request: dict[str, Any], on_enter: Callable[[str], None] | None = None) -> TargetRun:
    """Everything up to the result; never raises."""
    phases = PhaseFile(request.get("phase"), on_enter)
    loaded = _load(request, phases)
    if isinstance(loaded, TargetRun):
        return loaded
    try:
        from compilelint.verify.session import run_loaded_target
    except BaseException as exc:  # noqa: BLE001 - torch missing or broken
        return TargetRun(statuses.ENVIRONMENT_ERROR, f"cannot import torch: {describe_exception(exc)}")
    try:
        return run_loaded_target(loaded, request, phases.enter)
    except BaseException as exc:  # noqa: BLE001 - a verifier bug must still be a status
        return TargetRun(statuses.INTERNAL_ERROR, describe_exception(exc))


def watch_parent(folder: str) -> None:
    """If the verify process dies (even by SIGKILL), remove our folder and kill our session's
    process group: this process and everything it started that stayed in the group. (Where
    ``reaper.become_warden`` works, its warden does this for every process below it.)"""
    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.2)
        shutil.rmtree(folder, ignore_errors=True)
        os.killpg(os.getpgid(0), signal.SIGKILL)

    threading.Thread(target=watch, name="compilelint-watch-parent", daemon=True).start()


def main(argv: list[str]) -> None:
    with open(argv[1], encoding="utf-8") as handle:
        request = json.load(handle)
    if not become_warden(os.path.dirname(argv[1])):  # Linux: a warden cleans up, also after verify dies
        watch_parent(os.path.dirname(argv[1]))
    # a crash leaves its Python stack in a file of its own, however much the target prints
    fault_log = open(request["fault"], "w", encoding="utf-8") if request.get("fault") else sys.stderr  # noqa: SIM115
    faulthandler.enable(file=fault_log, all_threads=False)
    result = run_request(request)
    write_json_atomic(request["result"], result.to_json())
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main(sys.argv)
