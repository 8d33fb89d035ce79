"""lambda-networks (lucidrains): lambda layers."""
from __future__ import annotations

from zoo.case import package_cases
from zoo.inputs import images

PACKAGE = "lambda_networks"


def _layer(**options):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        from lambda_networks import LambdaLayer

        return LambdaLayer(dim=16, dim_out=16, dim_k=8, heads=4, dim_u=1, **options)

    return build


def models():  # type: ignore[no-untyped-def]
    sizes = [(2, 8), (3, 12), (4, 16)]
    return package_cases(PACKAGE, [
        ("lambda_layer_local", _layer(r=5), images(16, sizes), {}),
        ("lambda_layer_local_r3", _layer(r=3), images(16, sizes), {}),
    ])
