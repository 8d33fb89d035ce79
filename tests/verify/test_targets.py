"""Finding targets without importing user code, and shaping what a target returns."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from compilelint.verify.targets import (
    MODULE_PSEUDO_TARGET,
    InputSet,
    TargetDefinitionError,
    discover_targets,
    normalize_input_set,
    normalize_target_result,
    target,
)


def test_discovery_reads_source_and_never_imports(tmp_path: Path) -> None:
    source = tmp_path / "targets.py"
    source.write_text(textwrap.dedent("""
        import compilelint
        raise SystemExit("importing this file would end the test")

        def target_a(): ...

        @compilelint.target
        def b(): ...

        @compilelint.target(timeout=20)
        def c(): ...

        def helper(): ...
    """))
    specs = discover_targets(str(source))
    assert [(s.name, s.timeout) for s in specs] == [("target_a", None), ("b", None), ("c", 20.0)]


def test_a_file_that_does_not_parse_is_one_pseudo_target(data_dir: Path) -> None:
    [spec] = discover_targets(str(data_dir / "fault_syntax.py"))
    assert spec.name == MODULE_PSEUDO_TARGET
    assert spec.parse_error is not None and spec.parse_error.startswith("SyntaxError 1:")


def test_decorator_marks_and_returns_the_function() -> None:
    def f() -> None: ...

    assert target(f) is f
    assert target(timeout=5)(f) is f


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ((1, 2), InputSet((1, 2))),
        (((1,), {"k": 2}), InputSet((1,), {"k": 2})),
        ([1, 2], InputSet(([1, 2],))),  # a bare value is one argument
        ({"k": 1}, InputSet((), {"k": 1})),
    ],
)
def test_input_set_shapes(raw: object, expected: InputSet) -> None:
    assert normalize_input_set(raw) == expected


def test_bad_target_results_are_rejected() -> None:
    with pytest.raises(TargetDefinitionError):
        normalize_target_result(len)
    with pytest.raises(TargetDefinitionError):
        normalize_target_result((len, []))
    with pytest.raises(TargetDefinitionError):
        normalize_target_result((42, [(1,)]))


def test_the_verify_command_imports_without_torch() -> None:
    # A None entry in sys.modules makes `import torch` fail, as if it were not installed.
    code = "import sys; sys.modules['torch'] = None; import compilelint.verify.command as c; print(c.verify_command.name)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "verify"
