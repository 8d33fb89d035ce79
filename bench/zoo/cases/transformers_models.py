"""transformers models of the zoo: small configs, random weights, nothing downloaded.

Each case builds `AutoConfig.for_model(model_type, **small)` and a model class
from it (AutoModel / AutoModelForCausalLM / ...).  The same file runs against
transformers 5.x and 4.4x: a model type or class missing in the installed
release becomes a SkippedCase with the reason.

Input variants (variant 1 and 2 change batch and length together, so a
compile-clean model recompiles once, at variant 1, when automatic dynamic
shapes kick in; anything at variant 2 is a hazard):
    text   (batch, seq) = (2, 8), (3, 12), (4, 16)
    image  fixed image size (position embeddings), batch 2, 3, 4
    conv   (batch, size) = (2, 64), (3, 96), (4, 128)
    audio  (batch, samples) = (2, 1600), (3, 2400), (4, 3200)
"""
from __future__ import annotations

from typing import Any, Callable

from zoo.case import ModelCase, SkippedCase, mark_extended

LIB = "transformers"

TEXT = [(2, 8), (3, 12), (4, 16)]
BATCH = [2, 3, 4]
CONV = [(2, 64), (3, 96), (4, 128)]
AUDIO = [(2, 1600), (3, 2400), (4, 3200)]
VOCAB = 99

# Small defaults understood (directly or through attribute_map) by most configs.
SMALL: dict[str, Any] = dict(
    hidden_size=32,
    num_hidden_layers=2,
    num_attention_heads=4,
    intermediate_size=37,
    vocab_size=VOCAB,
    max_position_embeddings=64,
    pad_token_id=0,
    bos_token_id=1,
    eos_token_id=2,
)

DECODER: dict[str, Any] = dict(SMALL, num_key_value_heads=2, head_dim=8)


# --------------------------------------------------------------------------- inputs
def _gen(seed: int):  # type: ignore[no-untyped-def]
    import torch

    g = torch.Generator().manual_seed(1234 + seed)
    return g


def _ids(b: int, s: int, v: int, vocab: int = VOCAB):  # type: ignore[no-untyped-def]
    import torch

    return torch.randint(3, vocab, (b, s), generator=_gen(v))


def _mask(b: int, s: int):  # type: ignore[no-untyped-def]
    import torch

    m = torch.ones(b, s, dtype=torch.long)
    m[0, -2:] = 0  # one padded row: the realistic case, and it exercises mask code
    return m


def text_inputs(mask: bool = True, token_type: bool = False, vocab: int = VOCAB, extra: Callable | None = None):
    def inputs(v: int) -> tuple[tuple, dict]:
        b, s = TEXT[v]
        kw: dict[str, Any] = {"input_ids": _ids(b, s, v, vocab)}
        if mask:
            kw["attention_mask"] = _mask(b, s)
        if token_type:
            import torch

            kw["token_type_ids"] = torch.zeros(b, s, dtype=torch.long)
        if extra is not None:
            kw.update(extra(b, s, v))
        return (), kw

    return inputs


def seq2seq_inputs(vocab: int = VOCAB, dec_ratio: float = 0.5):
    def inputs(v: int) -> tuple[tuple, dict]:
        b, s = TEXT[v]
        d = max(2, int(s * dec_ratio))
        return (), {
            "input_ids": _ids(b, s, v, vocab),
            "attention_mask": _mask(b, s),
            "decoder_input_ids": _ids(b, d, v + 10, vocab),
        }

    return inputs


def image_inputs(size: int, channels: int = 3, key: str = "pixel_values", conv: bool = False):
    def inputs(v: int) -> tuple[tuple, dict]:
        import torch

        if conv:
            b, sz = CONV[v]
        else:
            b, sz = BATCH[v], size
        x = torch.randn(b, channels, sz, sz, generator=_gen(v))
        return (), {key: x}

    return inputs


def audio_inputs(key: str = "input_values", mask: bool = False):
    def inputs(v: int) -> tuple[tuple, dict]:
        import torch

        b, n = AUDIO[v]
        kw: dict[str, Any] = {key: torch.randn(b, n, generator=_gen(v))}
        if mask:
            m = torch.ones(b, n, dtype=torch.long)
            m[0, -200:] = 0
            kw["attention_mask"] = m
        return (), kw

    return inputs


def features_inputs(n_mels: int, frames: list[int] | None, key: str = "input_features", time_major: bool = False,
                    mask: bool = False):
    """(batch, n_mels, frames) spectrogram-like features; frames None: fixed length per batch."""

    def inputs(v: int) -> tuple[tuple, dict]:
        import torch

        b = BATCH[v]
        t = frames[v] if frames else 0
        shape = (b, t, n_mels) if time_major else (b, n_mels, t)
        kw: dict[str, Any] = {key: torch.randn(*shape, generator=_gen(v))}
        if mask:
            m = torch.ones(b, t, dtype=torch.long)
            m[0, -4:] = 0
            kw["attention_mask"] = m
        return (), kw

    return inputs


# --------------------------------------------------------------------------- builders
def _builder(model_type: str, cfg: dict[str, Any], auto: str, post: Callable | None = None):
    def build():  # type: ignore[no-untyped-def]
        import transformers

        config = transformers.AutoConfig.for_model(model_type, **cfg)
        if post is not None:
            post(config)
        cls = getattr(transformers, auto)
        if auto.startswith("Auto"):
            return cls.from_config(config)
        return cls(config)

    return build


def _available(model_type: str, auto: str) -> str | None:
    """None if (model_type, auto) exists in the installed transformers, else why not."""
    try:
        import transformers
        from transformers import CONFIG_MAPPING
    except Exception as e:  # noqa: BLE001
        return f"transformers not importable: {type(e).__name__}: {e}"
    if model_type not in CONFIG_MAPPING:
        return f"model type {model_type!r} not in transformers {transformers.__version__}"
    if not hasattr(transformers, auto):
        return f"{auto} not in transformers {transformers.__version__}"
    return None


def case(name: str, model_type: str, cfg: dict[str, Any], inputs: Callable, auto: str = "AutoModel",
         post: Callable | None = None, notes: str = "") -> ModelCase | SkippedCase:
    why = _available(model_type, auto)
    if why:
        return SkippedCase(name, LIB, why)
    return ModelCase(name=name, package=LIB, build=_builder(model_type, cfg, auto, post), inputs=inputs, notes=notes)


def _without(d: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k not in keys}


def _set(**attrs: Any) -> Callable:
    def post(config: Any) -> None:
        for k, v in attrs.items():
            setattr(config, k, v)

    return post


# Run only with run_all.py --all (near-duplicates of a core case, or slow to compile).
EXTENDED = {
    "electra", "deberta", "mpnet", "convbert", "qwen2", "qwen3",
    "phi3", "gemma", "codegen", "stablelm", "starcoder2", "olmo",
    "xglm", "biogpt", "marian", "pegasus", "m2m_100", "deit",
    "dinov2", "swinv2", "mobilenet_v2", "siglip", "hubert", "wavlm",
}


# --------------------------------------------------------------------------- MoE and recurrent families
# The rule, fixed before any of these was recorded: every family of transformers 5.24 whose
# modeling file defines a mixture-of-experts block (a class named *MoE*/*Moe*/*Experts*, or a
# top-k router) or is built on recurrent / state-space layers (nn.LSTM/GRU/RNN, a selective-
# scan / SSM mixer), and is not a case above.  bench/zoo/transformers_moe_rnn_families.py
# generates the list (family, model type, Auto class, why) from the installed modeling files;
# each builds from tiny_config's knobs (zoo/cases/transformers_tiny.py) plus the overrides
# its config's validation needs.  A family that does not build tiny is a SkippedCase with why.
MOE_RNN_FAMILIES = [
    ("afmoe", "afmoe", "AutoModelForCausalLM"),  # moe,router
    ("aria", "aria_text", "AutoModelForCausalLM"),  # moe,router
    ("axk1", "axk1", "AutoModelForCausalLM"),  # moe,router
    ("axk2", "axk2", "AutoModelForCausalLM"),  # moe,router
    ("bailing_hybrid", "bailing_hybrid", "AutoModelForCausalLM"),  # moe,router,ssm
    ("bamba", "bamba", "AutoModelForCausalLM"),  # ssm
    ("beam", "beam", "AutoModelForCausalLM"),  # moe,router
    ("cohere2_moe", "cohere2_moe", "AutoModelForCausalLM"),  # moe,router
    ("dbrx", "dbrx", "AutoModelForCausalLM"),  # moe,router
    ("deepseek_ocr2", "deepseek_ocr2", "AutoModel"),  # moe,router
    ("deepseek_v2", "deepseek_v2", "AutoModelForCausalLM"),  # moe,router
    ("deepseek_v3", "deepseek_v3", "AutoModelForCausalLM"),  # moe,router
    ("deepseek_v32", "deepseek_v32", "AutoModelForCausalLM"),  # moe,router
    ("deepseek_v4", "deepseek_v4", "AutoModelForCausalLM"),  # moe,router
    ("diffusion_gemma", "diffusion_gemma", "AutoModel"),  # moe,router
    ("doge", "doge", "AutoModelForCausalLM"),  # moe
    ("dots1", "dots1", "AutoModelForCausalLM"),  # moe,router
    ("dots3_note", "dots3_note_text", "AutoModelForCausalLM"),  # moe,router
    ("encodec", "encodec", "AutoModel"),  # rnn
    ("ernie4_5_moe", "ernie4_5_moe", "AutoModelForCausalLM"),  # moe,router
    ("ernie4_5_vl_moe", "ernie4_5_vl_moe", "AutoModel"),  # moe,router
    ("exaone_moe", "exaone_moe", "AutoModelForCausalLM"),  # moe,router
    ("falcon_h1", "falcon_h1", "AutoModelForCausalLM"),  # ssm
    ("falcon_mamba", "falcon_mamba", "AutoModelForCausalLM"),  # ssm
    ("flex_olmo", "flex_olmo", "AutoModelForCausalLM"),  # moe,router
    ("flint", "flint", "AutoModelForCausalLM"),  # moe,router
    ("gemma4", "gemma4_text", "AutoModelForCausalLM"),  # moe,router
    ("glm4_moe", "glm4_moe", "AutoModelForCausalLM"),  # moe,router
    ("glm4_moe_lite", "glm4_moe_lite", "AutoModelForCausalLM"),  # moe,router
    ("glm4v_moe", "glm4v_moe_text", "AutoModel"),  # moe,router
    ("glm5_next", "glm5_next_text", "AutoModel"),  # moe,router,ssm
    ("glm_moe_dsa", "glm_moe_dsa", "AutoModelForCausalLM"),  # moe,router
    ("gpt_oss", "gpt_oss", "AutoModelForCausalLM"),  # moe,router
    ("granite_docling", "granite_docling_text", "AutoModel"),  # router
    ("granitemoe", "granitemoe", "AutoModelForCausalLM"),  # moe,router
    ("granitemoe_swa", "granitemoe_swa", "AutoModelForCausalLM"),  # moe,router
    ("granitemoehybrid", "granitemoehybrid", "AutoModelForCausalLM"),  # moe,router,ssm
    ("granitemoeshared", "granitemoeshared", "AutoModelForCausalLM"),  # moe,router
    ("hunyuan_v1_moe", "hunyuan_v1_moe", "AutoModelForCausalLM"),  # moe,router
    ("hy_v3", "hy_v3", "AutoModelForCausalLM"),  # moe,router
    ("hy_v4", "hy_v4", "AutoModelForCausalLM"),  # moe,router
    ("hy_v4_vl", "hy_v4_vl_text", "AutoModel"),  # moe,router
    ("inkling", "inkling_text", "AutoModelForCausalLM"),  # moe,router
    ("inkling2", "inkling2_text", "AutoModelForCausalLM"),  # moe,router
    ("inkling2_loop", "inkling2_loop_text", "AutoModelForCausalLM"),  # moe,router
    ("jamba", "jamba", "AutoModelForCausalLM"),  # moe,router,ssm
    ("jetmoe", "jetmoe", "AutoModelForCausalLM"),  # moe,router
    ("kimi_linear", "kimi_linear", "AutoModelForCausalLM"),  # moe,router,ssm
    ("kolibri1", "kolibri1", "AutoModelForCausalLM"),  # moe,router
    ("laguna", "laguna", "AutoModelForCausalLM"),  # moe,router
    ("lara_mini", "lara_mini", "AutoModelForCausalLM"),  # moe,router,ssm
    ("lfm2_moe", "lfm2_moe", "AutoModelForCausalLM"),  # moe,router
    ("llama4", "llama4_text", "AutoModelForCausalLM"),  # moe,router
    ("longcat_flash", "longcat_flash", "AutoModelForCausalLM"),  # moe,router
    ("mamba2", "mamba2", "AutoModelForCausalLM"),  # ssm
    ("mellum", "mellum", "AutoModelForCausalLM"),  # moe,router
    ("mimo_v2_flash", "mimo_v2_flash", "AutoModelForCausalLM"),  # moe,router
    ("minimax", "minimax", "AutoModelForCausalLM"),  # moe,router
    ("minimax_m2", "minimax_m2", "AutoModelForCausalLM"),  # moe,router
    ("minimax_m3_vl", "minimax_m3_vl_text", "AutoModelForCausalLM"),  # moe,router
    ("mistral4", "mistral4", "AutoModel"),  # moe,router
    ("mistral_large4", "mistral_large4_text", "AutoModel"),  # moe,router
    ("muse_spark", "muse_spark_text", "AutoModel"),  # moe,router
    ("nemotron3_5_asr", "nemotron3_5_asr", "AutoModel"),  # rnn
    ("nemotron_asr_streaming", "nemotron_asr_streaming", "AutoModel"),  # rnn
    ("nemotron_h", "nemotron_h", "AutoModelForCausalLM"),  # moe,router,ssm
    ("nllb_moe", "nllb-moe", "AutoModelForSeq2SeqLM"),  # moe,router
    ("olmo_hybrid", "olmo_hybrid", "AutoModelForCausalLM"),  # ssm
    ("olmoe", "olmoe", "AutoModelForCausalLM"),  # moe,router
    ("openai_privacy_filter", "openai_privacy_filter", "AutoModel"),  # moe,router
    ("parakeet", "parakeet_ctc", "AutoModel"),  # rnn
    ("phimoe", "phimoe", "AutoModelForCausalLM"),  # moe,router
    ("qwen3_5", "qwen3_5_text", "AutoModelForCausalLM"),  # ssm
    ("qwen3_5_moe", "qwen3_5_moe_text", "AutoModelForCausalLM"),  # moe,router,ssm
    ("qwen3_moe", "qwen3_moe", "AutoModelForCausalLM"),  # moe,router
    ("qwen3_next", "qwen3_next", "AutoModelForCausalLM"),  # moe,router,ssm
    ("qwen3_omni_moe", "qwen3_omni_moe_thinker", "AutoModel"),  # moe,router
    ("qwen3_vl_moe", "qwen3_vl_moe_text", "AutoModel"),  # moe,router
    ("qwen4_exp", "qwen4_exp_text", "AutoModelForCausalLM"),  # moe,router,ssm
    ("slanet", "-", "-"),  # rnn
    ("slanext", "-", "-"),  # rnn
    ("solar_open", "solar_open", "AutoModelForCausalLM"),  # moe,router
    ("step3p7", "step3p7", "AutoModel"),  # moe,router
    ("unlimited_ocr", "unlimited_ocr", "AutoModel"),  # moe,router
    ("vitpose_backbone", "-", "-"),  # moe
    ("wavtokenizer", "wavtokenizer", "AutoModel"),  # rnn
    ("zamba", "zamba", "AutoModelForCausalLM"),  # ssm
    ("zamba2", "zamba2", "AutoModelForCausalLM"),  # ssm
    ("zaya", "zaya", "AutoModelForCausalLM"),  # moe,router
]

# Near-duplicates, run only with --all: the family's modular file imports its MoE block, router
# or mixer from another family that is a case (the last column of transformers_moe_rnn_families.py).
MOE_RNN_EXTENDED = {
    "afmoe", "axk1", "axk2", "bamba", "beam", "cohere2_moe", "deepseek_ocr2", "deepseek_v2",
    "deepseek_v3", "deepseek_v4", "diffusion_gemma", "dots1", "dots3_note", "ernie4_5_moe",
    "ernie4_5_vl_moe", "exaone_moe", "falcon_h1", "falcon_mamba", "flex_olmo", "flint", "gemma4",
    "glm4_moe", "glm4_moe_lite", "glm4v_moe", "glm5_next", "granitemoe", "granitemoe_swa",
    "granitemoehybrid", "hunyuan_v1_moe", "hy_v3", "hy_v4", "inkling", "inkling2", "inkling2_loop",
    "jamba", "kolibri1", "laguna", "lara_mini", "lfm2_moe", "longcat_flash", "mellum", "mimo_v2_flash",
    "minimax", "minimax_m2", "minimax_m3_vl", "mistral4", "mistral_large4", "muse_spark", "olmoe",
    "openai_privacy_filter", "phimoe", "qwen3_5", "qwen3_5_moe", "qwen3_moe", "qwen3_next",
    "qwen3_omni_moe", "qwen3_vl_moe", "qwen4_exp", "solar_open", "step3p7", "zamba2", "zaya",
}

# What a family's config needs beyond the shared knobs, to validate or to keep both kinds of
# its layers at two layers.
MOE_RNN_OVERRIDES: dict[str, dict[str, Any]] = {
    "axk1": dict(qk_rope_head_dim=8, qk_nope_head_dim=8),
    "deepseek_v3": dict(qk_rope_head_dim=8, qk_nope_head_dim=8),
    "longcat_flash": dict(qk_rope_head_dim=8, qk_nope_head_dim=8),
    "axk2": dict(index_n_heads=4, index_head_dim=8, index_topk=4, qk_rope_head_dim=8, qk_nope_head_dim=8),
    "deepseek_v32": dict(index_n_heads=4, index_head_dim=8, index_topk=4, qk_rope_head_dim=8, qk_nope_head_dim=8),
    "glm_moe_dsa": dict(index_n_heads=4, index_head_dim=8, index_topk=4, qk_rope_head_dim=8, qk_nope_head_dim=8),
    "mistral_large4": dict(index_n_heads=4, index_head_dim=8, index_topk=4, qk_rope_head_dim=8, qk_nope_head_dim=8),
    "bamba": dict(attn_layer_indices=[1]),
    "granitemoehybrid": dict(layer_types=["linear_attention", "full_attention"]),
    "jamba": dict(attn_layer_period=2, attn_layer_offset=1, expert_layer_period=2, expert_layer_offset=1),
    "glm5_next": dict(qk_rope_head_dim=0),
    "falcon_h1": dict(mamba_d_ssm=64, mamba_n_heads=4, mamba_d_head=16),
    "mamba2": dict(num_heads=4, head_dim=16, expand=2),
    "zaya": dict(num_experts_per_tok=1),
    "lfm2_moe": dict(layer_types=["conv", "full_attention"], num_dense_layers=1),
    "kimi_linear": dict(num_experts_per_token=2, linear_head_dim=8, linear_num_heads=4,
                        qk_rope_head_dim=8, qk_nope_head_dim=8),
    "gemma4": dict(vocab_size_per_layer_input=99, hidden_size_per_layer_input=8, top_k_experts=2,
                   enable_moe_block=True, per_layer_config={}),
    "dbrx": dict(d_model=32, n_heads=4, n_layers=2, attn_config=dict(kv_n_heads=2, rope_theta=10000.0),
                 ffn_config=dict(ffn_hidden_size=32, moe_num_experts=4, moe_top_k=2)),
    "glm4v_moe": dict(rope_parameters=dict(rope_theta=10000.0, partial_rotary_factor=0.5, rope_type="default",
                                           mrope_section=[1, 1, 0])),
    "hy_v4_vl": dict(qk_rope_head_dim=8, qk_nope_head_dim=8,
                     rope_parameters=dict(rope_theta=10000.0, rope_type="default", mrope_section=[2, 1, 1])),
    "wavtokenizer": dict(codebook_dim=32, codebook_size=64, decoder_hidden_size=32),
    "encodec": dict(hidden_size=32, num_filters=8, codebook_size=64, codebook_dim=32, upsampling_ratios=[4, 4],
                    num_lstm_layers=2),
}


# Families the rule picks that do not build here, and why (an eager forward of the tiny build
# failed, or no Auto class maps the family's config).
MOE_RNN_UNBUILT: dict[str, str] = {
    "deepseek_ocr2": "a composite config: the shared knobs reach only its top level, and building its default-size towers took over 60 s",
    "ernie4_5_vl_moe": "a composite config: the shared knobs reach only its top level, and building its default-size towers took over 60 s",
    "qwen3_omni_moe": "a composite config: the shared knobs reach only its top level, and building its default-size towers took over 60 s",
    "step3p7": "a composite config: the shared knobs reach only its top level, and building its default-size towers took over 60 s",
    "unlimited_ocr": "a composite config whose text model type has no Auto class: the default-size vision towers give 3.2e9 parameters",
    "diffusion_gemma": "a composite config: the text model's tiny build fails in eager forward (torch.empty of a None size)",
    "bailing_hybrid": "the tiny build fails in eager forward (a linear-attention view of head size 0)",
    "qwen4_exp": "the tiny build fails in eager forward (a None head size in the indexed attention)",
    "zamba": "the tiny build fails at construction (tie_weights_keys of the shared transformer layers)",
    "dbrx": "the tiny build fails in eager forward (torch.clamp with min and max None: clip_qkv)",
    "parakeet": "an ASR model whose LSTM is in the RNN-T decoder, which needs audio features and labels: no case written",
    "nemotron3_5_asr": "an ASR model whose tiny build fails in eager forward (a None attention mask, 'unsqueeze')",
    "nemotron_asr_streaming": "an ASR model whose tiny build fails in eager forward (a None attention mask, 'unsqueeze')",
}


def _tiny_builder(model_type: str, auto: str, overrides: dict[str, Any]):
    def build():  # type: ignore[no-untyped-def]
        import transformers
        from zoo.cases.transformers_tiny import tiny_kwargs

        config = transformers.AutoConfig.for_model(model_type, **tiny_kwargs(model_type, **overrides))
        return getattr(transformers, auto).from_config(config)

    return build


def _waveform_inputs(v: int) -> tuple[tuple, dict]:
    import torch

    b, n = AUDIO[v]
    return (), {"input_values": torch.randn(b, 1, n, generator=_gen(v))}


MOE_RNN_INPUTS: dict[str, Callable] = {"encodec": _waveform_inputs, "wavtokenizer": _waveform_inputs}


def moe_rnn_cases() -> list[ModelCase | SkippedCase]:
    cases: list[ModelCase | SkippedCase] = []
    for family, model_type, auto in MOE_RNN_FAMILIES:
        why = MOE_RNN_UNBUILT.get(family) or (
            "no Auto class maps the family's config" if auto == "-" else _available(model_type, auto))
        if why:
            cases.append(SkippedCase(family, LIB, why))
            continue
        inputs = MOE_RNN_INPUTS.get(family) or (seq2seq_inputs() if auto == "AutoModelForSeq2SeqLM" else text_inputs())
        cases.append(ModelCase(name=family, package=LIB, inputs=inputs,
                               build=_tiny_builder(model_type, auto, MOE_RNN_OVERRIDES.get(family, {}))))
    return cases


# --------------------------------------------------------------------------- the zoo
def models() -> list[ModelCase | SkippedCase]:
    S = SMALL
    D = DECODER
    t = text_inputs
    C: list[ModelCase | SkippedCase] = []
    add = C.append

    # ---- encoders
    add(case("bert", "bert", S, t(token_type=True)))
    add(case("roberta", "roberta", dict(S, max_position_embeddings=80), t()))
    add(case("distilbert", "distilbert", dict(S, dim=32, n_layers=2, n_heads=4, hidden_dim=37), t()))
    add(case("albert", "albert", dict(S, embedding_size=16), t(token_type=True)))
    add(case("electra", "electra", dict(S, embedding_size=16), t()))
    add(case("deberta_v2", "deberta-v2", dict(S, relative_attention=True, position_biased_input=False,
                                               pos_att_type=["p2c", "c2p"]), t()))
    add(case("deberta", "deberta", dict(S, relative_attention=True, pos_att_type=["p2c", "c2p"]), t()))
    add(case("mpnet", "mpnet", S, t()))
    add(case("funnel", "funnel", dict(_without(S, "num_hidden_layers"), block_sizes=[1, 1], num_decoder_layers=1, d_model=32, n_head=4,
                                      d_head=8, d_inner=37), t(), auto="FunnelModel"))
    add(case("convbert", "convbert", dict(S, embedding_size=32), t()))
    add(case("longformer", "longformer", dict(S, attention_window=4, max_position_embeddings=80), t()))
    add(case("big_bird", "big_bird", dict(S, attention_type="original_full"), t()))
    add(case("xlnet", "xlnet", dict(_without(S, "max_position_embeddings"), d_model=32, n_layer=2, n_head=4, d_inner=37), t()))
    add(case("modernbert", "modernbert", dict(S, local_attention=8, global_attn_every_n_layers=2,
                                                  cls_token_id=3, sep_token_id=4), t()))
    add(case("esm", "esm", dict(S, vocab_size=33, position_embedding_type="rotary", mask_token_id=32,
                                pad_token_id=1), t(vocab=33)))
    add(case("canine", "canine", dict(S, num_hash_functions=2, num_hash_buckets=64, downsampling_rate=2,
                                      upsampling_kernel_size=2, local_transformer_stride=4,
                                      max_position_embeddings=256), t(vocab=1000)))
    add(case("reformer", "reformer", dict(S, attn_layers=["local", "local"], axial_pos_shape=[4, 4],
                                          axial_pos_embds_dim=[16, 16], feed_forward_size=37,
                                          attention_head_size=8, local_attn_chunk_length=4,
                                          is_decoder=False, max_position_embeddings=16,
                                          hidden_size=32), t(mask=False), auto="AutoModel",
                 notes="axial position embeddings need seq_len == 16 in training only; eval ok"))
    add(case("fnet", "fnet", S, t(mask=False)))

    # ---- decoders (causal LM heads: what users compile)
    lm = "AutoModelForCausalLM"
    add(case("gpt2", "gpt2", dict(S, n_embd=32, n_layer=2, n_head=4), t(), auto=lm))
    add(case("gpt_neo", "gpt_neo", dict(S, attention_types=[[["global", "local"], 1]], window_size=4,
                                        num_layers=2), t(), auto=lm))
    add(case("gptj", "gptj", dict(S, n_embd=32, n_layer=2, n_head=4, rotary_dim=4), t(), auto=lm))
    add(case("gpt_neox", "gpt_neox", dict(S, rotary_pct=0.5), t(), auto=lm))
    add(case("gpt_bigcode", "gpt_bigcode", dict(S, n_embd=32, n_layer=2, n_head=4, multi_query=True), t(),
             auto=lm))
    add(case("opt", "opt", dict(S, ffn_dim=37, word_embed_proj_dim=32), t(), auto=lm))
    add(case("bloom", "bloom", dict(S, n_layer=2, n_head=4), t(), auto=lm))
    add(case("llama", "llama", D, t(), auto=lm))
    add(case("mistral", "mistral", dict(D, sliding_window=6), t(), auto=lm))
    add(case("mixtral", "mixtral", dict(D, num_local_experts=4, num_experts_per_tok=2, intermediate_size=32), t(), auto=lm))
    add(case("qwen2", "qwen2", D, t(), auto=lm))
    add(case("qwen2_moe", "qwen2_moe", dict(D, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=16,
                                            shared_expert_intermediate_size=16), t(), auto=lm))
    add(case("qwen3", "qwen3", D, t(), auto=lm))
    add(case("phi", "phi", dict(S, partial_rotary_factor=0.5), t(), auto=lm))
    add(case("phi3", "phi3", D, t(), auto=lm))
    add(case("gemma", "gemma", D, t(), auto=lm))
    add(case("gemma2", "gemma2", dict(D, sliding_window=6), t(), auto=lm))
    add(case("falcon", "falcon", dict(S, new_decoder_architecture=False, multi_query=True), t(), auto=lm))
    add(case("codegen", "codegen", dict(S, n_embd=32, n_layer=2, n_head=4, rotary_dim=4, n_ctx=64), t(),
             auto=lm))
    add(case("stablelm", "stablelm", D, t(), auto=lm))
    add(case("starcoder2", "starcoder2", D, t(), auto=lm))
    add(case("olmo", "olmo", D, t(), auto=lm))
    add(case("mpt", "mpt", dict(S, d_model=32, n_heads=4, n_layers=2, expansion_ratio=2,
                                max_seq_len=64), t(), auto=lm))
    add(case("xglm", "xglm", dict(S, d_model=32, ffn_dim=37, attention_heads=4, num_layers=2), t(), auto=lm))
    add(case("biogpt", "biogpt", S, t(), auto=lm))
    add(case("mamba", "mamba", dict(S, state_size=4, expand=2, conv_kernel=4, time_step_rank=4), t(mask=False),
             auto=lm, notes="no CUDA kernels: slow (pure torch) path"))
    add(case("rwkv", "rwkv", dict(S, attention_hidden_size=32, context_length=64), t(mask=False), auto=lm))

    # ---- encoder-decoder
    s2s = seq2seq_inputs
    add(case("t5", "t5", dict(S, d_model=32, d_kv=8, d_ff=37, num_layers=2, num_heads=4,
                              relative_attention_num_buckets=8, decoder_start_token_id=0), s2s(),
             auto="AutoModelForSeq2SeqLM"))
    add(case("bart", "bart", dict(S, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                                  decoder_attention_heads=4, encoder_ffn_dim=37, decoder_ffn_dim=37), s2s(),
             auto="AutoModelForSeq2SeqLM"))
    add(case("marian", "marian", dict(S, d_model=32, encoder_layers=2, decoder_layers=2,
                                      encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=37,
                                      decoder_ffn_dim=37, decoder_start_token_id=0), s2s(),
             auto="AutoModelForSeq2SeqLM"))
    add(case("pegasus", "pegasus", dict(S, d_model=32, encoder_layers=2, decoder_layers=2,
                                        encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=37,
                                        decoder_ffn_dim=37), s2s(), auto="AutoModelForSeq2SeqLM"))
    add(case("m2m_100", "m2m_100", dict(S, d_model=32, encoder_layers=2, decoder_layers=2,
                                        encoder_attention_heads=4, decoder_attention_heads=4,
                                        encoder_ffn_dim=37, decoder_ffn_dim=37, encoder_layerdrop=0.0,
                                        decoder_layerdrop=0.0), s2s(), auto="AutoModelForSeq2SeqLM"))
    add(case("led", "led", dict(S, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                                decoder_attention_heads=4, encoder_ffn_dim=37, decoder_ffn_dim=37,
                                attention_window=4, max_encoder_position_embeddings=64,
                                max_decoder_position_embeddings=64), s2s(), auto="AutoModelForSeq2SeqLM"))
    add(case("switch_transformers", "switch_transformers",
             dict(S, d_model=32, d_kv=8, d_ff=37, num_layers=2, num_decoder_layers=2, num_heads=4,
                  num_experts=4, expert_capacity=8, num_sparse_encoder_layers=1, num_sparse_decoder_layers=1,
                  relative_attention_num_buckets=8, decoder_start_token_id=0), s2s(),
             auto="AutoModelForSeq2SeqLM"))
    add(case("prophetnet", "prophetnet", dict(_without(S, "num_hidden_layers"), encoder_ffn_dim=37, decoder_ffn_dim=37, num_encoder_layers=2,
                                              num_decoder_layers=2, num_encoder_attention_heads=4,
                                              num_decoder_attention_heads=4, ngram=2, num_buckets=8,
                                              relative_max_distance=16, decoder_start_token_id=0), s2s(),
             auto="AutoModelForSeq2SeqLM"))

    # ---- vision
    vit = dict(S, image_size=32, patch_size=8, num_channels=3)
    add(case("vit", "vit", vit, image_inputs(32)))
    add(case("deit", "deit", vit, image_inputs(32)))
    add(case("beit", "beit", dict(vit, use_relative_position_bias=True), image_inputs(32)))
    add(case("dinov2", "dinov2", dict(vit, image_size=32), image_inputs(32)))
    add(case("swin", "swin", dict(image_size=32, patch_size=2, embed_dim=16, depths=[1, 2], num_heads=[2, 4],
                                  window_size=4, num_channels=3), image_inputs(32)))
    add(case("swinv2", "swinv2", dict(image_size=32, patch_size=2, embed_dim=16, depths=[1, 2], num_heads=[2, 4],
                                      window_size=4, num_channels=3), image_inputs(32)))
    add(case("convnext", "convnext", dict(hidden_sizes=[8, 16, 32, 64], depths=[1, 1, 1, 1], num_channels=3),
             image_inputs(0, conv=True)))
    add(case("resnet", "resnet", dict(embedding_size=8, hidden_sizes=[8, 16, 32, 64], depths=[1, 1, 1, 1],
                                      layer_type="bottleneck"), image_inputs(0, conv=True)))
    add(case("mobilenet_v2", "mobilenet_v2", dict(depth_multiplier=0.25, min_depth=4, image_size=64),
             image_inputs(0, conv=True)))
    add(case("efficientnet", "efficientnet", dict(width_coefficient=0.1, depth_coefficient=0.1, image_size=64,
                                                  hidden_dim=128), image_inputs(0, conv=True)))
    add(case("segformer", "segformer", dict(num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1],
                                            hidden_sizes=[16, 32], num_attention_heads=[1, 2],
                                            patch_sizes=[7, 3], strides=[4, 2], mlp_ratios=[2, 2],
                                            decoder_hidden_size=32), image_inputs(0, conv=True)))
    add(case("levit", "levit", dict(image_size=64, hidden_sizes=[16, 24, 32], num_attention_heads=[1, 2, 2],
                                    depths=[1, 1, 1], key_dim=[8, 8, 8], patch_size=16, stride=2,
                                    down_ops=[["Subsample", 8, 1, 4, 2, 2], ["Subsample", 8, 2, 4, 2, 2]]),
             image_inputs(64)))
    add(case("mobilevit", "mobilevit", dict(image_size=64, hidden_sizes=[16, 24, 32],
                                            neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64], num_attention_heads=2),
             image_inputs(64)))
    # ---- multimodal
    clip_cfg = dict(text_config=dict(S), vision_config=dict(vit), projection_dim=16)

    def clip_inputs(v: int) -> tuple[tuple, dict]:
        import torch

        b, s = TEXT[v]
        return (), {"input_ids": _ids(b, s, v), "attention_mask": _mask(b, s),
                    "pixel_values": torch.randn(b, 3, 32, 32, generator=_gen(v))}

    add(case("clip", "clip", clip_cfg, clip_inputs))
    add(case("siglip", "siglip", clip_cfg, clip_inputs))

    # ---- audio
    w2v = dict(S, conv_dim=[16, 16], conv_stride=[5, 4], conv_kernel=[10, 8], num_conv_pos_embeddings=16,
               num_conv_pos_embedding_groups=2, do_stable_layer_norm=True, feat_extract_norm="layer")
    add(case("wav2vec2", "wav2vec2", w2v, audio_inputs(mask=True)))
    add(case("hubert", "hubert", w2v, audio_inputs()))
    add(case("wavlm", "wavlm", dict(w2v, num_buckets=16, max_bucket_distance=32), audio_inputs()))
    add(case("whisper", "whisper", dict(S, d_model=32, encoder_layers=2, decoder_layers=2,
                                        encoder_attention_heads=4, decoder_attention_heads=4,
                                        encoder_ffn_dim=37, decoder_ffn_dim=37, num_mel_bins=16,
                                        max_source_positions=16, max_target_positions=32,
                                        decoder_start_token_id=1),
             _whisper_inputs, auto="WhisperForConditionalGeneration"))
    add(case("speech_to_text", "speech_to_text",
             dict(S, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=4,
                  decoder_attention_heads=4, encoder_ffn_dim=37, decoder_ffn_dim=37, input_feat_per_channel=16,
                  input_channels=1, conv_channels=16, num_conv_layers=2, conv_kernel_sizes=[5, 5],
                  max_source_positions=64, max_target_positions=64, decoder_start_token_id=1),
             _s2t_inputs, auto="AutoModelForSpeechSeq2Seq"))
    add(case("audio_spectrogram_transformer", "audio-spectrogram-transformer",
             dict(S, patch_size=8, frequency_stride=8, time_stride=8, max_length=32, num_mel_bins=16),
             features_inputs(16, [32, 32, 32], time_major=True, key="input_values")))
    C += moe_rnn_cases()
    return mark_extended(C, EXTENDED | MOE_RNN_EXTENDED)


def _whisper_inputs(v: int) -> tuple[tuple, dict]:
    import torch

    b = BATCH[v]
    dec = [4, 6, 8][v]
    return (), {"input_features": torch.randn(b, 16, 32, generator=_gen(v)),
                "decoder_input_ids": _ids(b, dec, v)}


def _s2t_inputs(v: int) -> tuple[tuple, dict]:
    import torch

    b, t = [(2, 24), (3, 36), (4, 48)][v]
    m = torch.ones(b, t, dtype=torch.long)
    m[0, -4:] = 0
    return (), {"input_features": torch.randn(b, t, 16, generator=_gen(v)), "attention_mask": m,
                "decoder_input_ids": _ids(b, [4, 6, 8][v], v)}
