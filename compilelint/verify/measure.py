"""Latency of a callable (eager or compiled) and whether two outputs agree. Imports torch."""

from __future__ import annotations

import contextlib
import fcntl
import statistics
import time
from collections.abc import Callable, Iterator
from typing import Any

import torch

from compilelint.verify.targets import InputSet

# Inductor reorders float arithmetic, so compiled and eager agree only up to rounding.
_TOLERANCE = {
    torch.float16: (2e-2, 2e-2),
    torch.bfloat16: (3e-2, 3e-2),
    torch.float32: (1e-3, 1e-4),
}


def median_ms(
    fn: Callable[..., Any], inputs: InputSet, *, device: str, warmup: int, repeats: int
) -> float:
    """Median latency of one call in milliseconds, after ``warmup`` calls.

    On CUDA each call is timed with CUDA events around it (GPU time of the work the call
    queued, launch overhead included); on CPU with perf_counter.
    """
    for _ in range(warmup):
        fn(*inputs.args, **inputs.kwargs)
    samples: list[float] = []
    if device.startswith("cuda"):
        torch.cuda.synchronize()
        for _ in range(repeats):
            start = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
            end = torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]
            start.record()
            fn(*inputs.args, **inputs.kwargs)
            end.record()
            end.synchronize()
            samples.append(float(start.elapsed_time(end)))
        return statistics.median(samples)
    for _ in range(repeats):
        started = time.perf_counter()
        fn(*inputs.args, **inputs.kwargs)
        samples.append((time.perf_counter() - started) * 1000.0)
    return statistics.median(samples)


@contextlib.contextmanager
def exclusive(lock_path: str | None) -> Iterator[None]:
    """Hold ``lock_path`` (an flock) while timing, so that targets running side by side on
    one GPU are timed one at a time; no path: no lock."""
    if not lock_path:
        yield
        return
    with open(lock_path, "a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def outputs_match(eager: Any, compiled: Any) -> bool | None:
    """True/False when the outputs can be compared, None when they cannot."""
    try:
        return _match(eager, compiled)
    except Exception:  # noqa: BLE001 - exotic outputs are "cannot tell", never a failure
        return None


def _match(eager: Any, compiled: Any) -> bool | None:
    if isinstance(eager, torch.Tensor) and isinstance(compiled, torch.Tensor):
        if eager.shape != compiled.shape or eager.dtype != compiled.dtype:
            return False
        if not eager.is_floating_point():
            return bool(torch.equal(eager, compiled))
        rtol, atol = _TOLERANCE.get(eager.dtype, (1e-3, 1e-4))
        return bool(torch.allclose(eager, compiled, rtol=rtol, atol=atol, equal_nan=True))
    if isinstance(eager, (tuple, list)) and isinstance(compiled, (tuple, list)):
        if len(eager) != len(compiled):
            return False
        results = [_match(a, b) for a, b in zip(eager, compiled)]
        return None if None in results else all(results)
    if isinstance(eager, dict) and isinstance(compiled, dict):
        if eager.keys() != compiled.keys():
            return False
        return _match([eager[k] for k in eager], [compiled[k] for k in eager])
    if isinstance(eager, (int, float, str, bool, type(None))):
        return bool(eager == compiled)
    return None
