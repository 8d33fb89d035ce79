"""The top-level facts of one module: imports, functions, classes and their attributes.

Built once per file from the top-level statements (and the bodies of classes), without
walking function bodies: that is the interpreter's job, and only for compiled regions.
"""

from __future__ import annotations

import ast
import re
from collections import Counter, deque
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from itertools import islice
from typing import TYPE_CHECKING, TypeVar, cast

from compilelint.analysis.imports import ImportTable
from compilelint.analysis.kinds import Kind
from compilelint.analysis.roots import COMPILING_DECORATORS, CompileSites, collect_compile_sites, mark_compiler_decorators, unpartial

if TYPE_CHECKING:
    from compilelint.analysis.nested_roots import NestedCompiles

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
T = TypeVar("T")

MODULE_BASES = frozenset({"torch.nn.Module", "torch.nn.modules.module.Module"})
AUTOGRAD_FUNCTION_BASES = frozenset({"torch.autograd.Function", "torch.autograd.function.Function"})
NON_MODULE_TORCH_BASES = AUTOGRAD_FUNCTION_BASES | {"torch.nn.Parameter"}
DISABLE_DECORATORS = frozenset(
    {
        "torch.compiler.disable",
        "torch._dynamo.disable",
        "torch._disable_dynamo",
        "torch._dynamo.eval_frame.disable",
    }
)
# Dynamo puts these into the graph as one opaque call, or treats them as constants: their
# bodies are never traced, and calling them is not a break.
OPAQUE_DECORATORS = frozenset(
    {
        "torch.compiler.allow_in_graph",
        "torch._dynamo.allow_in_graph",
        "torch._dynamo.assume_constant_result",
        "torch.compiler.assume_constant_result",
        "torch.library.custom_op",
        "torch._library.custom_ops.custom_op",
        "triton.jit",
        "triton.autotune",
    }
)
# Reading an attribute these decorate runs the method (functools.cached_property: the first read).
PROPERTY_DECORATORS = frozenset({"property", "cached_property"})
_CALLED_NAME = re.compile(r"(?<!\w)([A-Za-z_]\w*)\(")
_CLASS_HEADER = re.compile(r"(?<!\w)class ([A-Za-z_]\w*)\(")


@dataclass
class FunctionInfo:
    """A function or method defined in the module."""

    node: FunctionNode
    qualname: str  # "Net.forward", "helper", "Net.forward.<locals>.inner"
    owner: ClassInfo | None = None
    parent: FunctionInfo | None = None  # for nested functions
    disabled: bool = False  # under torch.compiler.disable: never traced, calling it breaks
    opaque: bool = False  # allow_in_graph, custom ops: never traced, no break
    compiled: bool = False  # decorated with torch.compile or passed to it
    is_static: bool = False  # @staticmethod: no self parameter
    is_property: bool = False  # @property / @cached_property: reading the attribute runs it

    wrappers: list[FunctionInfo] | None = None  # decorators' inner functions calling through; lazily
    _globals: frozenset[str] | None = None

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def declared_globals(self) -> frozenset[str]:
        """Names this function rebinds at module level (``global counter``)."""
        if self._globals is None:
            self._globals = frozenset(
                name for n in ast.walk(self.node) if isinstance(n, ast.Global) for name in n.names
            )
        return self._globals

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other


@dataclass
class ClassInfo:
    node: ast.ClassDef
    bases: tuple[str, ...]  # qualified names of the bases, as written
    methods: dict[str, FunctionInfo] = field(default_factory=dict)
    is_module: bool = False
    local_bases: list[ClassInfo] = field(default_factory=list)
    # self.<attr> -> kind, from assignments in any method; filled lazily
    attributes: dict[str, Kind] | None = None
    # self.<attr> -> local class instantiated into it (for submodule calls)
    attribute_classes: dict[str, ClassInfo] = field(default_factory=dict)
    # self.<attr> -> local class of the modules in the nn.ModuleList/Sequential it holds
    element_classes: dict[str, ClassInfo] = field(default_factory=dict)
    # self.<attr> -> qualified name of the imported class instantiated into it
    external_attribute_classes: dict[str, str] = field(default_factory=dict)
    # attr -> module-level function it holds (and whether it binds self); lazily
    function_attributes: dict[str, tuple[FunctionInfo, bool]] | None = None
    # attributes some method other than __init__ sets to a literal
    reset_attributes: set[str] = field(default_factory=set)
    # self.<attr> -> classes instantiated into it (analysis.constructors); filled lazily
    constructors: dict[str, frozenset[str]] | None = None
    # first_in_mro's memo: lookup key -> answer
    lookups: dict[str, object] = field(default_factory=dict)
    # attr -> its getter: kept apart from ``methods``, where a later ``@attr.setter`` def wins
    properties: dict[str, FunctionInfo] = field(default_factory=dict)
    # self.<attr> -> the values its methods assign to it (comprehension_frames.stored_values); lazily
    stored: dict[str, list[ast.expr]] | None = None

    @property
    def name(self) -> str:
        return self.node.name

    def __hash__(self) -> int:
        return id(self)

    def __eq__(self, other: object) -> bool:
        return self is other

    def mro(self) -> Iterator[ClassInfo]:
        """This class, then its local bases breadth-first (enough for single inheritance)."""
        seen: set[int] = set()
        queue = deque([self])
        while queue:
            cls = queue.popleft()
            if id(cls) in seen:
                continue
            seen.add(id(cls))
            yield cls
            queue.extend(cls.local_bases)

    def first_in_mro(self, key: str, find: Callable[[ClassInfo], T | None]) -> T | None:
        """The first non-None ``find(klass)`` along ``mro()``, memoised under ``key``.

        Down a run of single-base classes each answer is its base's unless the class has
        its own, so every class on the run keeps the answer: a chain of N subclasses costs
        O(N) lookups in all, not O(N) each. ``find`` must give the same answer every time.
        """
        walked: list[ClassInfo] = []
        seen: set[int] = set()
        klass, result = self, None
        while id(klass) not in seen:
            if key in klass.lookups:
                result = cast("T | None", klass.lookups[key])  # stored under this key by this call
                break
            seen.add(id(klass))
            walked.append(klass)
            result = find(klass)
            if result is not None or not klass.local_bases:
                break
            if len(klass.local_bases) > 1:  # breadth-first order is not compositional here
                result = next((r for k in islice(klass.mro(), 1, None) if (r := find(k)) is not None), None)
                break
            klass = klass.local_bases[0]
        for item in walked:
            item.lookups[key] = result
        return result

    def find_method(self, name: str) -> FunctionInfo | None:
        return self.first_in_mro("method:" + name, lambda cls: cls.methods.get(name))

    def find_property(self, name: str) -> FunctionInfo | None:
        """The getter reading ``obj.name`` runs, when the class or a local base defines
        ``name`` as a property (and no class before it in the MRO as a method)."""
        method = self.find_method(name)
        if method is None:
            return None
        getter = self.first_in_mro("property:" + name, lambda cls: cls.properties.get(name))
        return getter if getter is not None and getter.owner is method.owner else None


@dataclass
class ModuleIndex:
    imports: ImportTable
    functions: dict[str, FunctionInfo]
    classes: dict[str, ClassInfo]
    module_names: set[str]  # every name bound at module level (shadows builtins)
    compile_sites: CompileSites  # torch.compile(...) calls anywhere in the file, and what they compile
    assignments: dict[str, ast.expr] = field(default_factory=dict)  # NAME = value at top level
    top_level_imports: set[str] = field(default_factory=set)  # names module-level imports bind
    table_stores: dict[str, list[ast.expr]] = field(default_factory=dict)  # NAME[key] = value at top level
    top_level_stores: Counter[str] = field(default_factory=Counter)  # how often top-level statements bind NAME
    text: str = ""
    all_classes: list[ClassInfo] = field(default_factory=list)  # every class statement, in order
    _calls_in_classes: Counter[str] | None = None
    # analysis.constructors' caches: local subclasses by id(base); (id(class), attr) -> names
    subclass_map: dict[int, list[ClassInfo]] | None = None
    constructor_memo: dict[tuple[int, str], frozenset[str]] = field(default_factory=dict)
    nested_compiles: NestedCompiles | None = None  # analysis.nested_roots, lazily
    hook_roots: list[FunctionInfo] | None = None  # analysis.hook_roots, lazily
    tree: ast.Module | None = None  # the file's syntax tree (analysis.injected reads its calls)
    # analysis.injected's caches: class name -> its constructions; (id(class), attr) -> values
    construction_sites: dict[str, list[tuple[ast.Call, FunctionInfo | None]]] | None = None
    calls: list[tuple[ast.Call, FunctionInfo | None]] | None = None  # every call, with the function it is in
    injected_memo: dict[tuple[int, str], object] = field(default_factory=dict)
    # analysis.construction_facts: what other files' constructions pass to this file's classes,
    # (class name, "0".. position after self or keyword) -> (callables, instances)
    incoming_constructions: dict[tuple[str, str], tuple[tuple[str, ...], tuple[str, ...]]] = field(default_factory=dict)

    def instantiated(self, cls: ClassInfo) -> bool:
        """Whether another class of the file builds this one: it is then a submodule, not an
        entry point. A text count over the class bodies, not a walk: ``Name(`` beyond the
        ``class Name(`` that defines it. Scripts and tests building it do not count."""
        if self._calls_in_classes is None:
            self._calls_in_classes = self._count_calls_in_classes()
        return self._calls_in_classes[cls.name] > 0

    def _count_calls_in_classes(self) -> Counter[str]:
        """``Name(`` occurrences per name in the text of the class bodies, less the
        ``class Name(`` headers: one scan of the file, not one per class."""
        lines = self.text.splitlines()
        spans = sorted({(c.node.lineno, c.node.end_lineno or c.node.lineno) for c in self.all_classes})
        counts: Counter[str] = Counter()
        covered = 0  # nested classes lie inside their parent's lines: count those once
        for start, end in spans:
            start = max(start, covered + 1)
            if start > end:
                continue
            covered = end
            text = "\n".join(lines[start - 1 : end])
            counts.update(_CALLED_NAME.findall(text))
            counts.subtract(_CLASS_HEADER.findall(text))
        return counts

    def qualname(self, node: ast.expr) -> str | None:
        return self.imports.qualname(node)

    def decorator_names(self, node: FunctionNode | ast.ClassDef) -> Iterator[str]:
        """What each decorator calls: ``@torch.compile(...)`` and ``@partial(torch.compile,
        ...)`` both name ``torch.compile``."""
        for decorator in node.decorator_list:
            if isinstance(decorator, ast.Call):
                decorator = unpartial(decorator, self.imports)
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            name = self.qualname(target)
            if name:
                yield name


def _top_level_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements at module level, looking into if/try/with blocks (version guards)."""
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.If):
            yield from _top_level_statements(stmt.body)
            yield from _top_level_statements(stmt.orelse)
        elif isinstance(stmt, ast.Try):
            for block in (stmt.body, stmt.orelse, stmt.finalbody):
                yield from _top_level_statements(block)
            for handler in stmt.handlers:
                yield from _top_level_statements(handler.body)
        elif isinstance(stmt, ast.With):
            yield from _top_level_statements(stmt.body)


def build_index(
    tree: ast.Module, find_compile_calls: bool, text: str = "", reexports: Mapping[str, str] | None = None
) -> ModuleIndex:
    """``reexports``: imported names that other modules of the run re-export, and what they are."""
    imports = ImportTable()
    functions: dict[str, FunctionInfo] = {}
    classes: dict[str, ClassInfo] = {}
    module_names: set[str] = set()
    index = ModuleIndex(imports, functions, classes, module_names, CompileSites(), text=text, tree=tree)
    eager_experts = "get_correct_experts_implementation" in text and _experts_default_to_eager(tree)
    for stmt in _top_level_statements(tree.body):
        if isinstance(stmt, (ast.Import, ast.ImportFrom)):
            imports.add(stmt)
            module_names.update((a.asname or a.name).split(".")[0] for a in stmt.names)
            index.top_level_imports.update((a.asname or a.name).split(".")[0] for a in stmt.names if a.name != "*")
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions[stmt.name] = function_info(index, stmt, stmt.name, None)
            module_names.add(stmt.name)
        elif isinstance(stmt, ast.ClassDef):
            cls = _class_info(index, stmt, eager_experts)
            # bases are the classes bound to their names now: ``class A(A)`` extends the
            # earlier A, which stays a class of the file (and a region) of its own
            cls.local_bases = [classes[b] for b in cls.bases if b in classes]
            classes[stmt.name] = cls
            index.all_classes.append(cls)
            module_names.add(stmt.name)
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                names = [n.id for n in ast.walk(target) if isinstance(n, ast.Name)]
                module_names.update(names)
                index.top_level_stores.update(names)
                if isinstance(target, ast.Name) and not isinstance(stmt, ast.AugAssign) and stmt.value:
                    index.assignments[target.id] = stmt.value
                elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name) and stmt.value:
                    index.table_stores.setdefault(target.value.id, []).append(stmt.value)
        elif isinstance(stmt, (ast.For, ast.AsyncFor, ast.With)):
            bound = [stmt.target] if isinstance(stmt, (ast.For, ast.AsyncFor)) else [i.optional_vars for i in stmt.items if i.optional_vars]
            index.top_level_stores.update(n.id for t in bound for n in ast.walk(t) if isinstance(n, ast.Name))
    for name, qualname in (reexports or {}).items():
        imports.rebind(name, qualname)
    _add_function_local_classes(tree, index)
    _link_classes(index)
    if "_dynamo_marked_constant" in text:
        _mark_constant_functions(tree, index)
    if find_compile_calls:
        index.compile_sites = collect_compile_sites(tree, imports)
        mark_compiler_decorators(index)
    return index


def _add_function_local_classes(tree: ast.Module, index: ModuleIndex) -> None:
    """Classes defined in the bodies of module-level functions (model factories, test
    helpers: ``def build(): import torchdiffeq; class Block(nn.Module): ...; return
    Block()``), with the imports those bodies make. Their ``forward`` is compiled like any
    other once the factory's result is; a name the module binds itself keeps its meaning."""
    module_level = set(index.module_names)
    top = list(_top_level_statements(tree.body))
    functions = [s for s in top if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))]
    # and the methods of module-level classes: a test method defining the module it compiles
    functions += [m for c in top if isinstance(c, ast.ClassDef) for m in c.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for function in functions:
        for stmt in _function_body_statements(function.body):
            if isinstance(stmt, (ast.Import, ast.ImportFrom)):
                for alias in stmt.names:
                    bound = (alias.asname or alias.name).split(".")[0]
                    if alias.name != "*" and bound not in module_level and bound not in index.imports:
                        index.imports.add(_one_alias(stmt, alias))
            elif isinstance(stmt, ast.ClassDef) and stmt.name not in module_level:
                cls = _class_info(index, stmt)
                cls.local_bases = [index.classes[b] for b in cls.bases if b in index.classes]
                index.classes.setdefault(stmt.name, cls)  # two factories' ``class Net``: the first names it
                index.all_classes.append(cls)


def _function_body_statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """A function's statements, into nested blocks and nested functions, not into classes."""
    for stmt in _top_level_statements(body):
        yield stmt
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            yield from _function_body_statements(stmt.body)


def _one_alias(stmt: ast.Import | ast.ImportFrom, alias: ast.alias) -> ast.Import | ast.ImportFrom:
    if isinstance(stmt, ast.Import):
        return ast.Import(names=[alias])
    return ast.ImportFrom(module=stmt.module, names=[alias], level=stmt.level)


def function_info(
    index: ModuleIndex, node: FunctionNode, qualname: str, owner: ClassInfo | None
) -> FunctionInfo:
    info = FunctionInfo(node=node, qualname=qualname, owner=owner)
    for name in index.decorator_names(node):
        if name in DISABLE_DECORATORS or name.endswith(("compiler.disable", "_dynamo.disable")):
            info.disabled = True
        elif name in OPAQUE_DECORATORS:
            info.opaque = True
        elif name in COMPILING_DECORATORS:
            info.compiled = True
        elif name in ("staticmethod", "builtins.staticmethod"):
            info.is_static = True
        elif owner is not None and name.rsplit(".", 1)[-1] in PROPERTY_DECORATORS:
            info.is_property = True
    return info


def _class_info(index: ModuleIndex, node: ast.ClassDef, eager_experts: bool = False) -> ClassInfo:
    bases = tuple(name for base in node.bases if (name := index.qualname(base)))
    cls = ClassInfo(node=node, bases=bases)
    replaced = not eager_experts and any(name.rsplit(".", 1)[-1] in FORWARD_REPLACING_DECORATORS for name in index.decorator_names(node))
    for stmt in node.body:
        method = stmt if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)) else _lambda_method(stmt)
        if method is None or (replaced and method.name == "forward"):
            continue  # not what Module.__call__ runs
        info = cls.methods[method.name] = function_info(index, method, f"{node.name}.{method.name}", cls)
        if info.is_property:
            cls.properties[method.name] = info
    return cls


def _lambda_method(stmt: ast.stmt) -> ast.FunctionDef | None:
    """``forward = lambda self, x: ...`` in a class body, as the method it is: a function
    returning the lambda's body, which keeps its own nodes (and their positions)."""
    if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.value, ast.Lambda)):
        return None
    target, value = stmt.targets[0], stmt.value
    if not isinstance(target, ast.Name):
        return None
    return lambda_function(value, target.id, stmt)


def lambda_function(node: ast.Lambda, name: str, at: ast.AST) -> ast.FunctionDef:
    """A lambda as the function it is: one returning its body, which keeps its own nodes
    (and their positions); the function itself is placed at ``at``."""
    body = ast.copy_location(ast.Return(value=node.body), node.body)
    function = ast.FunctionDef(name=name, args=node.args, body=[body], decorator_list=[], returns=None,
                               type_comment=None)  # fmt: skip
    return ast.copy_location(function, at)


def _is_torch_module_base(name: str) -> bool:
    if name in MODULE_BASES:
        return True
    # nn.Linear, nn.Sequential, nn.ModuleList ...: every class in torch.nn is a Module
    if name.startswith("torch.nn.") and name not in NON_MODULE_TORCH_BASES:
        return name.rsplit(".", 1)[-1][:1].isupper()
    return False


def _link_classes(index: ModuleIndex) -> None:
    for cls in index.all_classes:
        if not cls.local_bases:  # a base bound only later in the file (behind a version test)
            cls.local_bases = [index.classes[b] for b in cls.bases if b in index.classes and index.classes[b] is not cls]
    # A class is a module if a base is one; iterate to a fixed point for local chains
    # (one pass when bases come first, as they must at run time).
    changed = True
    while changed:
        changed = False
        for cls in index.all_classes:
            if cls.is_module:
                continue
            if any(_is_torch_module_base(b) for b in cls.bases) or any(
                base.is_module for base in cls.local_bases
            ):
                cls.is_module = changed = True
    # A base imported from elsewhere in the project (PreTrainedModel, ModelMixin, ...) is
    # almost always a Module when the class has a forward: torch code has no other
    # convention for a method named forward.
    for cls in index.all_classes:
        if cls.is_module or cls.find_method("forward") is None:
            continue
        if cls.first_in_mro("external-base", lambda klass: _external_base_of(klass, index)):
            cls.is_module = True


NOT_MODULE_BASES = frozenset(
    {"object", "abc.ABC", "ABC", "typing.Generic", "Generic", "typing.Protocol", "Protocol", "enum.Enum", "Enum"}
)
# Imported bases that say by their name they are not modules: hub and config mixins,
# pipelines, processors, outputs (a class with a forward and only such bases is not one).
NOT_MODULE_NAME = re.compile(
    r"(PushToHub|Config|Generation|Peft|Lora|Loader|Adapter|Scikit)\w*Mixin$|Pipeline|Processor|Tokenizer|Scheduler"
    r"|Output$|Config$|Compat$|ContextManager$|Exception$|Error$|Dataset$|Thread$"
)
# Class decorators that replace forward by default: transformers' MoE experts dispatch to
# a grouped-matmul kernel unless experts_implementation="eager" (measured: no break), which
# is also the default where the file's model class chooses it (_experts_default_to_eager).
FORWARD_REPLACING_DECORATORS = frozenset({"use_experts_implementation"})


def _experts_default_to_eager(tree: ast.Module) -> bool:
    """A model class of the file picks "eager" as its default experts implementation (its
    ``get_correct_experts_implementation`` names it): the decorated forward is then the one
    that runs (transformers 5.x openai_privacy_filter; measured: it breaks as written)."""
    for cls in (s for s in tree.body if isinstance(s, ast.ClassDef)):
        for method in cls.body:
            if isinstance(method, ast.FunctionDef) and method.name == "get_correct_experts_implementation":
                if any(isinstance(n, ast.Constant) and n.value == "eager" for n in ast.walk(method)):
                    return True
    return False


def _external_base_of(cls: ClassInfo, index: ModuleIndex) -> bool | None:
    return True if any(_external_base(b, index) for b in cls.bases) else None


def _external_base(name: str, index: ModuleIndex) -> bool:
    if name in index.classes or name in NOT_MODULE_BASES or name.startswith(("torch.", "typing.")):
        return False
    return not NOT_MODULE_NAME.search(name.rsplit(".", 1)[-1])


def _mark_constant_functions(tree: ast.Module, index: ModuleIndex) -> None:
    """Functions marked ``_dynamo_marked_constant`` (what ``assume_constant_result`` sets;
    transformers spells it by hand, in a decorator of its own): Dynamo calls them as
    constants and never traces their bodies."""
    markers = {name for name, info in index.functions.items() if _sets_constant_marker(info.node)}
    for info in index.functions.values():
        if any(name in markers for name in index.decorator_names(info.node)):
            info.opaque = True
    for stmt in tree.body:  # f._dynamo_marked_constant = True
        if isinstance(stmt, ast.Assign):
            for target in stmt.targets:
                if isinstance(target, ast.Attribute) and target.attr == "_dynamo_marked_constant":
                    if isinstance(target.value, ast.Name) and target.value.id in index.functions:
                        index.functions[target.value.id].opaque = True


def _sets_constant_marker(node: FunctionNode) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Name) and sub.func.id == "setattr":
            if len(sub.args) >= 2 and isinstance(sub.args[1], ast.Constant) and sub.args[1].value == "_dynamo_marked_constant":
                return True
        if isinstance(sub, ast.Attribute) and sub.attr == "_dynamo_marked_constant" and isinstance(sub.ctx, ast.Store):
            return True
    return False


def is_autograd_function(cls: ClassInfo) -> bool:
    """Whether the class derives from ``torch.autograd.Function`` (through classes of the file)."""
    return any(base in AUTOGRAD_FUNCTION_BASES for klass in cls.mro() for base in klass.bases)
