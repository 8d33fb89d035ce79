"""The constructs of newer Pythons in a module, found with libcst (see ``newer_syntax``).

Imported only when this interpreter's parser has rejected a file: it imports libcst.
"""

from __future__ import annotations

import ast

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

Found = tuple[tuple[int, int], str, int, int]  # version, what, first line, last line


def newer_constructs(text: str) -> list[Found]:
    """Every construct of the list in ``newer_syntax``, with the Python that brought it."""
    wrapper = MetadataWrapper(cst.parse_module(text), unsafe_skip_copy=True)
    finder = _Finder(wrapper.module)
    wrapper.visit(finder)
    if not finder.found:
        return []
    positions = wrapper.resolve(PositionProvider)
    return [(version, what, positions[node].start.line, positions[node].end.line)
            for node, version, what in finder.found]  # fmt: skip


class _Finder(cst.CSTVisitor):
    def __init__(self, module: cst.Module) -> None:
        super().__init__()
        self.module = module
        self.found: list[tuple[cst.CSTNode, tuple[int, int], str]] = []

    def visit_TypeAlias(self, node: cst.TypeAlias) -> None:
        self.found.append((node, (3, 12), "a `type` statement (PEP 695)"))

    def visit_TypeParameters(self, node: cst.TypeParameters) -> None:
        self.found.append((node, (3, 12), "type parameters (PEP 695)"))

    def visit_TypeParam(self, node: cst.TypeParam) -> None:
        if node.default is not None:
            self.found.append((node, (3, 13), "a type parameter default (PEP 696)"))

    def visit_FormattedString(self, node: cst.FormattedString) -> bool:
        if not _parses_here(self.module.code_for_node(node)):
            what = "an f-string with its own quotes, a backslash or a comment in a replacement field (PEP 701)"
            self.found.append((node, (3, 12), what))
        return False  # the outermost f-string decides; those inside are part of it

    def visit_TemplatedString(self, node: cst.TemplatedString) -> None:
        self.found.append((node, (3, 14), 'a template string, t"..." (PEP 750)'))

    def visit_ExceptHandler(self, node: cst.ExceptHandler) -> None:
        self._unparenthesized(node, node.type)

    def visit_ExceptStarHandler(self, node: cst.ExceptStarHandler) -> None:
        self._unparenthesized(node, node.type)

    def _unparenthesized(self, node: cst.CSTNode, kind: cst.BaseExpression | None) -> None:
        if isinstance(kind, cst.Tuple) and not kind.lpar:
            self.found.append((node, (3, 14), "`except A, B:` without parentheses (PEP 758)"))


def _parses_here(code: str) -> bool:
    """Whether this interpreter's parser reads the f-string ``code`` (parsing only: an
    ``await`` in it is no grammar question)."""
    try:
        ast.parse(f"({code})", mode="eval")
    except SyntaxError:
        return False
    except (ValueError, RecursionError, MemoryError):
        return True
    return True
