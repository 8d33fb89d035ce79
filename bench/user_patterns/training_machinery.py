"""bench/user_patterns part "training_machinery": training and bookkeeping modules
written blind (without reading the linter's rules, fixtures or tests), in the way
ML engineers tend to write them inside their models. Domains: a loss wrapper with
an LR warmup/cosine factor from a step counter, teacher-student distillation with
temperature and KL, a MoCo-style momentum encoder with a negatives queue, an EMA
prototype memory bank, sequence-length curriculum by step, gradient-checkpointed
blocks chosen by a list of layer indices, a metrics accumulator in Python floats
and a dict, focal / class-balanced loss with numpy class counts, an InfoNCE /
SimCLR contrastive loss, mixed precision with autocast, loss scaling and an
overflow check, a stochastic-depth rate schedule, hard-example mining with topk,
an auxiliary-loss collector, forward-hook activation statistics, early-exit
inference by confidence threshold, and a NaN/inf loss guard.
"""
import logging
import math
import time
import warnings
from collections import defaultdict
from typing import Optional

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# 1. loss wrapper with warmup + cosine LR factor from a step counter
# ---------------------------------------------------------------------------
class ScheduledLossWrapper(nn.Module):
    """Wraps a classifier, computes CE loss and tracks the LR multiplier.

    The trainer reads ``self.lr_factor`` after each forward to set the LR.
    """

    def __init__(self, dim: int = 16, num_classes: int = 5, warmup_steps: int = 3,
                 total_steps: int = 20, min_factor: float = 0.05):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(dim, 32), nn.GELU(), nn.Linear(32, num_classes))
        self.warmup_steps = warmup_steps
        self.total_steps = total_steps
        self.min_factor = min_factor
        self.step = 0
        self.lr_factor = 0.0

    def _lr_factor(self, step: int) -> float:
        if step < self.warmup_steps:
            return (step + 1) / self.warmup_steps
        progress = (step - self.warmup_steps) / max(1, self.total_steps - self.warmup_steps)
        progress = min(progress, 1.0)
        cosine = 0.5 * (1.0 + math.cos(math.pi * progress))
        return self.min_factor + (1.0 - self.min_factor) * cosine

    def forward(self, x, targets):
        logits = self.net(x)
        loss = F.cross_entropy(logits, targets)
        self.lr_factor = self._lr_factor(self.step)
        if self.training:
            self.step += 1
        if self.step % 10 == 0:
            logger.info("step %d loss %.4f lr_factor %.3f", self.step, loss.item(), self.lr_factor)
        return loss, self.lr_factor


# ---------------------------------------------------------------------------
# 2. teacher-student distillation
# ---------------------------------------------------------------------------
class DistillationLoss(nn.Module):
    def __init__(self, dim: int = 16, num_classes: int = 6, alpha: float = 0.5):
        super().__init__()
        self.student = nn.Linear(dim, num_classes)
        self.teacher = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, num_classes))
        for p in self.teacher.parameters():
            p.requires_grad_(False)
        self.alpha = alpha

    def forward(self, x, labels, temperature: float = 2.0):
        with torch.no_grad():
            self.teacher.eval()
            t_logits = self.teacher(x)
        s_logits = self.student(x)
        kd = F.kl_div(
            F.log_softmax(s_logits / temperature, dim=-1),
            F.softmax(t_logits / temperature, dim=-1),
            reduction="batchmean",
        ) * (temperature ** 2)
        ce = F.cross_entropy(s_logits, labels)
        return self.alpha * kd + (1 - self.alpha) * ce


# ---------------------------------------------------------------------------
# 3. MoCo momentum encoder with a queue of negatives
# ---------------------------------------------------------------------------
class MoCoQueue(nn.Module):
    def __init__(self, dim: int = 16, feat_dim: int = 8, queue_size: int = 24,
                 momentum: float = 0.99, temperature: float = 0.07):
        super().__init__()
        self.encoder_q = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, feat_dim))
        self.encoder_k = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, feat_dim))
        for pq, pk in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            pk.data.copy_(pq.data)
            pk.requires_grad = False
        self.m = momentum
        self.T = temperature
        self.K = queue_size
        self.register_buffer("queue", F.normalize(torch.randn(feat_dim, queue_size), dim=0))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _momentum_update(self):
        for pq, pk in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            pk.data = pk.data * self.m + pq.data * (1.0 - self.m)

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys):
        batch_size = keys.shape[0]
        ptr = int(self.queue_ptr)
        if ptr + batch_size > self.K:
            # wrap around: just fill the tail and restart
            first = self.K - ptr
            self.queue[:, ptr:] = keys[:first].T
            self.queue[:, : batch_size - first] = keys[first:].T
        else:
            self.queue[:, ptr:ptr + batch_size] = keys.T
        ptr = (ptr + batch_size) % self.K
        self.queue_ptr[0] = ptr

    def forward(self, im_q, im_k):
        q = F.normalize(self.encoder_q(im_q), dim=1)
        with torch.no_grad():
            self._momentum_update()
            k = F.normalize(self.encoder_k(im_k), dim=1)
        l_pos = torch.einsum("nc,nc->n", q, k).unsqueeze(-1)
        l_neg = torch.einsum("nc,ck->nk", q, self.queue.clone().detach())
        logits = torch.cat([l_pos, l_neg], dim=1) / self.T
        labels = torch.zeros(logits.shape[0], dtype=torch.long, device=logits.device)
        self._dequeue_and_enqueue(k)
        return F.cross_entropy(logits, labels)


# ---------------------------------------------------------------------------
# 4. prototype memory bank with EMA updates
# ---------------------------------------------------------------------------
class PrototypeMemory(nn.Module):
    def __init__(self, dim: int = 16, num_prototypes: int = 5, decay: float = 0.9):
        super().__init__()
        self.proj = nn.Linear(dim, dim)
        self.decay = decay
        self.register_buffer("prototypes", torch.zeros(num_prototypes, dim))
        self.register_buffer("initialized", torch.zeros(num_prototypes, dtype=torch.bool))
        self.update_count = defaultdict(int)

    def forward(self, x, labels):
        feats = F.normalize(self.proj(x), dim=-1)
        if self.training:
            with torch.no_grad():
                for c in labels.unique().tolist():
                    mean_feat = feats[labels == c].mean(0)
                    if not self.initialized[c]:
                        self.prototypes[c] = mean_feat
                        self.initialized[c] = True
                    else:
                        self.prototypes[c] = self.decay * self.prototypes[c] + (1 - self.decay) * mean_feat
                    self.update_count[c] += 1
        protos = F.normalize(self.prototypes, dim=-1)
        logits = feats @ protos.t()
        return F.cross_entropy(logits * 10.0, labels)


# ---------------------------------------------------------------------------
# 5. curriculum: truncate sequence length by schedule
# ---------------------------------------------------------------------------
class SeqLenCurriculum(nn.Module):
    def __init__(self, dim: int = 16, min_len: int = 4, max_len: int = 64, ramp_steps: int = 5):
        super().__init__()
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.head = nn.Linear(dim, 1)
        self.min_len = min_len
        self.max_len = max_len
        self.ramp_steps = ramp_steps
        self.global_step = 0

    def current_max_len(self) -> int:
        frac = min(1.0, self.global_step / self.ramp_steps)
        # round to a multiple of 4 like people do for kernels
        length = int(self.min_len + frac * (self.max_len - self.min_len))
        return max(self.min_len, length // 4 * 4)

    def forward(self, x, epoch: Optional[int] = None):
        if epoch is not None:
            self.global_step = epoch * self.ramp_steps // 2
        seq_len = min(x.size(1), self.current_max_len())
        x = x[:, :seq_len]
        out, _ = self.encoder(x)
        self.global_step += 1
        return self.head(out[:, -1]).squeeze(-1)


# ---------------------------------------------------------------------------
# 6. gradient checkpointing on selected layers
# ---------------------------------------------------------------------------
class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.ff = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))

    def forward(self, x):
        return x + self.ff(self.norm(x))


class SelectiveCheckpointStack(nn.Module):
    def __init__(self, dim: int = 16, depth: int = 6, checkpoint_layers=(1, 3, 5)):
        super().__init__()
        self.layers = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.checkpoint_layers = list(checkpoint_layers)
        self.use_checkpointing = True

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            if self.use_checkpointing and self.training and i in self.checkpoint_layers:
                x = checkpoint(layer, x, use_reentrant=False)
            else:
                x = layer(x)
        return x


# ---------------------------------------------------------------------------
# 7. metric accumulation in python floats + dict
# ---------------------------------------------------------------------------
class MetricTrackingClassifier(nn.Module):
    def __init__(self, dim: int = 16, num_classes: int = 4):
        super().__init__()
        self.fc = nn.Linear(dim, num_classes)
        self.reset_metrics()

    def reset_metrics(self):
        self.running_loss = 0.0
        self.n_correct = 0
        self.n_seen = 0
        self.n_batches = 0
        self.metrics = {}

    def forward(self, x, y):
        logits = self.fc(x)
        loss = F.cross_entropy(logits, y)
        preds = logits.argmax(dim=-1)
        self.running_loss += loss.item()
        self.n_correct += (preds == y).sum().item()
        self.n_seen += y.numel()
        self.n_batches += 1
        self.metrics["loss"] = self.running_loss / self.n_batches
        self.metrics["acc"] = self.n_correct / max(self.n_seen, 1)
        self.metrics["last_batch_size"] = x.shape[0]
        return loss, dict(self.metrics)


# ---------------------------------------------------------------------------
# 8. focal loss / class-balanced loss
# ---------------------------------------------------------------------------
class ClassBalancedFocalLoss(nn.Module):
    def __init__(self, class_counts=(50, 20, 8, 3), beta: float = 0.999, gamma: float = 2.0):
        super().__init__()
        counts = np.asarray(class_counts, dtype=np.float64)
        effective_num = 1.0 - np.power(beta, counts)
        weights = (1.0 - beta) / effective_num
        weights = weights / weights.sum() * len(counts)
        self.register_buffer("class_weights", torch.from_numpy(weights).float())
        self.gamma = gamma
        self.num_classes = len(counts)

    def forward(self, logits, targets, gamma: Optional[float] = None):
        gamma = self.gamma if gamma is None else gamma
        log_probs = F.log_softmax(logits, dim=-1)
        log_pt = log_probs.gather(1, targets.unsqueeze(1)).squeeze(1)
        pt = log_pt.exp()
        focal = (1 - pt) ** gamma
        w = self.class_weights[targets]
        loss = -(w * focal * log_pt)
        return loss.sum() / w.sum()


class FocalLoss(nn.Module):
    """Plain binary focal loss, written cleanly."""

    def __init__(self, alpha: float = 0.25, gamma: float = 2.0):
        super().__init__()
        self.alpha = alpha
        self.gamma = gamma

    def forward(self, logits, targets):
        p = torch.sigmoid(logits)
        ce = F.binary_cross_entropy_with_logits(logits, targets, reduction="none")
        p_t = p * targets + (1 - p) * (1 - targets)
        alpha_t = self.alpha * targets + (1 - self.alpha) * (1 - targets)
        return (alpha_t * ce * (1 - p_t) ** self.gamma).mean()


# ---------------------------------------------------------------------------
# 9. InfoNCE / SimCLR
# ---------------------------------------------------------------------------
class SimCLRLoss(nn.Module):
    def __init__(self, dim: int = 16, proj_dim: int = 8, temperature: float = 0.5):
        super().__init__()
        self.projector = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, proj_dim))
        self.temperature = temperature

    def forward(self, view1, view2):
        z1 = F.normalize(self.projector(view1), dim=1)
        z2 = F.normalize(self.projector(view2), dim=1)
        batch_size = z1.shape[0]
        z = torch.cat([z1, z2], dim=0)
        sim = z @ z.t() / self.temperature
        mask = torch.eye(2 * batch_size, dtype=torch.bool, device=z.device)
        sim = sim.masked_fill(mask, float("-inf"))
        labels = torch.arange(batch_size, device=z.device)
        labels = torch.cat([labels + batch_size, labels], dim=0)
        return F.cross_entropy(sim, labels)


class InfoNCE(nn.Module):
    """Clean InfoNCE with in-batch negatives."""

    def __init__(self, temperature: float = 0.1):
        super().__init__()
        self.temperature = temperature

    def forward(self, query, keys):
        query = F.normalize(query, dim=-1)
        keys = F.normalize(keys, dim=-1)
        logits = query @ keys.t() / self.temperature
        labels = torch.arange(query.size(0), device=query.device)
        return F.cross_entropy(logits, labels)


# ---------------------------------------------------------------------------
# 10. mixed precision: autocast + loss scaling + overflow check
# ---------------------------------------------------------------------------
class AmpLossScaler(nn.Module):
    def __init__(self, dim: int = 16, num_classes: int = 4, init_scale: float = 2.0 ** 8,
                 growth_interval: int = 3):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, num_classes))
        self.use_amp = True
        self.amp_dtype = torch.bfloat16
        self.scale = init_scale
        self.growth_interval = growth_interval
        self._good_steps = 0
        self.skipped_steps = 0

    def forward(self, x, y):
        device_type = "cuda" if x.is_cuda else "cpu"
        with torch.autocast(device_type=device_type, dtype=self.amp_dtype, enabled=self.use_amp):
            logits = self.model(x)
        loss = F.cross_entropy(logits.float(), y)
        scaled = loss * self.scale
        if not torch.isfinite(scaled):
            self.scale /= 2.0
            self._good_steps = 0
            self.skipped_steps += 1
            warnings.warn(f"overflow in loss, reducing scale to {self.scale}")
            return None
        self._good_steps += 1
        if self._good_steps % self.growth_interval == 0:
            self.scale *= 2.0
        return scaled


# ---------------------------------------------------------------------------
# 11. stochastic depth with rate schedule
# ---------------------------------------------------------------------------
class ScheduledDropPathNet(nn.Module):
    def __init__(self, dim: int = 16, depth: int = 4, max_drop: float = 0.3, ramp_steps: int = 10):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.max_drop = max_drop
        self.ramp_steps = ramp_steps
        self.register_buffer("num_updates", torch.tensor(0))

    def drop_rate(self, layer_idx: int) -> float:
        progress = min(1.0, self.num_updates.item() / self.ramp_steps)
        # linearly increasing with depth
        return self.max_drop * progress * layer_idx / max(1, len(self.blocks) - 1)

    def forward(self, x):
        for i, blk in enumerate(self.blocks):
            p = self.drop_rate(i)
            if self.training and p > 0:
                keep = 1.0 - p
                shape = (x.shape[0],) + (1,) * (x.ndim - 1)
                mask = x.new_empty(shape).bernoulli_(keep) / keep
                x = x + (blk(x) - x) * mask
            else:
                x = blk(x)
        if self.training:
            self.num_updates += 1
        return x


# ---------------------------------------------------------------------------
# 12. hard example mining
# ---------------------------------------------------------------------------
class HardExampleMiningLoss(nn.Module):
    def __init__(self, dim: int = 16, num_classes: int = 5, min_kept: int = 2):
        super().__init__()
        self.fc = nn.Linear(dim, num_classes)
        self.min_kept = min_kept

    def forward(self, x, y, keep_ratio: float = 0.5):
        logits = self.fc(x)
        per_sample = F.cross_entropy(logits, y, reduction="none")
        n_keep = max(self.min_kept, int(math.ceil(keep_ratio * per_sample.numel())))
        n_keep = min(n_keep, per_sample.numel())
        hard_losses, hard_idx = per_sample.topk(n_keep)
        # reweight: kept samples get weight proportional to their loss
        weights = hard_losses.detach() / (hard_losses.detach().sum() + 1e-8)
        loss = (weights * hard_losses).sum()
        return loss, hard_idx


# ---------------------------------------------------------------------------
# 13. auxiliary loss collector
# ---------------------------------------------------------------------------
class MoELayerWithAux(nn.Module):
    def __init__(self, dim, num_experts=4, collector=None):
        super().__init__()
        self.router = nn.Linear(dim, num_experts)
        self.experts = nn.ModuleList([nn.Linear(dim, dim) for _ in range(num_experts)])
        self.num_experts = num_experts
        self._collector = [collector]  # avoid registering parent as child

    def forward(self, x):
        probs = self.router(x).softmax(-1)
        top = probs.argmax(-1)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            sel = top == e
            if sel.any():
                out[sel] = expert(x[sel]) * probs[sel][:, e:e + 1]
        # load-balancing loss
        frac = F.one_hot(top, self.num_experts).float().mean(0)
        aux = self.num_experts * (frac * probs.mean(0)).sum()
        collector = self._collector[0]
        if collector is not None:
            collector.add_aux_loss("load_balance", aux)
        return x + out


class AuxLossCollector(nn.Module):
    def __init__(self, dim: int = 16, depth: int = 2, aux_weight: float = 0.01):
        super().__init__()
        self.layers = nn.ModuleList([MoELayerWithAux(dim, collector=self) for _ in range(depth)])
        self.head = nn.Linear(dim, 1)
        self.aux_weight = aux_weight
        self.aux_losses = []

    def add_aux_loss(self, name: str, value: torch.Tensor):
        self.aux_losses.append((name, value))

    def forward(self, x):
        self.aux_losses = []
        for layer in self.layers:
            x = layer(x)
        out = self.head(x).squeeze(-1)
        aux_total = sum(v for _, v in self.aux_losses) if self.aux_losses else x.new_zeros(())
        return out, self.aux_weight * aux_total


# ---------------------------------------------------------------------------
# 14. activation statistics via hooks
# ---------------------------------------------------------------------------
class ActivationStatsRecorder(nn.Module):
    def __init__(self, dim: int = 16, depth: int = 3):
        super().__init__()
        self.layers = nn.Sequential(*[nn.Sequential(nn.Linear(dim, dim), nn.ReLU()) for _ in range(depth)])
        self.stats = {}
        self.input_shapes = []
        self._handles = []
        for name, mod in self.layers.named_children():
            self._handles.append(mod.register_forward_hook(self._make_hook(name)))
            self._handles.append(mod.register_forward_pre_hook(self._record_shape))

    def _make_hook(self, name):
        def hook(module, inputs, output):
            with torch.no_grad():
                self.stats[name] = {
                    "mean": output.mean().item(),
                    "std": output.std().item(),
                    "frac_zero": (output == 0).float().mean().item(),
                }
        return hook

    def _record_shape(self, module, inputs):
        self.input_shapes.append(tuple(inputs[0].shape))

    def forward(self, x):
        self.input_shapes.clear()
        return self.layers(x)


# ---------------------------------------------------------------------------
# 15. early-exit inference
# ---------------------------------------------------------------------------
class EarlyExitClassifier(nn.Module):
    def __init__(self, dim: int = 16, depth: int = 4, num_classes: int = 3):
        super().__init__()
        self.blocks = nn.ModuleList([Block(dim) for _ in range(depth)])
        self.exits = nn.ModuleList([nn.Linear(dim, num_classes) for _ in range(depth)])
        self.exit_counts = [0] * depth

    def forward(self, x, threshold: float = 0.9):
        if self.training:
            # train all exits jointly
            return [head(x := blk(x)) for blk, head in zip(self.blocks, self.exits)]
        logits = None
        for i, (blk, head) in enumerate(zip(self.blocks, self.exits)):
            x = blk(x)
            logits = head(x)
            conf = logits.softmax(-1).max(-1).values
            if conf.min() > threshold:
                self.exit_counts[i] += 1
                return logits, i
        self.exit_counts[-1] += 1
        return logits, len(self.blocks) - 1


# ---------------------------------------------------------------------------
# 16. NaN/inf guard
# ---------------------------------------------------------------------------
class NonFiniteLossGuard(nn.Module):
    def __init__(self, dim: int = 16, max_bad_steps: int = 5):
        super().__init__()
        self.model = nn.Linear(dim, 1)
        self.max_bad_steps = max_bad_steps
        self.bad_steps = 0
        self.last_good_loss: Optional[float] = None
        self._t0 = time.time()

    def forward(self, x, y):
        pred = self.model(x).squeeze(-1)
        loss = F.mse_loss(pred, y)
        if torch.isnan(loss) or torch.isinf(loss):
            self.bad_steps += 1
            elapsed = time.time() - self._t0
            warnings.warn(f"non-finite loss at {elapsed:.1f}s (bad steps: {self.bad_steps})")
            if self.bad_steps >= self.max_bad_steps:
                raise RuntimeError("too many non-finite losses")
            # skip this step: zero loss that still has a graph
            return pred.sum() * 0.0
        self.last_good_loss = loss.item()
        return loss


# ---------------------------------------------------------------------------
# 17. clean gradient-free EMA teacher (self-distillation, DINO-ish center)
# ---------------------------------------------------------------------------
class CenteredSelfDistillation(nn.Module):
    """Written cleanly: center kept in a buffer, updated with in-place ops."""

    def __init__(self, dim: int = 16, out_dim: int = 8, center_momentum: float = 0.9,
                 student_temp: float = 0.1, teacher_temp: float = 0.04):
        super().__init__()
        self.head = nn.Linear(dim, out_dim)
        self.center_momentum = center_momentum
        self.student_temp = student_temp
        self.teacher_temp = teacher_temp
        self.register_buffer("center", torch.zeros(1, out_dim))

    def forward(self, student_in, teacher_out):
        s = self.head(student_in) / self.student_temp
        t = F.softmax((teacher_out - self.center) / self.teacher_temp, dim=-1).detach()
        loss = torch.sum(-t * F.log_softmax(s, dim=-1), dim=-1).mean()
        with torch.no_grad():
            batch_center = teacher_out.mean(dim=0, keepdim=True)
            self.center.mul_(self.center_momentum).add_(batch_center, alpha=1 - self.center_momentum)
        return loss
