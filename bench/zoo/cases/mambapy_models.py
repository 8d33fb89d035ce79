"""mambapy (alxndrTL's mamba.py): Mamba and Jamba in plain PyTorch.

Chosen by session 10's rule (see nflows_models.py).  Here: the Mamba backbone with the
parallel scan (pscan, the default) and the sequential scan, with inner layer norms, its
one-token decoding step (Mamba.step, the body of LM.generate's loop), Jamba (Mamba,
attention and mixture-of-experts layers; one expert too), and the vision Mamba backbone
(VMamba), all at small sizes.  Left out: Mamba-2 and the LM wrapper, whose modules
import mamba_ssm (CUDA kernels) at import time.
"""
from __future__ import annotations

from typing import Any

from zoo.case import package_cases
from zoo.inputs import custom, tokens

PACKAGE = "mambapy"
D_MODEL, VOCAB = 16, 64


def _mamba(**options: Any):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        from mambapy.mamba import Mamba, MambaConfig

        return Mamba(MambaConfig(d_model=D_MODEL, n_layers=2, **options))

    return build


def _jamba(experts: int):  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        from mambapy.jamba import JambaLM, JambaLMConfig

        return JambaLM(JambaLMConfig(
            d_model=D_MODEL, n_layers=4, mlp_size=32, vocab_size=VOCAB, num_attention_heads=4, num_key_value_heads=2,
            num_experts=experts, num_experts_per_tok=min(2, experts), attn_layer_offset=1, attn_layer_period=2,
            expert_layer_offset=0, expert_layer_period=2,
        ))

    return build


def _vmamba():  # type: ignore[no-untyped-def]
    def build():  # type: ignore[no-untyped-def]
        from mambapy.vim import MambaConfig, VMamba

        return VMamba(MambaConfig(d_model=D_MODEL, n_layers=2))

    return build


def _sequences(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b, n = [(2, 8), (3, 16), (2, 32)][v]
    return (torch.randn(b, n, D_MODEL, generator=g),), {}


def _step_inputs(v: int, g: Any) -> tuple[tuple, dict]:
    import torch

    b = [1, 2, 3][v]
    d_inner, d_conv, d_state = 2 * D_MODEL, 4, 16
    caches = [(torch.zeros(b, d_inner, d_state), torch.zeros(b, d_inner, d_conv - 1)) for _ in range(2)]
    return (torch.randn(b, D_MODEL, generator=g), caches), {}


def models():  # type: ignore[no-untyped-def]
    return package_cases(PACKAGE, [
        ("mambapy_mamba", _mamba(), custom(_sequences), {}),
        ("mambapy_mamba_sequential", _mamba(pscan=False), custom(_sequences), {}),
        ("mambapy_mamba_inner_layernorms", _mamba(inner_layernorms=True), custom(_sequences), {}),
        ("mambapy_mamba_step", _mamba(), custom(_step_inputs), {"method": "step", "train": False}),
        ("mambapy_jamba", _jamba(4), tokens(VOCAB), {}),
        ("mambapy_jamba_one_expert", _jamba(1), tokens(VOCAB), {}),
        ("mambapy_vmamba", _vmamba(), custom(_sequences), {}),
    ])
