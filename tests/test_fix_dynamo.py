"""Every fix, proved on the installed torch: the fixed fixture compiles where the original broke,
and computes what the original computed.

For each rule with a fix, ``flagged.fixed.py`` (``--fix``) and ``flagged.unsafe-fixed.py``
(``--fix --unsafe-fixes``) are loaded next to ``flagged.py``. Each target of the fixed module:

- either compiles with ``fullgraph=True`` and, in the default mode, runs without a graph
  break; then eager(original) and compiled(fixed) agree on the outputs, on the gradients of
  the inputs and parameters (or of ``loss_<target>`` where the fixture defines one), and on
  whether they raise, for the fixture's inputs and for scaled and negated copies;
- or fails only at a line the linter still flags with no fix to apply (a hazard left alone).

The set of targets that compile after the fix is spelled out below: a fix that stops
working, or a new one, shows up here.
"""

from __future__ import annotations

from typing import Any

import pytest
from fixture_support import FIXTURES, load_module, targets

from compilelint.engine import lint_file
from compilelint.findings import Finding

torch = pytest.importorskip("torch")
from dynamo_recorder import record  # noqa: E402

pytestmark = pytest.mark.dynamo

# (fixture folder, variant) -> targets that compile in one graph once fixed
COMPILES_AFTER_FIX = {
    ("CL101_print_call", "fixed"): {
        "target_compiled_function", "target_print_in_forward", "target_print_in_method",
        "target_print_in_module_helper", "target_print_in_nested_function", "target_print_under_not_scripting",
        "target_decorated_forward", "target_handed_function",
    },
    ("CL102_logging_call", "fixed"): {
        "target_logger_debug_even_when_disabled", "target_logger_info", "target_logging_module_function",
        "target_pretty_print", "target_stderr_write", "target_warnings_warn",
    },
    ("CL103_tensor_dependent_branch", "unsafe-fixed"): {
        "target_branch_in_helper", "target_if_on_any", "target_if_on_reduction", "target_ternary_on_tensor",
    },
    ("CL104_tensor_assert", "unsafe-fixed"): {
        "target_compound_condition", "target_formatted_message", "target_message_from_variable",
        "target_negated_condition", "target_percent_formatted_message",
    },
    # the literal-input targets claim only mode "inductor": the eager backend never broke there
    ("CL106_data_dependent_shape", "unsafe-fixed"): {
        "target_mask_indexing", "target_empty_step_times", "target_nonzero_of_scalar_literal",
    },
    ("CL107_untraceable_call", "unsafe-fixed"): {"target_breakpoint", "target_sleep"},
}
# The masked sum adds zeros in the sum's order: float results may differ in the last bits.
TOLERANCE = {"CL106_data_dependent_shape": {"rtol": 1.3e-6, "atol": 1e-5}}
SCALES = (1.0, -1.0, 1000.0)


def _cases() -> list[tuple[str, str]]:
    return sorted(COMPILES_AFTER_FIX)


@pytest.mark.parametrize(("folder", "variant"), _cases(), ids=[f"{f[:5]}-{v}" for f, v in _cases()])
def test_fixed_fixture_compiles_and_computes_the_same(folder: str, variant: str) -> None:
    flagged = (FIXTURES / folder / "flagged.py").resolve()
    fixed_path = (FIXTURES / folder / f"flagged.{variant}.py").resolve()
    original, fixed = load_module(flagged), load_module(fixed_path)
    unsafe = variant == "unsafe-fixed"
    remaining = lint_file(str(fixed_path)).findings
    compiled_targets: set[str] = set()
    problems: list[str] = []
    for name, _, _ in targets(fixed):
        before, after, inputs = _build_pair(original, fixed, name)
        error = _compile_error(after, inputs, str(fixed_path), remaining, unsafe)
        if error is not None:
            problems += [f"{name}: {error}"] if error else []
            continue
        compiled_targets.add(name)
        problems += [f"{name}: {p}" for p in _compare(before, after, inputs, folder, unsafe, getattr(fixed, f"loss_{name[7:]}", None))]
    assert problems == []
    assert compiled_targets == COMPILES_AFTER_FIX[(folder, variant)]


def _build_pair(original: Any, fixed: Any, name: str) -> tuple[Any, Any, list[Any]]:
    torch.manual_seed(0)
    before, inputs = getattr(original, name)()
    torch.manual_seed(0)
    after, _ = getattr(fixed, name)()
    if isinstance(before, torch.nn.Module):
        after.load_state_dict(before.state_dict())
    return before, after, list(inputs)


def _compile_error(fn: Any, inputs: list[Any], path: str, remaining: tuple[Finding, ...], unsafe: bool) -> str | None:
    """None when ``fn`` compiles in one graph in both modes; '' when it breaks only where a
    hazard is left unfixed; otherwise what went wrong."""
    fullgraph = record(fn, inputs, path, fullgraph=True)
    default = record(fn, inputs, path, fullgraph=False)
    if fullgraph.error is None and not default.breaks:
        return None
    sites = [line for _, line in fullgraph.error_sites] + [line for _, line, _ in default.breaks]
    if not sites:
        return f"fails with no site in the fixture: {fullgraph.error}"
    left = [f for f in remaining if f.fix is None or (not unsafe and f.fix.applicability.value == "unsafe")]
    for line in sites:
        if not any(f.statement_lines[0] <= line <= f.statement_lines[1] for f in left):
            return f"breaks at line {line}, where no unfixed finding is ({fullgraph.error or default.breaks})"
    return ""


def _compare(before: Any, after: Any, inputs: list[Any], folder: str, unsafe: bool, loss: Any) -> list[str]:
    compiled = torch.compile(after, backend="eager", fullgraph=True)
    problems = []
    torch._dynamo.reset()
    for args in inputs:
        for scale in SCALES:
            expected = _run(before, args, scale, loss)
            got = _run(compiled, args, scale, loss)
            problem = _difference(expected, got, TOLERANCE.get(folder, {"rtol": 0.0, "atol": 0.0}), unsafe)
            if problem:
                problems.append(f"inputs x{scale}: {problem}")
    torch._dynamo.reset()
    return problems


def _run(fn: Any, args: tuple[Any, ...], scale: float, loss: Any) -> tuple[str, Any, list[Any]]:
    """("ok", outputs, gradients) or ("raised", exception type, [])."""
    leaves = [a.detach().clone().mul(scale).requires_grad_(a.is_floating_point()) if torch.is_tensor(a) else a for a in args]
    module = fn._orig_mod if hasattr(fn, "_orig_mod") else fn
    parameters = list(module.parameters()) if isinstance(module, torch.nn.Module) else []
    for parameter in parameters:
        parameter.grad = None
    try:
        out = fn(*leaves)
    except Exception as error:  # compared below: both versions must raise
        return "raised", type(error), []
    value = loss(out) if loss is not None else _sum_of_tensors(out)
    wanted = [t for t in [*leaves, *parameters] if torch.is_tensor(t) and t.requires_grad]
    grads = list(torch.autograd.grad(value, wanted, allow_unused=True)) if value is not None and value.requires_grad else []
    return "ok", out, grads


def _sum_of_tensors(out: Any) -> Any:
    leaves = [t for t in torch.utils._pytree.tree_leaves(out) if torch.is_tensor(t) and t.is_floating_point()]
    return sum(t.sum() for t in leaves) if leaves else None


def _difference(expected: tuple[str, Any, list[Any]], got: tuple[str, Any, list[Any]], tolerance: dict[str, float], unsafe: bool) -> str:
    if expected[0] != got[0]:
        return f"eager original {expected[0]} {expected[1]}, compiled fix {got[0]} {got[1]}"
    if expected[0] == "raised":
        same = unsafe or expected[1] is got[1]  # an unsafe fix may change the exception type
        return "" if same else f"raised {expected[1].__name__}, fix raised {got[1].__name__}"
    try:
        torch.testing.assert_close(got[1], expected[1], **tolerance, equal_nan=True)
        torch.testing.assert_close(got[2], expected[2], **tolerance, equal_nan=True)
    except AssertionError as error:
        return str(error).splitlines()[0]
    return ""


def test_every_rule_with_a_fix_has_fixed_fixtures() -> None:
    from compilelint.registry import all_rules

    fixable = {rule.code for rule in all_rules() if rule.fix_applicability is not None}
    folders = {folder[:5] for folder, _ in COMPILES_AFTER_FIX}
    assert fixable == folders
    for folder, variant in COMPILES_AFTER_FIX:
        assert (FIXTURES / folder / f"flagged.{variant}.py").is_file()
