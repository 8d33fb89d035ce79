"""Targets for bench/user_patterns.py: multimodal_and_retrieval.py."""
import torch
import multimodal_and_retrieval as m


def _x(*s):
    return torch.randn(*s)


def _ids(vocab, *s):
    return torch.randint(2, vocab, s)


def _mask(lengths, t):
    return (torch.arange(t)[None, :] < torch.tensor(lengths)[:, None]).long()


def target_clip_dual_encoder():
    ids = _ids(63, 3, 10)
    ids[:, -1] = 63
    return m.CLIPDualEncoder().eval(), [
        (_x(2, 3, 16, 16), _ids(64, 2, 8)),
        (_x(3, 3, 16, 16), ids, None, True),
        ((_x(4, 3, 24, 24), _ids(64, 4, 12)), {"attention_mask": _mask([12, 5, 7, 3], 12), "return_loss": True}),
    ]


def target_in_batch_contrastive_loss():
    return m.InBatchContrastiveLoss(hard_negative_k=2), [
        (_x(4, 16), _x(4, 16)),
        (_x(6, 16), _x(6, 16), [0, 0, 1, 2, 2, 3]),
        ((_x(8, 16), _x(8, 16)), {"hard_negative_k": 0}),
        (_x(3, 16), _x(3, 16), torch.tensor([5, 7, 5]), 4),
    ]


def target_cross_attention_fusion():
    return m.CrossAttentionFusion(gate_init=0.1), [
        (_x(2, 5, 32), _x(2, 7, 24)),
        (_x(3, 5, 32), _x(3, 9, 24), [9, 4, 6]),
        ((_x(2, 4, 32), _x(2, 6, 24), torch.tensor([6, 0])), {"return_attention": True}),
    ]


def target_q_former():
    return m.QFormer().eval(), [
        (_x(2, 10, 48),),
        (_x(3, 17, 48), _ids(50, 3, 6)),
        ((_x(2, 12, 48), _ids(50, 2, 5)), {"image_mask": _mask([12, 8], 12), "mode": "multimodal"}),
    ]


def target_region_grounding():
    def boxes(n):
        xy = torch.rand(n, 2) * 40
        wh = torch.rand(n, 2) * 20 + 2
        return torch.cat([xy, xy + wh], dim=1)
    return m.RegionGrounding().eval(), [
        (_x(2, 16, 8, 8), [boxes(3), boxes(1)], _x(2, 24)),
        (_x(3, 16, 8, 8), [boxes(2), boxes(5), boxes(4)], _x(3, 24)),
        (_x(2, 16, 16, 16), [boxes(2), torch.zeros(0, 4)], _x(2, 24)),
    ]


def target_ctc_text_recognizer():
    return m.CTCTextRecognizer().eval(), [
        (_x(2, 1, 16, 48),),
        (_x(3, 1, 16, 64), ["ab12", "x", "hello"]),
        (_x(1, 16, 32), ["Q7"]),
    ]


def target_vqa_answer_head():
    return m.VQAAnswerHead().eval(), [
        (_x(2, 6, 32), _x(2, 5, 24)),
        (_x(3, 10, 32), _x(3, 7, 24), _mask([7, 3, 5], 7).bool()),
        ((_x(2, 4, 32), _x(2, 6, 24)),
         {"answers": [["yes", "yes", "no", "yes"], ["2", "two", "2", "3", "red"]]}),
    ]


def target_retrieval_reranker():
    bank = _x(40, 32)
    return m.RetrievalReranker(), [
        (_x(2, 32), bank),
        (_x(3, 32), bank, 5),
        (_x(2, 32), bank, 4, [[0, 1, 2], []]),
        (_x(1, 32), _x(6, 32), 10),
    ]


def target_memory_bank_retriever():
    return m.MemoryBankRetriever(), [
        (_x(4, 24), _x(4, 24)),
        (_x(8, 24), _x(8, 24)),
        (_x(3, 24),),
        ((_x(2, 24),), {"threshold": 0.1, "top_k": 8}),
    ]


def target_chunked_mips():
    return m.ChunkedMIPS(), [
        (_x(2, 32),),
        (_x(5, 32), 10),
        (_x(3, 32), 3, 50),
        (_x(1, 32), 7, 128),
    ]


def target_product_quantizer():
    return m.ProductQuantizer(), [
        (_x(8, 32),),
        (_x(2, 5, 32), True),
        (_x(16, 32), True),
    ]


def target_col_bert_scorer():
    return m.ColBERTScorer().eval(), [
        (_ids(100, 2, 5), _ids(100, 21), [6, 9, 6]),
        (_ids(100, 3, 8), _ids(100, 30), [4, 12, 3, 11], 2),
        (_ids(100, 1, 11), _ids(100, 7), [7], 5),
    ]


def target_perceiver_resampler():
    return m.PerceiverResampler(), [
        (_x(2, 9, 32),),
        (_x(2, 3, 6, 32),),
        (_x(3, 4, 5, 32), torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0], [1, 0, 0, 0]])),
    ]


def target_beam_search_captioner():
    caps = torch.tensor([[1, 4, 6, 9, 5, 14, 2], [1, 5, 7, 2, 0, 0, 0]])
    return m.BeamSearchCaptioner().eval(), [
        (_x(2, 32),),
        (_x(3, 32), None, 4, 6),
        ((_x(1, 32),), {"beam_size": 2, "max_len": 10, "length_penalty": 1.0}),
        (_x(2, 32), caps),
    ]


def target_modality_dropout_fusion():
    torch.manual_seed(0)
    return m.ModalityDropoutFusion().train(), [
        ({"image": _x(2, 4, 24), "text": _x(2, 6, 16), "audio": _x(2, 3, 12)},),
        ({"image": _x(4, 5, 24), "text": _x(4, 8, 16)},),
        ({"text": _x(3, 6, 16), "audio": None},),
    ]


def target_modality_expert_block():
    pad = torch.zeros(3, 6, dtype=torch.bool)
    pad[1, 4:] = True
    return m.ModalityExpertBlock(), [
        (_x(2, 5, 32), "image"),
        (_x(2, 7, 32), "language"),
        (_x(3, 6, 32), ["text", "vision", "vl"], pad),
        (_x(4, 5, 32), ["image", "image", "text", "fusion"]),
    ]


def target_av_sync_offset_search():
    return m.AVSyncOffsetSearch(), [
        (_x(2, 20, 16), _x(2, 10, 24)),
        (_x(3, 32, 16), _x(3, 15, 24), 5),
        (_x(1, 12, 16), _x(1, 6, 24), 1),
    ]


def target_scene_graph_relation_head():
    def objs(counts):
        n = sum(counts)
        xy = torch.rand(n, 2) * 50
        wh = torch.rand(n, 2) * 30 + 1
        return _x(n, 32), torch.cat([xy, xy + wh], dim=1), torch.randint(0, 20, (n,)), counts
    return m.SceneGraphRelationHead().eval(), [
        objs([3, 4]),
        objs([2, 1, 5]),
        objs([7]),
    ]
