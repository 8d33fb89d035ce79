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
    return mark_extended(C, EXTENDED)


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
