"""kornia: differentiable augmentation pipelines, filters, colour and geometry ops, features.

Seven hand-written cases (pipelines, filters, features, geometry), plus two families
whose members a rule picks, by introspecting the installed kornia when the cases
are listed (the rule was fixed before any of them was recorded; results never add
or drop a member):

- `aug_<name>`: every class exported in `kornia.augmentation.__all__` that is a 2D
  image augmentation: a subclass of `AugmentationBase2D` or of the mix family
  `MixAugmentationBaseV2`, but not of `AugmentationBase3D` (3D/video), not defined in
  a `base` module (the base classes), not abstract, that constructs with `p=1.0` as
  its only argument (with no argument when it has no `p`), and, for the mix family,
  whose default `data_keys` ask for the image alone (the others need labels or
  masks). Containers and dispatchers (`AugmentationSequential`, `ImageSequential`,
  `PatchSequential`, `VideoSequential`, the dispatchers) subclass neither base and
  so are out.
- `color_<name>`: every class exported in `kornia.color.__all__` that is an
  `nn.Module` converting from RGB (its name starts with `RgbTo`) and constructs with
  no arguments.

Both families run on the zoo's usual rgb images (zoo.inputs.images(3)).
"""
from __future__ import annotations

import inspect
import re
from typing import Any, Callable

from zoo.case import ModelCase, SkippedCase, package_cases, skipped_unless
from zoo.inputs import images

PACKAGE = "kornia"


def _sequential(*make: Callable[[Any], Any]) -> Callable[[], Any]:
    def build():  # type: ignore[no-untyped-def]
        import kornia
        import torch

        return torch.nn.Sequential(*(m(kornia) for m in make))

    return build


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def _constructor_kwargs(cls: type) -> dict[str, Any]:
    params = inspect.signature(cls.__init__).parameters
    return {"p": 1.0} if "p" in params else {}


def _constructs(cls: type, kwargs: dict[str, Any]) -> Any:
    try:
        return cls(**kwargs)
    except Exception:  # noqa: BLE001 - needs arguments beyond the rule's: not a member
        return None


def _is_augmentation_2d(cls: Any) -> bool:
    from kornia.augmentation import AugmentationBase2D, AugmentationBase3D, MixAugmentationBaseV2

    return (inspect.isclass(cls) and issubclass(cls, (AugmentationBase2D, MixAugmentationBaseV2))
            and not issubclass(cls, AugmentationBase3D) and not cls.__module__.endswith(".base")
            and not inspect.isabstract(cls))


def _image_only(instance: Any) -> bool:
    from kornia.augmentation import MixAugmentationBaseV2
    from kornia.constants import DataKey

    return not isinstance(instance, MixAugmentationBaseV2) or list(instance.data_keys) == [DataKey.INPUT]


def augmentation_classes() -> list[str]:
    """The names the `aug_` rule (module docstring) picks from the installed kornia."""
    import kornia.augmentation as augmentation

    picked = []
    for name in augmentation.__all__:
        cls = getattr(augmentation, name, None)
        if not _is_augmentation_2d(cls):
            continue
        instance = _constructs(cls, _constructor_kwargs(cls))
        if instance is not None and _image_only(instance):
            picked.append(name)
    return picked


def color_classes() -> list[str]:
    """The names the `color_` rule (module docstring) picks from the installed kornia."""
    import kornia.color as color
    import torch

    return [name for name in color.__all__
            if name.startswith("RgbTo") and inspect.isclass(getattr(color, name))
            and issubclass(getattr(color, name), torch.nn.Module) and _constructs(getattr(color, name), {}) is not None]


def _augmentation(name: str) -> Callable[[], Any]:
    def build():  # type: ignore[no-untyped-def]
        import kornia.augmentation as augmentation

        cls = getattr(augmentation, name)
        return cls(**_constructor_kwargs(cls))

    return build


def _color(name: str) -> Callable[[], Any]:
    def build():  # type: ignore[no-untyped-def]
        import kornia.color as color

        return getattr(color, name)()

    return build


def _hand_written(rgb: Any) -> list[tuple[str, Callable[[], Any], Any, dict[str, Any]]]:
    return [
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
    ]


def models() -> list[ModelCase | SkippedCase]:
    rgb = images(3)
    specs = _hand_written(rgb)
    if skipped_unless(PACKAGE) is not None:  # the rule needs kornia to list its members
        return package_cases(PACKAGE, specs)
    augs = [(f"aug_{_snake(n)}", _augmentation(n), rgb, {}) for n in augmentation_classes()]
    colors = [(f"color_{_snake(n)}", _color(n), rgb, {}) for n in color_classes()]
    return package_cases(PACKAGE, specs + augs + colors)
