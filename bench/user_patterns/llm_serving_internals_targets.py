"""Targets for bench/user_patterns.py: llm_serving_internals.py."""
import torch
import llm_serving_internals as m


def _x(*s):
    return torch.randn(*s)


def _ids(vocab, *s):
    return torch.randint(3, vocab, s)


def target_static_cache_attention():
    return m.StaticCacheAttention(), [(_x(2, 6, 32),), (_x(2, 1, 32), 6), (_x(2, 1, 32),), (_x(3, 5, 32), 0)]


def target_paged_kv_attention():
    def qkv(b, t):
        return _x(b, t, 2, 8), _x(b, t, 2, 8), _x(b, t, 2, 8)
    return m.PagedKVAttention(), [(*qkv(2, 5), [0, 1]), (*qkv(2, 1), [0, 1]), (*qkv(1, 7), [2]),
                                  (*qkv(3, 1), [0, 1, 2])]


def target_scaled_rotary_embedding():
    return m.ScaledRotaryEmbedding(), [(_x(1, 2, 10, 8), _x(1, 2, 10, 8)), (_x(1, 2, 1, 8), _x(1, 2, 1, 8), 10),
                                       (_x(2, 2, 24, 8), _x(2, 2, 24, 8))]


def target_sliding_window_attention():
    pad = torch.ones(2, 12)
    pad[1, :3] = 0
    return m.SlidingWindowAttention(), [(_x(2, 6, 32),), (_x(2, 12, 32),), (_x(2, 12, 32), pad, 4)]


def target_grouped_query_attention():
    return m.GroupedQueryAttention(), [(_x(2, 5, 32),), (_x(2, 1, 32), (_x(2, 2, 5, 8), _x(2, 2, 5, 8))),
                                       (_x(1, 3, 32), (_x(1, 2, 7, 8), _x(1, 2, 7, 8)), False)]


def target_speculative_decoder():
    return m.SpeculativeDecoder(), [(_ids(64, 1, 6),), (_ids(64, 1, 9), 2), (_ids(64, 1, 7), 4, 0.7)]


def target_logits_processor_sampler():
    p1 = m.SamplingParams(temperature=0.8, top_k=10, top_p=0.9, repetition_penalty=1.2, presence_penalty=0.5,
                          min_tokens=4, eos_token_id=2, bad_words_ids=[[5], [3, 7]])
    p2 = m.SamplingParams(temperature=0.0, repetition_penalty=1.1)
    return m.LogitsProcessorSampler(), [(_x(2, 5, 32), _ids(80, 2, 5)), (_x(2, 1, 32), _ids(80, 2, 7), p1, 5),
                                        (_x(3, 1, 32), _ids(80, 3, 9), p2, 4)]


def target_multi_lora_linear():
    return m.MultiLoRALinear(), [(_x(2, 5, 32), "sql"), (_x(2, 5, 32), "chat"),
                                 (_x(3, 4, 32), ["sql", None, "summarize"]), (_x(2, 5, 32),)]


def target_int4_group_quant_linear():
    return m.Int4GroupQuantLinear().eval(), [(_x(2, 5, 32),), (_x(2, 1, 32),), (_x(3, 7, 32),)]


def target_packed_varlen_block():
    return m.PackedVarlenBlock(), [(_x(17, 32), [5, 3, 9]), (_x(10, 32), [4, 6]), (_x(12, 32), [1, 1, 10])]


def target_prefix_cached_encoder():
    first = _ids(64, 1, 10)
    shared = torch.cat([first[:, :8], _ids(64, 1, 5)], dim=1)
    return m.PrefixCachedEncoder(), [(first,), (shared,), (_ids(64, 1, 6),)]


def target_stop_sequence_checker():
    return m.StopSequenceChecker(), [(_x(2, 3, 32), _ids(64, 2, 6), 6), (_x(2, 1, 32), _ids(64, 2, 9), 6),
                                     (_x(3, 1, 32), _ids(64, 3, 20), 6)]


def target_beam_search_step():
    return m.BeamSearchStep(), [(_x(6, 32), torch.zeros(6), _ids(50, 6, 4), 4),
                                (_x(6, 32), -torch.rand(6), _ids(50, 6, 5), 5),
                                (_x(3, 32), -torch.rand(3), _ids(50, 3, 2), 2)]


def target_attention_sink_cache():
    return m.AttentionSinkCache(), [(_x(1, 10, 32),), (_x(1, 1, 32),), (_x(1, 8, 32),), (_x(1, 1, 32),)]


def target_moe_dispatch_layer():
    return m.MoEDispatchLayer(), [(_x(2, 5, 32),), (_x(3, 7, 32),), (_x(1, 1, 32),)]


def target_byte_fallback_embedding():
    ids = _ids(64, 2, 6)
    ids[0, 2], ids[1, 0], ids[1, 4] = 100, 102, 105
    return m.ByteFallbackEmbedding(), [(_ids(64, 2, 6),), (ids,), (_ids(64, 3, 9),)]
