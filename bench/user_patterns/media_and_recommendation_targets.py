"""Targets for bench/user_patterns.py: media_and_recommendation.py."""
import torch
import media_and_recommendation as m


def _x(*s):
    return torch.randn(*s)


def target_log_mel_frontend():
    return m.LogMelFrontend(), [
        (_x(2, 4000), torch.tensor([4000, 2500])),
        (_x(3, 3200), torch.tensor([3200, 3000, 1600])),
        (_x(2, 2400),),
    ]


def target_ctc_greedy_decoder():
    return m.CTCGreedyDecoder(), [
        (_x(2, 20, 32), torch.tensor([20, 14])),
        (_x(3, 25, 32), torch.tensor([25, 9, 17])),
        (_x(1, 12, 32),),
    ]


def target_spec_augment():
    return m.SpecAugment(), [
        (_x(2, 30, 32), torch.tensor([30, 22])),
        (_x(3, 40, 32), torch.tensor([40, 35, 18])),
        (_x(2, 25, 32),),
    ]


def target_random_resized_crop_flip():
    return m.RandomResizedCropFlip(), [(_x(2, 3, 48, 48),), (_x(3, 3, 64, 40),), (_x(2, 3, 40, 64),)]


def target_resize_pad_to_multiple():
    return m.ResizePadToMultiple(), [
        (_x(2, 3, 48, 40),),
        (_x(1, 3, 30, 50), 48),
        (_x(2, 3, 64, 64), 64),
    ]


def target_image_pyramid():
    return m.ImagePyramid(), [(_x(2, 3, 32, 32),), (_x(1, 3, 64, 48),), (_x(2, 3, 20, 24),)]


def target_clip_frame_sampler():
    return m.ClipFrameSampler(), [(_x(2, 8, 3, 16, 16),), (_x(1, 13, 3, 16, 16),), (_x(2, 3, 3, 16, 16),)]


def target_temporal_pooling():
    mask = torch.tensor([[True] * 7, [True] * 4 + [False] * 3])
    return m.TemporalPooling(), [(_x(2, 7, 16), mask), (_x(3, 5, 16),), (_x(2, 9, 16),)]


def target_flow_warp():
    return m.FlowWarp(), [
        (_x(2, 3, 16, 16), _x(2, 3, 16, 16)),
        (_x(1, 3, 24, 20), _x(1, 3, 24, 20)),
        (_x(2, 3, 16, 16), _x(2, 3, 16, 16)),
    ]


def target_char_word_encoder():
    return m.CharWordEncoder(), [
        (["hello", "world", "ocr"],),
        (["Invoice", "No.", "2024-17", "total", "$12"],),
        (["a", "supercalifragilistic"],),
    ]


def target_packed_char_embedding():
    return m.PackedCharEmbedding(), [
        (torch.randint(1, 64, (12,)), torch.tensor([5, 3, 4])),
        (torch.randint(1, 64, (20,)), torch.tensor([2, 7, 1, 6, 4])),
    ]


def target_history_bag_embedding():
    return m.HistoryBagEmbedding(mode="sum"), [
        ([[1, 5, 9], [2], [7, 7, 3, 40]],),
        ([[10, 11], [], [99, 3], [4, 150]],),
        ([[3, 4, 5, 6, 7]], 0.8),
    ]


def target_hashed_feature_model():
    return m.HashedFeatureModel(), [
        ({"user_id": torch.randint(0, 10**6, (4,)), "item_id": torch.randint(0, 10**5, (4,)),
          "country": torch.randint(0, 200, (4,)), "device": torch.randint(0, 5, (4,))}, _x(4, 4)),
        ({"user_id": torch.randint(0, 10**6, (3,)), "item_id": torch.randint(0, 10**5, (3, 5)),
          "country": torch.randint(0, 200, (3,)), "device": torch.randint(0, 5, (3,))},),
        ({"user_id": torch.randint(0, 10**6, (2,)), "item_id": torch.randint(0, 10**5, (2,)),
          "country": torch.randint(0, 200, (2,)), "session_len": torch.randint(0, 50, (2,))}, _x(2, 4)),
    ]


def target_two_tower_retrieval():
    return m.TwoTowerRetrieval(), [
        (torch.randint(0, 50, (6,)), torch.randint(0, 200, (6,))),
        (torch.randint(0, 50, (8,)), torch.tensor([1, 2, 3, 2, 5, 6, 7, 1])),
        (torch.randint(0, 50, (3,)), None, 5),
        (torch.randint(0, 50, (2,)), None, 12),
    ]


def target_dlrm_interaction():
    def sparse(b):
        return torch.stack([torch.randint(0, n, (b,)) for n in (10, 20, 30)], dim=1)
    return m.DLRMInteraction(), [(_x(4, 4), sparse(4)), (_x(7, 4), sparse(7))]


def target_candidate_re_ranker():
    return m.CandidateReRanker(), [
        (_x(2, 16), _x(2, 10, 16)),
        (_x(3, 16), _x(3, 6, 16), 0.1),
        (_x(1, 16), _x(1, 20, 16), -0.2),
    ]


def target_mixup_cutmix():
    return m.MixupCutmix(), [
        (_x(4, 3, 32, 32), torch.randint(0, 10, (4,))),
        (_x(6, 3, 24, 24), torch.randint(0, 10, (6,))),
        (_x(2, 3, 32, 48), torch.randint(0, 10, (2,))),
    ]
