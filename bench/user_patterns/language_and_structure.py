"""bench/user_patterns part "language_and_structure": NLP and structured-prediction
modules written blind (without reading the linter's rules, fixtures or docs), the way
ML engineers usually write them. Domains: a linear-chain CRF (forward algorithm and
Viterbi decoding with backpointers), beam search over tiny GRU and Transformer decoder
steps (heapq / sorted hypothesis lists, length penalty, EOS handling), QA span
extraction (Python-loop and vectorised variants), BIO tag post-processing into entity
spans, constrained decoding with banned/allowed token sets plus no-repeat n-gram
blocking, a text classifier that truncates dynamically to the longest non-pad sequence,
sequence packing with per-example position ids, label-smoothing cross-entropy (Python
ignore_index handling and a clean masked variant), retrieval-augmented top-k passage
fusion, a prefix KV cache keyed by a tuple of token ids, T5-style relative position
buckets, and a pointer-generator copy head over a batch-dependent extended vocabulary.
"""
import bisect
import heapq
import itertools
import logging
import math
import re
import warnings
from collections import OrderedDict, defaultdict
from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# Linear-chain CRF
# ---------------------------------------------------------------------------


class LinearChainCRF(nn.Module):
    """Negative log-likelihood of a linear-chain CRF (forward algorithm)."""

    def __init__(self, num_tags: int = 5):
        super().__init__()
        self.num_tags = num_tags
        self.start_transitions = nn.Parameter(torch.randn(num_tags) * 0.1)
        self.end_transitions = nn.Parameter(torch.randn(num_tags) * 0.1)
        self.transitions = nn.Parameter(torch.randn(num_tags, num_tags) * 0.1)

    def _log_partition(self, emissions, mask):
        # emissions: (B, T, K), mask: (B, T) bool
        score = self.start_transitions + emissions[:, 0]
        for t in range(1, emissions.size(1)):
            # (B, K, 1) + (K, K) + (B, 1, K) -> logsumexp over previous tag
            nxt = torch.logsumexp(
                score.unsqueeze(2) + self.transitions + emissions[:, t].unsqueeze(1), dim=1
            )
            score = torch.where(mask[:, t].unsqueeze(1), nxt, score)
        return torch.logsumexp(score + self.end_transitions, dim=1)

    def _gold_score(self, emissions, tags, mask):
        B, T, _ = emissions.shape
        batch_idx = torch.arange(B, device=emissions.device)
        score = self.start_transitions[tags[:, 0]] + emissions[batch_idx, 0, tags[:, 0]]
        for t in range(1, T):
            step = self.transitions[tags[:, t - 1], tags[:, t]] + emissions[batch_idx, t, tags[:, t]]
            score = score + step * mask[:, t].to(emissions.dtype)
        last_idx = mask.long().sum(dim=1) - 1
        last_tags = tags.gather(1, last_idx.unsqueeze(1)).squeeze(1)
        return score + self.end_transitions[last_tags]

    def forward(self, emissions, tags, mask=None, reduction: str = "mean"):
        if mask is None:
            mask = torch.ones_like(tags, dtype=torch.bool)
        llh = self._gold_score(emissions, tags, mask) - self._log_partition(emissions, mask)
        if reduction == "none":
            return -llh
        if reduction == "sum":
            return -llh.sum()
        return -llh.sum() / mask.float().sum()


class CRFViterbiDecoder(nn.Module):
    """Projects features to tag scores and Viterbi-decodes each sentence to a list of tags."""

    def __init__(self, hidden: int = 16, num_tags: int = 5):
        super().__init__()
        self.proj = nn.Linear(hidden, num_tags)
        self.start_transitions = nn.Parameter(torch.randn(num_tags) * 0.1)
        self.end_transitions = nn.Parameter(torch.randn(num_tags) * 0.1)
        self.transitions = nn.Parameter(torch.randn(num_tags, num_tags) * 0.1)
        self.decoded_sentences = 0

    def forward(self, features, mask=None) -> List[List[int]]:
        emissions = self.proj(features)
        B, T, _ = emissions.shape
        if mask is None:
            lengths = [T] * B
        else:
            lengths = mask.sum(dim=1).tolist()

        best_paths = []
        for b in range(B):
            length = int(lengths[b])
            if length == 0:
                best_paths.append([])
                continue
            score = self.start_transitions + emissions[b, 0]
            backpointers = []
            for t in range(1, length):
                total = score.unsqueeze(1) + self.transitions + emissions[b, t].unsqueeze(0)
                score, idx = total.max(dim=0)
                backpointers.append(idx)
            score = score + self.end_transitions
            best_last = score.argmax().item()
            path = [best_last]
            for bp in reversed(backpointers):
                path.append(bp[path[-1]].item())
            path.reverse()
            best_paths.append(path)

        self.decoded_sentences += B
        return best_paths


# ---------------------------------------------------------------------------
# Beam search
# ---------------------------------------------------------------------------


class GRUBeamSearch(nn.Module):
    """Beam search over a GRUCell decoder; hypotheses kept in plain Python lists / heaps."""

    def __init__(self, vocab: int = 20, hidden: int = 16, bos: int = 1, eos: int = 2):
        super().__init__()
        self.bos, self.eos = bos, eos
        self.embed = nn.Embedding(vocab, hidden)
        self.cell = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, vocab)

    def step(self, token: int, h):
        inp = self.embed(torch.tensor([token], device=h.device))
        h = self.cell(inp, h)
        return F.log_softmax(self.out(h), dim=-1), h

    def forward(self, enc_state, beam_size: int = 3, max_len: int = 8, length_penalty: float = 0.6):
        # enc_state: (1, hidden) summary of a single source sentence
        beams = [(0.0, [self.bos], enc_state)]
        finished: List[Tuple[float, List[int]]] = []  # min-heap of (normalised score, tokens)

        for _ in range(max_len):
            candidates = []
            for score, tokens, h in beams:
                logp, h_new = self.step(tokens[-1], h)
                top_lp, top_ix = logp[0].topk(beam_size)
                for lp, ix in zip(top_lp.tolist(), top_ix.tolist()):
                    candidates.append((score + lp, tokens + [ix], h_new))

            beams = []
            for score, tokens, h in heapq.nlargest(beam_size, candidates, key=lambda c: c[0]):
                if tokens[-1] == self.eos:
                    lp = ((5 + len(tokens)) / 6) ** length_penalty
                    heapq.heappush(finished, (score / lp, tokens))
                    if len(finished) > beam_size:
                        heapq.heappop(finished)
                else:
                    beams.append((score, tokens, h))
            if not beams:
                break

        if not finished:
            logger.debug("no hypothesis reached EOS after %d steps", max_len)
            finished = [(s / ((5 + len(t)) / 6) ** length_penalty, t) for s, t, _ in beams]
        best_score, best_tokens = max(finished)
        return best_tokens, best_score


class TinyTransformerBeamSearch(nn.Module):
    """Batched-beam decoding with a one-layer TransformerDecoder; finished hyps kept sorted."""

    def __init__(self, vocab: int = 24, d_model: int = 16, nhead: int = 2, bos: int = 1, eos: int = 2,
                 max_positions: int = 16):
        super().__init__()
        self.vocab = vocab
        self.bos, self.eos = bos, eos
        self.tok = nn.Embedding(vocab, d_model)
        self.pos = nn.Embedding(max_positions, d_model)
        self.layer = nn.TransformerDecoderLayer(d_model, nhead, dim_feedforward=32, dropout=0.0,
                                                batch_first=True)
        self.lm_head = nn.Linear(d_model, vocab)

    def decode_step(self, seqs, memory):
        T = seqs.size(1)
        x = self.tok(seqs) + self.pos(torch.arange(T, device=seqs.device))
        causal = torch.triu(torch.full((T, T), float("-inf"), device=seqs.device), diagonal=1)
        h = self.layer(x, memory, tgt_mask=causal)
        return F.log_softmax(self.lm_head(h[:, -1]), dim=-1)

    def forward(self, memory, num_beams: int = 3, max_new_tokens: int = 6, alpha: float = 1.0):
        # memory: (1, S, d_model)
        seqs = torch.full((1, 1), self.bos, dtype=torch.long, device=memory.device)
        scores = torch.zeros(1, device=memory.device)
        finished: List[Tuple[float, List[int]]] = []  # sorted ascending by -normalised score

        for _ in range(max_new_tokens):
            mem = memory.expand(seqs.size(0), -1, -1)
            logp = self.decode_step(seqs, mem)
            cand = (scores.unsqueeze(1) + logp).view(-1)
            top_scores, top_idx = cand.topk(2 * num_beams)
            beam_idx = top_idx // self.vocab
            tok_idx = top_idx % self.vocab

            new_seqs, new_scores = [], []
            for s, b, t in zip(top_scores.tolist(), beam_idx.tolist(), tok_idx.tolist()):
                seq = torch.cat([seqs[b], seqs.new_tensor([t])])
                if t == self.eos:
                    bisect.insort(finished, (-s / len(seq) ** alpha, seq.tolist()))
                else:
                    new_seqs.append(seq)
                    new_scores.append(s)
                if len(new_seqs) == num_beams:
                    break
            finished = finished[:num_beams]
            seqs = torch.stack(new_seqs)
            scores = torch.tensor(new_scores, device=memory.device)

            # stop once the best live beam can't beat the worst finished one
            if len(finished) == num_beams:
                best_alive = max(new_scores) / seqs.size(1) ** alpha
                if best_alive < -finished[-1][0]:
                    break

        if not finished:
            return [(seq.tolist(), s / seqs.size(1) ** alpha) for seq, s in zip(seqs, scores.tolist())]
        return [(tokens, -neg) for neg, tokens in finished]


# ---------------------------------------------------------------------------
# Span extraction / tagging
# ---------------------------------------------------------------------------


class QASpanExtractor(nn.Module):
    """SQuAD-style post-processing: best (start, end) under a max answer length per example."""

    def __init__(self, hidden: int = 16, n_best_size: int = 5):
        super().__init__()
        self.qa_outputs = nn.Linear(hidden, 2)
        self.n_best_size = n_best_size

    def forward(self, hidden_states, context_mask, max_answer_len: int = 5):
        logits = self.qa_outputs(hidden_states)
        start_logits, end_logits = logits.split(1, dim=-1)
        start_logits = start_logits.squeeze(-1).masked_fill(~context_mask, -1e4)
        end_logits = end_logits.squeeze(-1).masked_fill(~context_mask, -1e4)

        start_np = start_logits.detach().cpu().numpy()
        end_np = end_logits.detach().cpu().numpy()
        answers = []
        for b in range(start_np.shape[0]):
            start_idx = np.argsort(start_np[b])[-1:-self.n_best_size - 1:-1].tolist()
            end_idx = np.argsort(end_np[b])[-1:-self.n_best_size - 1:-1].tolist()
            best = None
            for s in start_idx:
                for e in end_idx:
                    if e < s or e - s + 1 > max_answer_len:
                        continue
                    if not context_mask[b, s] or not context_mask[b, e]:
                        continue
                    score = float(start_np[b, s] + end_np[b, e])
                    if best is None or score > best[2]:
                        best = (s, e, score)
            answers.append(best if best is not None else (0, 0, float("-inf")))
        return answers


class VectorizedSpanScorer(nn.Module):
    """Same idea as QASpanExtractor but fully in tensor ops: band-masked start+end score matrix."""

    def __init__(self, hidden: int = 16, max_answer_len: int = 4):
        super().__init__()
        self.start = nn.Linear(hidden, 1)
        self.end = nn.Linear(hidden, 1)
        self.max_answer_len = max_answer_len

    def forward(self, hidden_states, context_mask):
        s = self.start(hidden_states).squeeze(-1)
        e = self.end(hidden_states).squeeze(-1)
        neg = torch.finfo(s.dtype).min
        s = s.masked_fill(~context_mask, neg)
        e = e.masked_fill(~context_mask, neg)
        L = s.size(1)
        scores = s.unsqueeze(2) + e.unsqueeze(1)  # (B, L, L)
        band = torch.ones(L, L, dtype=torch.bool, device=s.device)
        band = torch.triu(band) & ~torch.triu(band, diagonal=self.max_answer_len)
        scores = scores.masked_fill(~band, neg)
        flat = scores.flatten(1)
        best = flat.argmax(dim=1)
        return best // L, best % L, flat.gather(1, best.unsqueeze(1)).squeeze(1)


TAG_PATTERN = re.compile(r"^([BI])-(\w+)$")


class BIOSpanDecoder(nn.Module):
    """Token classifier whose predicted BIO tags are turned into (label, start, end) spans."""

    def __init__(self, hidden: int = 16,
                 labels: Sequence[str] = ("O", "B-PER", "I-PER", "B-LOC", "I-LOC", "B-ORG", "I-ORG")):
        super().__init__()
        self.id2label = dict(enumerate(labels))
        self.classifier = nn.Linear(hidden, len(labels))

    def forward(self, features, mask):
        pred = self.classifier(features).argmax(dim=-1)
        lengths = mask.sum(dim=1).tolist()
        batch_spans = []
        for row, n in zip(pred.tolist(), lengths):
            spans = []
            current = None
            for i, tag_id in enumerate(row[:n]):
                m = TAG_PATTERN.match(self.id2label[tag_id])
                if m is None:  # "O"
                    if current is not None:
                        spans.append(tuple(current))
                        current = None
                    continue
                prefix, label = m.groups()
                if prefix == "B" or current is None or current[0] != label:
                    if current is not None:
                        spans.append(tuple(current))
                    current = [label, i, i + 1]
                else:
                    current[2] = i + 1
            if current is not None:
                spans.append(tuple(current))
            batch_spans.append(spans)
        return batch_spans


# ---------------------------------------------------------------------------
# Constrained decoding
# ---------------------------------------------------------------------------


class ConstrainedGreedyDecoder(nn.Module):
    """Greedy GRU decoding with a banned-token set and an allowed-next-token dict."""

    def __init__(self, vocab: int = 30, hidden: int = 16, bos: int = 1, eos: int = 2,
                 banned: Sequence[int] = (3, 4, 5)):
        super().__init__()
        self.vocab, self.bos, self.eos = vocab, bos, eos
        self.embed = nn.Embedding(vocab, hidden)
        self.cell = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, vocab)
        self.banned = set(banned)
        # e.g. an opening bracket token can only be followed by a handful of tokens
        self.allowed_after: Dict[int, set] = {6: {7, 8, 9}, 10: {eos, 11, 12}}

    def forward(self, h, max_steps: int = 8, extra_banned: Optional[List[int]] = None):
        B = h.size(0)
        banned = self.banned | set(extra_banned or [])
        ban_mask = torch.zeros(self.vocab, dtype=torch.bool, device=h.device)
        ban_mask[sorted(banned)] = True

        tokens = torch.full((B,), self.bos, dtype=torch.long, device=h.device)
        outputs: List[List[int]] = [[] for _ in range(B)]
        done = [False] * B
        for _ in range(max_steps):
            h = self.cell(self.embed(tokens), h)
            logits = self.out(h).masked_fill(ban_mask, float("-inf"))
            for b, prev in enumerate(tokens.tolist()):
                if prev in self.allowed_after:
                    allow = torch.full((self.vocab,), float("-inf"), device=h.device)
                    allow[list(self.allowed_after[prev])] = 0.0
                    logits[b] = logits[b] + allow
            tokens = logits.argmax(dim=-1)
            for b, t in enumerate(tokens.tolist()):
                if not done[b]:
                    outputs[b].append(t)
                    done[b] = t == self.eos
            if all(done):
                break
        return outputs


class NoRepeatNGramBlocker(nn.Module):
    """Logits processor: forbid any token that would repeat an n-gram already generated."""

    def __init__(self, ngram_size: int = 2):
        super().__init__()
        self.ngram_size = ngram_size

    def forward(self, input_ids, scores):
        n = self.ngram_size
        batch, cur_len = input_ids.shape
        if cur_len + 1 < n:
            return scores
        scores = scores.clone()
        for b, seq in enumerate(input_ids.tolist()):
            generated = defaultdict(list)
            for ngram in zip(*[seq[i:] for i in range(n)]):
                generated[tuple(ngram[:-1])].append(ngram[-1])
            prefix = tuple(seq[cur_len - n + 1:])
            banned = generated.get(prefix, [])
            if banned:
                scores[b, banned] = float("-inf")
        return scores


# ---------------------------------------------------------------------------
# Batching / efficiency tricks
# ---------------------------------------------------------------------------


class DynamicTruncationClassifier(nn.Module):
    """Sentence classifier that cuts the batch to its longest non-pad sequence before encoding."""

    def __init__(self, vocab: int = 50, d_model: int = 16, num_classes: int = 3, pad_id: int = 0,
                 max_positions: int = 10):
        super().__init__()
        self.pad_id = pad_id
        self.max_positions = max_positions
        self.embed = nn.Embedding(vocab, d_model, padding_idx=pad_id)
        self.pos = nn.Embedding(max_positions, d_model)
        self.encoder = nn.TransformerEncoderLayer(d_model, 2, dim_feedforward=32, dropout=0.0,
                                                  batch_first=True)
        self.head = nn.Linear(d_model, num_classes)

    def forward(self, input_ids, attention_mask=None):
        if attention_mask is None:
            attention_mask = input_ids.ne(self.pad_id)
        max_len = int(attention_mask.sum(dim=1).max())
        if max_len > self.max_positions:
            warnings.warn(f"sequence length {max_len} > {self.max_positions}, truncating")
            max_len = self.max_positions
        input_ids = input_ids[:, :max_len]
        attention_mask = attention_mask[:, :max_len]

        x = self.embed(input_ids) + self.pos(torch.arange(max_len, device=input_ids.device))
        x = self.encoder(x, src_key_padding_mask=~attention_mask)
        m = attention_mask.unsqueeze(-1).to(x.dtype)
        pooled = (x * m).sum(dim=1) / m.sum(dim=1).clamp(min=1.0)
        return self.head(pooled)


class SequencePacker(nn.Module):
    """Packs variable-length examples into fixed rows (first-fit decreasing), resets position
    ids per example and runs block-diagonal self-attention over the packed rows."""

    def __init__(self, vocab: int = 50, d_model: int = 16, row_len: int = 12, pad_id: int = 0):
        super().__init__()
        self.row_len = row_len
        self.pad_id = pad_id
        self.d_model = d_model
        self.embed = nn.Embedding(vocab, d_model)
        self.pos_embed = nn.Embedding(row_len, d_model)

    def pack(self, input_ids, lengths):
        lengths = [min(n, self.row_len) for n in lengths.tolist()]
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        rows: List[List] = []  # [free_space, [example indices]]
        for i in order:
            for row in rows:
                if row[0] >= lengths[i]:
                    row[0] -= lengths[i]
                    row[1].append(i)
                    break
            else:
                rows.append([self.row_len - lengths[i], [i]])

        packed = torch.full((len(rows), self.row_len), self.pad_id, dtype=torch.long,
                            device=input_ids.device)
        position_ids = torch.zeros_like(packed)
        segment_ids = torch.zeros_like(packed)
        for r, (_, members) in enumerate(rows):
            sizes = [lengths[i] for i in members]
            offsets = [0, *itertools.accumulate(sizes)]
            for seg, (i, start, n) in enumerate(zip(members, offsets, sizes), start=1):
                packed[r, start:start + n] = input_ids[i, :n]
                position_ids[r, start:start + n] = torch.arange(n)
                segment_ids[r, start:start + n] = seg
        return packed, position_ids, segment_ids

    def forward(self, input_ids, lengths):
        packed, position_ids, segment_ids = self.pack(input_ids, lengths)
        h = self.embed(packed) + self.pos_embed(position_ids)
        same_seg = segment_ids.unsqueeze(1) == segment_ids.unsqueeze(2)
        attn_mask = same_seg & (segment_ids.unsqueeze(1) > 0)
        scores = h @ h.transpose(1, 2) / math.sqrt(self.d_model)
        scores = scores.masked_fill(~attn_mask, -1e9)
        out = scores.softmax(dim=-1) @ h
        return out, position_ids, segment_ids


# ---------------------------------------------------------------------------
# Losses
# ---------------------------------------------------------------------------


class LabelSmoothingCrossEntropy(nn.Module):
    """Label-smoothed CE; padding positions are dropped in Python before computing the loss."""

    def __init__(self, smoothing: float = 0.1, ignore_index: int = -100):
        super().__init__()
        self.smoothing = smoothing
        self.ignore_index = ignore_index
        self.num_tokens_seen = 0

    def forward(self, logits, target, smoothing: Optional[float] = None):
        eps = self.smoothing if smoothing is None else smoothing
        logits = logits.reshape(-1, logits.size(-1))
        target = target.reshape(-1)
        keep = target != self.ignore_index
        n_tokens = int(keep.sum())
        if n_tokens == 0:
            return logits.sum() * 0.0
        logits = logits[keep]
        target = target[keep]
        logp = F.log_softmax(logits, dim=-1)
        nll = -logp.gather(1, target.unsqueeze(1)).squeeze(1)
        smooth = -logp.mean(dim=-1)
        loss = (1.0 - eps) * nll + eps * smooth
        self.num_tokens_seen += n_tokens
        return loss.sum() / n_tokens


class MaskedLabelSmoothingLoss(nn.Module):
    """Clean variant: everything stays in tensors, ignore_index handled with a mask."""

    def __init__(self, smoothing: float = 0.1, ignore_index: int = -100):
        super().__init__()
        self.smoothing = smoothing
        self.ignore_index = ignore_index

    def forward(self, logits, target):
        logp = F.log_softmax(logits, dim=-1)
        mask = target.ne(self.ignore_index)
        safe_target = target.masked_fill(~mask, 0)
        nll = -logp.gather(-1, safe_target.unsqueeze(-1)).squeeze(-1)
        smooth = -logp.mean(dim=-1)
        loss = (1.0 - self.smoothing) * nll + self.smoothing * smooth
        loss = loss * mask.to(loss.dtype)
        return loss.sum() / mask.sum().clamp(min=1).to(loss.dtype)


# ---------------------------------------------------------------------------
# Retrieval / caching / positions / copying
# ---------------------------------------------------------------------------


class TopKPassageFusion(nn.Module):
    """Scores retrieved passages against the query, keeps the top-k, concatenates them and
    cross-attends from the query (fusion-in-decoder flavour)."""

    def __init__(self, d_model: int = 16, nhead: int = 2):
        super().__init__()
        self.q_proj = nn.Linear(d_model, d_model)
        self.p_proj = nn.Linear(d_model, d_model)
        self.attn = nn.MultiheadAttention(d_model, nhead, batch_first=True)
        self.out = nn.Linear(d_model, d_model)

    def forward(self, query, passages, passage_mask, k: int = 2):
        # query: (B, Lq, d), passages: (B, P, Lp, d), passage_mask: (B, P, Lp) bool
        B, P, Lp, d = passages.shape
        k = min(k, P)
        pm = passage_mask.unsqueeze(-1).to(passages.dtype)
        p_vec = self.p_proj((passages * pm).sum(2) / pm.sum(2).clamp(min=1.0))
        q_vec = self.q_proj(query.mean(dim=1))
        scores = torch.einsum("bd,bpd->bp", q_vec, p_vec) / math.sqrt(d)

        top_scores, top_idx = scores.topk(k, dim=1)
        logger.debug("selected passages %s", top_idx.tolist())
        chosen = passages.gather(1, top_idx[:, :, None, None].expand(-1, -1, Lp, d)).reshape(B, k * Lp, d)
        chosen_mask = passage_mask.gather(1, top_idx[:, :, None].expand(-1, -1, Lp)).reshape(B, k * Lp)
        weights = top_scores.softmax(dim=-1).repeat_interleave(Lp, dim=1).unsqueeze(-1)

        fused, _ = self.attn(query, chosen * weights, chosen, key_padding_mask=~chosen_mask)
        return self.out(fused + query)


class PrefixKVCache(nn.Module):
    """Attention over a shared prompt prefix whose keys/values are memoised per prompt."""

    def __init__(self, vocab: int = 50, d_model: int = 16, max_entries: int = 4):
        super().__init__()
        self.d_model = d_model
        self.max_entries = max_entries
        self.embed = nn.Embedding(vocab, d_model)
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self._cache: "OrderedDict[Tuple[int, ...], Tuple[torch.Tensor, torch.Tensor]]" = OrderedDict()
        self.hits = 0
        self.misses = 0

    def _prefix_kv(self, prefix_ids):
        key = tuple(prefix_ids.tolist())
        if key in self._cache:
            self._cache.move_to_end(key)
            self.hits += 1
            return self._cache[key]
        self.misses += 1
        h = self.embed(prefix_ids)
        kv = (self.k_proj(h).detach(), self.v_proj(h).detach())
        self._cache[key] = kv
        if len(self._cache) > self.max_entries:
            self._cache.popitem(last=False)
        return kv

    def forward(self, prefix_ids, query_ids):
        # prefix_ids: (P,) prompt shared by the batch, query_ids: (B, L)
        k, v = self._prefix_kv(prefix_ids)
        q = self.q_proj(self.embed(query_ids))
        attn = torch.softmax(q @ k.t() / math.sqrt(self.d_model), dim=-1)
        return attn @ v


class T5RelativePositionBias(nn.Module):
    """T5-style bucketed relative position bias added to attention scores."""

    def __init__(self, n_heads: int = 2, num_buckets: int = 8, max_distance: int = 16,
                 bidirectional: bool = True):
        super().__init__()
        self.num_buckets = num_buckets
        self.max_distance = max_distance
        self.bidirectional = bidirectional
        self.relative_attention_bias = nn.Embedding(num_buckets, n_heads)
        self._bucket_cache: Dict[Tuple[int, int], torch.Tensor] = {}

    @staticmethod
    def _relative_position_bucket(relative_position, bidirectional=True, num_buckets=32, max_distance=128):
        ret = 0
        n = -relative_position
        if bidirectional:
            num_buckets //= 2
            ret += (n < 0).long() * num_buckets
            n = torch.abs(n)
        else:
            n = torch.max(n, torch.zeros_like(n))
        max_exact = num_buckets // 2
        is_small = n < max_exact
        val_if_large = max_exact + (
            torch.log(n.float() / max_exact) / math.log(max_distance / max_exact) * (num_buckets - max_exact)
        ).long()
        val_if_large = torch.min(val_if_large, torch.full_like(val_if_large, num_buckets - 1))
        ret += torch.where(is_small, n, val_if_large)
        return ret

    def forward(self, attn_scores):
        # attn_scores: (B, H, q_len, k_len)
        q_len, k_len = attn_scores.shape[-2:]
        key = (q_len, k_len)
        if key not in self._bucket_cache:
            context = torch.arange(q_len, dtype=torch.long)[:, None]
            memory = torch.arange(k_len, dtype=torch.long)[None, :]
            self._bucket_cache[key] = self._relative_position_bucket(
                memory - context, self.bidirectional, self.num_buckets, self.max_distance
            )
        buckets = self._bucket_cache[key].to(attn_scores.device)
        bias = self.relative_attention_bias(buckets).permute(2, 0, 1).unsqueeze(0)
        return attn_scores + bias


class PointerGeneratorHead(nn.Module):
    """See et al. copy mechanism: mixes the vocab distribution with attention over source
    tokens, scattering into an extended vocab sized by the batch's OOV count."""

    def __init__(self, vocab: int = 30, d_model: int = 16):
        super().__init__()
        self.vocab_size = vocab
        self.vocab_proj = nn.Linear(2 * d_model, vocab)
        self.p_gen_proj = nn.Linear(2 * d_model, 1)

    def forward(self, dec_state, enc_states, src_ext_ids, enc_mask):
        # dec_state: (B, d), enc_states: (B, S, d), src_ext_ids: (B, S), enc_mask: (B, S) bool
        scores = torch.bmm(enc_states, dec_state.unsqueeze(2)).squeeze(2)
        scores = scores.masked_fill(~enc_mask, float("-inf"))
        attn = scores.softmax(dim=-1)
        context = torch.bmm(attn.unsqueeze(1), enc_states).squeeze(1)

        feats = torch.cat([dec_state, context], dim=-1)
        p_gen = torch.sigmoid(self.p_gen_proj(feats))
        vocab_dist = self.vocab_proj(feats).softmax(dim=-1) * p_gen

        n_oov = max(int(src_ext_ids.max().item()) - self.vocab_size + 1, 0)
        if n_oov > 0:
            vocab_dist = torch.cat([vocab_dist, vocab_dist.new_zeros(vocab_dist.size(0), n_oov)], dim=1)
        return vocab_dist.scatter_add(1, src_ext_ids, attn * (1.0 - p_gen))
