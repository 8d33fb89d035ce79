"""bench/user_patterns part "media_and_recommendation": model code written blind,
without reading the linter's rules, fixtures or tests, in the style ML engineers
actually write it. Domains covered: speech (log-mel/STFT front end with
per-utterance lengths and padding masks, CTC greedy decoding), audio
augmentation (SpecAugment-style masking), vision (in-model random resized crop
and flip, resize-and-pad to a multiple of 32, an image pyramid), video (frame
sampling with a clip-length-dependent stride, temporal pooling, flow warping with
a grid cache keyed by shape), OCR/text (character embeddings for variable-length
words), recommendation (EmbeddingBag with Python-list offsets, hashed feature
dicts, two-tower retrieval with in-batch negatives, DLRM-style interaction),
ranking/search (a re-ranker with data-dependent truncation), and mixup/cutmix.
"""
import itertools
import logging
import math
import random
import string
import warnings
import zlib
from typing import Dict, List, Optional, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# speech
# ---------------------------------------------------------------------------

def _hz_to_mel(f):
    return 2595.0 * np.log10(1.0 + f / 700.0)


def _mel_to_hz(m):
    return 700.0 * (10.0 ** (m / 2595.0) - 1.0)


def mel_filterbank(sample_rate: int, n_fft: int, n_mels: int, fmin: float = 0.0, fmax: Optional[float] = None):
    fmax = fmax or sample_rate / 2
    n_freqs = n_fft // 2 + 1
    mel_pts = np.linspace(_hz_to_mel(fmin), _hz_to_mel(fmax), n_mels + 2)
    hz_pts = _mel_to_hz(mel_pts)
    bins = np.floor((n_fft + 1) * hz_pts / sample_rate).astype(int)
    fb = np.zeros((n_mels, n_freqs), dtype=np.float32)
    for m in range(1, n_mels + 1):
        left, center, right = bins[m - 1], bins[m], bins[m + 1]
        for k in range(left, center):
            fb[m - 1, k] = (k - left) / max(center - left, 1)
        for k in range(center, right):
            fb[m - 1, k] = (right - k) / max(right - center, 1)
    return fb


class LogMelFrontend(nn.Module):
    """Waveform -> normalized log-mel frames, frame lengths and a padding mask."""

    def __init__(self, sample_rate=16000, n_fft=256, hop_length=128, n_mels=32, eps=1e-6):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.eps = eps
        self.register_buffer("window", torch.hann_window(n_fft), persistent=False)
        self.register_buffer(
            "mel_fb", torch.from_numpy(mel_filterbank(sample_rate, n_fft, n_mels)), persistent=False
        )

    def forward(self, wav: torch.Tensor, lengths: Optional[torch.Tensor] = None):
        if wav.dim() == 1:
            wav = wav.unsqueeze(0)
        if lengths is None:
            lengths = torch.full((wav.size(0),), wav.size(1), dtype=torch.long)

        spec = torch.stft(
            wav, self.n_fft, hop_length=self.hop_length, window=self.window,
            center=True, return_complex=True,
        )
        power = spec.abs() ** 2                      # B, F, T
        mel = torch.matmul(self.mel_fb, power)       # B, n_mels, T
        logmel = torch.log(mel + self.eps)

        frame_lengths = lengths // self.hop_length + 1
        max_frames = logmel.size(-1)
        mask = torch.arange(max_frames, device=wav.device)[None, :] < frame_lengths[:, None]

        # per-utterance CMVN over the valid frames only
        normed = []
        for i, n in enumerate(frame_lengths.tolist()):
            utt = logmel[i, :, :n]
            utt = (utt - utt.mean(dim=-1, keepdim=True)) / (utt.std(dim=-1, keepdim=True) + 1e-5)
            normed.append(F.pad(utt, (0, max_frames - n)))
        logmel = torch.stack(normed)

        return logmel.transpose(1, 2), frame_lengths, mask


class CTCGreedyDecoder(nn.Module):
    """Projects encoder states to characters and greedy-decodes them."""

    def __init__(self, d_model=32, vocab="_ abcdefghijklmnopqrstuvwxyz'", blank=0):
        super().__init__()
        self.vocab = vocab
        self.blank = blank
        self.proj = nn.Linear(d_model, len(vocab))

    def forward(self, hidden: torch.Tensor, lengths: Optional[torch.Tensor] = None):
        log_probs = self.proj(hidden).log_softmax(dim=-1)
        best = log_probs.argmax(dim=-1)

        if lengths is None:
            lengths = [best.size(1)] * best.size(0)
        else:
            lengths = lengths.tolist()

        transcripts = []
        for seq, n in zip(best.tolist(), lengths):
            chars = []
            prev = None
            for tok in seq[:n]:
                if tok != prev and tok != self.blank:
                    chars.append(self.vocab[tok])
                prev = tok
            transcripts.append("".join(chars).strip())
        return transcripts, log_probs


# ---------------------------------------------------------------------------
# audio augmentation
# ---------------------------------------------------------------------------

class SpecAugment(nn.Module):
    """Time / frequency masking on (B, T, F) features, only in training."""

    def __init__(self, freq_mask_param=6, time_mask_param=8, num_freq_masks=2, num_time_masks=2, max_time_ratio=0.2):
        super().__init__()
        self.freq_mask_param = freq_mask_param
        self.time_mask_param = time_mask_param
        self.num_freq_masks = num_freq_masks
        self.num_time_masks = num_time_masks
        self.max_time_ratio = max_time_ratio
        self.num_calls = 0

    def forward(self, feats: torch.Tensor, lengths: Optional[torch.Tensor] = None):
        if not self.training:
            return feats
        self.num_calls += 1

        feats = feats.clone()
        B, T, n_freq = feats.shape
        for b in range(B):
            t_valid = T if lengths is None else int(lengths[b])
            fill = feats[b, :t_valid].mean()
            for _ in range(self.num_freq_masks):
                f = random.randint(0, self.freq_mask_param)
                f0 = random.randint(0, max(0, n_freq - f))
                feats[b, :, f0:f0 + f] = fill
            max_t = min(self.time_mask_param, int(self.max_time_ratio * t_valid))
            for _ in range(self.num_time_masks):
                t = random.randint(0, max_t)
                t0 = random.randint(0, max(0, t_valid - t))
                feats[b, t0:t0 + t, :] = fill
        return feats


# ---------------------------------------------------------------------------
# vision
# ---------------------------------------------------------------------------

class RandomResizedCropFlip(nn.Module):
    """GPU-side augmentation: one crop box and one flip decision per batch."""

    def __init__(self, out_size=32, scale=(0.4, 1.0), ratio=(3 / 4, 4 / 3), flip_p=0.5):
        super().__init__()
        self.out_size = out_size
        self.scale = scale
        self.log_ratio = (math.log(ratio[0]), math.log(ratio[1]))
        self.flip_p = flip_p

    def _sample_box(self, H: int, W: int):
        area = H * W
        for _ in range(10):
            target_area = area * random.uniform(*self.scale)
            aspect = math.exp(random.uniform(*self.log_ratio))
            w = int(round(math.sqrt(target_area * aspect)))
            h = int(round(math.sqrt(target_area / aspect)))
            if 0 < w <= W and 0 < h <= H:
                top = random.randint(0, H - h)
                left = random.randint(0, W - w)
                return top, left, h, w
        # fallback: center crop
        side = min(H, W)
        return (H - side) // 2, (W - side) // 2, side, side

    def forward(self, images: torch.Tensor):
        size = (self.out_size, self.out_size)
        if not self.training:
            return F.interpolate(images, size=size, mode="bilinear", align_corners=False)

        _, _, H, W = images.shape
        top, left, h, w = self._sample_box(H, W)
        crop = images[:, :, top:top + h, left:left + w]
        out = F.interpolate(crop, size=size, mode="bilinear", align_corners=False)
        if random.random() < self.flip_p:
            out = torch.flip(out, dims=[-1])
        return out


class ResizePadToMultiple(nn.Module):
    """Resize so the long side is max_size, pad H and W up to a multiple of 32, run a stem."""

    def __init__(self, max_size=64, divisor=32, pad_value=0.0, channels=8):
        super().__init__()
        self.max_size = max_size
        self.divisor = divisor
        self.pad_value = pad_value
        self.stem = nn.Sequential(
            nn.Conv2d(3, channels, 3, stride=2, padding=1), nn.BatchNorm2d(channels), nn.ReLU(inplace=True)
        )

    def forward(self, images: torch.Tensor, max_size: Optional[int] = None):
        max_size = max_size or self.max_size
        _, _, h, w = images.shape
        scale = max_size / max(h, w)
        new_h, new_w = int(round(h * scale)), int(round(w * scale))
        if (new_h, new_w) != (h, w):
            images = F.interpolate(images, size=(new_h, new_w), mode="bilinear", align_corners=False)

        pad_h = math.ceil(new_h / self.divisor) * self.divisor - new_h
        pad_w = math.ceil(new_w / self.divisor) * self.divisor - new_w
        images = F.pad(images, (0, pad_w, 0, pad_h), value=self.pad_value)
        logger.debug("resize %dx%d -> %dx%d, padded to %s", h, w, new_h, new_w, tuple(images.shape[-2:]))

        valid = torch.zeros(images.shape[0], images.shape[2], images.shape[3], dtype=torch.bool, device=images.device)
        valid[:, :new_h, :new_w] = True

        feats = self.stem(images)
        feat_mask = F.interpolate(valid[:, None].float(), size=feats.shape[-2:], mode="nearest")[:, 0].bool()
        return feats, feat_mask, scale


class ImagePyramid(nn.Module):
    """Runs a shared conv on each pyramid level and fuses the upsampled results."""

    def __init__(self, channels=8, num_levels=4, min_size=8):
        super().__init__()
        self.min_size = min_size
        self.stem = nn.Conv2d(3, channels, 3, padding=1)
        self.level_heads = nn.ModuleList([nn.Conv2d(channels, channels, 3, padding=1) for _ in range(num_levels)])

    def forward(self, x: torch.Tensor):
        H, W = x.shape[-2:]
        outputs = []
        level = x
        for head in self.level_heads:
            if min(level.shape[-2:]) < self.min_size:
                break
            y = head(F.relu(self.stem(level)))
            outputs.append(F.interpolate(y, size=(H, W), mode="bilinear", align_corners=False))
            level = F.avg_pool2d(level, kernel_size=2)
        fused = torch.stack(outputs, dim=0).mean(dim=0)
        return fused, len(outputs)


# ---------------------------------------------------------------------------
# video
# ---------------------------------------------------------------------------

class ClipFrameSampler(nn.Module):
    """Sample num_frames frames with a stride picked from the clip length, encode, pool."""

    def __init__(self, num_frames=4, dim=16, num_classes=5):
        super().__init__()
        self.num_frames = num_frames
        self.frame_encoder = nn.Sequential(
            nn.Conv2d(3, dim, 3, stride=2, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten()
        )
        self.head = nn.Linear(dim, num_classes)

    def forward(self, video: torch.Tensor):
        # video: B, T, C, H, W
        B, T = video.shape[:2]
        stride = max(1, T // self.num_frames)
        idx = list(range(0, T, stride))[: self.num_frames]
        if len(idx) < self.num_frames:
            # short clip: repeat the last frame
            idx += [idx[-1]] * (self.num_frames - len(idx))
        frames = video[:, idx]
        feats = self.frame_encoder(frames.flatten(0, 1)).view(B, self.num_frames, -1)
        return self.head(feats.mean(dim=1))


class TemporalPooling(nn.Module):
    """Masked mean / max / attention pooling over time."""

    def __init__(self, dim=16, mode="attn"):
        super().__init__()
        assert mode in ("mean", "max", "attn")
        self.mode = mode
        self.score = nn.Linear(dim, 1)

    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor] = None):
        # x: B, T, D ; mask: B, T (True = valid)
        if mask is None:
            mask = torch.ones(x.shape[:2], dtype=torch.bool, device=x.device)
        if self.mode == "mean":
            m = mask.unsqueeze(-1).to(x.dtype)
            return (x * m).sum(1) / m.sum(1).clamp(min=1.0)
        if self.mode == "max":
            return x.masked_fill(~mask.unsqueeze(-1), float("-inf")).amax(dim=1)
        scores = self.score(x).squeeze(-1).masked_fill(~mask, float("-inf"))
        weights = scores.softmax(dim=-1)
        return torch.einsum("bt,btd->bd", weights, x)


class FlowWarp(nn.Module):
    """Warp a frame with a predicted flow field; caches the base grid per (H, W)."""

    def __init__(self, channels=3, hidden=8):
        super().__init__()
        self.flow_net = nn.Sequential(
            nn.Conv2d(2 * channels, hidden, 3, padding=1), nn.ReLU(), nn.Conv2d(hidden, 2, 3, padding=1)
        )
        self._grid_cache: Dict[Tuple[int, int], torch.Tensor] = {}

    def _base_grid(self, h: int, w: int, device, dtype):
        key = (h, w)
        if key not in self._grid_cache:
            ys, xs = torch.meshgrid(
                torch.arange(h, dtype=dtype, device=device),
                torch.arange(w, dtype=dtype, device=device),
                indexing="ij",
            )
            self._grid_cache[key] = torch.stack((xs, ys), dim=-1)  # h, w, 2
        return self._grid_cache[key]

    def forward(self, prev_frame: torch.Tensor, cur_frame: torch.Tensor):
        B, _, h, w = cur_frame.shape
        flow = self.flow_net(torch.cat([prev_frame, cur_frame], dim=1))  # B, 2, h, w
        grid = self._base_grid(h, w, cur_frame.device, cur_frame.dtype) + flow.permute(0, 2, 3, 1)
        gx = 2.0 * grid[..., 0] / max(w - 1, 1) - 1.0
        gy = 2.0 * grid[..., 1] / max(h - 1, 1) - 1.0
        warped = F.grid_sample(prev_frame, torch.stack((gx, gy), dim=-1), align_corners=True)
        return warped, flow


# ---------------------------------------------------------------------------
# OCR / text
# ---------------------------------------------------------------------------

class CharWordEncoder(nn.Module):
    """Strings -> char ids -> conv + masked max-pool word vectors."""

    def __init__(self, dim=16, max_word_len=12, alphabet=string.ascii_lowercase + string.digits + "-'."):
        super().__init__()
        self.max_word_len = max_word_len
        # 0 = pad, 1 = unk
        self.char2id = {c: i + 2 for i, c in enumerate(alphabet)}
        self.emb = nn.Embedding(len(alphabet) + 2, dim, padding_idx=0)
        self.conv = nn.Conv1d(dim, dim, kernel_size=3, padding=1)

    def forward(self, words: List[str]):
        words = [w.lower()[: self.max_word_len] or "?" for w in words]
        max_len = max(len(w) for w in words)
        ids = torch.zeros(len(words), max_len, dtype=torch.long)
        for i, w in enumerate(words):
            ids[i, : len(w)] = torch.tensor([self.char2id.get(c, 1) for c in w])
        mask = ids != 0

        h = self.emb(ids)
        h = F.relu(self.conv(h.transpose(1, 2))).transpose(1, 2)
        h = h.masked_fill(~mask.unsqueeze(-1), float("-inf"))
        return h.max(dim=1).values


class PackedCharEmbedding(nn.Module):
    """Flat char ids for many words + per-word lengths -> padded batch -> BiGRU word vectors."""

    def __init__(self, num_chars=64, dim=16):
        super().__init__()
        self.emb = nn.Embedding(num_chars, dim, padding_idx=0)
        self.rnn = nn.GRU(dim, dim // 2, batch_first=True, bidirectional=True)

    def forward(self, flat_chars: torch.Tensor, word_lengths: torch.Tensor):
        pieces = torch.split(flat_chars, word_lengths.tolist())
        padded = pad_sequence(pieces, batch_first=True, padding_value=0)
        packed = nn.utils.rnn.pack_padded_sequence(
            self.emb(padded), word_lengths.cpu(), batch_first=True, enforce_sorted=False
        )
        _, h_n = self.rnn(packed)
        return torch.cat([h_n[0], h_n[1]], dim=-1)


# ---------------------------------------------------------------------------
# recommendation
# ---------------------------------------------------------------------------

class HistoryBagEmbedding(nn.Module):
    """User histories as Python lists of item ids -> EmbeddingBag with offsets."""

    def __init__(self, num_items=100, dim=16, mode="mean"):
        super().__init__()
        self.num_items = num_items
        self.bag = nn.EmbeddingBag(num_items, dim, mode=mode)
        self.proj = nn.Linear(dim, dim)

    def forward(self, histories: List[List[int]], recency_decay: Optional[float] = None):
        flat = [item % self.num_items for h in histories for item in h]
        offsets = [0] + list(itertools.accumulate(len(h) for h in histories))[:-1]
        ids = torch.tensor(flat, dtype=torch.long)
        offsets = torch.tensor(offsets, dtype=torch.long)

        weights = None
        if recency_decay is not None:
            # most recent item is last in each history
            weights = torch.tensor(
                [recency_decay ** (len(h) - 1 - i) for h in histories for i in range(len(h))],
                dtype=torch.float,
            )
            if self.bag.mode != "sum":
                warnings.warn("per_sample_weights only supported with mode='sum'; ignoring decay")
                weights = None
        return self.proj(self.bag(ids, offsets, per_sample_weights=weights))


class HashedFeatureModel(nn.Module):
    """dict[str, Tensor] of raw categorical ids -> hashed embedding tables -> CTR logit."""

    def __init__(self, feature_names=("user_id", "item_id", "country", "device"), num_buckets=1000, dim=8, dense_dim=4):
        super().__init__()
        self.feature_names = list(feature_names)
        self.num_buckets = num_buckets
        self.dim = dim
        self.dense_dim = dense_dim
        self.tables = nn.ModuleDict({name: nn.Embedding(num_buckets, dim) for name in self.feature_names})
        self.salts = {name: zlib.crc32(name.encode("utf-8")) % 10007 for name in self.feature_names}
        self.mlp = nn.Sequential(
            nn.Linear(dim * len(self.feature_names) + dense_dim, 32), nn.ReLU(), nn.Linear(32, 1)
        )

    def forward(self, features: Dict[str, torch.Tensor], dense: Optional[torch.Tensor] = None):
        batch_size = next(iter(features.values())).shape[0]
        embs = []
        for name in self.feature_names:
            if name not in features:
                warnings.warn(f"feature {name!r} missing from batch, using zeros")
                embs.append(torch.zeros(batch_size, self.dim))
                continue
            raw = features[name].long()
            hashed = (raw * 2654435761 + self.salts[name]) % self.num_buckets
            emb = self.tables[name](hashed)
            if emb.dim() == 3:  # multi-valued feature, e.g. recent categories
                emb = emb.mean(dim=1)
            embs.append(emb)
        unknown = set(features) - set(self.feature_names)
        if unknown:
            logger.info("ignoring unknown features: %s", sorted(unknown))
        if dense is None:
            dense = torch.zeros(batch_size, self.dense_dim)
        return self.mlp(torch.cat(embs + [dense], dim=-1)).squeeze(-1)


class TwoTowerRetrieval(nn.Module):
    """In-batch-negative softmax loss when item_ids given, else top-k retrieval as Python lists."""

    def __init__(self, num_users=50, num_items=200, dim=16, temperature=0.05):
        super().__init__()
        self.num_items = num_items
        self.temperature = temperature
        self.user_tower = nn.Sequential(nn.Embedding(num_users, dim), nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.item_tower = nn.Sequential(nn.Embedding(num_items, dim), nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def encode_users(self, user_ids):
        return F.normalize(self.user_tower(user_ids), dim=-1)

    def encode_items(self, item_ids):
        return F.normalize(self.item_tower(item_ids), dim=-1)

    def forward(self, user_ids: torch.Tensor, item_ids: Optional[torch.Tensor] = None, k: int = 10):
        u = self.encode_users(user_ids)
        if item_ids is not None:
            v = self.encode_items(item_ids)
            logits = u @ v.t() / self.temperature
            # the same item can show up twice in a batch; don't treat it as a negative
            same = item_ids[:, None] == item_ids[None, :]
            same.fill_diagonal_(False)
            logits = logits.masked_fill(same, float("-inf"))
            labels = torch.arange(u.size(0), device=u.device)
            return F.cross_entropy(logits, labels)

        all_items = self.encode_items(torch.arange(self.num_items, device=u.device))
        scores = u @ all_items.t()
        top = scores.topk(min(k, self.num_items), dim=-1)
        return [
            [(item, round(score, 4)) for item, score in zip(ids, vals)]
            for ids, vals in zip(top.indices.tolist(), top.values.tolist())
        ]


class DLRMInteraction(nn.Module):
    """Bottom MLP on dense features, embeddings for sparse ones, pairwise dot interaction."""

    def __init__(self, num_dense=4, table_sizes=(10, 20, 30), dim=8, self_interaction=False):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(num_dense, 16), nn.ReLU(), nn.Linear(16, dim), nn.ReLU())
        self.tables = nn.ModuleList([nn.Embedding(n, dim) for n in table_sizes])
        n_feats = len(table_sizes) + 1
        li, lj = torch.tril_indices(n_feats, n_feats, offset=0 if self_interaction else -1)
        self.register_buffer("li", li, persistent=False)
        self.register_buffer("lj", lj, persistent=False)
        self.top = nn.Sequential(nn.Linear(dim + li.numel(), 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, dense: torch.Tensor, sparse: torch.Tensor):
        x = self.bottom(dense)
        embs = [x] + [table(sparse[:, i]) for i, table in enumerate(self.tables)]
        T = torch.stack(embs, dim=1)                       # B, F, D
        Z = torch.bmm(T, T.transpose(1, 2))                # B, F, F
        interactions = Z[:, self.li, self.lj]
        return self.top(torch.cat([x, interactions], dim=1)).squeeze(-1)


# ---------------------------------------------------------------------------
# ranking / search
# ---------------------------------------------------------------------------

class CandidateReRanker(nn.Module):
    """Scores (query, candidate) pairs, sorts, and truncates to what clears a threshold."""

    def __init__(self, dim=16, min_keep=2, score_threshold=0.0):
        super().__init__()
        self.min_keep = min_keep
        self.score_threshold = score_threshold
        self.scorer = nn.Sequential(nn.Linear(2 * dim, 32), nn.ReLU(), nn.Linear(32, 1))
        self.last_keep = None

    def forward(self, query: torch.Tensor, candidates: torch.Tensor, threshold: Optional[float] = None):
        # query: B, D ; candidates: B, N, D
        if threshold is None:
            threshold = self.score_threshold
        N = candidates.size(1)
        q = query.unsqueeze(1).expand(-1, N, -1)
        scores = self.scorer(torch.cat([q, candidates], dim=-1)).squeeze(-1)
        sorted_scores, order = scores.sort(dim=-1, descending=True)

        keep = int((sorted_scores > threshold).sum(dim=-1).max().item())
        keep = max(self.min_keep, min(keep, N))
        self.last_keep = keep
        return order[:, :keep], sorted_scores[:, :keep]


# ---------------------------------------------------------------------------
# mixup / cutmix
# ---------------------------------------------------------------------------

class MixupCutmix(nn.Module):
    """timm-style batch mixing: cutmix or mixup chosen per batch, lambda from numpy beta."""

    def __init__(self, num_classes=10, mixup_alpha=0.2, cutmix_alpha=1.0, switch_prob=0.5, label_smoothing=0.1):
        super().__init__()
        self.num_classes = num_classes
        self.mixup_alpha = mixup_alpha
        self.cutmix_alpha = cutmix_alpha
        self.switch_prob = switch_prob
        self.label_smoothing = label_smoothing

    def _smooth_one_hot(self, target):
        off = self.label_smoothing / self.num_classes
        on = 1.0 - self.label_smoothing + off
        return torch.full((target.size(0), self.num_classes), off, device=target.device).scatter_(
            1, target.view(-1, 1), on
        )

    def forward(self, images: torch.Tensor, target: torch.Tensor):
        y = self._smooth_one_hot(target)
        if not self.training:
            return images, y

        if np.random.rand() < self.switch_prob:
            lam = np.random.beta(self.cutmix_alpha, self.cutmix_alpha)
            H, W = images.shape[-2:]
            cut_rat = math.sqrt(1.0 - lam)
            cut_h, cut_w = int(H * cut_rat), int(W * cut_rat)
            cy, cx = np.random.randint(H), np.random.randint(W)
            y1, y2 = np.clip(cy - cut_h // 2, 0, H), np.clip(cy + cut_h // 2, 0, H)
            x1, x2 = np.clip(cx - cut_w // 2, 0, W), np.clip(cx + cut_w // 2, 0, W)
            images = images.clone()
            images[:, :, y1:y2, x1:x2] = images.flip(0)[:, :, y1:y2, x1:x2]
            lam = 1.0 - float((y2 - y1) * (x2 - x1)) / (H * W)
        else:
            lam = float(np.random.beta(self.mixup_alpha, self.mixup_alpha))
            images = images * lam + images.flip(0) * (1.0 - lam)

        y = y * lam + y.flip(0) * (1.0 - lam)
        return images, y
