"""torchmetrics: metric updates (Metric is an nn.Module) and functional metrics users compile in eval loops."""
from __future__ import annotations

from typing import Any, Callable

from zoo.case import package_cases
from zoo.inputs import custom

PACKAGE = "torchmetrics"


def _metric(cls: str, **kwargs: Any) -> Callable[[], Any]:
    def build():  # type: ignore[no-untyped-def]
        import torchmetrics

        return getattr(torchmetrics, cls)(**kwargs)

    return build


def _f1() -> Any:
    import torch
    from torchmetrics.functional import f1_score

    class F1Score(torch.nn.Module):  # written as users write a compiled eval step
        def forward(self, preds: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            return f1_score(preds, target, task="multiclass", num_classes=5)

    return F1Score()


def _auroc() -> Any:
    import torch
    import torchmetrics.functional as F

    class BinaryAUROC(torch.nn.Module):
        def forward(self, preds: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            return F.auroc(preds, target, task="binary")

    return BinaryAUROC()


def _pearson() -> Any:
    import torch
    from torchmetrics.functional import pearson_corrcoef

    class Pearson(torch.nn.Module):
        def forward(self, preds: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
            return pearson_corrcoef(preds, target)

    return Pearson()


def _multiclass(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    n = [8, 12, 16][v]
    return (torch.randn(n, 5, generator=g).softmax(-1), torch.randint(0, 5, (n,), generator=g)), {}


def _binary(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    n = [8, 12, 16][v]
    return (torch.rand(n, generator=g), torch.randint(0, 2, (n,), generator=g)), {}


def _regression(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    n = [8, 12, 16][v]
    return (torch.randn(n, generator=g), torch.randn(n, generator=g)), {}


def models():  # type: ignore[no-untyped-def]
    eval_only = {"train": False}
    return package_cases(PACKAGE, [
        ("multiclass_accuracy_update", _metric("Accuracy", task="multiclass", num_classes=5),
         custom(_multiclass), {"method": "update", **eval_only}),
        ("mse_update", _metric("MeanSquaredError"), custom(_regression), {"method": "update", **eval_only}),
        ("f1_functional", _f1, custom(_multiclass), eval_only),
        ("binary_auroc_functional", _auroc, custom(_binary), eval_only),
        ("pearson_functional", _pearson, custom(_regression), eval_only),
    ])
