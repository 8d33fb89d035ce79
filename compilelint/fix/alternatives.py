"""What to write instead, spelled with the user's own expressions, where no fix is exact.

CL105's conversions to Python values have no equivalent rewrite: keeping a tensor changes
autograd (``.item()`` detaches), dtypes (a Python float is float64) and what the code after
it may do with the value. So the message names the tensor expression to keep instead.
"""

from __future__ import annotations

import ast

MAX_SHOWN = 40
MATH_TO_TORCH = {
    "sqrt": "sqrt", "exp": "exp", "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p",
    "expm1": "expm1", "sin": "sin", "cos": "cos", "tan": "tan", "tanh": "tanh", "sinh": "sinh",
    "cosh": "cosh", "asin": "asin", "acos": "acos", "atan": "atan", "atan2": "atan2", "floor": "floor",
    "ceil": "ceil", "trunc": "trunc", "fabs": "abs", "pow": "pow", "erf": "erf", "erfc": "erfc",
    "isnan": "isnan", "isinf": "isinf", "isfinite": "isfinite", "lgamma": "lgamma", "hypot": "hypot",
}
CONVERSIONS = {"int": "long", "float": "float", "bool": "bool"}
ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)


def shown(node: ast.expr, default: str = "t") -> str:
    """``node`` as source, or ``default`` when it would not fit in a message."""
    text = ast.unparse(node)
    return text if len(text) <= MAX_SHOWN and "\n" not in text else default


def tensor_to_python(node: ast.Call, builtin: str | None, qualname: str | None) -> str:
    """The concrete alternative to one CL105 call."""
    func = node.func
    first = node.args[0] if node.args else None
    if builtin in CONVERSIONS and first is not None:
        text = shown(first)
        if not isinstance(first, ATOMS) and text != "t":  # `(y.max() * 10).long()`, not `y.max() * 10.long()`
            text = f"({text})"
        return f"keep it a tensor: `{text}.{CONVERSIONS[builtin]}()`"
    if builtin in ("str", "repr"):
        return "format it outside the compiled region"
    if builtin == "range":
        return "loop over a Python int (a size), or vectorise the loop"
    if qualname is not None and qualname.startswith("math."):
        function = MATH_TO_TORCH.get(qualname[5:])
        return f"use `torch.{function}` on the tensor" if function else "compute it with torch ops"
    receiver = func.value if isinstance(func, ast.Attribute) else first
    method = func.attr if isinstance(func, ast.Attribute) else (qualname or "").rsplit(".", 1)[-1]
    pair = node.args if not isinstance(func, ast.Attribute) or qualname else [func.value, *node.args]
    if method in ("equal", "allclose") and len(pair) >= 2:
        a, b = shown(pair[0], "a"), shown(pair[1], "b")
        test = f"({a} == {b}).all()" if method == "equal" else f"torch.isclose({a}, {b}).all()"
        return f"keep it a tensor: `{test}`"
    if method == "is_nonzero" and receiver is not None:
        return f"keep it a tensor: `{shown(receiver)} != 0`"
    if method == "tolist" and receiver is not None:
        return f"keep `{shown(receiver)}` a tensor and index it"
    if method == "item" and receiver is not None:
        return f"keep the 0-d tensor `{shown(receiver)}` (use `.detach()` where the value must not get gradients)"
    return "keep it a tensor"
