"""A warm child: imports torch (and initialises CUDA) once, then runs targets one by one.

Run as ``python -m compilelint.verify.worker FOLDER FD DEVICE BACKEND [MEMORY_FRACTION]``.
It reads the path of one request file per line from file descriptor FD (a pipe) and answers each the way
:mod:`compilelint.verify.child` does: the result by atomic rename to
``request["result"]``, the phase to ``request["phase"]``, its output to the target's own
``stdout``/``stderr`` files and a crash's Python stack to ``request["fault"]``. The
parent keeps the clock and the memory watch; a timeout, a crash or the memory limit
kills this process and the parent starts a new one.

Targets share this process only while none of them changes what the next would see.
The worker compares the process-wide state a target can change (the Dynamo, Inductor
and functorch configs, environment variables, torch's global modes, torch.compile
itself, threads left running) before the target's file is imported with what it is when
the compiler takes over (the first compiled phase), or at the end when the target never
got there: that window holds the user's code (the import, the target function, the eager
run), and not the compiler, which sets state of its own as it goes (Triton's cache
variables, Inductor's threads, measured on torch 2.11 and 2.13). When anything differs,
or the target ended in a status that leaves the process unfit (a CUDA fault, Dynamo
disabled, a verifier error), the worker writes ``worker_retire`` into the result and
exits, so the next target gets a fresh process. A change the user's code makes while
Dynamo runs it is not seen. Processes a target leaves running are killed after it, and
the worker retires too.
"""

from __future__ import annotations

import faulthandler
import gc
import json
import os
import sys
import threading
from typing import Any

from compilelint.verify import statuses
from compilelint.verify.child import run_request, watch_parent, write_json_atomic
from compilelint.verify.reaper import become_warden, below, kill_below, reap_zombies

# A process that ended a target in one of these is not reused.
UNFIT_AFTER = frozenset({statuses.CUDA_ERROR, statuses.CUDA_OOM, statuses.INTERNAL_ERROR,
                         statuses.NOT_COMPILED, statuses.ENVIRONMENT_ERROR})  # fmt: skip
_CONFIG_MODULES = ("torch._dynamo.config", "torch._inductor.config", "torch._functorch.config")


def _config_state() -> dict[str, Any]:
    state: dict[str, Any] = {}
    for name in _CONFIG_MODULES:
        module = sys.modules.get(name)
        copy = getattr(module, "get_config_copy", None)
        if copy is not None:
            try:
                state[name] = repr(sorted(copy().items()))
            except Exception:  # noqa: BLE001 - an unprintable value: compare what we can
                state[name] = None
    return state


def _torch_modes() -> dict[str, Any]:
    import torch

    modes: dict[str, Any] = {
        "torch.compile": id(torch.compile),
        "grad enabled": torch.is_grad_enabled(),
        "inference mode": torch.is_inference_mode_enabled(),
        "default dtype": str(torch.get_default_dtype()),
        "deterministic algorithms": torch.are_deterministic_algorithms_enabled(),
        "threads": torch.get_num_threads(),
        "float32 matmul precision": torch.get_float32_matmul_precision(),
        "cudnn": (torch.backends.cudnn.benchmark, torch.backends.cudnn.deterministic,
                  torch.backends.cudnn.allow_tf32, torch.backends.cuda.matmul.allow_tf32),
    }  # fmt: skip
    default_device = getattr(torch, "get_default_device", None)
    if default_device is not None:
        modes["default device"] = str(default_device())
    return modes


def global_state() -> dict[str, Any]:
    """What one target can change for the next one in the same process."""
    return {
        **_config_state(),
        **_torch_modes(),
        "environment": dict(os.environ),
        "threads left running": sorted(t.name for t in threading.enumerate() if not t.daemon),
    }


def changed(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """Names of the pieces of state that differ; a changed environment names its variables."""
    names = []
    for key in sorted(set(before) | set(after)):
        if before.get(key) == after.get(key):
            continue
        if key == "environment":
            old, new = before.get(key) or {}, after.get(key) or {}
            variables = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
            names.append("environment variables " + ", ".join(variables[:5]))
        else:
            names.append(key)
    return names


class _UserWindow:
    """The state before the user's code ran, and when the compiler took over."""

    def __init__(self) -> None:
        self.before = global_state()
        self.after: dict[str, Any] | None = None

    def enter(self, phase: str) -> None:
        if phase.startswith("compile") and self.after is None:
            self.after = global_state()

    def changes(self) -> list[str]:
        return changed(self.before, self.after if self.after is not None else global_state())


def _redirect(request: dict[str, Any]) -> Any:
    """This target's output to its own files, opened without O_APPEND: the parent's output
    cap empties a file and our writes go on at their offset (runner._cap_output)."""
    sys.stdout.flush()
    sys.stderr.flush()
    for fd, key in ((1, "stdout"), (2, "stderr")):
        target = os.open(request[key], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(target, fd)
        os.close(target)
    fault_log = open(request["fault"], "w", encoding="utf-8")  # noqa: SIM115 - lives with the target
    faulthandler.enable(file=fault_log, all_threads=False)
    return fault_log


def warm_up(device: str, backend: str, memory_fraction: float | None) -> None:
    """What every target would pay again: torch, Dynamo, the backend, the CUDA context, and
    one compile of a tiny function. The compile is not only speed: the compiler sets state
    of its own on first use (Triton's TRITON_CACHE_DIR and TRITON_PTXAS_PATH environment
    variables, measured on torch 2.11 with CUDA), which would otherwise count as the first
    target's change and end every worker after one target."""
    import torch
    import torch._dynamo

    on_gpu = device.startswith("cuda") and torch.cuda.is_available()
    if on_gpu:
        index = torch.device(device).index or 0
        torch.cuda.init()  # type: ignore[no-untyped-call]
        torch.empty(1, device=device)
        if memory_fraction:
            # beside other workers on the same GPU: a target that needs more is run alone later
            torch.cuda.set_per_process_memory_fraction(memory_fraction, index)
    if backend == "inductor":
        import torch._inductor.compile_fx  # noqa: F401

        torch.compile(lambda x: (x * 2).sin(), backend=backend)(torch.ones(8, device=device if on_gpu else "cpu"))
    torch._dynamo.reset()


def _clean_up(device: str) -> list[str]:
    """Reset Dynamo and free the GPU's cached memory. A CUDA context the target poisoned (a
    device-side assert) fails even ``empty_cache`` (measured on the H200, torch 2.11:
    AcceleratorError): the worker retires, and the target's result, already made, still
    goes back instead of the worker dying without one."""
    import torch

    try:
        torch._dynamo.reset()
        gc.collect()
        if device.startswith("cuda") and torch.cuda.is_available():
            torch.cuda.empty_cache()
    except Exception as exc:  # noqa: BLE001 - any failure here means the process is unfit
        first_line = (str(exc).splitlines() or [""])[0]
        return [f"clean-up failed: {type(exc).__name__}: {first_line}"]
    return []


def _processes_left(ours: set[int]) -> list[str]:
    """Kill what the target left running (also in a session of its own: we are a subreaper,
    so its orphans are below us); a target that left any does not share the process."""
    left = kill_below(spare=ours)
    reap_zombies(spare=ours)
    return [f"{len(left)} processes left running"] if left else []


def serve(folder: str, requests_fd: int, device: str, backend: str, memory_fraction: float | None) -> None:
    """Requests come on a pipe of their own, not stdin: a target reading stdin gets /dev/null."""
    if not become_warden(folder):  # Linux: a warden cleans up, also after verify dies
        watch_parent(folder)
    try:
        warm_up(device, backend, memory_fraction)
    except BaseException:  # noqa: BLE001 - no torch, no GPU: each target then says so itself
        pass
    ours = below(os.getpid())  # started by the warm-up (Inductor's compile workers): not a target's
    fault_log = None
    for line in os.fdopen(requests_fd, encoding="utf-8"):
        with open(line.strip(), encoding="utf-8") as handle:
            request = json.load(handle)
        previous, fault_log = fault_log, _redirect(request)
        if previous is not None:
            previous.close()  # only now: faulthandler wrote to it until the line above
        window = _UserWindow()
        result = run_request(request, window.enter)
        unfit = _clean_up(device)
        reasons = window.changes() + _processes_left(ours) + unfit
        if result.status in UNFIT_AFTER:
            reasons.append(f"status {result.status}")
        write_json_atomic(request["result"], {**result.to_json(), "worker_retire": reasons})
        if reasons:
            break
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)  # a process that used torch.compile can hang at exit (pytorch #115366)


if __name__ == "__main__":
    fraction = float(sys.argv[5]) if len(sys.argv) > 5 else None
    serve(sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], fraction)
