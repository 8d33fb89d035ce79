"""A small decoder that builds its masks with transformers' (4.4x) attention-mask helpers."""
import torch
from torch import nn
from transformers.modeling_attn_mask_utils import (
    AttentionMaskConverter,
    _prepare_4d_attention_mask,
    _prepare_4d_causal_attention_mask,
    _prepare_4d_causal_attention_mask_for_sdpa,
)


class TinyDecoder(nn.Module):
    def __init__(self, vocab=100, dim=32, heads=4):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.heads = heads
        self.out = nn.Linear(dim, vocab)

    def forward(self, input_ids, attention_mask):
        h = self.embed(input_ids)
        mask = _prepare_4d_causal_attention_mask(attention_mask, input_ids.shape, h, 0)
        mask = mask[:, 0].repeat_interleave(self.heads, dim=0)
        h, _ = self.attn(h, h, h, attn_mask=mask)
        return self.out(h)


class SdpaDecoder(nn.Module):
    def __init__(self, vocab=100, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.out = nn.Linear(dim, vocab)

    def forward(self, input_ids, attention_mask):
        h = self.embed(input_ids)
        mask = _prepare_4d_causal_attention_mask_for_sdpa(attention_mask, input_ids.shape, h, 0)
        h = nn.functional.scaled_dot_product_attention(h[:, None], h[:, None], h[:, None], attn_mask=mask)
        return self.out(h[:, 0])


class CrossEncoder(nn.Module):
    def __init__(self, vocab=100, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.converter = AttentionMaskConverter(is_causal=False)
        self.out = nn.Linear(dim, 2)

    def forward(self, input_ids, attention_mask):
        h = self.embed(input_ids)
        expanded = _prepare_4d_attention_mask(attention_mask, h.dtype)
        scores = torch.einsum("bqd,bkd->bqk", h, h)[:, None] + expanded
        h = torch.softmax(scores, -1)[:, 0] @ h
        return self.out(h.mean(1))
