"""bench/user_patterns part "multimodal_and_retrieval": multimodal models and retrieval
components written blind (without reading the linter's rules, fixtures or tests), in
the way ML engineers tend to write them inside their models. Domains: a CLIP-style
dual encoder with a clamped learnable logit scale, an in-batch contrastive loss with
label smoothing and hard-negative mining, gated cross-attention fusion over padded
captions, a Q-Former-like query transformer, box-to-region grounding with ROI pooling
in Python loops, a CTC OCR head with greedy string decoding, a VQA answer head over an
answer-vocabulary dict, a top-k re-ranker, a MoCo-style memory-bank retriever with a
similarity threshold, chunked maximum-inner-product search, product quantisation,
ColBERT late interaction with per-document token counts, a perceiver resampler,
caption beam search over a small word vocabulary, modality dropout, a mixture of
modality experts chosen by a modality string, an audio-visual offset search and a
scene-graph relation classifier over object pairs.
"""
import itertools
import logging
import math
import warnings
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Union

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

logger = logging.getLogger(__name__)


def l2_normalize(x, dim: int = -1, eps: float = 1e-6):
    return x / x.norm(dim=dim, keepdim=True).clamp(min=eps)


def lengths_to_mask(lengths, max_len: Optional[int] = None, device=None):
    """True for real tokens, False for padding."""
    if isinstance(lengths, (list, tuple)):
        lengths = torch.tensor(lengths, dtype=torch.long, device=device)
    if max_len is None:
        max_len = int(lengths.max())
    return torch.arange(max_len, device=lengths.device)[None, :] < lengths[:, None]


def box_cxcywh(boxes):
    x1, y1, x2, y2 = boxes.unbind(-1)
    w = (x2 - x1).clamp(min=1e-3)
    h = (y2 - y1).clamp(min=1e-3)
    return x1 + 0.5 * w, y1 + 0.5 * h, w, h


# 1. CLIP-style dual encoder with a learnable, clamped temperature
@dataclass
class CLIPConfig:
    embed_dim: int = 24
    vision_width: int = 32
    text_width: int = 32
    vocab_size: int = 64
    max_text_len: int = 12
    image_size: int = 16
    patch_size: int = 4
    init_temperature: float = 0.07
    max_logit_scale: float = 100.0


class CLIPDualEncoder(nn.Module):
    def __init__(self, cfg: Optional[CLIPConfig] = None):
        super().__init__()
        cfg = cfg or CLIPConfig()
        self.cfg = cfg
        n_patches = (cfg.image_size // cfg.patch_size) ** 2
        self.patch_embed = nn.Conv2d(3, cfg.vision_width, cfg.patch_size, cfg.patch_size)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, cfg.vision_width))
        self.vis_pos = nn.Parameter(torch.randn(1, n_patches + 1, cfg.vision_width) * 0.02)
        self.vis_block = nn.TransformerEncoderLayer(cfg.vision_width, 4, 2 * cfg.vision_width,
                                                    dropout=0.0, batch_first=True, norm_first=True)
        self.vis_proj = nn.Linear(cfg.vision_width, cfg.embed_dim, bias=False)

        self.tok_embed = nn.Embedding(cfg.vocab_size, cfg.text_width)
        self.txt_pos = nn.Parameter(torch.randn(1, cfg.max_text_len, cfg.text_width) * 0.01)
        self.txt_block = nn.TransformerEncoderLayer(cfg.text_width, 4, 2 * cfg.text_width,
                                                    dropout=0.0, batch_first=True, norm_first=True)
        self.txt_ln = nn.LayerNorm(cfg.text_width)
        self.txt_proj = nn.Linear(cfg.text_width, cfg.embed_dim, bias=False)

        self.logit_scale = nn.Parameter(torch.tensor(math.log(1.0 / cfg.init_temperature)))
        self.max_log_scale = math.log(cfg.max_logit_scale)

    def encode_image(self, images):
        if images.dim() != 4 or images.shape[1] != 3:
            raise ValueError(f"expected images of shape (B, 3, H, W), got {tuple(images.shape)}")
        size = self.cfg.image_size
        if images.shape[-2:] != (size, size):
            images = F.interpolate(images, size=(size, size), mode="bilinear", align_corners=False)
        x = self.patch_embed(images).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(x.shape[0], -1, -1), x], dim=1) + self.vis_pos
        x = self.vis_block(x)
        return self.vis_proj(x[:, 0])

    def encode_text(self, input_ids, attention_mask=None):
        bsz, seq_len = input_ids.shape
        max_len = self.cfg.max_text_len
        if seq_len > max_len:
            warnings.warn(f"truncating text from {seq_len} to {max_len} tokens")
            input_ids = input_ids[:, :max_len]
            if attention_mask is not None:
                attention_mask = attention_mask[:, :max_len]
            seq_len = max_len
        x = self.tok_embed(input_ids) + self.txt_pos[:, :seq_len]
        causal = torch.ones(seq_len, seq_len, dtype=torch.bool, device=x.device).triu(1)
        pad_mask = None if attention_mask is None else attention_mask == 0
        x = self.txt_ln(self.txt_block(x, src_mask=causal, src_key_padding_mask=pad_mask))
        if attention_mask is not None:
            eot = attention_mask.long().sum(dim=1) - 1
        else:
            # as in CLIP, the end-of-text token has the highest id in the vocab
            eot = input_ids.argmax(dim=-1)
        return self.txt_proj(x[torch.arange(bsz, device=x.device), eot])

    def forward(self, images, input_ids, attention_mask=None, return_loss: bool = False):
        image_embeds = l2_normalize(self.encode_image(images))
        text_embeds = l2_normalize(self.encode_text(input_ids, attention_mask))
        scale = self.logit_scale.clamp(0, self.max_log_scale).exp()
        logits_per_image = scale * image_embeds @ text_embeds.t()
        out = {
            "logits_per_image": logits_per_image,
            "logits_per_text": logits_per_image.t(),
            "image_embeds": image_embeds,
            "text_embeds": text_embeds,
        }
        if return_loss:
            if logits_per_image.shape[0] != logits_per_image.shape[1]:
                raise ValueError("contrastive loss needs paired images and texts")
            labels = torch.arange(logits_per_image.shape[0], device=images.device)
            out["loss"] = 0.5 * (F.cross_entropy(logits_per_image, labels)
                                 + F.cross_entropy(logits_per_image.t(), labels))
        return out


# 2. image-text contrastive loss: in-batch negatives, label smoothing, hard negatives
class InBatchContrastiveLoss(nn.Module):
    def __init__(self, temperature: float = 0.05, label_smoothing: float = 0.1,
                 hard_negative_k: int = 0, hard_negative_margin: float = 0.2,
                 hard_negative_weight: float = 0.5, learnable_temperature: bool = True):
        super().__init__()
        if not 0.0 <= label_smoothing < 1.0:
            raise ValueError(f"label_smoothing must be in [0, 1), got {label_smoothing}")
        self.label_smoothing = label_smoothing
        self.hard_negative_k = hard_negative_k
        self.margin = hard_negative_margin
        self.hard_weight = hard_negative_weight
        if learnable_temperature:
            self.log_inv_temp = nn.Parameter(torch.tensor(math.log(1.0 / temperature)))
        else:
            self.register_buffer("log_inv_temp", torch.tensor(math.log(1.0 / temperature)))

    def _soft_xent(self, logits, targets):
        return -(targets * logits.log_softmax(dim=-1)).sum(dim=-1).mean()

    def forward(self, image_emb, text_emb, sample_ids=None, hard_negative_k: Optional[int] = None):
        if image_emb.shape != text_emb.shape:
            raise ValueError(f"shape mismatch: {tuple(image_emb.shape)} vs {tuple(text_emb.shape)}")
        bsz = image_emb.shape[0]
        if bsz < 2:
            logger.warning("batch size %d has no in-batch negatives", bsz)
            zero = image_emb.sum() * 0.0
            return {"loss": zero, "i2t": zero, "t2i": zero, "acc": 0.0}

        img, txt = l2_normalize(image_emb), l2_normalize(text_emb)
        inv_temp = self.log_inv_temp.clamp(max=math.log(100.0)).exp()
        logits = inv_temp * img @ txt.t()

        if sample_ids is not None:
            # several captions of the same image in one batch are all positives
            ids = torch.as_tensor(sample_ids, device=logits.device)
            pos_mask = ids[:, None] == ids[None, :]
        else:
            pos_mask = torch.eye(bsz, dtype=torch.bool, device=logits.device)
        targets = pos_mask.float() / pos_mask.sum(dim=1, keepdim=True)
        if self.label_smoothing > 0:
            targets = targets * (1.0 - self.label_smoothing) + self.label_smoothing / bsz

        loss_i2t = self._soft_xent(logits, targets)
        loss_t2i = self._soft_xent(logits.t(), targets.t())
        loss = 0.5 * (loss_i2t + loss_t2i)

        k = self.hard_negative_k if hard_negative_k is None else hard_negative_k
        k = min(k, bsz - 1)
        out = {}
        if k > 0:
            neg = logits.masked_fill(pos_mask, float("-inf"))
            hardest = neg.topk(k, dim=-1).values / inv_temp
            pos = logits.diagonal() / inv_temp
            hinge = F.relu(self.margin - pos[:, None] + hardest)
            hard_loss = hinge[torch.isfinite(hardest)].mean() if torch.isfinite(hardest).any() else hinge.sum() * 0
            loss = loss + self.hard_weight * hard_loss
            out["hard_negative_loss"] = hard_loss

        with torch.no_grad():
            pred = logits.argmax(dim=-1)
            acc = pos_mask[torch.arange(bsz, device=logits.device), pred].float().mean().item()
        out.update({"loss": loss, "i2t": loss_i2t, "t2i": loss_t2i, "acc": acc})
        return out


# 3. gated cross-attention fusion: image tokens attend to variable-length captions
class CrossAttentionFusion(nn.Module):
    def __init__(self, dim: int = 32, text_dim: int = 24, n_heads: int = 4, ffn_mult: int = 2,
                 gate_init: float = 0.0):
        super().__init__()
        self.dim = dim
        self.norm_q = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, n_heads, kdim=text_dim, vdim=text_dim, batch_first=True)
        self.attn_gate = nn.Parameter(torch.tensor(gate_init))
        self.norm_ff = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, ffn_mult * dim), nn.GELU(), nn.Linear(ffn_mult * dim, dim))
        self.ff_gate = nn.Parameter(torch.tensor(gate_init))

    def forward(self, image_tokens, caption_tokens, caption_lengths=None, return_attention: bool = False):
        bsz, n_img, _ = image_tokens.shape
        t_len = caption_tokens.shape[1]
        if caption_tokens.shape[0] != bsz:
            raise ValueError(f"batch mismatch: {bsz} images vs {caption_tokens.shape[0]} captions")
        key_padding_mask = None
        if caption_lengths is not None:
            if len(caption_lengths) != bsz:
                raise ValueError("need one caption length per sample")
            lengths = [int(l) for l in caption_lengths]
            if max(lengths) > t_len:
                raise ValueError(f"caption length {max(lengths)} exceeds padded length {t_len}")
            if min(lengths) == 0:
                logger.warning("empty caption in batch; attending to the first (pad) token instead")
                lengths = [max(l, 1) for l in lengths]
            key_padding_mask = ~lengths_to_mask(lengths, t_len, device=image_tokens.device)

        attn_out, attn_w = self.attn(self.norm_q(image_tokens), caption_tokens, caption_tokens,
                                     key_padding_mask=key_padding_mask, need_weights=return_attention)
        x = image_tokens + torch.tanh(self.attn_gate) * attn_out
        x = x + torch.tanh(self.ff_gate) * self.ff(self.norm_ff(x))
        if return_attention:
            return x, attn_w
        return x


# 4. Q-Former-like query transformer
@dataclass
class QFormerConfig:
    hidden: int = 32
    vision_width: int = 48
    num_queries: int = 8
    num_layers: int = 2
    num_heads: int = 4
    cross_attention_freq: int = 2
    dropout: float = 0.0
    out_dim: int = 16


class QFormerLayer(nn.Module):
    def __init__(self, cfg: QFormerConfig, has_cross_attention: bool):
        super().__init__()
        self.self_attn = nn.MultiheadAttention(cfg.hidden, cfg.num_heads, dropout=cfg.dropout, batch_first=True)
        self.ln1 = nn.LayerNorm(cfg.hidden)
        self.has_cross_attention = has_cross_attention
        if has_cross_attention:
            self.cross_attn = nn.MultiheadAttention(cfg.hidden, cfg.num_heads, kdim=cfg.vision_width,
                                                    vdim=cfg.vision_width, batch_first=True)
            self.ln_cross = nn.LayerNorm(cfg.hidden)
        self.ffn_query = nn.Sequential(nn.Linear(cfg.hidden, 2 * cfg.hidden), nn.GELU(),
                                       nn.Linear(2 * cfg.hidden, cfg.hidden))
        self.ffn_text = nn.Sequential(nn.Linear(cfg.hidden, 2 * cfg.hidden), nn.GELU(),
                                      nn.Linear(2 * cfg.hidden, cfg.hidden))
        self.ln2 = nn.LayerNorm(cfg.hidden)

    def forward(self, h, num_queries: int, image_feats, image_pad_mask=None, self_attn_mask=None):
        a, _ = self.self_attn(h, h, h, attn_mask=self_attn_mask, need_weights=False)
        h = self.ln1(h + a)
        q, t = h[:, :num_queries], h[:, num_queries:]
        if self.has_cross_attention:
            c, _ = self.cross_attn(q, image_feats, image_feats, key_padding_mask=image_pad_mask, need_weights=False)
            q = self.ln_cross(q + c)
        q = self.ln2(q + self.ffn_query(q))
        if t.shape[1] > 0:
            t = self.ln2(t + self.ffn_text(t))
        return torch.cat([q, t], dim=1)


class QFormer(nn.Module):
    def __init__(self, cfg: Optional[QFormerConfig] = None, vocab_size: int = 50):
        super().__init__()
        self.cfg = cfg = cfg or QFormerConfig()
        self.query_tokens = nn.Parameter(torch.randn(1, cfg.num_queries, cfg.hidden) * 0.02)
        self.word_embed = nn.Embedding(vocab_size, cfg.hidden)
        self.layers = nn.ModuleList(
            [QFormerLayer(cfg, has_cross_attention=(i % cfg.cross_attention_freq == 0))
             for i in range(cfg.num_layers)])
        self.vision_ln = nn.LayerNorm(cfg.vision_width)
        self.proj = nn.Linear(cfg.hidden, cfg.out_dim)

    def forward(self, image_feats, text_ids=None, image_mask=None, mode: str = "unimodal"):
        if image_feats.shape[-1] != self.cfg.vision_width:
            raise ValueError(f"vision width {image_feats.shape[-1]} != {self.cfg.vision_width}")
        if mode not in ("unimodal", "multimodal"):
            raise ValueError(f"unknown mode {mode!r}")
        bsz = image_feats.shape[0]
        nq = self.cfg.num_queries
        image_feats = self.vision_ln(image_feats)
        pad = None if image_mask is None else ~image_mask.bool()

        h = self.query_tokens.expand(bsz, -1, -1)
        attn_mask = None
        if text_ids is not None:
            t = text_ids.shape[1]
            h = torch.cat([h, self.word_embed(text_ids)], dim=1)
            if mode == "unimodal":
                # queries and text cannot see each other (ITC-style)
                total = nq + t
                attn_mask = torch.zeros(total, total, dtype=torch.bool, device=h.device)
                attn_mask[:nq, nq:] = True
                attn_mask[nq:, :nq] = True
        for layer in self.layers:
            h = layer(h, nq, image_feats, image_pad_mask=pad, self_attn_mask=attn_mask)

        query_out = h[:, :nq]
        out = {"query_output": query_out, "query_embeds": l2_normalize(self.proj(query_out))}
        if text_ids is not None:
            out["text_cls"] = l2_normalize(self.proj(h[:, nq]))
        return out


# 5. visual grounding: boxes -> region features (ROI pooling with Python loops)
class RegionGrounding(nn.Module):
    def __init__(self, in_channels: int = 16, dim: int = 32, phrase_dim: int = 24,
                 pool_size: int = 2, image_size: int = 64, min_box_size: float = 1.0):
        super().__init__()
        self.pool_size = pool_size
        self.image_size = image_size
        self.min_box_size = min_box_size
        self.region_proj = nn.Sequential(nn.Linear(in_channels * pool_size * pool_size + 4, dim), nn.ReLU(),
                                         nn.Linear(dim, dim))
        self.phrase_proj = nn.Linear(phrase_dim, dim)
        self.scale = dim ** -0.5

    def roi_pool(self, feature_map, boxes: List[torch.Tensor]):
        """feature_map: (B, C, H, W); boxes: per image (n_i, 4) xyxy in image pixels."""
        _, _, fh, fw = feature_map.shape
        spatial_scale = fh / self.image_size
        regions = []
        for b, img_boxes in enumerate(boxes):
            feats = []
            for x1, y1, x2, y2 in img_boxes.tolist():
                if (x2 - x1) < self.min_box_size or (y2 - y1) < self.min_box_size:
                    logger.debug("degenerate box %s in image %d", (x1, y1, x2, y2), b)
                fx1 = min(max(int(math.floor(x1 * spatial_scale)), 0), fw - 1)
                fy1 = min(max(int(math.floor(y1 * spatial_scale)), 0), fh - 1)
                fx2 = max(min(int(math.ceil(x2 * spatial_scale)), fw), fx1 + 1)
                fy2 = max(min(int(math.ceil(y2 * spatial_scale)), fh), fy1 + 1)
                crop = feature_map[b, :, fy1:fy2, fx1:fx2]
                feats.append(F.adaptive_max_pool2d(crop, self.pool_size).flatten())
            if feats:
                regions.append(torch.stack(feats))
            else:
                regions.append(feature_map.new_zeros(0, feature_map.shape[1] * self.pool_size ** 2))
        return regions

    def forward(self, feature_map, boxes: List[torch.Tensor], phrase_emb):
        bsz = feature_map.shape[0]
        if len(boxes) != bsz:
            raise ValueError(f"got {len(boxes)} box lists for {bsz} images")
        boxes = list(boxes)
        for i, bx in enumerate(boxes):
            if bx.numel() == 0:
                warnings.warn(f"image {i} has no boxes; using the full image as the only region")
                boxes[i] = torch.tensor([[0.0, 0.0, self.image_size, self.image_size]], device=feature_map.device)

        pooled = self.roi_pool(feature_map, boxes)
        counts = [p.shape[0] for p in pooled]
        geom = torch.cat(boxes, dim=0) / self.image_size
        region_feats = self.region_proj(torch.cat([torch.cat(pooled, dim=0), geom], dim=-1))

        phrase = self.phrase_proj(phrase_emb)                       # (B, D)
        per_image = region_feats.split(counts, dim=0)
        max_n = max(counts)
        scores = feature_map.new_full((bsz, max_n), float("-inf"))
        best_boxes = []
        for b, feats in enumerate(per_image):
            s = (feats @ phrase[b]) * self.scale
            scores[b, : s.shape[0]] = s
            best_boxes.append(boxes[b][int(s.argmax())])
        return {
            "region_feats": pad_sequence(list(per_image), batch_first=True),
            "scores": scores,
            "num_regions": counts,
            "best_boxes": torch.stack(best_boxes),
        }


# 6. OCR line recogniser with a CTC head and greedy decoding to strings
class CTCTextRecognizer(nn.Module):
    def __init__(self, charset: str = "0123456789abcdefghijklmnopqrstuvwxyz-", hidden: int = 32,
                 blank_idx: int = 0):
        super().__init__()
        self.charset = charset
        self.blank_idx = blank_idx
        self.char_to_idx = {c: i + 1 for i, c in enumerate(charset)}
        self.idx_to_char = {i: c for c, i in self.char_to_idx.items()}
        self.backbone = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, hidden, 3, padding=1), nn.BatchNorm2d(hidden), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.rnn = nn.GRU(hidden, hidden // 2, batch_first=True, bidirectional=True)
        self.classifier = nn.Linear(hidden, len(charset) + 1)
        self.ctc = nn.CTCLoss(blank=blank_idx, zero_infinity=True)

    def encode_texts(self, texts: List[str]):
        targets, lengths = [], []
        for t in texts:
            ids = [self.char_to_idx[c] for c in t.lower() if c in self.char_to_idx]
            if len(ids) != len(t):
                logger.debug("dropped %d unknown chars from %r", len(t) - len(ids), t)
            targets.extend(ids)
            lengths.append(len(ids))
        return torch.tensor(targets, dtype=torch.long), torch.tensor(lengths, dtype=torch.long)

    def greedy_decode(self, logits) -> List[str]:
        best = logits.argmax(dim=-1).tolist()
        out = []
        for seq in best:
            chars, prev = [], None
            for idx in seq:
                if idx != prev and idx != self.blank_idx:
                    chars.append(self.idx_to_char[idx])
                prev = idx
            out.append("".join(chars))
        return out

    def forward(self, images, texts: Optional[List[str]] = None):
        if images.dim() == 3:
            images = images.unsqueeze(1)
        feats = self.backbone(images)                 # (B, C, H/4, W/4)
        feats = feats.mean(dim=2).transpose(1, 2)     # collapse height -> (B, T, C)
        seq, _ = self.rnn(feats)
        logits = self.classifier(seq)                 # (B, T, n_classes)
        out = {"logits": logits}
        if texts is not None:
            if len(texts) != images.shape[0]:
                raise ValueError("need one transcription per image")
            targets, target_lengths = self.encode_texts(texts)
            t_steps = logits.shape[1]
            if int(target_lengths.max()) > t_steps:
                logger.warning("target longer than %d CTC frames; loss will be zeroed", t_steps)
            log_probs = logits.log_softmax(dim=-1).transpose(0, 1)   # (T, B, C)
            input_lengths = torch.full((images.shape[0],), t_steps, dtype=torch.long)
            out["loss"] = self.ctc(log_probs, targets.to(logits.device), input_lengths, target_lengths)
        if not self.training:
            out["text"] = self.greedy_decode(logits)
        return out


# 7. VQA answer head over an answer vocabulary dict with soft VQA scores
DEFAULT_ANSWERS = ["yes", "no", "1", "2", "3", "red", "blue", "green", "dog", "cat",
                   "man", "woman", "table", "left", "right", "none"]


class VQAAnswerHead(nn.Module):
    def __init__(self, image_dim: int = 32, question_dim: int = 24, hidden: int = 32,
                 answers: Optional[List[str]] = None, dropout: float = 0.1, top_k: int = 3):
        super().__init__()
        answers = answers or DEFAULT_ANSWERS
        self.answer_to_idx: Dict[str, int] = {a: i for i, a in enumerate(answers)}
        self.idx_to_answer: Dict[int, str] = {i: a for a, i in self.answer_to_idx.items()}
        self.num_answers = len(answers)
        self.top_k = top_k
        self.q_pool = nn.Linear(question_dim, 1)
        self.q_proj = nn.Linear(question_dim, hidden)
        self.v_proj = nn.Linear(image_dim, hidden)
        self.v_att = nn.Linear(hidden, 1)
        self.classifier = nn.Sequential(nn.Linear(hidden, 2 * hidden), nn.GELU(), nn.Dropout(dropout),
                                        nn.Linear(2 * hidden, self.num_answers))

    def soft_targets(self, answers: List[List[str]], device):
        target = torch.zeros(len(answers), self.num_answers, device=device)
        n_unknown = 0
        for i, annots in enumerate(answers):
            for ans, cnt in Counter(a.strip().lower() for a in annots).items():
                idx = self.answer_to_idx.get(ans)
                if idx is None:
                    n_unknown += 1
                    continue
                target[i, idx] = min(cnt / 3.0, 1.0)
        if n_unknown:
            logger.debug("%d answers outside the answer vocab", n_unknown)
        return target

    def forward(self, image_feats, question_feats, question_mask=None,
                answers: Optional[List[List[str]]] = None):
        # question attention pooling
        q_logits = self.q_pool(question_feats).squeeze(-1)
        if question_mask is not None:
            q_logits = q_logits.masked_fill(~question_mask.bool(), float("-inf"))
        q = (q_logits.softmax(-1).unsqueeze(-1) * question_feats).sum(1)
        q = self.q_proj(q)                                     # (B, H)

        v = self.v_proj(image_feats)                           # (B, N, H)
        att = self.v_att(torch.tanh(v * q[:, None])).softmax(dim=1)
        v = (att * v).sum(dim=1)
        logits = self.classifier(q * v)

        out = {"logits": logits}
        if answers is not None:
            target = self.soft_targets(answers, logits.device)
            out["loss"] = F.binary_cross_entropy_with_logits(logits, target) * self.num_answers
            out["vqa_score"] = (target.gather(1, logits.argmax(-1, keepdim=True))).mean().item()
        if not self.training:
            k = min(self.top_k, self.num_answers)
            probs, idx = logits.sigmoid().topk(k, dim=-1)
            out["answers"] = [[(self.idx_to_answer[i], round(p, 4)) for i, p in zip(row_i, row_p)]
                              for row_i, row_p in zip(idx.tolist(), probs.tolist())]
        return out


# 8. retrieval re-ranker: first-stage top-k, then re-score with a small cross scorer
class RetrievalReranker(nn.Module):
    def __init__(self, dim: int = 32, hidden: int = 32, default_k: int = 8, fusion_alpha: float = 0.3):
        super().__init__()
        self.default_k = default_k
        self.alpha = fusion_alpha
        self.query_tower = nn.Linear(dim, dim)
        self.scorer = nn.Sequential(nn.Linear(4 * dim, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, query, candidate_bank, k: Optional[int] = None,
                exclude_ids: Optional[List[List[int]]] = None):
        k = k or self.default_k
        n_cand = candidate_bank.shape[0]
        if k > n_cand:
            logger.warning("k=%d larger than candidate bank (%d), clamping", k, n_cand)
            k = n_cand
        q = l2_normalize(self.query_tower(query))
        bank = l2_normalize(candidate_bank)
        first = q @ bank.t()                                     # (B, N)
        if exclude_ids:
            for row, ids in enumerate(exclude_ids):
                if ids:
                    first[row, ids] = float("-inf")
        first_scores, first_idx = first.topk(k, dim=-1)          # (B, k)

        cands = bank[first_idx]                                  # (B, k, D)
        qe = q[:, None].expand_as(cands)
        pair = torch.cat([qe, cands, qe * cands, (qe - cands).abs()], dim=-1)
        rerank = self.scorer(pair).squeeze(-1)
        final = self.alpha * first_scores + (1.0 - self.alpha) * rerank
        final = final.masked_fill(torch.isinf(first_scores), float("-inf"))
        order = final.argsort(dim=-1, descending=True)
        return {
            "indices": first_idx.gather(1, order),
            "scores": final.gather(1, order),
            "first_stage_indices": first_idx,
        }


# 9. dense retriever with a MoCo-style memory-bank queue and a similarity threshold
class MemoryBankRetriever(nn.Module):
    def __init__(self, in_dim: int = 24, dim: int = 16, queue_size: int = 64, momentum: float = 0.99,
                 temperature: float = 0.07, sim_threshold: float = 0.5):
        super().__init__()
        self.queue_size = queue_size
        self.momentum = momentum
        self.temperature = temperature
        self.sim_threshold = sim_threshold
        self.encoder_q = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, dim))
        self.encoder_k = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, dim))
        for p_q, p_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            p_k.data.copy_(p_q.data)
            p_k.requires_grad = False
        self.register_buffer("queue", l2_normalize(torch.randn(queue_size, dim)))
        self.register_buffer("queue_ptr", torch.zeros((), dtype=torch.long))
        self.num_enqueued = 0

    @torch.no_grad()
    def _momentum_update(self):
        m = self.momentum
        for p_q, p_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            p_k.data.mul_(m).add_(p_q.data, alpha=1.0 - m)

    @torch.no_grad()
    def _enqueue(self, keys):
        n = keys.shape[0]
        if n > self.queue_size:
            keys = keys[-self.queue_size:]
            n = self.queue_size
        ptr = int(self.queue_ptr)
        idx = (torch.arange(n, device=keys.device) + ptr) % self.queue_size
        self.queue[idx] = keys
        self.queue_ptr.fill_((ptr + n) % self.queue_size)
        self.num_enqueued += n

    def forward(self, x_query, x_key=None, threshold: Optional[float] = None, top_k: int = 5):
        q = l2_normalize(self.encoder_q(x_query))
        threshold = self.sim_threshold if threshold is None else threshold
        if x_key is not None:
            if self.training:
                self._momentum_update()
            with torch.no_grad():
                k = l2_normalize(self.encoder_k(x_key))
            l_pos = (q * k).sum(dim=-1, keepdim=True)
            l_neg = q @ self.queue.clone().detach().t()
            logits = torch.cat([l_pos, l_neg], dim=1) / self.temperature
            labels = torch.zeros(q.shape[0], dtype=torch.long, device=q.device)
            loss = F.cross_entropy(logits, labels)
            n_false_neg = int((l_neg > threshold).sum())
            if n_false_neg:
                logger.debug("%d queue entries above threshold %.2f (possible false negatives)",
                             n_false_neg, threshold)
            if self.training:
                self._enqueue(k)
            return {"loss": loss, "logits": logits}

        # retrieval against the bank
        sims = q @ self.queue.t()
        k = min(top_k, self.queue_size)
        top_scores, top_idx = sims.topk(k, dim=-1)
        hits = []
        for scores_row, idx_row in zip(top_scores.tolist(), top_idx.tolist()):
            hits.append([(i, s) for i, s in zip(idx_row, scores_row) if s >= threshold])
        return {"scores": top_scores, "indices": top_idx, "hits": hits,
                "num_hits": torch.tensor([len(h) for h in hits])}


# 10. maximum inner product search with chunked matrix products and a running top-k
class ChunkedMIPS(nn.Module):
    def __init__(self, dim: int = 32, num_items: int = 300, chunk_size: int = 64, normalize: bool = False):
        super().__init__()
        self.chunk_size = chunk_size
        self.normalize = normalize
        self.query_proj = nn.Linear(dim, dim, bias=False)
        self.register_buffer("database", torch.randn(num_items, dim))
        self.register_buffer("item_ids", torch.arange(1000, 1000 + num_items))

    def add(self, vectors, ids=None):
        start = int(self.item_ids.max()) + 1 if self.item_ids.numel() else 0
        if ids is None:
            ids = torch.arange(start, start + vectors.shape[0], device=vectors.device)
        self.database = torch.cat([self.database, vectors], dim=0)
        self.item_ids = torch.cat([self.item_ids, ids], dim=0)

    def forward(self, queries, k: int = 5, chunk_size: Optional[int] = None):
        chunk_size = chunk_size or self.chunk_size
        q = self.query_proj(queries)
        if self.normalize:
            q = l2_normalize(q)
        n = self.database.shape[0]
        if k > n:
            raise ValueError(f"k={k} but the database only has {n} items")
        best_scores = q.new_full((q.shape[0], 0), float("-inf"))
        best_idx = torch.zeros(q.shape[0], 0, dtype=torch.long, device=q.device)
        n_chunks = 0
        for start in range(0, n, chunk_size):
            end = min(start + chunk_size, n)
            db = self.database[start:end]
            if self.normalize:
                db = l2_normalize(db)
            scores = q @ db.t()
            kk = min(k, end - start)
            s, i = scores.topk(kk, dim=-1)
            cat_scores = torch.cat([best_scores, s], dim=1)
            cat_idx = torch.cat([best_idx, i + start], dim=1)
            keep = min(k, cat_scores.shape[1])
            best_scores, pos = cat_scores.topk(keep, dim=-1)
            best_idx = cat_idx.gather(1, pos)
            n_chunks += 1
        logger.debug("searched %d items in %d chunks", n, n_chunks)
        return best_scores, self.item_ids[best_idx]


# 11. product quantisation of embeddings (encode / decode / asymmetric search)
class ProductQuantizer(nn.Module):
    def __init__(self, dim: int = 32, num_subspaces: int = 4, codebook_size: int = 16,
                 commitment: float = 0.25, dead_code_threshold: int = 0):
        super().__init__()
        if dim % num_subspaces != 0:
            raise ValueError(f"dim {dim} not divisible by {num_subspaces} subspaces")
        self.dim = dim
        self.m = num_subspaces
        self.k = codebook_size
        self.sub_dim = dim // num_subspaces
        self.commitment = commitment
        self.dead_code_threshold = dead_code_threshold
        self.codebooks = nn.Parameter(torch.randn(num_subspaces, codebook_size, self.sub_dim))
        self.register_buffer("code_usage", torch.zeros(num_subspaces, codebook_size))

    def encode(self, x):
        flat = x.reshape(-1, self.m, self.sub_dim)                         # (N, M, d)
        dist = (flat.pow(2).sum(-1, keepdim=True)
                - 2 * torch.einsum("nmd,mkd->nmk", flat, self.codebooks)
                + self.codebooks.pow(2).sum(-1)[None])                       # (N, M, K)
        return dist.argmin(dim=-1)                                           # (N, M)

    def decode(self, codes):
        m_idx = torch.arange(self.m, device=codes.device)
        return self.codebooks[m_idx[None, :], codes].reshape(codes.shape[0], self.dim)

    def search(self, query, codes, k: int = 5):
        """asymmetric distance computation: float query vs. PQ codes."""
        q = query.reshape(-1, self.m, self.sub_dim)
        tables = torch.einsum("bmd,mkd->bmk", q, self.codebooks)             # (B, M, K)
        scores = torch.zeros(q.shape[0], codes.shape[0], device=query.device)
        for j in range(self.m):
            scores = scores + tables[:, j, codes[:, j]]
        return scores.topk(min(k, codes.shape[0]), dim=-1)

    def forward(self, x, return_codes: bool = False):
        orig_shape = x.shape
        if orig_shape[-1] != self.dim:
            raise ValueError(f"expected last dim {self.dim}, got {orig_shape[-1]}")
        codes = self.encode(x.detach())
        quant = self.decode(codes).reshape(orig_shape)
        codebook_loss = F.mse_loss(quant, x.detach())
        commit_loss = F.mse_loss(x, quant.detach())
        loss = codebook_loss + self.commitment * commit_loss
        quant_st = x + (quant - x).detach()

        onehot = F.one_hot(codes, self.k).float()                           # (N, M, K)
        avg = onehot.mean(dim=0)
        perplexity = torch.exp(-(avg * torch.log(avg + 1e-10)).sum(-1)).mean()
        if self.training:
            with torch.no_grad():
                self.code_usage.mul_(0.99).add_(onehot.sum(0), alpha=0.01)
            dead = int((self.code_usage <= self.dead_code_threshold).sum().item())
            if dead > self.m * self.k // 2:
                logger.info("%d of %d PQ codes look dead", dead, self.m * self.k)
        out = {"quantized": quant_st, "loss": loss, "perplexity": perplexity}
        if return_codes:
            out["codes"] = codes.reshape(*orig_shape[:-1], self.m)
        return out


# 12. late interaction (ColBERT MaxSim) with per-document token counts
class ColBERTScorer(nn.Module):
    def __init__(self, vocab_size: int = 100, hidden: int = 32, dim: int = 16, pad_id: int = 0,
                 mask_id: int = 1, query_maxlen: int = 8, normalize_by_query_len: bool = False):
        super().__init__()
        self.pad_id = pad_id
        self.mask_id = mask_id
        self.query_maxlen = query_maxlen
        self.normalize_by_query_len = normalize_by_query_len
        self.embed = nn.Embedding(vocab_size, hidden, padding_idx=pad_id)
        self.encoder = nn.GRU(hidden, hidden // 2, batch_first=True, bidirectional=True)
        self.linear = nn.Linear(hidden, dim, bias=False)

    def _encode(self, ids):
        h, _ = self.encoder(self.embed(ids))
        return l2_normalize(self.linear(h))

    def encode_query(self, query_ids):
        b, t = query_ids.shape
        if t > self.query_maxlen:
            query_ids = query_ids[:, :self.query_maxlen]
        elif t < self.query_maxlen:
            query_ids = F.pad(query_ids, (0, self.query_maxlen - t), value=self.pad_id)
        # query augmentation: pads become [MASK] tokens that still take part in MaxSim
        query_ids = query_ids.masked_fill(query_ids == self.pad_id, self.mask_id)
        return self._encode(query_ids)

    def encode_docs(self, doc_tokens, doc_lens: List[int]):
        if sum(doc_lens) != doc_tokens.shape[0]:
            raise ValueError(f"doc_lens sum to {sum(doc_lens)} but got {doc_tokens.shape[0]} tokens")
        docs = pad_sequence(list(doc_tokens.split(doc_lens)), batch_first=True, padding_value=self.pad_id)
        mask = lengths_to_mask(doc_lens, docs.shape[1], device=docs.device)
        return self._encode(docs) * mask[..., None], mask

    def forward(self, query_ids, doc_tokens, doc_lens: List[int], top_k: Optional[int] = None):
        q = self.encode_query(query_ids)                                # (B, Lq, D)
        d, d_mask = self.encode_docs(doc_tokens, doc_lens)              # (N, Ld, D)
        sim = torch.einsum("bqd,nld->bnql", q, d)                       # (B, N, Lq, Ld)
        sim = sim.masked_fill(~d_mask[None, :, None, :], float("-inf"))
        scores = sim.max(dim=-1).values.sum(dim=-1)                     # (B, N)
        if self.normalize_by_query_len:
            scores = scores / q.shape[1]
        out = {"scores": scores}
        if top_k is not None:
            k = min(top_k, len(doc_lens))
            vals, idx = scores.topk(k, dim=-1)
            out["ranking"] = idx.tolist()
            out["top_scores"] = vals
        return out


# 13. perceiver-style resampler (Flamingo): latents attend to media + themselves
class PerceiverAttention(nn.Module):
    def __init__(self, dim: int, n_heads: int = 4, head_dim: int = 8):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = head_dim
        self.scale = head_dim ** -0.5
        inner = n_heads * head_dim
        self.norm_media = nn.LayerNorm(dim)
        self.norm_latents = nn.LayerNorm(dim)
        self.to_q = nn.Linear(dim, inner, bias=False)
        self.to_kv = nn.Linear(dim, 2 * inner, bias=False)
        self.to_out = nn.Linear(inner, dim, bias=False)

    def forward(self, media, latents, media_mask=None):
        b, n_lat, _ = latents.shape
        media = self.norm_media(media)
        latents = self.norm_latents(latents)
        q = self.to_q(latents)
        kv_input = torch.cat([media, latents], dim=1)
        k, v = self.to_kv(kv_input).chunk(2, dim=-1)
        q, k, v = (t.view(b, -1, self.n_heads, self.head_dim).transpose(1, 2) for t in (q, k, v))
        attn = (q * self.scale) @ k.transpose(-1, -2)
        if media_mask is not None:
            full = torch.cat([media_mask, media_mask.new_ones(b, n_lat)], dim=1)
            attn = attn.masked_fill(~full[:, None, None, :], torch.finfo(attn.dtype).min)
        attn = attn - attn.amax(dim=-1, keepdim=True).detach()
        out = attn.softmax(dim=-1) @ v
        return self.to_out(out.transpose(1, 2).reshape(b, n_lat, -1))


class PerceiverResampler(nn.Module):
    def __init__(self, dim: int = 32, depth: int = 2, num_latents: int = 8, max_frames: int = 4,
                 ff_mult: int = 2):
        super().__init__()
        self.max_frames = max_frames
        self.latents = nn.Parameter(torch.randn(num_latents, dim) * 0.02)
        self.frame_embs = nn.Parameter(torch.randn(max_frames, 1, dim) * 0.02)
        self.layers = nn.ModuleList()
        for _ in range(depth):
            self.layers.append(nn.ModuleList([
                PerceiverAttention(dim),
                nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, ff_mult * dim), nn.GELU(),
                              nn.Linear(ff_mult * dim, dim)),
            ]))
        self.norm = nn.LayerNorm(dim)

    def forward(self, media, frame_mask=None):
        if media.dim() == 3:
            media = media.unsqueeze(1)          # single image -> one frame
        b, t, n, d = media.shape
        if t > self.max_frames:
            raise ValueError(f"{t} frames exceeds max_frames={self.max_frames}")
        media = media + self.frame_embs[:t]
        media = media.reshape(b, t * n, d)
        token_mask = None
        if frame_mask is not None:
            token_mask = frame_mask.bool()[:, :, None].expand(b, t, n).reshape(b, t * n)
        latents = self.latents.unsqueeze(0).expand(b, -1, -1)
        for attn, ff in self.layers:
            latents = latents + attn(media, latents, token_mask)
            latents = latents + ff(latents)
        return self.norm(latents)


# 14. image captioning with beam search over a small word vocabulary
CAPTION_VOCAB = ["<pad>", "<bos>", "<eos>", "<unk>", "a", "the", "dog", "cat", "man", "on", "in",
                 "with", "red", "ball", "grass", "sitting", "running", "table", "of", "two"]


class BeamSearchCaptioner(nn.Module):
    def __init__(self, image_dim: int = 32, hidden: int = 32, vocab: Optional[List[str]] = None,
                 min_len: int = 2):
        super().__init__()
        self.vocab = vocab or CAPTION_VOCAB
        self.word_to_id = {w: i for i, w in enumerate(self.vocab)}
        self.pad_id = self.word_to_id["<pad>"]
        self.bos_id = self.word_to_id["<bos>"]
        self.eos_id = self.word_to_id["<eos>"]
        self.min_len = min_len
        self.init_h = nn.Linear(image_dim, hidden)
        self.embed = nn.Embedding(len(self.vocab), hidden, padding_idx=self.pad_id)
        self.cell = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, len(self.vocab))

    def _step(self, tokens, h):
        h = self.cell(self.embed(tokens), h)
        logp = self.out(h).log_softmax(dim=-1)
        logp[:, self.pad_id] = float("-inf")
        logp[:, self.bos_id] = float("-inf")
        return logp, h

    def teacher_forcing_loss(self, image_feats, captions):
        h = torch.tanh(self.init_h(image_feats))
        inputs, targets = captions[:, :-1], captions[:, 1:]
        losses = []
        for t in range(inputs.shape[1]):
            h = self.cell(self.embed(inputs[:, t]), h)
            losses.append(F.cross_entropy(self.out(h), targets[:, t], ignore_index=self.pad_id, reduction="none"))
        n_tok = (targets != self.pad_id).sum().clamp(min=1)
        return torch.stack(losses, dim=1).sum() / n_tok

    @torch.no_grad()
    def beam_search(self, image_feat, beam_size: int, max_len: int, length_penalty: float):
        h = torch.tanh(self.init_h(image_feat[None]))
        seqs: List[List[int]] = [[self.bos_id]]
        scores = torch.zeros(1, device=image_feat.device)
        finished: List[Tuple[List[int], float]] = []
        vocab = len(self.vocab)
        for step in range(max_len):
            last = torch.tensor([s[-1] for s in seqs], device=image_feat.device)
            logp, h = self._step(last, h)
            if step < self.min_len:
                logp[:, self.eos_id] = float("-inf")
            total = (scores[:, None] + logp).view(-1)
            top = total.topk(min(2 * beam_size, total.numel()))
            new_seqs, new_scores, parents = [], [], []
            for sc, idx in zip(top.values.tolist(), top.indices.tolist()):
                parent, tok = divmod(idx, vocab)
                seq = seqs[parent] + [tok]
                if tok == self.eos_id:
                    finished.append((seq, sc / ((len(seq) - 1) ** length_penalty)))
                else:
                    new_seqs.append(seq)
                    new_scores.append(sc)
                    parents.append(parent)
                if len(new_seqs) == beam_size:
                    break
            if len(finished) >= beam_size or not new_seqs:
                break
            seqs = new_seqs
            scores = torch.tensor(new_scores, device=image_feat.device)
            h = h[parents]
        if not finished:
            finished = [(s, sc / (len(s) ** length_penalty)) for s, sc in zip(seqs, scores.tolist())]
        return max(finished, key=lambda x: x[1])

    def forward(self, image_feats, captions=None, beam_size: int = 3, max_len: int = 8,
                length_penalty: float = 0.7):
        if captions is not None:
            return {"loss": self.teacher_forcing_loss(image_feats, captions)}
        texts, tokens, best_scores = [], [], []
        for b in range(image_feats.shape[0]):
            seq, score = self.beam_search(image_feats[b], beam_size, max_len, length_penalty)
            words = [self.vocab[i] for i in seq[1:] if i != self.eos_id]
            texts.append(" ".join(words))
            tokens.append(seq)
            best_scores.append(score)
        return {"captions": texts, "tokens": tokens, "scores": torch.tensor(best_scores)}


# 15. modality dropout during training with learned "missing modality" tokens
class ModalityDropoutFusion(nn.Module):
    def __init__(self, dims: Optional[Dict[str, int]] = None, hidden: int = 32,
                 drop_probs: Optional[Dict[str, float]] = None, default_lengths: Optional[Dict[str, int]] = None):
        super().__init__()
        dims = dims or {"image": 24, "text": 16, "audio": 12}
        self.modalities = list(dims)
        self.drop_probs = drop_probs or {"image": 0.3, "text": 0.2, "audio": 0.5}
        self.default_lengths = default_lengths or {"image": 4, "text": 6, "audio": 3}
        self.proj = nn.ModuleDict({m: nn.Linear(d, hidden) for m, d in dims.items()})
        self.null_tokens = nn.ParameterDict({m: nn.Parameter(torch.zeros(1, 1, hidden)) for m in dims})
        self.type_embed = nn.Embedding(len(dims), hidden)
        self.fuse = nn.TransformerEncoderLayer(hidden, 4, 2 * hidden, dropout=0.0, batch_first=True)
        self.pool = nn.Linear(hidden, hidden)

    def forward(self, inputs: Dict[str, Optional[torch.Tensor]]):
        present = [m for m in self.modalities if inputs.get(m) is not None]
        if not present:
            raise ValueError(f"need at least one of {self.modalities}")
        unknown = set(inputs) - set(self.modalities)
        if unknown:
            warnings.warn(f"ignoring unknown modalities {sorted(unknown)}")
        bsz = inputs[present[0]].shape[0]
        device = inputs[present[0]].device

        keep = torch.ones(bsz, len(self.modalities), dtype=torch.bool, device=device)
        for j, m in enumerate(self.modalities):
            if m not in present:
                keep[:, j] = False
            elif self.training and self.drop_probs.get(m, 0.0) > 0:
                keep[:, j] = torch.rand(bsz, device=device) >= self.drop_probs[m]
        if self.training:
            # never drop every available modality of a sample
            none_kept = ~keep.any(dim=1)
            if none_kept.any():
                avail = torch.tensor([m in present for m in self.modalities], device=device)
                choice = torch.multinomial(avail.float().expand(bsz, -1), 1).squeeze(1)
                keep[none_kept, choice[none_kept]] = True

        tokens = []
        for j, m in enumerate(self.modalities):
            if m in present:
                x = self.proj[m](inputs[m])
            else:
                x = self.null_tokens[m].expand(bsz, self.default_lengths[m], -1)
            null = self.null_tokens[m].expand_as(x)
            x = torch.where(keep[:, j, None, None], x, null)
            tokens.append(x + self.type_embed.weight[j])
        h = self.fuse(torch.cat(tokens, dim=1))
        pooled = torch.tanh(self.pool(h.mean(dim=1)))
        kept = {m: keep[:, j] for j, m in enumerate(self.modalities)}
        return pooled, kept


# 16. mixture of modality experts (VLMo-style) selected by a modality string
class ModalityExpertBlock(nn.Module):
    ALIASES = {"vision": "image", "img": "image", "language": "text", "txt": "text",
               "multimodal": "vl", "fusion": "vl"}

    def __init__(self, dim: int = 32, n_heads: int = 4, experts: Sequence[str] = ("image", "text", "vl"),
                 ffn_mult: int = 2, layer_scale: float = 0.1):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, n_heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim)
        self.experts = nn.ModuleDict({
            name: nn.Sequential(nn.Linear(dim, ffn_mult * dim), nn.GELU(), nn.Linear(ffn_mult * dim, dim))
            for name in experts})
        self.layer_scale = layer_scale
        self.expert_calls = Counter()

    def _resolve(self, modality: str) -> str:
        name = self.ALIASES.get(modality.lower(), modality.lower())
        if name not in self.experts:
            raise KeyError(f"no expert for modality {modality!r}; available: {list(self.experts.keys())}")
        return name

    def forward(self, x, modality: Union[str, List[str]], padding_mask=None):
        h = self.norm1(x)
        a, _ = self.attn(h, h, h, key_padding_mask=padding_mask, need_weights=False)
        x = x + self.layer_scale * a
        h = self.norm2(x)
        if isinstance(modality, str):
            name = self._resolve(modality)
            self.expert_calls[name] += x.shape[0]
            return x + self.layer_scale * self.experts[name](h)
        if len(modality) != x.shape[0]:
            raise ValueError(f"{len(modality)} modality tags for batch of {x.shape[0]}")
        groups: Dict[str, List[int]] = defaultdict(list)
        for i, mod in enumerate(modality):
            groups[self._resolve(mod)].append(i)
        out = torch.zeros_like(h)
        for name, rows in groups.items():
            idx = torch.tensor(rows, device=x.device)
            out[idx] = self.experts[name](h[idx])
            self.expert_calls[name] += len(rows)
        return x + self.layer_scale * out


# 17. audio-visual synchronisation: search over temporal offsets (SyncNet-style)
class AVSyncOffsetSearch(nn.Module):
    def __init__(self, audio_dim: int = 16, video_dim: int = 24, dim: int = 32, max_offset: int = 3,
                 audio_frames_per_video_frame: int = 2, min_overlap: int = 2):
        super().__init__()
        self.max_offset = max_offset
        self.ratio = audio_frames_per_video_frame
        self.min_overlap = min_overlap
        self.audio_net = nn.Sequential(nn.Conv1d(audio_dim, dim, 3, padding=1), nn.ReLU(),
                                       nn.Conv1d(dim, dim, 1))
        self.video_net = nn.Sequential(nn.Conv1d(video_dim, dim, 3, padding=1), nn.ReLU(),
                                       nn.Conv1d(dim, dim, 1))

    def forward(self, audio, video, max_offset: Optional[int] = None):
        # audio: (B, Ta, Da), video: (B, Tv, Dv); Ta ~= ratio * Tv
        max_offset = self.max_offset if max_offset is None else max_offset
        a = self.audio_net(audio.transpose(1, 2))
        if self.ratio > 1:
            a = F.avg_pool1d(a, self.ratio, self.ratio)
        v = self.video_net(video.transpose(1, 2))
        t = min(a.shape[-1], v.shape[-1])
        if a.shape[-1] != v.shape[-1]:
            logger.debug("trimming audio/video to %d frames (%d vs %d)", t, a.shape[-1], v.shape[-1])
        a = l2_normalize(a[..., :t], dim=1)
        v = l2_normalize(v[..., :t], dim=1)

        offsets, sims = [], []
        for off in range(-max_offset, max_offset + 1):
            overlap = t - abs(off)
            if overlap < self.min_overlap:
                continue
            if off >= 0:
                s = (a[..., off:] * v[..., :overlap]).sum(dim=1)
            else:
                s = (a[..., :overlap] * v[..., -off:]).sum(dim=1)
            offsets.append(off)
            sims.append(s.mean(dim=-1))
        if not offsets:
            raise ValueError(f"sequence of {t} frames too short for min_overlap={self.min_overlap}")
        sims = torch.stack(sims, dim=1)                                     # (B, n_offsets)
        best = sims.argmax(dim=1)
        confidence = sims.max(dim=1).values - sims.median(dim=1).values
        offset_tensor = torch.tensor(offsets, device=sims.device)
        return {
            "similarities": sims,
            "offsets": offset_tensor,
            "best_offset": offset_tensor[best].tolist(),
            "confidence": confidence,
        }


# 18. scene-graph relation classifier over ordered object pairs
PREDICATES = ["__background__", "on", "has", "wearing", "of", "in", "near", "behind", "holding"]


class SceneGraphRelationHead(nn.Module):
    def __init__(self, obj_dim: int = 32, num_obj_classes: int = 20, hidden: int = 32,
                 predicates: Optional[List[str]] = None, max_pairs_per_image: int = 24, top_k: int = 5):
        super().__init__()
        self.predicates = predicates or PREDICATES
        self.max_pairs = max_pairs_per_image
        self.top_k = top_k
        self.label_embed = nn.Embedding(num_obj_classes, 16)
        self.obj_proj = nn.Linear(obj_dim + 16, hidden)
        self.spatial = nn.Sequential(nn.Linear(9, hidden), nn.ReLU())
        self.rel_mlp = nn.Sequential(nn.Linear(3 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, len(self.predicates)))
        self.freq_bias = nn.Embedding(num_obj_classes * num_obj_classes, len(self.predicates))
        nn.init.zeros_(self.freq_bias.weight)
        self.num_obj_classes = num_obj_classes

    @staticmethod
    def pair_geometry(sub_boxes, obj_boxes):
        scx, scy, sw, sh = box_cxcywh(sub_boxes)
        ocx, ocy, ow, oh = box_cxcywh(obj_boxes)
        ix1 = torch.maximum(sub_boxes[:, 0], obj_boxes[:, 0])
        iy1 = torch.maximum(sub_boxes[:, 1], obj_boxes[:, 1])
        ix2 = torch.minimum(sub_boxes[:, 2], obj_boxes[:, 2])
        iy2 = torch.minimum(sub_boxes[:, 3], obj_boxes[:, 3])
        inter = (ix2 - ix1).clamp(min=0) * (iy2 - iy1).clamp(min=0)
        iou = inter / (sw * sh + ow * oh - inter).clamp(min=1e-6)
        return torch.stack([(ocx - scx) / sw, (ocy - scy) / sh, torch.log(ow / sw), torch.log(oh / sh),
                            iou, sw * sh, ow * oh, scx - ocx, scy - ocy], dim=-1)

    def forward(self, obj_feats, boxes, labels, num_objects: List[int]):
        if sum(num_objects) != obj_feats.shape[0]:
            raise ValueError(f"num_objects sums to {sum(num_objects)} but got {obj_feats.shape[0]} objects")
        obj = F.relu(self.obj_proj(torch.cat([obj_feats, self.label_embed(labels)], dim=-1)))

        pair_rows = []
        offset = 0
        for img_idx, n in enumerate(num_objects):
            if n < 2:
                logger.debug("image %d has %d objects, no pairs", img_idx, n)
                offset += n
                continue
            pairs = list(itertools.permutations(range(n), 2))
            if len(pairs) > self.max_pairs:
                if self.training:
                    perm = torch.randperm(len(pairs))[: self.max_pairs].tolist()
                    pairs = [pairs[i] for i in perm]
                else:
                    pairs = pairs[: self.max_pairs]
            pair_rows.extend((img_idx, offset + s, offset + o) for s, o in pairs)
            offset += n
        if not pair_rows:
            empty = obj_feats.new_zeros(0, len(self.predicates))
            return {"logits": empty, "pairs": torch.zeros(0, 3, dtype=torch.long), "triplets": []}

        pair_idx = torch.tensor(pair_rows, dtype=torch.long, device=obj_feats.device)
        s_idx, o_idx = pair_idx[:, 1], pair_idx[:, 2]
        geom = self.spatial(self.pair_geometry(boxes[s_idx], boxes[o_idx]))
        logits = self.rel_mlp(torch.cat([obj[s_idx], obj[o_idx], geom], dim=-1))
        logits = logits + self.freq_bias(labels[s_idx] * self.num_obj_classes + labels[o_idx])

        out = {"logits": logits, "pairs": pair_idx}
        if not self.training:
            probs = logits.softmax(-1)[:, 1:]                       # drop background
            best_p, best_pred = probs.max(dim=-1)
            triplets: List[List[Tuple[int, str, int, float]]] = [[] for _ in num_objects]
            for (img, s, o), pred, p in zip(pair_idx.tolist(), best_pred.tolist(), best_p.tolist()):
                triplets[img].append((s, self.predicates[pred + 1], o, p))
            out["triplets"] = [sorted(t, key=lambda x: -x[3])[: self.top_k] for t in triplets]
        return out
