"""axial-attention (lucidrains): attention along each axis; a reversible image transformer."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import images

PACKAGE = "axial_attention"
SIZES = [(2, 8), (3, 12), (4, 16)]


def _attention():  # type: ignore[no-untyped-def]
    from axial_attention import AxialAttention

    return AxialAttention(dim=16, dim_index=1, heads=2, num_dimensions=2)


def _transformer():  # type: ignore[no-untyped-def]
    from axial_attention import AxialImageTransformer

    return AxialImageTransformer(dim=16, depth=2, heads=2, reversible=True)


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("axial_attention", _attention, images(16, SIZES), {}),
        ("axial_image_transformer_reversible", _transformer, images(16, SIZES), {}),
    ])
