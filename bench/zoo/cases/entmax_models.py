"""entmax (deep-spin): sparse alternatives to softmax, and their losses.

Chosen by session 10's rule (see nflows_models.py).  Here: every activation module of
entmax (Sparsemax, Entmax15 with a full sort and with the partial top-k sort,
EntmaxBisect with a fixed and a learned alpha, SparsemaxBisect, NormmaxBisect,
BudgetBisect), the losses (SparsemaxLoss, Entmax15Loss, EntmaxBisectLoss, also with
ignore_index), and an attention layer that normalises its scores with entmax15, as
the package's README suggests using it in place of softmax.
"""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom

PACKAGE = "entmax"
CLASSES = 10


def _activation(name: str, **options: Any):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        import torch
        import entmax

        if name == "EntmaxBisectLearned":
            class Learned(torch.nn.Module):
                def __init__(self) -> None:
                    super().__init__()
                    self.alpha = torch.nn.Parameter(torch.tensor(1.3))
                    self.entmax = entmax.EntmaxBisect(n_iter=10)

                def forward(self, x: torch.Tensor) -> torch.Tensor:
                    return entmax.entmax_bisect(x, alpha=self.alpha.clamp(1.01, 2.0), n_iter=10)

            return Learned()
        return getattr(entmax, name)(**options)

    return build


def _loss(name: str, **options: Any):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        import entmax

        return getattr(entmax, name)(**options)

    return build


def _attention():  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        import torch
        from entmax import entmax15

        class EntmaxAttention(torch.nn.Module):
            def __init__(self, dim: int = 16) -> None:
                super().__init__()
                self.qkv = torch.nn.Linear(dim, 3 * dim)
                self.out = torch.nn.Linear(dim, dim)
                self.scale = dim ** -0.5

            def forward(self, x: torch.Tensor) -> torch.Tensor:
                q, k, v = self.qkv(x).chunk(3, dim=-1)
                weights = entmax15(q @ k.transpose(-1, -2) * self.scale, dim=-1)
                return self.out(weights @ v)

        return EntmaxAttention()

    return build


def _scores(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    return (torch.randn([4, 6, 8][v], CLASSES, generator=g),), {}


def _labelled(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b = [4, 6, 8][v]
    return (torch.randn(b, CLASSES, generator=g), torch.randint(0, CLASSES, (b,), generator=g)), {}


def _tokens(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b, n = [(2, 8), (3, 12), (4, 16)][v]
    return (torch.randn(b, n, 16, generator=g),), {}


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("entmax_sparsemax", _activation("Sparsemax"), custom(_scores), {}),
        ("entmax_sparsemax_topk", _activation("Sparsemax", k=4), custom(_scores), {}),
        ("entmax_entmax15", _activation("Entmax15"), custom(_scores), {}),
        ("entmax_entmax15_topk", _activation("Entmax15", k=4), custom(_scores), {}),
        ("entmax_bisect", _activation("EntmaxBisect", alpha=1.5, n_iter=10), custom(_scores), {}),
        ("entmax_bisect_learned_alpha", _activation("EntmaxBisectLearned"), custom(_scores), {}),
        ("entmax_sparsemax_bisect", _activation("SparsemaxBisect", n_iter=10), custom(_scores), {}),
        ("entmax_normmax_bisect", _activation("NormmaxBisect", n_iter=10), custom(_scores), {}),
        ("entmax_budget_bisect", _activation("BudgetBisect", budget=3, n_iter=10), custom(_scores), {}),
        ("entmax_sparsemax_loss", _loss("SparsemaxLoss"), custom(_labelled), {}),
        ("entmax_entmax15_loss", _loss("Entmax15Loss"), custom(_labelled), {}),
        ("entmax_bisect_loss", _loss("EntmaxBisectLoss", alpha=1.5, n_iter=10), custom(_labelled), {}),
        ("entmax_loss_ignore_index", _loss("Entmax15Loss", ignore_index=0), custom(_labelled), {}),
        ("entmax_attention", _attention(), custom(_tokens), {}),
    ])
