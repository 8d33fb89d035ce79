"""CL107: calls Dynamo cannot trace: clocks, randomness, debuggers, files, processes."""

from __future__ import annotations

import ast
import sys
import weakref

from compilelint.analysis.constructors import self_name
from compilelint.analysis.frames import first_in_source
from compilelint.analysis.kinds import Kind, is_data
from typing import TYPE_CHECKING

from compilelint.context import RuleContext
from compilelint.findings import Applicability, Fix, Mode
from compilelint.fix.plans import GuardPlan
from compilelint.registry import Rule

if TYPE_CHECKING:
    from compilelint.findings import Finding
    from compilelint.fix.edits import FixContext, FixEdit

BOTH = (Mode.DEFAULT, Mode.FULLGRAPH)
GUARD_FIX = Fix(Applicability.UNSAFE, "Guard with `if not torch.compiler.is_compiling():`")

# qualified name -> (modes, GB id), each measured on torch 2.13 (tests/test_dynamo_rules.py
# compiles every entry of this table and checks it still breaks).
UNTRACEABLE = {
    "time.time": (BOTH, "GB0007"),
    "time.time_ns": (BOTH, "GB0007"),
    "time.perf_counter": (BOTH, "GB0007"),
    "time.perf_counter_ns": (BOTH, "GB0007"),
    "time.monotonic": (BOTH, "GB0007"),
    "time.monotonic_ns": (BOTH, "GB0007"),
    "time.process_time": (BOTH, "GB0007"),
    "time.sleep": (BOTH, "GB0007"),
    "datetime.datetime.now": (BOTH, "GB0156"),
    "datetime.datetime.utcnow": (BOTH, "GB0156"),
    "datetime.datetime.today": (BOTH, "GB0156"),
    "datetime.date.today": (BOTH, "GB0156"),
    "random.random": (BOTH, "GB0007"),
    "random.choice": (BOTH, "GB0007"),
    "random.shuffle": (BOTH, "GB0007"),
    "random.seed": (BOTH, "GB0007"),
    # NumPy draws: torch._numpy traces array draws into torch ops, but a scalar draw is a
    # data-dependent operator, `choice` guards on its data, and the rest of numpy.random
    # is unsupported (see NUMPY_ARRAY_DRAWS below for which calls are traced).
    "numpy.random.rand": (BOTH, "GB0033"),
    "numpy.random.randn": (BOTH, "GB0033"),
    "numpy.random.random": (BOTH, "GB0033"),
    "numpy.random.random_sample": (BOTH, "GB0033"),
    "numpy.random.sample": (BOTH, "GB0033"),
    "numpy.random.uniform": (BOTH, "GB0033"),
    "numpy.random.normal": (BOTH, "GB0033"),
    "numpy.random.randint": (BOTH, "GB0033"),
    "numpy.random.choice": (BOTH, "GB0033"),
    "numpy.random.permutation": (BOTH, "GB0294"),
    "numpy.random.default_rng": (BOTH, "GB0294"),
    "numpy.random.binomial": (BOTH, "GB0294"),
    "numpy.random.poisson": (BOTH, "GB0294"),
    "numpy.random.beta": (BOTH, "GB0294"),
    "numpy.random.exponential": (BOTH, "GB0294"),
    "uuid.uuid4": (BOTH, "GB0007"),
    "uuid.uuid1": (BOTH, "GB0007"),
    "os.getpid": (BOTH, "GB0007"),
    "os.urandom": (BOTH, "GB0007"),
    "os.system": (BOTH, "GB0007"),
    "subprocess.run": (BOTH, "GB0007"),
    "subprocess.check_output": (BOTH, "GB0007"),
    "subprocess.Popen": (BOTH, "GB0007"),
    "torch.manual_seed": (BOTH, "GB0007"),
    "pdb.set_trace": (BOTH, "GB0007"),
    "ipdb.set_trace": (BOTH, "GB0007"),
    # C functions of the `_bisect` module: skipped even on plain Python lists
    "bisect.bisect": (BOTH, "GB0007"),
    "bisect.bisect_left": (BOTH, "GB0007"),
    "bisect.bisect_right": (BOTH, "GB0007"),
    "bisect.insort": (BOTH, "GB0007"),
    "bisect.insort_left": (BOTH, "GB0007"),
    "bisect.insort_right": (BOTH, "GB0007"),
    "json.dumps": (BOTH, "GB0156"),
    "json.loads": (BOTH, "GB0156"),
    "sys.getsizeof": (BOTH, "GB0007"),
    # TorchScript helpers Dynamo skips (torch.jit.is_scripting, annotate and
    # _unwrap_optional are traced)
    "torch.jit.isinstance": (BOTH, "GB0007"),
    "torch.jit.fork": (BOTH, "GB0007"),
}
# NumPy draws Dynamo traces into torch ops when given a size: function -> position of the
# size argument (None: every positional argument is a size). Without a size they draw one
# Python number, which breaks. `seed` and `shuffle` are traced; any other numpy.random
# function is "unsupported by PyTorch" (GB0294). Each measured on torch 2.13.
NUMPY_ARRAY_DRAWS: dict[str, int | None] = {
    "numpy.random.rand": None,
    "numpy.random.randn": None,
    "numpy.random.random": 0,
    "numpy.random.random_sample": 0,
    "numpy.random.sample": 0,
    "numpy.random.uniform": 2,
    "numpy.random.normal": 2,
    "numpy.random.randint": 2,
}
NUMPY_TRACED = frozenset({"numpy.random.seed", "numpy.random.shuffle"})
# `with open(...)` also reports GB0142 "Unsupported context manager" on the same line
BUILTINS = {"open": "GB0059/GB0142", "input": "GB0059", "breakpoint": "GB0059", "exec": "GB0059", "globals": "GB0059"}
COPY_FUNCTIONS = {"copy.deepcopy": "GB4198", "copy.copy": "GB0208"}
# They deep-copy every field: a dataclass holding tensors breaks like copy.deepcopy of one
DATACLASS_COPIES = frozenset({"dataclasses.asdict", "dataclasses.astuple"})
CONTEXT_VAR_METHODS = frozenset({"get", "set", "reset"})
# Calls whose skipping while compiled changes no value the program computes: only these get
# the guard fix. Seeding and drawing Python/NumPy random numbers change later results, and
# `random.shuffle` mutates its argument, so guarding them would change what is computed.
GUARDABLE = frozenset(
    {
        "time.sleep",
        "time.time",
        "time.time_ns",
        "time.perf_counter",
        "time.perf_counter_ns",
        "time.monotonic",
        "time.monotonic_ns",
        "time.process_time",
        "pdb.set_trace",
        "ipdb.set_trace",
        "os.system",
        "subprocess.run",
        "subprocess.check_output",
        "subprocess.Popen",
        "breakpoint",
        "input",
    }
)


class UntraceableCall(Rule):
    """Checks for calls that Dynamo cannot trace: clocks, Python randomness, debuggers, I/O.

    ## What it does
    Flags, inside a compiled region: `time.*` clocks and `time.sleep`, `datetime.now()`,
    Python's `random` functions, `numpy.random`, `uuid`, `os.getpid/urandom/system`,
    `subprocess`, `torch.manual_seed`, `bisect` functions, `json.dumps`/`loads`,
    `sys.getsizeof`, `torch.jit.isinstance` and `torch.jit.fork`, debugger entry points (`breakpoint()`,
    `pdb.set_trace()`), `open()`, `input()`, `exec()`, `globals()`, `copy.deepcopy`/`copy.copy`
    of tensors and modules, `dataclasses.asdict`/`astuple` of a dataclass of this file with a
    tensor field, `get`/`set`/`reset` of a module-level `contextvars.ContextVar`, and (on
    Python 3.11) reading a `functools.cached_property` of the class on `self`.

    ## Why is this bad?
    These run C code or touch the outside world, which Dynamo refuses to trace. Measured
    on torch 2.13: each breaks the graph in the default mode and fails under
    `fullgraph=True` (GB0007 "Attempted to call function marked as skipped", GB0059,
    GB0156, GB4198 for deepcopy of a tensor; `bisect.bisect` and its relatives are C
    functions Dynamo skips, even on a plain list of Python numbers); `numpy.random` scalar draws
    (`np.random.rand()`, `np.random.uniform(0, 1)`) and `np.random.choice` break as a
    data-dependent operator (GB0033), and the functions PyTorch's NumPy layer lacks
    (`permutation`, `default_rng`, `binomial`, ...) as unsupported (GB0294); NumPy's
    generator classes (`np.random.SeedSequence(entropy)`, `RandomState(0)`, `PCG64`) cannot be
    built (GB0156), and each method called on one afterwards breaks again in the default
    mode (GB0008 for `SeedSequence.generate_state`, GB0156 for `RandomState.rand`); draws of an
    array (`np.random.rand(4, 8)`, `np.random.normal(0, 1, size=8)`) are traced into
    torch ops and are not flagged. `exec()` and `globals()` break (GB0059); `eval()` of a
    constant string, `locals()` and `vars(obj)` compiled, so they are not flagged.
    `dataclasses.asdict`/`astuple` deep-copy each field, and a tensor field breaks as
    `copy.deepcopy` does (GB4198; a dataclass of Python values is traced); the methods of a
    `contextvars.ContextVar` are C methods Dynamo does not trace (GB0156). On Python 3.11
    `functools.cached_property` computes its value under an `RLock`, a context manager
    Dynamo cannot trace (GB0142 at the read, both modes, until the instance holds the
    value); Python 3.12 dropped the lock. A break that
    hands a Python value to the resumed code (a timestamp, a random number) also
    recompiles on new values.

    ## Example
    ```python
    class Net(nn.Module):
        def forward(self, x):
            start = time.perf_counter()
            y = self.proj(x)
            self.elapsed = time.perf_counter() - start
            return y
    ```

    ## Use instead
    ```python
    class Net(nn.Module):
        def forward(self, x):
            return self.proj(x)
    ```
    Time, seed and debug outside the compiled model (or under
    `if not torch.compiler.is_compiling():`); draw randomness with torch (`torch.rand`),
    which Dynamo traces.

    ## Fix safety
    Guarding a statement-level call with `if not torch.compiler.is_compiling():` is unsafe:
    the call no longer runs while compiled (no sleep, no debugger stop, no subprocess), and
    code after it may rely on its effect. It is offered only for calls whose skipping changes
    no value the model computes (clocks, `time.sleep`, debuggers, `os.system`, `subprocess`,
    `input`); seeding or drawing Python or NumPy random numbers gets no fix, because skipping
    it changes every later random number.
    """

    code = "CL107"
    name = "untraceable-call"
    message = "call that Dynamo cannot trace breaks the graph"
    gb_ids = ("GB0007", "GB0059", "GB0142", "GB0156", "GB0033", "GB0294", "GB4198", "GB0208")
    breaks = BOTH
    nodes = (ast.Call, ast.Attribute)
    fix_applicability = Applicability.UNSAFE

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        if isinstance(node, ast.Attribute):
            if _reads_cached_property(node, ctx):
                ctx.report(
                    node,
                    f"reading the `functools.cached_property` `{node.attr}` runs its getter under the lock "
                    "Python 3.11 takes there, a context manager Dynamo cannot trace: breaks the graph in both "
                    "modes (GB0142); compute the value in `__init__`, or use a plain `@property`",
                    gb_ids=("GB0142",),
                    claim="CL107:functools.cached_property",
                )
            return
        assert isinstance(node, ast.Call)
        found = self._classify(node, ctx)
        if found is None:
            return
        what, modes, gb_id = found
        statement = ctx.statement
        callee = ctx.builtin(node.func) or ctx.qualname(node.func) or "numpy.random generator method"
        if what.endswith("of a `contextvars.ContextVar`"):  # named by the module's variable: claim the method
            callee = f"contextvars.ContextVar.{getattr(node.func, 'attr', '')}"
        fixable = isinstance(statement, ast.Expr) and statement.value is node and callee in GUARDABLE
        ctx.report(
            node,
            f"{what} cannot be traced by Dynamo: breaks the graph ({gb_id}); move it out of the compiled code",
            breaks=modes,
            gb_ids=tuple(gb_id.split("/")),
            fix=GUARD_FIX if fixable else None,
            fix_data=GuardPlan(statement) if fixable and statement is not None else None,
            # releases differ per function (datetime.now on 2.11); a candidate with no modes
            # (deepcopy of a plain object) breaks only on releases whose claims say so
            claim=f"CL107:{callee}" if modes else f"CL107:{callee}(object)",
        )

    def build_fix(self, finding: Finding, fix: FixContext) -> FixEdit | None:
        from compilelint.fix.edits import guard_edit

        assert isinstance(finding.fix_data, GuardPlan)
        return guard_edit(finding.fix_data.statement, fix)

    @staticmethod
    def _classify(node: ast.Call, ctx: RuleContext) -> tuple[str, tuple[Mode, ...], str] | None:
        builtin = ctx.builtin(node.func)
        if builtin in BUILTINS:
            return f"`{builtin}()`", BOTH, BUILTINS[builtin]
        name = ctx.qualname(node.func)
        context_var = _context_var_method(node, ctx)
        if context_var is not None:
            return context_var
        if name is None:
            return _numpy_generator_method(node, ctx)
        if name.startswith("numpy.random."):
            return _numpy_random(name, node)
        if name in UNTRACEABLE:
            modes, gb_id = UNTRACEABLE[name]
            return f"`{name}()`", modes, gb_id
        if name in COPY_FUNCTIONS and node.args:
            kind = ctx.kind(node.args[0])
            if is_data(kind) or (kind & Kind.MODULE and not kind & Kind.UNKNOWN):
                gb_id = COPY_FUNCTIONS[name]
                return f"`{name}()` of a tensor or module", BOTH, gb_id
            if name == "copy.deepcopy":
                # measured: torch 2.11 breaks on a deepcopy of a config dict (GB0179), 2.13 traces it
                return f"`{name}()` of a Python object", (), "GB0179"
        if name in DATACLASS_COPIES and node.args and _dataclass_with_tensors(node.args[0], ctx):
            return f"`{name}()` of a dataclass holding tensors (it deep-copies them)", BOTH, "GB4198"
        return None


def _numpy_random(name: str, node: ast.Call) -> tuple[str, tuple[Mode, ...], str] | None:
    """``np.random.rand(4, 8)`` is traced into torch ops; ``np.random.rand()``,
    ``np.random.choice(n, k)``, ``np.random.permutation(n)`` and generator objects
    (``np.random.SeedSequence(entropy)``, ``RandomState(0)``) break the graph."""
    function = name.rsplit(".", 1)[1]
    if name in NUMPY_TRACED or function.startswith("_"):
        return None
    if function[:1].isupper():  # a C-implemented generator class: Dynamo cannot build it
        return f"`{name}()`", BOTH, "GB0156"
    if name in NUMPY_ARRAY_DRAWS:
        position = NUMPY_ARRAY_DRAWS[name]
        sized = bool(node.args) if position is None else len(node.args) > position or any(k.arg == "size" for k in node.keywords)
        if sized:
            return None  # an array draw: Dynamo traces it into torch ops
    modes, gb_id = UNTRACEABLE.get(name, (BOTH, "GB0294"))
    return f"`{name}()`", modes, gb_id


def _numpy_generator_method(node: ast.Call, ctx: RuleContext) -> tuple[str, tuple[Mode, ...], str] | None:
    """``seeds.generate_state(4)`` on a local bound to ``np.random.SeedSequence(...)`` (or
    another NumPy generator) in the same function. Measured on torch 2.13: after the
    constructor's break the method call breaks again in the resumed code (GB0008 for
    ``SeedSequence.generate_state``, GB0156 for ``RandomState.rand``/``Generator.random``);
    under ``fullgraph=True`` the constructor is the error, so this claims the default mode."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
        return None
    holder = func.value.id
    function = ctx.function.node if ctx.function is not None else None
    if function is None:
        return None
    for made in _calls_assigned_to_names(function).get(holder, ()):
        maker = ctx.qualname(made.func) or ""
        last = maker.rsplit(".", 1)[-1]
        if maker.startswith("numpy.random.") and (last[:1].isupper() or last == "default_rng"):
            return f"`{holder}.{func.attr}()` of a NumPy generator (`{maker}()`)", (Mode.DEFAULT,), "GB0008/GB0156"
    return None


# One walk per function: ``_numpy_generator_method`` runs for every ``name.method()`` call.
_ASSIGNED_CALLS: weakref.WeakKeyDictionary[ast.AST, dict[str, list[ast.Call]]] = weakref.WeakKeyDictionary()


def _calls_assigned_to_names(function: ast.AST) -> dict[str, list[ast.Call]]:
    """``name = call(...)`` anywhere in ``function`` (nested code too), by name, in walk order."""
    found = _ASSIGNED_CALLS.get(function)
    if found is None:
        found = {}
        for statement in ast.walk(function):
            if isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call):
                names = dict.fromkeys(t.id for t in statement.targets if isinstance(t, ast.Name))
                for name in names:
                    found.setdefault(name, []).append(statement.value)
        _ASSIGNED_CALLS[function] = found
    return found


def _context_var_method(node: ast.Call, ctx: RuleContext) -> tuple[str, tuple[Mode, ...], str] | None:
    """``STATE.get()``/``.set(v)``/``.reset(token)`` of a module-level
    ``STATE = contextvars.ContextVar(...)``: C methods Dynamo does not trace (GB0156 in both
    modes, measured on torch 2.13)."""
    func = node.func
    if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.attr in CONTEXT_VAR_METHODS):
        return None
    if ctx.evaluator is not None and func.value.id in ctx.evaluator.locals:
        return None
    value = ctx.index.assignments.get(func.value.id)
    if isinstance(value, ast.Call) and ctx.index.qualname(value.func) == "contextvars.ContextVar":
        return f"`{func.value.id}.{func.attr}()` of a `contextvars.ContextVar`", BOTH, "GB0156"
    return None


def _dataclass_with_tensors(argument: ast.expr, ctx: RuleContext) -> bool:
    """An instance of a dataclass of this file with a field annotated as a tensor, built in
    the call (``asdict(Output(x))``) or held by the name (``out = Output(x)``)."""
    if isinstance(argument, ast.Name) and ctx.evaluator is not None:
        built = ctx.evaluator.built_here.get(argument.id)
        argument = built if built is not None else argument
    if not (isinstance(argument, ast.Call) and isinstance(argument.func, ast.Name)):
        return False
    cls = ctx.index.classes.get(argument.func.id)
    return cls is not None and _is_tensor_dataclass(cls.node, ctx)


def _is_tensor_dataclass(node: ast.ClassDef, ctx: RuleContext) -> bool:
    if not any(name.rsplit(".", 1)[-1] == "dataclass" for name in ctx.index.decorator_names(node)):
        return False
    return any(isinstance(s, ast.AnnAssign) and "Tensor" in ast.unparse(s.annotation) for s in node.body)


def _reads_cached_property(node: ast.Attribute, ctx: RuleContext) -> bool:
    """The first ``self.name`` of a function where ``name`` is a ``functools.cached_property``
    of the class or a local base (later reads find the value cached). Python 3.12 dropped the
    lock (measured on 3.11, torch 2.13: GB0142 at the read in both modes, on an instance
    whose value is not cached yet)."""
    function = ctx.function
    if sys.version_info >= (3, 12) or function is None or function.owner is None:
        return False
    if not isinstance(node.ctx, ast.Load) or not isinstance(node.value, ast.Name) or node.value.id != self_name(function):
        return False
    if _is_cached_property(function.node, ctx):
        return False  # its reads run when it does: in Python, after the read that broke
    getter = function.owner.find_property(node.attr)
    if getter is None or not _is_cached_property(getter.node, ctx):
        return False
    reads = [n for n in ast.walk(function.node) if isinstance(n, ast.Attribute) and _same_read(n, node)]
    return first_in_source(reads) is node  # later reads find the value cached


def _is_cached_property(function: ast.FunctionDef | ast.AsyncFunctionDef, ctx: RuleContext) -> bool:
    return any(name.endswith("cached_property") for name in ctx.index.decorator_names(function))


def _same_read(candidate: ast.Attribute, read: ast.Attribute) -> bool:
    return (
        candidate.attr == read.attr
        and isinstance(candidate.ctx, ast.Load)
        and isinstance(candidate.value, ast.Name)
        and isinstance(read.value, ast.Name)
        and candidate.value.id == read.value.id
    )
