"""bench/user_patterns part "llm_serving_internals": language-model inference and
serving internals written blind (without reading the linter's rules, fixtures or
tests), in the way ML engineers tend to write them inside their models. Domains: a
static KV cache with a Python write pointer, a paged KV cache with list-built block
tables, rotary embeddings with a grown cos/sin cache and linear / dynamic-NTK
scaling, sliding-window masks, grouped-query attention with an optional past,
speculative decoding against a draft model, logits processors driven by a
sampling-params dataclass, multi-LoRA adapters switched by name per request, int4
group-quantised weights, packed variable-length continuous batching, prefix caching
keyed by token tuples, stop strings on detokenised text, beam-search bookkeeping,
an attention-sink streaming cache, MoE expert dispatch with per-expert token lists
and capacity dropping, and a byte-fallback embedding.
"""
import itertools
import logging
import math
from collections import Counter, OrderedDict
from dataclasses import dataclass, field
from typing import Dict, List, Optional, Tuple, Union

import torch
import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger(__name__)


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


# 1. attention with a preallocated (static) KV cache and a Python write pointer
class StaticCacheAttention(nn.Module):
    def __init__(self, hidden: int = 32, n_heads: int = 4, max_batch: int = 4, max_seq_len: int = 48):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = hidden // n_heads
        self.qkv = nn.Linear(hidden, 3 * hidden, bias=False)
        self.o_proj = nn.Linear(hidden, hidden, bias=False)
        self.max_seq_len = max_seq_len
        shape = (max_batch, n_heads, max_seq_len, self.head_dim)
        self.register_buffer("k_cache", torch.zeros(shape), persistent=False)
        self.register_buffer("v_cache", torch.zeros(shape), persistent=False)
        self.cache_pos = 0

    def reset_cache(self):
        self.cache_pos = 0
        self.k_cache.zero_()
        self.v_cache.zero_()

    def forward(self, x, start_pos: Optional[int] = None):
        bsz, q_len, _ = x.shape
        q, k, v = (z.view(bsz, q_len, self.n_heads, self.head_dim).transpose(1, 2)
                   for z in self.qkv(x).chunk(3, dim=-1))

        if start_pos is None:
            start_pos = self.cache_pos
        end_pos = start_pos + q_len
        if end_pos > self.max_seq_len:
            logger.warning("kv cache full (%d > %d), resetting", end_pos, self.max_seq_len)
            self.reset_cache()
            start_pos, end_pos = 0, q_len

        self.k_cache[:bsz, :, start_pos:end_pos] = k
        self.v_cache[:bsz, :, start_pos:end_pos] = v
        self.cache_pos = end_pos
        keys = self.k_cache[:bsz, :, :end_pos]
        values = self.v_cache[:bsz, :, :end_pos]

        if q_len > 1:
            # prefill / chunked prefill: causal w.r.t. absolute positions
            q_pos = torch.arange(start_pos, end_pos, device=x.device)
            k_pos = torch.arange(end_pos, device=x.device)
            mask = k_pos[None, :] <= q_pos[:, None]
            out = F.scaled_dot_product_attention(q, keys, values, attn_mask=mask)
        else:
            out = F.scaled_dot_product_attention(q, keys, values)
        out = out.transpose(1, 2).reshape(bsz, q_len, -1)
        return self.o_proj(out)


# 2. paged KV cache with block tables built from Python lists
class PagedKVAttention(nn.Module):
    def __init__(self, n_heads: int = 2, head_dim: int = 8, block_size: int = 4, num_blocks: int = 32):
        super().__init__()
        self.block_size = block_size
        self.scale = head_dim ** -0.5
        self.register_buffer("k_blocks", torch.zeros(num_blocks, block_size, n_heads, head_dim), persistent=False)
        self.register_buffer("v_blocks", torch.zeros(num_blocks, block_size, n_heads, head_dim), persistent=False)
        self.free_blocks: List[int] = list(range(num_blocks - 1, -1, -1))
        self.block_tables: Dict[int, List[int]] = {}
        self.seq_lens: Dict[int, int] = {}

    def _ensure_capacity(self, seq_id: int, needed: int):
        table = self.block_tables.setdefault(seq_id, [])
        while len(table) * self.block_size < needed:
            if not self.free_blocks:
                raise RuntimeError(f"out of KV blocks while growing seq {seq_id}")
            table.append(self.free_blocks.pop())

    def free(self, seq_id: int):
        for blk in self.block_tables.pop(seq_id, []):
            self.free_blocks.append(blk)
        self.seq_lens.pop(seq_id, None)

    def forward(self, q, k, v, seq_ids: List[int]):
        # q, k, v: (batch, q_len, heads, head_dim)
        bsz, q_len = q.shape[:2]
        prev_lens = []
        for i, sid in enumerate(seq_ids):
            cur = self.seq_lens.get(sid, 0)
            prev_lens.append(cur)
            self._ensure_capacity(sid, cur + q_len)
            table = self.block_tables[sid]
            for t in range(q_len):
                pos = cur + t
                blk, off = table[pos // self.block_size], pos % self.block_size
                self.k_blocks[blk, off] = k[i, t]
                self.v_blocks[blk, off] = v[i, t]
            self.seq_lens[sid] = cur + q_len

        lens = [self.seq_lens[sid] for sid in seq_ids]
        max_len = max(lens)
        max_blocks = (max_len + self.block_size - 1) // self.block_size
        rows = [self.block_tables[sid] + [0] * (max_blocks - len(self.block_tables[sid])) for sid in seq_ids]
        block_table = torch.tensor(rows, dtype=torch.long, device=q.device)

        keys = self.k_blocks[block_table].flatten(1, 2)[:, :max_len]     # (B, T, H, D)
        values = self.v_blocks[block_table].flatten(1, 2)[:, :max_len]
        scores = torch.einsum("bqhd,bkhd->bhqk", q, keys) * self.scale

        start = torch.tensor(prev_lens, device=q.device)
        q_pos = start[:, None] + torch.arange(q_len, device=q.device)[None, :]   # (B, q)
        k_pos = torch.arange(max_len, device=q.device)
        mask = k_pos[None, None, :] <= q_pos[:, :, None]                       # (B, q, T)
        scores = scores.masked_fill(~mask[:, None], float("-inf"))
        probs = scores.softmax(dim=-1)
        return torch.einsum("bhqk,bkhd->bqhd", probs, values)


# 3. rotary embeddings with a grown cos/sin cache and length-dependent scaling
@dataclass
class RopeScalingConfig:
    kind: str = "dynamic"          # "none" | "linear" | "dynamic"
    factor: float = 2.0
    original_max_position: int = 16


class ScaledRotaryEmbedding(nn.Module):
    def __init__(self, head_dim: int = 8, base: float = 10000.0, scaling: Optional[RopeScalingConfig] = None):
        super().__init__()
        self.dim = head_dim
        self.base = base
        self.scaling = scaling or RopeScalingConfig()
        inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.max_seq_len_cached = 0
        self._cos_cached = None
        self._sin_cached = None

    def _set_cos_sin_cache(self, seq_len: int, device, dtype):
        self.max_seq_len_cached = seq_len
        inv_freq = self.inv_freq
        cfg = self.scaling
        if cfg.kind == "dynamic" and seq_len > cfg.original_max_position:
            base = self.base * (
                (cfg.factor * seq_len / cfg.original_max_position) - (cfg.factor - 1)
            ) ** (self.dim / (self.dim - 2))
            inv_freq = 1.0 / (base ** (torch.arange(0, self.dim, 2, device=device).float() / self.dim))
        t = torch.arange(seq_len, device=device, dtype=torch.float32)
        if cfg.kind == "linear":
            t = t / cfg.factor
        freqs = torch.outer(t, inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self._cos_cached = emb.cos().to(dtype)
        self._sin_cached = emb.sin().to(dtype)

    def forward(self, q, k, position_offset: int = 0):
        # q, k: (batch, heads, seq, head_dim)
        seq_len = position_offset + q.shape[-2]
        if self._cos_cached is None or seq_len > self.max_seq_len_cached:
            # grow to the next multiple of 8 to avoid rebuilding every step
            self._set_cos_sin_cache(int(math.ceil(seq_len / 8) * 8), q.device, q.dtype)
        cos = self._cos_cached[position_offset:seq_len]
        sin = self._sin_cached[position_offset:seq_len]
        return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


# 4. sliding-window attention (Mistral-style)
class SlidingWindowAttention(nn.Module):
    def __init__(self, hidden: int = 32, n_heads: int = 4, window: int = 8):
        super().__init__()
        self.n_heads = n_heads
        self.window = window
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)

    def forward(self, x, attention_mask=None, window: Optional[int] = None):
        b, t, c = x.shape
        window = window or self.window
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (z.view(b, t, self.n_heads, -1).transpose(1, 2) for z in (q, k, v))

        if t <= window and attention_mask is None:
            out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        else:
            i = torch.arange(t, device=x.device)[:, None]
            j = torch.arange(t, device=x.device)[None, :]
            band = (j <= i) & (j > i - window)
            mask = band[None, None].expand(b, 1, t, t)
            if attention_mask is not None:
                mask = mask & attention_mask[:, None, None, :].bool()
            out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.out(out.transpose(1, 2).reshape(b, t, c))


# 5. grouped-query attention with an optional past key/value
class GroupedQueryAttention(nn.Module):
    def __init__(self, hidden: int = 32, n_heads: int = 4, n_kv_heads: int = 2):
        super().__init__()
        self.n_heads = n_heads
        self.n_kv_heads = n_kv_heads
        self.head_dim = hidden // n_heads
        self.n_rep = n_heads // n_kv_heads
        self.q_proj = nn.Linear(hidden, n_heads * self.head_dim, bias=False)
        self.k_proj = nn.Linear(hidden, n_kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(hidden, n_kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(n_heads * self.head_dim, hidden, bias=False)

    @staticmethod
    def repeat_kv(x, n_rep: int):
        if n_rep == 1:
            return x
        b, h, t, d = x.shape
        return x[:, :, None].expand(b, h, n_rep, t, d).reshape(b, h * n_rep, t, d)

    def forward(self, x, past_key_value: Optional[Tuple[torch.Tensor, torch.Tensor]] = None,
                use_cache: bool = True):
        b, t, _ = x.shape
        q = self.q_proj(x).view(b, t, self.n_heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(x).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(x).view(b, t, self.n_kv_heads, self.head_dim).transpose(1, 2)
        past_len = 0
        if past_key_value is not None:
            past_len = past_key_value[0].shape[2]
            k = torch.cat([past_key_value[0], k], dim=2)
            v = torch.cat([past_key_value[1], v], dim=2)
        present = (k, v) if use_cache else None

        k_rep = self.repeat_kv(k, self.n_rep)
        v_rep = self.repeat_kv(v, self.n_rep)
        if t == 1:
            out = F.scaled_dot_product_attention(q, k_rep, v_rep)
        else:
            total = past_len + t
            mask = torch.ones(t, total, dtype=torch.bool, device=x.device).tril(diagonal=past_len)
            out = F.scaled_dot_product_attention(q, k_rep, v_rep, attn_mask=mask)
        out = self.o_proj(out.transpose(1, 2).reshape(b, t, -1))
        return out, present


# 6. speculative decoding: draft proposes, target verifies
class SpeculativeDecoder(nn.Module):
    def __init__(self, vocab: int = 64, hidden: int = 16, draft_hidden: int = 8):
        super().__init__()
        # both are "bigram" LMs here; in production these are full decoders
        self.target = nn.Sequential(nn.Embedding(vocab, hidden), nn.Tanh(), nn.Linear(hidden, vocab))
        self.draft = nn.Sequential(nn.Embedding(vocab, draft_hidden), nn.Tanh(), nn.Linear(draft_hidden, vocab))
        self.num_proposed = 0
        self.num_accepted = 0

    @torch.no_grad()
    def forward(self, input_ids, num_speculative_tokens: int = 4, temperature: float = 1.0):
        ids = input_ids
        draft_probs = []
        for _ in range(num_speculative_tokens):
            logits = self.draft(ids[:, -1:])[:, -1] / temperature
            p = logits.softmax(-1)
            tok = torch.multinomial(p, 1)
            draft_probs.append(p)
            ids = torch.cat([ids, tok], dim=1)
        proposed = ids[:, input_ids.shape[1]:]

        target_logits = self.target(ids[:, input_ids.shape[1] - 1:]) / temperature
        target_probs = target_logits.softmax(-1)   # (1, k+1, V)

        accepted = []
        for i in range(num_speculative_tokens):
            tok = proposed[0, i].item()
            p = target_probs[0, i, tok].item()
            q = draft_probs[i][0, tok].item()
            self.num_proposed += 1
            if torch.rand(1).item() < min(1.0, p / max(q, 1e-9)):
                accepted.append(tok)
                self.num_accepted += 1
                continue
            residual = (target_probs[0, i] - draft_probs[i][0]).clamp(min=0)
            if residual.sum() <= 0:
                residual = target_probs[0, i]
            accepted.append(torch.multinomial(residual / residual.sum(), 1).item())
            break
        else:
            # all accepted: bonus token from the target
            accepted.append(torch.multinomial(target_probs[0, -1], 1).item())
        new_tokens = torch.tensor([accepted], dtype=input_ids.dtype, device=input_ids.device)
        return torch.cat([input_ids, new_tokens], dim=1)


# 7. logits processors driven by a sampling-params dataclass
@dataclass
class SamplingParams:
    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    repetition_penalty: float = 1.0
    presence_penalty: float = 0.0
    min_tokens: int = 0
    eos_token_id: int = 0
    bad_words_ids: List[List[int]] = field(default_factory=list)


class LogitsProcessorSampler(nn.Module):
    def __init__(self, hidden: int = 32, vocab: int = 80):
        super().__init__()
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        self.vocab = vocab

    def _ban_bad_words(self, logits, input_ids, bad_words_ids):
        history = input_ids.tolist()
        for words in bad_words_ids:
            if len(words) == 1:
                logits[:, words[0]] = float("-inf")
                continue
            prefix, last = words[:-1], words[-1]
            for row, seq in enumerate(history):
                if seq[-len(prefix):] == prefix:
                    logits[row, last] = float("-inf")
        return logits

    def forward(self, hidden_states, input_ids, params: Optional[SamplingParams] = None, prompt_len: int = 0):
        params = params or SamplingParams()
        logits = self.lm_head(hidden_states[:, -1]).float()

        if params.repetition_penalty != 1.0:
            score = torch.gather(logits, 1, input_ids)
            score = torch.where(score < 0, score * params.repetition_penalty, score / params.repetition_penalty)
            logits = logits.scatter(1, input_ids, score)
        if params.presence_penalty:
            counts = torch.zeros_like(logits).scatter_add_(1, input_ids, torch.ones_like(input_ids, dtype=logits.dtype))
            logits = logits - params.presence_penalty * (counts > 0).to(logits.dtype)
        num_generated = input_ids.shape[1] - prompt_len
        if num_generated < params.min_tokens:
            logits[:, params.eos_token_id] = float("-inf")
        if params.bad_words_ids:
            logits = self._ban_bad_words(logits, input_ids, params.bad_words_ids)

        if params.temperature == 0.0:
            return logits.argmax(dim=-1)
        logits = logits / params.temperature
        if params.top_k > 0:
            top_k = min(params.top_k, logits.size(-1))
            kth = torch.topk(logits, top_k)[0][..., -1, None]
            logits = logits.masked_fill(logits < kth, float("-inf"))
        if params.top_p < 1.0:
            sorted_logits, sorted_idx = torch.sort(logits, descending=True)
            cum = sorted_logits.softmax(-1).cumsum(-1)
            remove = cum > params.top_p
            remove[..., 1:] = remove[..., :-1].clone()
            remove[..., 0] = False
            logits = logits.masked_fill(remove.scatter(1, sorted_idx, remove), float("-inf"))
        probs = logits.softmax(-1)
        return torch.multinomial(probs, num_samples=1).squeeze(-1)


# 8. multi-LoRA linear, adapter chosen by name (per batch or per request)
class MultiLoRALinear(nn.Module):
    def __init__(self, in_features: int = 32, out_features: int = 32,
                 adapters: Optional[Dict[str, int]] = None, alpha: float = 16.0):
        super().__init__()
        self.base = nn.Linear(in_features, out_features)
        adapters = adapters or {"sql": 4, "chat": 8, "summarize": 2}
        self.lora_A = nn.ParameterDict()
        self.lora_B = nn.ParameterDict()
        self.scaling: Dict[str, float] = {}
        for name, rank in adapters.items():
            self.lora_A[name] = nn.Parameter(torch.randn(rank, in_features) * 0.02)
            self.lora_B[name] = nn.Parameter(torch.randn(out_features, rank) * 0.02)
            self.scaling[name] = alpha / rank
        self.usage = Counter()

    def _lora(self, x, name: str):
        return (x @ self.lora_A[name].t() @ self.lora_B[name].t()) * self.scaling[name]

    def forward(self, x, adapter_names: Union[None, str, List[Optional[str]]] = None):
        out = self.base(x)
        if adapter_names is None:
            return out
        if isinstance(adapter_names, str):
            if adapter_names not in self.scaling:
                logger.warning("unknown adapter %s, using base model", adapter_names)
                return out
            self.usage[adapter_names] += x.shape[0]
            return out + self._lora(x, adapter_names)
        # mixed batch: one adapter name per request row
        for name in set(adapter_names):
            if name is None or name not in self.scaling:
                continue
            rows = [i for i, n in enumerate(adapter_names) if n == name]
            idx = torch.tensor(rows, device=x.device)
            out[idx] = out[idx] + self._lora(x[idx], name)
            self.usage[name] += len(rows)
        return out


# 9. int4 weight-only linear with per-group scales and zero points
class Int4GroupQuantLinear(nn.Module):
    def __init__(self, in_features: int = 32, out_features: int = 24, group_size: int = 8,
                 cache_dequantized: bool = True):
        super().__init__()
        assert in_features % group_size == 0 and in_features % 2 == 0
        self.in_features, self.out_features, self.group_size = in_features, out_features, group_size
        self.cache_dequantized = cache_dequantized
        w = torch.randn(out_features, in_features) * 0.1
        wg = w.view(out_features, -1, group_size)
        wmin, wmax = wg.amin(-1, keepdim=True), wg.amax(-1, keepdim=True)
        scales = ((wmax - wmin) / 15).clamp(min=1e-6)
        zeros = (-wmin / scales).round()
        q = (wg / scales + zeros).round().clamp(0, 15).to(torch.uint8).view(out_features, in_features)
        packed = q[:, 0::2] | (q[:, 1::2] << 4)
        self.register_buffer("qweight", packed)
        self.register_buffer("scales", scales.squeeze(-1))
        self.register_buffer("zeros", zeros.squeeze(-1))
        self.bias = nn.Parameter(torch.zeros(out_features))
        self._w_cache: Optional[torch.Tensor] = None

    def dequantize(self, dtype=torch.float32):
        low = self.qweight & 0x0F
        high = (self.qweight >> 4) & 0x0F
        q = torch.stack([low, high], dim=-1).view(self.out_features, -1, self.group_size).to(dtype)
        w = (q - self.zeros[..., None].to(dtype)) * self.scales[..., None].to(dtype)
        return w.view(self.out_features, self.in_features)

    def forward(self, x):
        n_tokens = x.numel() // x.shape[-1]
        if self.cache_dequantized and n_tokens > 1:
            if self._w_cache is None or self._w_cache.dtype != x.dtype:
                self._w_cache = self.dequantize(x.dtype)
            weight = self._w_cache
        else:
            # decode step (single token): dequantise on the fly, keep memory low
            weight = self.dequantize(x.dtype)
        return F.linear(x, weight, self.bias)


# 10. continuous batching: variable-length sequences packed into one
class PackedVarlenBlock(nn.Module):
    def __init__(self, hidden: int = 32, n_heads: int = 4, max_positions: int = 64):
        super().__init__()
        self.n_heads = n_heads
        self.pos_emb = nn.Embedding(max_positions, hidden)
        self.norm = nn.LayerNorm(hidden)
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)

    def forward(self, packed, seq_lens: List[int]):
        # packed: (total_tokens, hidden), seq_lens e.g. [5, 3, 9]
        total, hidden = packed.shape
        if sum(seq_lens) != total:
            raise ValueError(f"seq_lens {seq_lens} do not add up to {total} tokens")
        positions = torch.cat([torch.arange(n, device=packed.device) for n in seq_lens])
        h = self.norm(packed + self.pos_emb(positions))
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        cu_seqlens = [0] + list(itertools.accumulate(seq_lens))
        outputs = []
        for i in range(len(seq_lens)):
            s, e = cu_seqlens[i], cu_seqlens[i + 1]
            qi, ki, vi = (z[s:e].view(e - s, self.n_heads, -1).transpose(0, 1) for z in (q, k, v))
            oi = F.scaled_dot_product_attention(qi, ki, vi, is_causal=True)
            outputs.append(oi.transpose(0, 1).reshape(e - s, hidden))
        return packed + self.out(torch.cat(outputs, dim=0))


# 11. prefix caching keyed by token tuples (block-aligned)
class PrefixCachedEncoder(nn.Module):
    def __init__(self, vocab: int = 64, hidden: int = 32, block_size: int = 4, max_entries: int = 32):
        super().__init__()
        self.emb = nn.Embedding(vocab, hidden)
        self.q_proj = nn.Linear(hidden, hidden)
        self.kv_proj = nn.Linear(hidden, 2 * hidden)
        self.out = nn.Linear(hidden, hidden)
        self.block_size = block_size
        self.max_entries = max_entries
        self.prefix_cache: "OrderedDict[Tuple[int, ...], Tuple[torch.Tensor, torch.Tensor]]" = OrderedDict()
        self.hits = self.misses = 0

    def _lookup(self, tokens: List[int]):
        n = (len(tokens) - 1) // self.block_size * self.block_size
        while n > 0:
            key = tuple(tokens[:n])
            if key in self.prefix_cache:
                self.prefix_cache.move_to_end(key)
                self.hits += 1
                return n, self.prefix_cache[key]
            n -= self.block_size
        self.misses += 1
        return 0, None

    def forward(self, input_ids):
        tokens = input_ids[0].tolist()
        cached_len, cached = self._lookup(tokens)
        x = self.emb(input_ids[:, cached_len:])
        k_new, v_new = self.kv_proj(x).chunk(2, dim=-1)
        if cached is not None:
            k = torch.cat([cached[0], k_new], dim=1)
            v = torch.cat([cached[1], v_new], dim=1)
        else:
            k, v = k_new, v_new
        q = self.q_proj(x)
        mask = torch.ones(q.shape[1], k.shape[1], dtype=torch.bool, device=q.device).tril(diagonal=cached_len)
        h = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)

        for n in range(self.block_size, len(tokens) + 1, self.block_size):
            key = tuple(tokens[:n])
            if key not in self.prefix_cache:
                self.prefix_cache[key] = (k[:, :n].detach(), v[:, :n].detach())
        while len(self.prefix_cache) > self.max_entries:
            self.prefix_cache.popitem(last=False)
        return self.out(h)


# 12. stop criteria: eos, max tokens, stop strings on detokenised text
class StopSequenceChecker(nn.Module):
    def __init__(self, vocab: int = 64, hidden: int = 32, eos_token_id: int = 1,
                 stop_strings: Tuple[str, ...] = ("\n\n", "###"), max_new_tokens: int = 12):
        super().__init__()
        self.lm_head = nn.Linear(hidden, vocab)
        self.eos_token_id = eos_token_id
        self.stop_strings = list(stop_strings)
        self.max_new_tokens = max_new_tokens
        alphabet = "abcdefghijklmnopqrstuvwxyz #\n.,"
        self.id_to_piece = {i: alphabet[i % len(alphabet)] for i in range(vocab)}
        self.finish_reasons: Dict[int, str] = {}

    def detokenize(self, ids: List[int]) -> str:
        return "".join(self.id_to_piece[i] for i in ids)

    def forward(self, hidden_states, generated_ids, prompt_len: int):
        next_tokens = self.lm_head(hidden_states[:, -1]).argmax(-1)
        generated_ids = torch.cat([generated_ids, next_tokens[:, None]], dim=1)
        done = next_tokens == self.eos_token_id
        n_new = generated_ids.shape[1] - prompt_len
        if n_new >= self.max_new_tokens:
            done = torch.ones_like(done)
        for row, ids in enumerate(generated_ids[:, prompt_len:].tolist()):
            if row in self.finish_reasons:
                done[row] = True
                continue
            text = self.detokenize(ids)
            if ids and ids[-1] == self.eos_token_id:
                self.finish_reasons[row] = "eos"
            elif any(s in text[-8:] for s in self.stop_strings):
                self.finish_reasons[row] = "stop"
                done[row] = True
            elif n_new >= self.max_new_tokens:
                self.finish_reasons[row] = "length"
        return generated_ids, done


# 13. beam-search step with finished-hypothesis bookkeeping
class BeamSearchStep(nn.Module):
    def __init__(self, hidden: int = 32, vocab: int = 50, num_beams: int = 3, eos_token_id: int = 2,
                 length_penalty: float = 1.0):
        super().__init__()
        self.lm_head = nn.Linear(hidden, vocab)
        self.num_beams, self.eos_token_id, self.length_penalty = num_beams, eos_token_id, length_penalty
        self.finished: Dict[int, List[Tuple[float, List[int]]]] = {}

    def forward(self, hidden, beam_scores, sequences, cur_len: int):
        # hidden: (batch*beams, hidden); beam_scores: (batch*beams,); sequences: (batch*beams, cur_len)
        vocab = self.lm_head.out_features
        batch = hidden.shape[0] // self.num_beams
        log_probs = F.log_softmax(self.lm_head(hidden), dim=-1)
        scores = (log_probs + beam_scores[:, None]).view(batch, self.num_beams * vocab)
        top_scores, top_ids = torch.topk(scores, 2 * self.num_beams, dim=1)
        beam_idx, token_idx = top_ids // vocab, top_ids % vocab

        next_scores = torch.zeros(batch, self.num_beams, device=hidden.device)
        next_tokens = torch.zeros(batch, self.num_beams, dtype=torch.long, device=hidden.device)
        next_beams = torch.zeros(batch, self.num_beams, dtype=torch.long, device=hidden.device)
        for b in range(batch):
            hyps = self.finished.setdefault(b, [])
            slot = 0
            for rank in range(2 * self.num_beams):
                tok = token_idx[b, rank].item()
                src = b * self.num_beams + beam_idx[b, rank].item()
                score = top_scores[b, rank].item()
                if tok == self.eos_token_id:
                    norm = score / ((cur_len + 1) ** self.length_penalty)
                    hyps.append((norm, sequences[src].tolist()))
                    hyps.sort(key=lambda h: h[0], reverse=True)
                    del hyps[self.num_beams:]
                    continue
                next_scores[b, slot] = score
                next_tokens[b, slot] = tok
                next_beams[b, slot] = src
                slot += 1
                if slot == self.num_beams:
                    break
        flat_beams = next_beams.view(-1)
        new_sequences = torch.cat([sequences[flat_beams], next_tokens.view(-1, 1)], dim=1)
        return next_scores.view(-1), new_sequences


# 14. StreamingLLM attention-sink KV cache
class AttentionSinkCache(nn.Module):
    def __init__(self, hidden: int = 32, n_heads: int = 2, num_sink_tokens: int = 4, window: int = 12):
        super().__init__()
        self.n_heads, self.head_dim = n_heads, hidden // n_heads
        self.num_sink, self.window = num_sink_tokens, window
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)
        self.key_cache: Optional[torch.Tensor] = None
        self.value_cache: Optional[torch.Tensor] = None
        self.evicted = 0

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = (z.view(b, t, self.n_heads, self.head_dim).transpose(1, 2) for z in self.qkv(x).chunk(3, -1))
        if self.key_cache is None or self.key_cache.shape[0] != b:
            self.key_cache, self.value_cache = k, v
        else:
            self.key_cache = torch.cat([self.key_cache, k], dim=2)
            self.value_cache = torch.cat([self.value_cache, v], dim=2)
        cache_len = self.key_cache.shape[2]
        if cache_len > self.num_sink + self.window:
            n_drop = cache_len - self.num_sink - self.window
            self.evicted += n_drop
            keep = lambda c: torch.cat([c[:, :, :self.num_sink], c[:, :, -self.window:]], dim=2)
            self.key_cache = keep(self.key_cache)
            self.value_cache = keep(self.value_cache)
        total = self.key_cache.shape[2]
        mask = torch.ones(t, total, dtype=torch.bool, device=x.device).tril(diagonal=total - t)
        out = F.scaled_dot_product_attention(q, self.key_cache, self.value_cache, attn_mask=mask)
        return self.out(out.transpose(1, 2).reshape(b, t, c))


# 15. MoE expert dispatch with per-expert token lists and capacity
class MoEDispatchLayer(nn.Module):
    def __init__(self, hidden: int = 32, ffn: int = 48, num_experts: int = 4, top_k: int = 2,
                 capacity_factor: Optional[float] = 1.25):
        super().__init__()
        self.num_experts, self.top_k, self.capacity_factor = num_experts, top_k, capacity_factor
        self.gate = nn.Linear(hidden, num_experts, bias=False)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(hidden, ffn), nn.SiLU(), nn.Linear(ffn, hidden)) for _ in range(num_experts)
        )
        self.expert_load = Counter()
        self.dropped_tokens = 0

    def forward(self, hidden_states):
        b, t, h = hidden_states.shape
        x = hidden_states.view(-1, h)
        n_tokens = x.shape[0]
        router_probs = self.gate(x).softmax(dim=-1)
        weights, selected = torch.topk(router_probs, self.top_k, dim=-1)
        weights = weights / weights.sum(dim=-1, keepdim=True)

        capacity = None if self.capacity_factor is None else \
            int(math.ceil(n_tokens * self.top_k / self.num_experts * self.capacity_factor))

        out = torch.zeros_like(x)
        expert_mask = F.one_hot(selected, self.num_experts).permute(2, 1, 0)   # (E, k, N)
        tokens_per_expert = expert_mask.sum(dim=(1, 2)).tolist()
        for e, n_e in enumerate(tokens_per_expert):
            if n_e == 0:
                continue
            slot, token_idx = torch.where(expert_mask[e])
            if capacity is not None and n_e > capacity:
                logger.debug("expert %d over capacity (%d > %d)", e, n_e, capacity)
                self.dropped_tokens += n_e - capacity
                slot, token_idx = slot[:capacity], token_idx[:capacity]
            y = self.experts[e](x[token_idx]) * weights[token_idx, slot, None]
            out.index_add_(0, token_idx, y.to(out.dtype))
            self.expert_load[e] += int(token_idx.numel())
        return out.view(b, t, h)


# 16. embedding with byte fallback for out-of-vocabulary / added tokens
class ByteFallbackEmbedding(nn.Module):
    def __init__(self, vocab: int = 64, hidden: int = 32,
                 added_tokens: Optional[Dict[int, str]] = None):
        super().__init__()
        self.vocab = vocab
        self.tok_emb = nn.Embedding(vocab, hidden)
        self.byte_emb = nn.Embedding(256, hidden)
        self.unk_id = 0
        self.added_tokens = added_tokens or {100: "<tool>", 101: "</tool>", 102: "héllo"}
        self.fallback_count = 0

    def forward(self, input_ids):
        if bool((input_ids < self.vocab).all()):
            return self.tok_emb(input_ids)
        oov = input_ids >= self.vocab
        safe_ids = input_ids.masked_fill(oov, self.unk_id)
        out = self.tok_emb(safe_ids)
        for b, t in oov.nonzero().tolist():
            tok = int(input_ids[b, t])
            text = self.added_tokens.get(tok)
            if text is None:
                logger.warning("token id %d has no string, using <unk>", tok)
                continue
            byte_ids = torch.tensor(list(text.encode("utf-8")), device=input_ids.device)
            out[b, t] = self.byte_emb(byte_ids).mean(dim=0)
            self.fallback_count += 1
        return out
