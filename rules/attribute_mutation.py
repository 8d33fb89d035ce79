"""CL202: module or global Python state updated inside compiled code."""

from __future__ import annotations

import ast

from compilelint.analysis.class_attributes import is_reset_while_running
from compilelint.analysis.constructors import self_name
from compilelint.analysis.eager_code import happens_with_its_block
from compilelint.analysis.kinds import Kind
from compilelint.analysis.module_index import FunctionInfo
from compilelint.context import RuleContext
from compilelint.registry import Rule

CONTAINER_MUTATORS = frozenset({"append", "extend", "insert", "pop", "update", "setdefault", "clear", "remove"})
GROWING = frozenset({"append", "extend", "insert"})
SHRINKING = frozenset({"pop", "clear", "remove"})
# What builds a plain Python list or deque: an attribute holding one is guarded on its length
LIST_BUILDERS = frozenset({"list", "collections.deque", "deque"})


class AttributeMutation(Rule):
    """Checks for Python state that compiled code reads and updates on every call.

    ## What it does
    Flags, inside a compiled region, read-modify-write updates of Python values kept on
    the module or in globals: `self.step += 1`, `self.count = self.count + 1`,
    `self.stats["n"] += 1`, `self.history.append(...)`, and `global n; n += 1`. A list the
    class sets up (`self.states = []`, `list()`, a deque) and compiled code grows is flagged
    whatever it holds, tensors too, unless the same function sets it afresh or pops it back.
    A container changed only in an `if` arm (`if key not in self.seen:`, a new key) or in a
    one-time setup (a function that also sets a flag to `True`, `self.hook_registered =
    True`) is not flagged: it stops changing once the key is seen or the flag set.
    Updates of tensor attributes (registered buffers and parameters, `self.buf += x`) are
    not flagged.

    ## Why is this bad?
    Dynamo reads the Python value while tracing, installs a guard on it
    (`self.step == 3`), and replays the update after the graph. The next call sees a new
    value, the guard fails and the function is compiled again. Measured on torch 2.13:
    a counter attribute, a global counter, a dict counter and a list that grows each
    (of numbers or of detached tensors: the guard is on its length) recompile on every call
    (6 calls, 6 graphs) until the recompile limit (8) sends the
    function to eager for good. Writing an attribute that is never read (`self.cache = x`)
    does not recompile and is not flagged.

    ## Example
    ```python
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.step = 0

        def forward(self, x):
            self.step += 1
            return x * 2
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("step", torch.zeros((), dtype=torch.long))

        def forward(self, x):
            self.step += 1
            return x * 2
    ```
    A buffer updated in place is a graph input, not a guarded constant: one graph serves
    every call. Or keep the counter outside the compiled model.

    ## Fix safety
    No automatic fix yet: turning an attribute into a buffer changes `state_dict()`, its
    type (a 0-d tensor instead of an int) and every place that reads it.
    """

    code = "CL202"
    name = "attribute-mutation"
    message = "Python state updated in compiled code: Dynamo guards on its value and recompiles every call"
    breaks = ()
    nodes = (ast.AugAssign, ast.Assign, ast.Call)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, ast.AugAssign):
            self._check_target(node.target, node, ctx)
        elif isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if _state_name(target, ctx) and any(_same(target, n) for n in ast.walk(node.value)):
                if not _converted_in_place(target, node.value) and not _written_earlier(target, node, ctx):
                    self._check_target(target, node, ctx)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            receiver = node.func.value
            if node.func.attr in CONTAINER_MUTATORS and _self_attribute(receiver, ctx) and not _per_call_object(ctx):
                if _every_call(node, ctx) and (ctx.kind(receiver) == Kind.STATIC or _grows_a_python_container(node, receiver, ctx)):
                    ctx.report(node, f"`{ast.unparse(receiver)}.{node.func.attr}()` changes a container Dynamo guards on (its length): recompiles every call")

    def _check_target(self, target: ast.expr, node: ast.stmt, ctx: RuleContext) -> None:
        what = _state_name(target, ctx)
        if what is None or _per_call_object(ctx):
            return
        kind = ctx.kind(target)
        if kind & (Kind.TENSOR | Kind.MODULE) or kind == Kind.UNKNOWN and not _adds_a_number(node):
            return  # tensors are graph inputs; unknown values stay quiet
        if _reset_each_call(target, ctx):
            return
        ctx.report(
            target,
            f"{what} is read and updated in compiled code: Dynamo guards on its value and recompiles on every call; "
            "use a buffer updated in place, or keep it outside the compiled model",
            # measured: a global counter recompiles every call on torch 2.11 and 2.13, never on 2.14
            claim="CL202:global" if what.startswith("global") else None,
        )


def _self_attribute(node: ast.expr, ctx: RuleContext) -> bool:
    function = ctx.function
    if function is None or function.owner is None or not isinstance(node, ast.Attribute):
        return False
    args = function.node.args.posonlyargs + function.node.args.args
    return bool(args) and isinstance(node.value, ast.Name) and node.value.id == args[0].arg


def _state_name(target: ast.expr, ctx: RuleContext) -> str | None:
    """`self.x`, `self.x[k]` or a declared global: state that outlives the call."""
    base = target.value if isinstance(target, ast.Subscript) else target
    if _self_attribute(base, ctx):
        return f"`{ast.unparse(target)}`"
    if isinstance(target, ast.Name) and ctx.function is not None and target.id in ctx.function.declared_globals:
        return f"global `{target.id}`"
    return None


def _same(target: ast.expr, node: ast.AST) -> bool:
    return isinstance(node, type(target)) and ast.unparse(node) == ast.unparse(target)


# Return their receiver itself when nothing changes, so the attribute keeps its identity
CONVERSIONS = frozenset({"to", "type", "type_as", "contiguous"})


def _converted_in_place(target: ast.expr, value: ast.expr) -> bool:
    """``self.mask = self.mask.to(x.dtype) if self.mask is not None else None``: after the
    first call the attribute already has that dtype and device, ``.to()`` returns the same
    object and no guard fails (measured on diffusers' ControlNet-Union attention blocks)."""
    if isinstance(value, ast.IfExp):
        return _converted_in_place(target, value.body) and _converted_in_place(target, value.orelse)
    if isinstance(value, ast.Constant) and value.value is None or _same(target, value):
        return True
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr in CONVERSIONS
        and _same(target, value.func.value)
    )


def _written_earlier(target: ast.expr, node: ast.stmt, ctx: RuleContext) -> bool:
    """``self.t = zeros(...)`` earlier in the same function: the update reads this call's
    value, never the previous call's, so Dynamo has nothing to guard on (measured on
    timm's AsymmetricLossSingleLabel: one graph for every call)."""
    if ctx.function is None:
        return False
    return any(
        isinstance(other, ast.Assign)
        and other.lineno < node.lineno
        and any(_same(target, t) for t in other.targets)
        and not any(_same(target, n) for n in ast.walk(other.value))
        for other in ast.walk(ctx.function.node)
    )


def _adds_a_number(node: ast.stmt) -> bool:
    value = node.value if isinstance(node, (ast.AugAssign, ast.Assign)) else None
    return any(isinstance(n, ast.Constant) and isinstance(n.value, (int, float)) for n in ast.walk(value)) if value else False


def _reset_each_call(target: ast.expr, ctx: RuleContext) -> bool:
    base = target.value if isinstance(target, ast.Subscript) else target
    owner = ctx.function.owner if ctx.function is not None else None
    if owner is None or not isinstance(base, ast.Attribute):
        return False
    return is_reset_while_running(ctx.index, owner, base.attr)


def _per_call_object(ctx: RuleContext) -> bool:
    """A class compiled code constructs (a cache built in forward) keeps state for one call."""
    owner = ctx.function.owner if ctx.function is not None else None
    return owner is not None and ctx.built_in_compiled_code(owner)


def _grows_a_python_container(call: ast.Call, receiver: ast.expr, ctx: RuleContext) -> bool:
    """``self.history.append(x.detach())`` where a method of the class sets ``self.history``
    to a list (``[]``, ``list()``, a deque), whatever it holds, and this function neither sets
    it afresh nor shrinks it again (``pop``/``clear``/``remove``: a stack may keep its length).
    Measured on torch 2.13: a list of tensors or of floats grown each call recompiles every
    call (guards ``not self.history``, then ``len(self.history) == n``)."""
    function, owner = ctx.function, ctx.function.owner if ctx.function is not None else None
    grows = isinstance(call.func, ast.Attribute) and call.func.attr in GROWING
    if function is None or owner is None or not isinstance(receiver, ast.Attribute) or not grows:
        return False
    if _sets_a_list(function, receiver.attr, ctx) or _reset_each_call(receiver, ctx):
        return False  # a list of this call's own
    if not any(_sets_a_list(method, receiver.attr, ctx) for cls in owner.mro() for method in cls.methods.values()):
        return False
    return not any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr in SHRINKING and _same(receiver, n.func.value)
        for n in ast.walk(function.node)
    )


def _every_call(node: ast.Call, ctx: RuleContext) -> bool:
    """Not a one-time setup, nor a change in an ``if`` arm (``if key not in self.ids:``, a new
    key): the container changes whenever the function runs."""
    function, analysis = ctx.function, ctx.analysis
    if function is None or analysis is None or _sets_a_flag(function):
        return False
    return happens_with_its_block(node, function.node, analysis.parents_of(function.node))


def _sets_a_flag(function: FunctionInfo) -> bool:
    """``self.<flag> = True`` in the function: a one-time setup, run behind a test of that
    flag (``self.hooks.append(h)`` then ``self.hook_registered = True``)."""
    return any(
        isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and node.value.value is True
        and any(isinstance(t, ast.Attribute) for t in node.targets)
        for node in ast.walk(function.node)
    )


def _sets_a_list(method: FunctionInfo, attr: str, ctx: RuleContext) -> bool:
    receiver = self_name(method)
    if receiver is None:
        return False
    for node in ast.walk(method.node):
        if not isinstance(node, ast.Assign):
            continue
        stored = any(isinstance(t, ast.Attribute) and t.attr == attr and isinstance(t.value, ast.Name) and t.value.id == receiver for t in node.targets)
        value = node.value
        built = isinstance(value, ast.Call) and (ctx.index.qualname(value.func) or "") in LIST_BUILDERS
        if stored and (isinstance(value, ast.List) or built):
            return True
    return False
