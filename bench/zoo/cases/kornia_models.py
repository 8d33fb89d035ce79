"""kornia: differentiable augmentation pipelines, filters, colour and geometry ops, features."""
from __future__ import annotations

from typing import Any, Callable

from zoo.case import package_cases
from zoo.inputs import images

PACKAGE = "kornia"


def _sequential(*make: Callable[[Any], Any]) -> Callable[[], Any]:
    def build():  # type: ignore[no-untyped-def]
        import kornia
        import torch

        return torch.nn.Sequential(*(m(kornia) for m in make))

    return build


def models():  # type: ignore[no-untyped-def]
    rgb = images(3)
    return package_cases(PACKAGE, [
        ("augmentation_sequential", _sequential(lambda k: k.augmentation.AugmentationSequential(
            k.augmentation.RandomHorizontalFlip(p=0.5), k.augmentation.RandomAffine(degrees=10.0, p=0.8),
            k.augmentation.ColorJitter(0.1, 0.1, 0.1, 0.1, p=0.5))), rgb, {}),
        ("random_resized_crop", _sequential(lambda k: k.augmentation.RandomResizedCrop((24, 24), p=1.0)), rgb, {}),
        ("gaussian_blur_sobel", _sequential(lambda k: k.filters.GaussianBlur2d((3, 3), (1.5, 1.5)),
                                            lambda k: k.filters.Sobel()), rgb, {}),
        ("rgb_to_hsv_and_back", _sequential(lambda k: k.color.RgbToHsv(), lambda k: k.color.HsvToRgb()), rgb, {}),
        ("canny", _sequential(lambda k: k.filters.Canny()), rgb, {}),
        ("sift_descriptor", _sequential(lambda k: k.feature.SIFTDescriptor(patch_size=32)),
         images(1, fixed=32), {}),
        ("warp_perspective_rotate", _sequential(lambda k: k.geometry.transform.Rotate(
            __import__("torch").tensor([15.0]))), rgb, {}),
    ])
