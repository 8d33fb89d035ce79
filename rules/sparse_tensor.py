"""CL110: sparse tensors created, converted or used in compiled code."""

from __future__ import annotations

import ast

from compilelint.analysis.kinds import Kind
from compilelint.context import RuleContext
from compilelint.findings import Mode
from compilelint.registry import Rule

# function -> GB id, measured on torch 2.13: COO creation is a skipped builtin, the
# compressed layouts have their own "Sparse tensor creation not supported".
CREATION = {
    "torch.sparse_coo_tensor": "GB0007",
    **{f"torch.sparse_{layout}_tensor": "GB0374" for layout in ("csr", "csc", "bsr", "bsc", "compressed")},
}
# Tensor -> sparse conversions: Dynamo cannot wrap the sparse result (GB0277).
CONVERSIONS = frozenset({"to_sparse", "to_sparse_coo", "to_sparse_csr", "to_sparse_csc", "to_sparse_bsr", "to_sparse_bsc"})
# Methods and functions that only make sense on a sparse tensor: the sparse argument breaks
# the graph where it is first used (GB0015 "Attempted to wrap sparse Tensor").
SPARSE_METHODS = frozenset({"to_dense", "coalesce", "is_coalesced", "_indices", "_values", "_nnz", "sparse_mask", "crow_indices", "col_indices"})
SPARSE_FUNCTIONS = frozenset({"torch.spmm", "torch.smm", "torch.hspmm", "torch.sspaddmm"})


class SparseTensor(Rule):
    """Checks for sparse tensors in compiled code: creation, conversion and sparse-only ops.

    ## What it does
    Flags, inside a compiled region: `torch.sparse_coo_tensor` and the other sparse
    constructors, `.to_sparse()` and its layout variants, `torch.sparse.*` functions,
    `torch.spmm`/`smm`/`hspmm`/`sspaddmm`, and methods that only sparse tensors have
    (`.to_dense()`, `.coalesce()`, `._indices()`, `._values()`, `._nnz()`, ...).

    ## Why is this bad?
    `torch.compile` does not support sparse tensors. Measured on torch 2.13: every line that
    creates or touches one breaks the graph in the default mode and with `dynamic=True`, and
    fails under `fullgraph=True`: COO creation is a skipped builtin (GB0007), CSR/CSC/BSR/BSC
    creation "Sparse tensor creation not supported" (GB0374), `.to_sparse*()` cannot wrap its
    result (GB0277; with `dynamic=True` it fails in fake tensors, GB0090), and a sparse input
    breaks at each line that uses it (GB0015), again after every resume. `x.is_sparse` alone
    compiles.

    ## Example
    ```python
    class GraphConv(nn.Module):
        def forward(self, x, adj):
            return torch.sparse.mm(adj, self.lin(x))
    ```

    ## Use instead
    ```python
    class GraphConv(nn.Module):
        def forward(self, x, src, dst):
            h = self.lin(x)
            return torch.zeros_like(h).index_add_(0, dst, h[src])
    ```
    Express sparse products as gather/scatter on index tensors (`index_add_`,
    `scatter_add_`), or keep the sparse step outside the compiled code.

    ## Fix safety
    No automatic fix: a dense rewrite changes memory use and the layout of results.
    """

    code = "CL110"
    name = "sparse-tensor"
    message = "sparse tensors are not supported by torch.compile: breaks the graph (GB0015)"
    gb_ids = ("GB0015", "GB0277", "GB0374", "GB0007", "GB0090")
    breaks = (Mode.DEFAULT, Mode.FULLGRAPH)
    nodes = (ast.Call,)

    def check(self, node: ast.AST, ctx: RuleContext) -> None:
        assert isinstance(node, ast.Call)
        name = ctx.qualname(node.func) or ""
        if name in CREATION:
            gb = CREATION[name]
            ctx.report(node, f"`{name}()` creates a sparse tensor, which torch.compile does not support: breaks the graph ({gb})", gb_ids=(gb, "GB0015", "GB0277"))
        elif name.startswith("torch.sparse.") or name in SPARSE_FUNCTIONS:
            ctx.report(node, f"`{name}()` works on sparse tensors, which torch.compile does not support: breaks the graph (GB0015)", gb_ids=("GB0015",))
        elif isinstance(node.func, ast.Attribute) and ctx.kind(node.func.value) & Kind.TENSOR:
            method = node.func.attr
            if method in CONVERSIONS:
                ctx.report(node, f"`.{method}()` makes a sparse tensor, which torch.compile does not support: breaks the graph (GB0277)", gb_ids=("GB0277", "GB0090"))
            elif method in SPARSE_METHODS:
                ctx.report(node, f"`.{method}()` is a sparse-tensor method; torch.compile does not support sparse tensors: breaks the graph (GB0015)", gb_ids=("GB0015",))
