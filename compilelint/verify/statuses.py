"""Stable names for target and finding statuses, and how an exception maps to one.

The names are part of the JSON schema (README_SECTION.md); tests assert each of them.
Exception classes are recognised by name so this module never imports torch.
"""

from __future__ import annotations

# Target statuses: "ok" means the target ran; every other one is a fault (exit code 2).
OK = "ok"
IMPORT_ERROR = "import-error"  # the targets file failed to import (SyntaxError, SystemExit...)
TARGET_ERROR = "target-error"  # the target function or its eager run failed: not the compiler
NO_RESULT = "no-result"  # the process exited without writing a result (os._exit)
CRASHED = "crashed"  # killed by a signal (SIGSEGV, SIGABRT)
TIMEOUT = "timeout"  # ran past its wall-clock limit; the process group was killed
CUDA_OOM = "cuda-oom"
CUDA_ERROR = "cuda-error"  # device-side assert, illegal address: the CUDA context is gone
BACKEND_ERROR = "backend-error"  # BackendCompilerFailed (Inductor, a custom backend)
COMPILE_ERROR = "compile-error"  # any other Dynamo/Inductor failure in default mode
ENVIRONMENT_ERROR = "environment-error"  # e.g. --device cuda and no GPU in the child
INTERNAL_ERROR = "internal-error"  # the verifier itself failed in the child
NOT_COMPILED = "not-compiled"  # Dynamo converted no frame (disabled): no verdict is possible
MEMORY_LIMIT = "memory-limit"  # the target's processes passed --memory-limit; killed

TARGET_STATUSES = (
    OK, IMPORT_ERROR, TARGET_ERROR, NO_RESULT, CRASHED, TIMEOUT, CUDA_OOM, CUDA_ERROR,
    BACKEND_ERROR, COMPILE_ERROR, ENVIRONMENT_ERROR, INTERNAL_ERROR, NOT_COMPILED, MEMORY_LIMIT,
)  # fmt: skip

# Finding statuses.
CONFIRMED = "confirmed"  # Dynamo broke on the finding's statement
NOT_REPRODUCED = "not-reproduced"  # the line ran and Dynamo did not break there
NOT_REACHED = "not-reached"  # no example input executed the line
MISSED = "missed"  # a Dynamo break no finding covers
FINDING_STATUSES = (CONFIRMED, NOT_REPRODUCED, NOT_REACHED)

_MAX_MESSAGE = 400


def describe_exception(exc: BaseException) -> str:
    """``Type: message`` in one short line; SyntaxError with line:col, SystemExit with its code."""
    name = type(exc).__name__
    if isinstance(exc, SyntaxError):
        return f"{name} {exc.lineno}:{exc.offset}: {exc.msg}"
    if isinstance(exc, SystemExit):
        return f"{name} {exc.code}"
    message = " ".join(str(exc).split())
    if len(message) > _MAX_MESSAGE:
        message = message[:_MAX_MESSAGE] + "..."
    return f"{name}: {message}" if message else name


def _chain(exc: BaseException) -> list[BaseException]:
    """The exception and its causes/contexts: Inductor wraps OOMs in its own errors."""
    seen: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in seen and len(seen) < 16:
        seen.append(current)
        current = current.__cause__ or current.__context__
    return seen


def _type_names(exc: BaseException) -> set[str]:
    return {cls.__name__ for cls in type(exc).__mro__}


def classify_compile_failure(exc: BaseException) -> str:
    """The target status for an exception raised by a compiled (or eager CUDA) run."""
    chain = _chain(exc)
    for item in chain:
        if "OutOfMemoryError" in _type_names(item):
            return CUDA_OOM
    for item in chain:
        text = str(item)
        if "AcceleratorError" in _type_names(item) or "CUDA error" in text:
            return CUDA_ERROR
    if "BackendCompilerFailed" in _type_names(exc):
        return BACKEND_ERROR
    return COMPILE_ERROR


def is_cuda_fault(exc: BaseException) -> bool:
    """True when the exception leaves CUDA unusable or out of memory: stop the child there."""
    return classify_compile_failure(exc) in (CUDA_OOM, CUDA_ERROR)
