"""Targets for bench/user_patterns.py: language_and_structure.py."""
import torch
import language_and_structure as m


def _x(*s):
    return torch.randn(*s)


def _mask(lengths, L):
    return torch.arange(L)[None, :] < torch.tensor(lengths)[:, None]


def _padded_ids(lengths, L, vocab=50, pad=0):
    ids = torch.randint(1, vocab, (len(lengths), L))
    return ids.masked_fill(~_mask(lengths, L), pad)


def target_linear_chain_crf():
    return m.LinearChainCRF(), [
        (_x(2, 6, 5), torch.randint(0, 5, (2, 6)), _mask([6, 4], 6)),
        (_x(3, 8, 5), torch.randint(0, 5, (3, 8)), _mask([8, 5, 2], 8), "sum"),
        (_x(2, 7, 5), torch.randint(0, 5, (2, 7))),
    ]


def target_crf_viterbi_decoder():
    return m.CRFViterbiDecoder(), [
        (_x(2, 6, 16), _mask([6, 3], 6)),
        (_x(3, 8, 16), _mask([8, 5, 1], 8)),
        (_x(1, 5, 16),),
    ]


def target_gru_beam_search():
    return m.GRUBeamSearch(), [(_x(1, 16),), (_x(1, 16), 2, 6), (_x(1, 16), 3, 10, 1.0)]


def target_tiny_transformer_beam_search():
    return m.TinyTransformerBeamSearch(), [(_x(1, 5, 16),), (_x(1, 7, 16), 2, 8), (_x(1, 4, 16), 3, 5, 0.7)]


def target_qa_span_extractor():
    return m.QASpanExtractor(), [
        (_x(2, 10, 16), _mask([10, 7], 10)),
        (_x(3, 12, 16), _mask([12, 9, 6], 12), 3),
        (_x(1, 8, 16), _mask([8], 8), 6),
    ]


def target_vectorized_span_scorer():
    return m.VectorizedSpanScorer(), [(_x(2, 10, 16), _mask([10, 7], 10)), (_x(3, 12, 16), _mask([12, 9, 6], 12))]


def target_bio_span_decoder():
    return m.BIOSpanDecoder(), [(_x(2, 8, 16), _mask([8, 5], 8)), (_x(3, 11, 16), _mask([11, 7, 3], 11))]


def target_constrained_greedy_decoder():
    return m.ConstrainedGreedyDecoder(), [(_x(2, 16),), (_x(3, 16), 6, [13, 14]), (_x(2, 16), 10, [20])]


def target_no_repeat_ngram_blocker():
    return m.NoRepeatNGramBlocker(), [
        (torch.randint(0, 6, (2, 5)), _x(2, 12)),
        (torch.randint(0, 6, (3, 8)), _x(3, 12)),
        (torch.randint(0, 6, (2, 1)), _x(2, 12)),
    ]


def target_dynamic_truncation_classifier():
    return m.DynamicTruncationClassifier(), [
        (_padded_ids([5, 3], 9),),
        (_padded_ids([7, 4, 2], 12),),
        (_padded_ids([11, 6], 12),),
    ]


def target_sequence_packer():
    return m.SequencePacker(), [
        (_padded_ids([5, 3, 7, 2], 8), torch.tensor([5, 3, 7, 2])),
        (_padded_ids([9, 4, 6], 10), torch.tensor([9, 4, 6])),
    ]


def target_label_smoothing_cross_entropy():
    t1 = torch.randint(0, 10, (2, 6))
    t1[1, 4:] = -100
    t2 = torch.randint(0, 10, (3, 8))
    t2[:, 6:] = -100
    return m.LabelSmoothingCrossEntropy(), [(_x(2, 6, 10), t1), (_x(3, 8, 10), t2, 0.2)]


def target_masked_label_smoothing_loss():
    t1 = torch.randint(0, 10, (2, 6))
    t1[1, 4:] = -100
    t2 = torch.randint(0, 10, (3, 8))
    t2[:, 6:] = -100
    return m.MaskedLabelSmoothingLoss(), [(_x(2, 6, 10), t1), (_x(3, 8, 10), t2)]


def target_top_k_passage_fusion():
    return m.TopKPassageFusion(), [
        (_x(2, 4, 16), _x(2, 4, 5, 16), _mask([5, 3, 4, 2, 5, 5, 1, 4], 5).view(2, 4, 5)),
        (_x(3, 5, 16), _x(3, 3, 6, 16), _mask([6, 2, 4, 5, 6, 3, 1, 6, 2], 6).view(3, 3, 6), 1),
        (_x(1, 3, 16), _x(1, 5, 4, 16), _mask([4, 3, 2, 4, 1], 4).view(1, 5, 4), 3),
    ]


def target_prefix_kv_cache():
    prompt = torch.tensor([3, 7, 11, 2])
    return m.PrefixKVCache(), [
        (prompt, torch.randint(0, 50, (2, 5))),
        (prompt, torch.randint(0, 50, (3, 6))),
        (torch.tensor([5, 9, 1]), torch.randint(0, 50, (2, 4))),
    ]


def target_t5_relative_position_bias():
    return m.T5RelativePositionBias(), [(_x(2, 2, 6, 6),), (_x(1, 2, 9, 9),), (_x(2, 2, 1, 7),)]


def target_pointer_generator_head():
    return m.PointerGeneratorHead(), [
        (_x(2, 16), _x(2, 7, 16), torch.randint(0, 32, (2, 7)), _mask([7, 5], 7)),
        (_x(3, 16), _x(3, 9, 16), torch.randint(0, 35, (3, 9)), _mask([9, 6, 4], 9)),
        (_x(2, 16), _x(2, 6, 16), torch.randint(0, 30, (2, 6)), _mask([6, 6], 6)),
    ]
