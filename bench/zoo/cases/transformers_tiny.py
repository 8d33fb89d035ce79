"""A tiny config for any transformers model type, from the names its config class uses.

The mixture-of-experts and recurrent/state-space families of transformers_models.py
are many (one per modeling file the selection rule picks), and their configs differ
mostly in what they call the same knobs: `num_local_experts` or `n_routed_experts`,
`ssm_state_size` or `mamba_d_state`.  `tiny_config` sets every knob of TINY that the
config class's defaults have, so the model keeps its architecture (the MoE block, the
router, the mixer) at a size that compiles in seconds.  Layer-pattern lists
(`layer_types`, ...) keep one layer of each kind, in their first order, so a hybrid
model still runs both its attention and its mixer layers.
"""
from __future__ import annotations

from typing import Any

TINY: dict[str, Any] = dict(
    # the transformer core
    hidden_size=32, d_model=32, num_hidden_layers=2, num_layers=2, num_attention_heads=4, num_key_value_heads=2,
    head_dim=8, intermediate_size=32, ffn_hidden_size=32, vocab_size=99, max_position_embeddings=64,
    pad_token_id=0, bos_token_id=1, eos_token_id=2, sliding_window=6, attention_chunk_size=6,
    # mixture of experts
    num_experts=4, num_local_experts=4, n_routed_experts=4, moe_num_experts=4, num_experts_per_tok=2,
    moe_k=2, moe_topk=2, num_selected_experts=2, moe_intermediate_size=16, expert_intermediate_size=16,
    shared_expert_intermediate_size=16, n_shared_experts=1, num_shared_experts=1, moe_num_shared_experts=1,
    n_group=1, topk_group=1, first_k_dense_replace=1, kv_lora_rank=16, q_lora_rank=16, qk_rope_head_dim=4,
    qk_nope_head_dim=4, v_head_dim=8, expert_capacity=8,
    # recurrent and state-space mixers
    state_size=4, ssm_state_size=8, mamba_d_state=8, mamba_d_conv=4, mamba_expand=2, mamba_n_heads=4,
    mamba_d_head=16, mamba_head_dim=16, mamba_n_groups=1, n_groups=1, conv_kernel=4, time_step_rank=4,
    linear_num_key_heads=2, linear_num_value_heads=4, linear_key_head_dim=8, linear_value_head_dim=8,
    linear_conv_kernel_dim=4,
)

PATTERNS = ("layer_types", "layers_block_type", "mlp_layer_types")


def _one_of_each(pattern: list[Any]) -> list[Any]:
    seen: list[Any] = []
    for kind in pattern:
        if kind not in seen:
            seen.append(kind)
    return seen


def tiny_kwargs(model_type: str, **overrides: Any) -> dict[str, Any]:
    """The TINY knobs the config class of `model_type` has, with `overrides` on top."""
    from transformers import CONFIG_MAPPING

    defaults = CONFIG_MAPPING[model_type]().to_dict()
    kw = {k: v for k, v in TINY.items() if k in defaults}
    if "num_key_value_heads" in kw and defaults.get("num_key_value_heads") == defaults.get("num_attention_heads"):
        kw["num_key_value_heads"] = kw["num_attention_heads"]  # keep multi-head attention (MLA needs it)
    for name in PATTERNS:
        pattern = defaults.get(name)
        if isinstance(pattern, list) and pattern:
            kinds = _one_of_each(pattern)
            n = max(2, len(kinds))
            kw[name] = (kinds * n)[:n]
            for layers in ("num_hidden_layers", "num_layers"):
                if layers in kw:
                    kw[layers] = n
    kw.update(overrides)
    return kw
