"""bench/user_patterns part "speech_and_generative": speech and generative-model
code written blind (without reading the linter's rules, fixtures or tests), in the
way ML engineers tend to write it inside their models. Domains: a VAE with a
reparameterisation trick and a KL weight annealed by step, a VQ-VAE codebook with
EMA updates, commitment loss and dead-code reset, a GAN generator/discriminator pair
with a hinge loss and a lazy R1 penalty, a conditional affine flow coupling layer, a
TTS duration predictor with a length regulator, monotonic alignment search, a
pitch/energy variance adaptor with bucketised embeddings, a HiFi-GAN-like upsampling
vocoder with multi-receptive-field residual blocks, a multi-resolution mel loss,
attentive statistics pooling for speaker embeddings, an energy-based VAD that trims
silence, a streaming chunked encoder with a left-context cache, a diffusion
denoiser with a Python-float noise schedule and classifier-free guidance, a DDIM
sampler loop, an autoregressive audio-token decoder with temperature / top-k, a
codec with residual vector quantisation, a CTC head with greedy decoding to strings,
and a VITS-style random-segment decoder.
"""
import itertools
import logging
import math
import operator
import warnings
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Union

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pad_sequence

logger = logging.getLogger(__name__)


# ----------------------------------------------------------------------------
# small shared utilities
# ----------------------------------------------------------------------------
def sequence_mask(lengths: torch.Tensor, max_len: Optional[int] = None) -> torch.Tensor:
    if max_len is None:
        max_len = int(lengths.max().item())
    ids = torch.arange(max_len, device=lengths.device)
    return ids[None, :] < lengths[:, None]


def kl_anneal_weight(step: int, schedule: str, warmup_steps: int, cycle_steps: int = 0,
                     max_weight: float = 1.0) -> float:
    """KL weight as a plain Python float, depending on the global step."""
    if schedule == "constant":
        return max_weight
    if schedule == "linear":
        return max_weight * min(1.0, step / max(1, warmup_steps))
    if schedule == "cyclical":
        if cycle_steps <= 0:
            raise ValueError("cyclical KL annealing needs cycle_steps > 0")
        pos = (step % cycle_steps) / cycle_steps
        return max_weight * min(1.0, pos / 0.5)
    if schedule == "sigmoid":
        k = max(1.0, warmup_steps / 10.0)
        return max_weight / (1.0 + math.exp(-(step - warmup_steps) / k))
    raise ValueError(f"unknown KL schedule {schedule!r}")


def make_beta_schedule(kind: str, num_timesteps: int, beta_start: float = 1e-4,
                       beta_end: float = 0.02) -> List[float]:
    if kind == "linear":
        step = (beta_end - beta_start) / max(1, num_timesteps - 1)
        return [beta_start + i * step for i in range(num_timesteps)]
    if kind == "cosine":
        s = 0.008

        def f(t):
            return math.cos((t / num_timesteps + s) / (1 + s) * math.pi / 2) ** 2

        return [min(1 - f(i + 1) / f(i), 0.999) for i in range(num_timesteps)]
    if kind == "quadratic":
        lin = make_beta_schedule("linear", num_timesteps, beta_start ** 0.5, beta_end ** 0.5)
        return [b * b for b in lin]
    raise NotImplementedError(f"beta schedule {kind}")


def timestep_embedding(timesteps: torch.Tensor, dim: int, max_period: float = 10000.0) -> torch.Tensor:
    half = dim // 2
    freqs = torch.exp(-math.log(max_period) * torch.arange(half, dtype=torch.float32,
                                                           device=timesteps.device) / half)
    args = timesteps.float()[:, None] * freqs[None]
    emb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
    if dim % 2:
        emb = F.pad(emb, (0, 1))
    return emb


class VariancePredictor(nn.Module):
    """FastSpeech2-style conv predictor: (B, T, H) -> (B, T)."""

    def __init__(self, hidden: int = 16, filter_size: int = 16, kernel_size: int = 3, dropout: float = 0.1):
        super().__init__()
        self.conv1 = nn.Conv1d(hidden, filter_size, kernel_size, padding=kernel_size // 2)
        self.ln1 = nn.LayerNorm(filter_size)
        self.conv2 = nn.Conv1d(filter_size, filter_size, kernel_size, padding=kernel_size // 2)
        self.ln2 = nn.LayerNorm(filter_size)
        self.dropout = nn.Dropout(dropout)
        self.proj = nn.Linear(filter_size, 1)

    def forward(self, x, mask: Optional[torch.Tensor] = None):
        h = F.relu(self.conv1(x.transpose(1, 2))).transpose(1, 2)
        h = self.dropout(self.ln1(h))
        h = F.relu(self.conv2(h.transpose(1, 2))).transpose(1, 2)
        h = self.dropout(self.ln2(h))
        out = self.proj(h).squeeze(-1)
        if mask is not None:
            out = out.masked_fill(~mask, 0.0)
        return out


# 1. VAE with reparameterisation, free bits and a KL weight annealed by step
@dataclass
class VAEConfig:
    in_dim: int = 20
    hidden: int = 32
    latent: int = 8
    kl_schedule: str = "linear"      # constant | linear | cyclical | sigmoid
    kl_warmup_steps: int = 100
    kl_cycle_steps: int = 50
    kl_max_weight: float = 1.0
    free_bits: float = 0.0
    recon_loss: str = "mse"          # mse | l1


class AnnealedVAE(nn.Module):
    def __init__(self, cfg: Optional[VAEConfig] = None):
        super().__init__()
        self.cfg = cfg or VAEConfig()
        c = self.cfg
        self.encoder = nn.Sequential(nn.Linear(c.in_dim, c.hidden), nn.SiLU(), nn.Linear(c.hidden, c.hidden), nn.SiLU())
        self.to_mu = nn.Linear(c.hidden, c.latent)
        self.to_logvar = nn.Linear(c.hidden, c.latent)
        self.decoder = nn.Sequential(nn.Linear(c.latent, c.hidden), nn.SiLU(), nn.Linear(c.hidden, c.in_dim))

    def reparameterize(self, mu, logvar):
        if not self.training:
            return mu
        std = torch.exp(0.5 * logvar)
        return mu + torch.randn_like(std) * std

    def forward(self, x, step: int = 0, mask: Optional[torch.Tensor] = None) -> Dict[str, torch.Tensor]:
        if x.dim() != 3 or x.shape[-1] != self.cfg.in_dim:
            raise ValueError(f"expected (batch, frames, {self.cfg.in_dim}), got {tuple(x.shape)}")
        h = self.encoder(x)
        mu = self.to_mu(h)
        logvar = self.to_logvar(h).clamp(-10.0, 10.0)
        z = self.reparameterize(mu, logvar)
        recon = self.decoder(z)

        if self.cfg.recon_loss == "mse":
            rec = F.mse_loss(recon, x, reduction="none").sum(-1)
        elif self.cfg.recon_loss == "l1":
            rec = F.l1_loss(recon, x, reduction="none").sum(-1)
        else:
            raise ValueError(self.cfg.recon_loss)

        kl = -0.5 * (1 + logvar - mu.pow(2) - logvar.exp())       # (B, T, latent)
        if self.cfg.free_bits > 0:
            kl = kl.clamp(min=self.cfg.free_bits)
        kl = kl.sum(-1)

        if mask is not None:
            m = mask.to(x.dtype)
            denom = m.sum().clamp(min=1.0)
            rec = (rec * m).sum() / denom
            kl = (kl * m).sum() / denom
        else:
            rec, kl = rec.mean(), kl.mean()

        beta = kl_anneal_weight(step, self.cfg.kl_schedule, self.cfg.kl_warmup_steps,
                                self.cfg.kl_cycle_steps, self.cfg.kl_max_weight)
        loss = rec + beta * kl
        return {"loss": loss, "recon_loss": rec, "kl": kl, "beta": beta, "z": z, "recon": recon}


# 2. VQ-VAE codebook with EMA updates, commitment loss and dead-code reset
class EMAVectorQuantizer(nn.Module):
    def __init__(self, num_codes: int = 32, dim: int = 8, decay: float = 0.99, eps: float = 1e-5,
                 commitment_weight: float = 0.25, dead_code_threshold: float = 1.0, reset_every: int = 2):
        super().__init__()
        self.num_codes = num_codes
        self.dim = dim
        self.decay = decay
        self.eps = eps
        self.commitment_weight = commitment_weight
        self.dead_code_threshold = dead_code_threshold
        self.reset_every = reset_every
        embed = torch.randn(num_codes, dim)
        self.register_buffer("codebook", embed)
        self.register_buffer("ema_count", torch.ones(num_codes))
        self.register_buffer("ema_weight", embed.clone())
        self.num_updates = 0
        self.total_resets = 0

    @torch.no_grad()
    def _ema_update(self, flat, onehot):
        counts = onehot.sum(0)
        self.ema_count.mul_(self.decay).add_(counts, alpha=1 - self.decay)
        self.ema_weight.mul_(self.decay).add_(onehot.t() @ flat, alpha=1 - self.decay)
        n = self.ema_count.sum()
        smoothed = (self.ema_count + self.eps) / (n + self.num_codes * self.eps) * n
        self.codebook.copy_(self.ema_weight / smoothed[:, None])
        self.num_updates += 1

        if self.num_updates % self.reset_every == 0:
            dead = self.ema_count < self.dead_code_threshold
            n_dead = int(dead.sum().item())
            if n_dead > 0:
                pick = torch.randint(0, flat.shape[0], (n_dead,), device=flat.device)
                fresh = flat[pick]
                self.codebook[dead] = fresh
                self.ema_weight[dead] = fresh
                self.ema_count[dead] = 1.0
                self.total_resets += n_dead
                logger.debug("reset %d dead codes (total %d)", n_dead, self.total_resets)

    def forward(self, z):
        # z: (B, D, T) channels-first, as it comes out of a conv encoder
        b, d, t = z.shape
        if d != self.dim:
            raise ValueError(f"codebook dim is {self.dim} but got {d} channels")
        flat = z.permute(0, 2, 1).reshape(-1, d)
        cb = self.codebook
        dist = flat.pow(2).sum(1, keepdim=True) - 2 * flat @ cb.t() + cb.pow(2).sum(1)[None, :]
        idx = dist.argmin(dim=1)
        onehot = F.one_hot(idx, self.num_codes).type_as(flat)
        quant = F.embedding(idx, cb).view(b, t, d).permute(0, 2, 1)

        if self.training:
            self._ema_update(flat.detach(), onehot)

        commit_loss = F.mse_loss(z, quant.detach()) * self.commitment_weight
        quant = z + (quant - z).detach()
        avg_probs = onehot.mean(0)
        perplexity = torch.exp(-(avg_probs * torch.log(avg_probs + 1e-10)).sum())
        stats = {"perplexity": perplexity, "codes": idx.view(b, t),
                 "usage": (avg_probs > 0).float().mean()}
        return quant, commit_loss, stats


# 3. GAN generator/discriminator pair with hinge loss and lazy R1 regularisation
class HingeGANWithR1(nn.Module):
    def __init__(self, z_dim: int = 16, n_mels: int = 8, frames: int = 16, hidden: int = 32,
                 r1_gamma: float = 10.0, r1_every: int = 2):
        super().__init__()
        self.z_dim, self.n_mels, self.frames = z_dim, n_mels, frames
        self.r1_gamma = r1_gamma
        self.r1_every = r1_every
        self.generator = nn.Sequential(
            nn.Linear(z_dim, hidden), nn.LeakyReLU(0.2),
            nn.Linear(hidden, n_mels * frames),
        )
        self.discriminator = nn.Sequential(
            nn.Conv1d(n_mels, hidden, 3, padding=1), nn.LeakyReLU(0.2),
            nn.Conv1d(hidden, hidden, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
            nn.Conv1d(hidden, 1, 3, padding=1),
        )
        self.d_steps = 0

    def generate(self, z):
        return torch.tanh(self.generator(z)).view(-1, self.n_mels, self.frames)

    def forward(self, real, z: Optional[torch.Tensor] = None, mode: str = "discriminator"):
        if mode not in ("discriminator", "generator"):
            raise ValueError(f"mode must be 'discriminator' or 'generator', got {mode!r}")
        b = real.shape[0]
        if real.shape[1:] != (self.n_mels, self.frames):
            raise ValueError(f"real batch has shape {tuple(real.shape)}")
        if z is None:
            z = torch.randn(b, self.z_dim, device=real.device)

        if mode == "generator":
            fake = self.generate(z)
            g_loss = -self.discriminator(fake).mean()
            return {"g_loss": g_loss, "fake": fake}

        fake = self.generate(z).detach()
        self.d_steps += 1
        do_r1 = self.r1_gamma > 0 and self.d_steps % self.r1_every == 0 and torch.is_grad_enabled()
        real = real.detach().requires_grad_(do_r1)
        real_logits = self.discriminator(real)
        fake_logits = self.discriminator(fake)
        loss_real = F.relu(1.0 - real_logits).mean()
        loss_fake = F.relu(1.0 + fake_logits).mean()
        out = {"d_loss": loss_real + loss_fake,
               "d_real": real_logits.mean().item(), "d_fake": fake_logits.mean().item()}
        if do_r1:
            grad, = torch.autograd.grad(real_logits.sum(), real, create_graph=True)
            r1 = grad.pow(2).reshape(b, -1).sum(1).mean()
            # lazy regularisation: scale by the interval
            out["d_loss"] = out["d_loss"] + 0.5 * self.r1_gamma * self.r1_every * r1
            out["r1"] = r1.detach()
        return out


# 4. conditional affine coupling layer (Glow / WaveGlow style)
class ConditionalAffineCoupling(nn.Module):
    def __init__(self, channels: int = 8, cond_channels: int = 6, hidden: int = 16, kernel_size: int = 3,
                 scale_clamp: float = 3.0, swap: bool = False):
        super().__init__()
        if channels % 2:
            raise ValueError("channels must be even")
        self.half = channels // 2
        self.swap = swap
        self.scale_clamp = scale_clamp
        self.net = nn.Sequential(
            nn.Conv1d(self.half + cond_channels, hidden, kernel_size, padding=kernel_size // 2),
            nn.ReLU(),
            nn.Conv1d(hidden, hidden, 1),
            nn.ReLU(),
        )
        self.out = nn.Conv1d(hidden, 2 * self.half, 1)
        # identity at init
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def forward(self, x, cond, x_mask: Optional[torch.Tensor] = None, reverse: bool = False):
        b, c, t = x.shape
        if cond.shape[-1] != t:
            cond = F.interpolate(cond, size=t, mode="nearest")
        if x_mask is None:
            x_mask = torch.ones(b, 1, t, device=x.device, dtype=x.dtype)
        xa, xb = x[:, :self.half], x[:, self.half:]
        if self.swap:
            xa, xb = xb, xa
        h = self.out(self.net(torch.cat([xa, cond], dim=1))) * x_mask
        log_s, shift = h.chunk(2, dim=1)
        log_s = self.scale_clamp * torch.tanh(log_s / self.scale_clamp)

        if not reverse:
            yb = (xb * torch.exp(log_s) + shift) * x_mask
            logdet = (log_s * x_mask).sum(dim=[1, 2])
        else:
            yb = (xb - shift) * torch.exp(-log_s) * x_mask
            logdet = None
        y = torch.cat([yb, xa], dim=1) if self.swap else torch.cat([xa, yb], dim=1)
        return y, logdet


# 5. TTS duration predictor with a length regulator
class DurationLengthRegulator(nn.Module):
    def __init__(self, hidden: int = 16, max_frames: int = 200, log_offset: float = 1.0,
                 init_frames_per_phone: float = 2.0):
        super().__init__()
        self.predictor = VariancePredictor(hidden)
        self.max_frames = max_frames
        self.log_offset = log_offset
        nn.init.constant_(self.predictor.proj.bias, math.log(init_frames_per_phone + log_offset))

    def regulate(self, x, durations, max_len: Optional[int] = None):
        expanded, mel_lens = [], []
        for seq, dur in zip(x, durations):
            e = torch.repeat_interleave(seq, dur, dim=0)
            expanded.append(e)
            mel_lens.append(e.shape[0])
        longest = max(mel_lens)
        if longest > self.max_frames:
            warnings.warn(f"length regulator produced {longest} frames, truncating to {self.max_frames}")
            expanded = [e[:self.max_frames] for e in expanded]
            mel_lens = [min(n, self.max_frames) for n in mel_lens]
        out = pad_sequence(expanded, batch_first=True)
        if max_len is not None and out.shape[1] < max_len:
            out = F.pad(out, (0, 0, 0, max_len - out.shape[1]))
        return out, torch.tensor(mel_lens, device=x.device)

    def forward(self, x, src_lens: Optional[torch.Tensor] = None, target_durations: Optional[torch.Tensor] = None,
                duration_scale: float = 1.0, max_len: Optional[int] = None):
        b, t, _ = x.shape
        mask = sequence_mask(src_lens, t) if src_lens is not None else torch.ones(b, t, dtype=torch.bool,
                                                                                  device=x.device)
        log_dur = self.predictor(x, mask)
        dur_loss = None
        if target_durations is not None:
            durations = target_durations.long()
            target_log = torch.log(durations.float() + self.log_offset)
            dur_loss = F.mse_loss(log_dur.masked_select(mask), target_log.masked_select(mask))
        else:
            if duration_scale <= 0:
                raise ValueError("duration_scale must be positive")
            durations = torch.round((torch.exp(log_dur) - self.log_offset) * duration_scale).clamp(min=0).long()
            durations = durations.masked_fill(~mask, 0)
            empty = durations.sum(dim=1) == 0
            if empty.any():
                logger.warning("%d utterances predicted zero frames", int(empty.sum()))
                durations[empty, 0] = 1
        out, mel_lens = self.regulate(x, durations, max_len)
        return {"output": out, "mel_lens": mel_lens, "log_durations": log_dur,
                "durations": durations, "duration_loss": dur_loss}


# 6. monotonic alignment search (Glow-TTS / VITS)
@torch.no_grad()
def maximum_path(value: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """value, mask: (B, T_text, T_mel). Returns a hard monotonic alignment of the same shape."""
    b, t_x, t_y = value.shape
    neg_inf = -1e9
    path = torch.zeros(b, t_x, t_y, dtype=value.dtype)
    t_xs = mask[:, :, 0].sum(1).long().tolist()
    t_ys = mask[:, 0, :].sum(1).long().tolist()
    for i in range(b):
        tx, ty = t_xs[i], t_ys[i]
        if tx > ty:
            raise ValueError(f"item {i}: {tx} text tokens but only {ty} frames, cannot align")
        v = value[i, :tx, :ty].detach().float().cpu()
        acc = torch.full((tx, ty), neg_inf)
        acc[0, 0] = v[0, 0]
        for y in range(1, ty):
            stay = acc[:, y - 1]
            move = torch.cat([torch.tensor([neg_inf]), acc[:-1, y - 1]])
            acc[:, y] = v[:, y] + torch.maximum(stay, move)
        index = tx - 1
        for y in range(ty - 1, -1, -1):
            path[i, index, y] = 1.0
            if index != 0 and (index == y or acc[index, y - 1] < acc[index - 1, y - 1]):
                index -= 1
    return path.to(value.device)


class MonotonicAlignmentAligner(nn.Module):
    def __init__(self, text_dim: int = 16, n_mels: int = 8):
        super().__init__()
        self.proj_mu = nn.Linear(text_dim, n_mels)
        self.proj_logs = nn.Linear(text_dim, n_mels)
        self.n_mels = n_mels

    def forward(self, text_h, mel, text_lens, mel_lens):
        # text_h: (B, T_text, D); mel: (B, n_mels, T_mel)
        if mel.shape[1] != self.n_mels:
            raise ValueError(f"expected {self.n_mels} mel bins, got {mel.shape[1]}")
        x_mask = sequence_mask(text_lens, text_h.shape[1]).to(mel.dtype)   # (B, Tx)
        y_mask = sequence_mask(mel_lens, mel.shape[2]).to(mel.dtype)       # (B, Ty)
        mu = self.proj_mu(text_h)
        logs = self.proj_logs(text_h).clamp(-4.0, 4.0)

        s_p_sq_r = torch.exp(-2 * logs)
        neg_cent1 = torch.sum(-0.5 * math.log(2 * math.pi) - logs, dim=2, keepdim=True)
        neg_cent2 = torch.matmul(-0.5 * s_p_sq_r, mel ** 2)
        neg_cent3 = torch.matmul(mu * s_p_sq_r, mel)
        neg_cent4 = torch.sum(-0.5 * (mu ** 2) * s_p_sq_r, dim=2, keepdim=True)
        neg_cent = neg_cent1 + neg_cent2 + neg_cent3 + neg_cent4            # (B, Tx, Ty)

        attn_mask = x_mask[:, :, None] * y_mask[:, None, :]
        attn = maximum_path(neg_cent, attn_mask)
        durations = attn.sum(dim=2)                                         # (B, Tx)

        mu_y = torch.bmm(attn.transpose(1, 2), mu)                          # (B, Ty, M)
        logs_y = torch.bmm(attn.transpose(1, 2), logs)
        mel_t = mel.transpose(1, 2)
        nll = 0.5 * math.log(2 * math.pi) + logs_y + 0.5 * torch.exp(-2 * logs_y) * (mel_t - mu_y) ** 2
        nll = (nll * y_mask[:, :, None]).sum() / (y_mask.sum() * self.n_mels)
        return {"attn": attn, "durations": durations, "nll": nll}


# 7. pitch / energy variance adaptor with bucketised embeddings
@dataclass
class VarianceStats:
    pitch_min: float = -2.0
    pitch_max: float = 3.0
    energy_min: float = -1.5
    energy_max: float = 2.5
    n_bins: int = 16
    pitch_log_scale: bool = False


class PitchEnergyAdaptor(nn.Module):
    def __init__(self, hidden: int = 16, stats: Optional[VarianceStats] = None,
                 pitch_loss_weight: float = 1.0, energy_loss_weight: float = 1.0):
        super().__init__()
        self.stats = stats or VarianceStats()
        s = self.stats
        if s.pitch_log_scale:
            lo, hi = math.log(max(s.pitch_min, 1e-3)), math.log(s.pitch_max)
            pitch_bins = torch.exp(torch.linspace(lo, hi, s.n_bins - 1))
        else:
            pitch_bins = torch.linspace(s.pitch_min, s.pitch_max, s.n_bins - 1)
        self.register_buffer("pitch_bins", pitch_bins, persistent=False)
        self.register_buffer("energy_bins", torch.linspace(s.energy_min, s.energy_max, s.n_bins - 1),
                             persistent=False)
        self.pitch_predictor = VariancePredictor(hidden)
        self.energy_predictor = VariancePredictor(hidden)
        self.pitch_embedding = nn.Embedding(s.n_bins, hidden)
        self.energy_embedding = nn.Embedding(s.n_bins, hidden)
        self.loss_weights = {"pitch": pitch_loss_weight, "energy": energy_loss_weight}

    def _embed(self, prediction, target, bins, embedding, control: float):
        value = target if target is not None else prediction * control
        return embedding(torch.bucketize(value, bins)), value

    def forward(self, x, mask: Optional[torch.Tensor] = None, pitch_target: Optional[torch.Tensor] = None,
                energy_target: Optional[torch.Tensor] = None, pitch_control: float = 1.0,
                energy_control: float = 1.0):
        if mask is None:
            mask = torch.ones(x.shape[:2], dtype=torch.bool, device=x.device)
        preds, losses = {}, {}

        pitch_pred = self.pitch_predictor(x, mask)
        pitch_emb, _ = self._embed(pitch_pred, pitch_target, self.pitch_bins, self.pitch_embedding, pitch_control)
        x = x + pitch_emb
        preds["pitch"] = pitch_pred

        energy_pred = self.energy_predictor(x, mask)
        energy_emb, _ = self._embed(energy_pred, energy_target, self.energy_bins, self.energy_embedding,
                                    energy_control)
        x = x + energy_emb
        preds["energy"] = energy_pred

        for name, target in (("pitch", pitch_target), ("energy", energy_target)):
            if target is None:
                continue
            loss = F.mse_loss(preds[name].masked_select(mask), target.masked_select(mask))
            losses[f"{name}_loss"] = self.loss_weights[name] * loss
        x = x.masked_fill(~mask[..., None], 0.0)
        return x, preds, losses


# 8. HiFi-GAN-like upsampling generator with multi-receptive-field residual blocks
class MRFResBlock(nn.Module):
    def __init__(self, channels: int, kernel_size: int, dilations: Sequence[int], lrelu_slope: float = 0.1):
        super().__init__()
        self.lrelu_slope = lrelu_slope
        self.convs1 = nn.ModuleList([
            nn.Conv1d(channels, channels, kernel_size, dilation=d, padding=(kernel_size * d - d) // 2)
            for d in dilations
        ])
        self.convs2 = nn.ModuleList([
            nn.Conv1d(channels, channels, kernel_size, padding=kernel_size // 2) for _ in dilations
        ])

    def forward(self, x):
        for c1, c2 in zip(self.convs1, self.convs2):
            xt = c1(F.leaky_relu(x, self.lrelu_slope))
            xt = c2(F.leaky_relu(xt, self.lrelu_slope))
            x = x + xt
        return x


@dataclass
class VocoderConfig:
    n_mels: int = 8
    initial_channels: int = 16
    upsample_rates: Tuple[int, ...] = (4, 2)
    upsample_kernel_sizes: Tuple[int, ...] = (8, 4)
    resblock_kernel_sizes: Tuple[int, ...] = (3, 5)
    resblock_dilations: Tuple[Tuple[int, ...], ...] = ((1, 3), (1, 3))
    lrelu_slope: float = 0.1
    speaker_dim: int = 0


class HiFiGANUpsampleVocoder(nn.Module):
    def __init__(self, cfg: Optional[VocoderConfig] = None):
        super().__init__()
        self.cfg = cfg = cfg or VocoderConfig()
        if len(cfg.upsample_rates) != len(cfg.upsample_kernel_sizes):
            raise ValueError("upsample_rates and upsample_kernel_sizes must have the same length")
        self.num_kernels = len(cfg.resblock_kernel_sizes)
        self.hop_length = math.prod(cfg.upsample_rates)
        self.conv_pre = nn.Conv1d(cfg.n_mels, cfg.initial_channels, 7, padding=3)
        self.cond = nn.Linear(cfg.speaker_dim, cfg.initial_channels) if cfg.speaker_dim > 0 else None
        self.ups = nn.ModuleList()
        self.resblocks = nn.ModuleList()
        ch = cfg.initial_channels
        for u, k in zip(cfg.upsample_rates, cfg.upsample_kernel_sizes):
            self.ups.append(nn.ConvTranspose1d(ch, ch // 2, k, stride=u, padding=(k - u) // 2))
            ch //= 2
            for rk, rd in zip(cfg.resblock_kernel_sizes, cfg.resblock_dilations):
                self.resblocks.append(MRFResBlock(ch, rk, rd, cfg.lrelu_slope))
        self.conv_post = nn.Conv1d(ch, 1, 7, padding=3)

    def forward(self, mel, speaker_emb: Optional[torch.Tensor] = None):
        frames = mel.shape[-1]
        x = self.conv_pre(mel)
        if speaker_emb is not None:
            if self.cond is None:
                raise RuntimeError("vocoder was built without speaker conditioning")
            x = x + self.cond(speaker_emb).unsqueeze(-1)
        for i, up in enumerate(self.ups):
            x = up(F.leaky_relu(x, self.cfg.lrelu_slope))
            xs = None
            for j in range(self.num_kernels):
                r = self.resblocks[i * self.num_kernels + j](x)
                xs = r if xs is None else xs + r
            x = xs / self.num_kernels
        x = torch.tanh(self.conv_post(F.leaky_relu(x)))
        expected = frames * self.hop_length
        if x.shape[-1] != expected:
            logger.warning("vocoder output %d samples, expected %d", x.shape[-1], expected)
            x = x[..., :expected]
        return x


# 9. multi-resolution mel-spectrogram loss with configurable hop / window
def hz_to_mel(f: float) -> float:
    return 2595.0 * math.log10(1.0 + f / 700.0)


def mel_to_hz(m: float) -> float:
    return 700.0 * (10 ** (m / 2595.0) - 1.0)


def mel_filterbank(n_fft: int, n_mels: int, sample_rate: int, fmin: float = 0.0,
                   fmax: Optional[float] = None) -> torch.Tensor:
    fmax = fmax or sample_rate / 2
    n_freqs = n_fft // 2 + 1
    fft_freqs = torch.linspace(0, sample_rate / 2, n_freqs)
    m_lo, m_hi = hz_to_mel(fmin), hz_to_mel(fmax)
    hz_points = torch.tensor([mel_to_hz(m_lo + (m_hi - m_lo) * i / (n_mels + 1)) for i in range(n_mels + 2)])
    fb = torch.zeros(n_mels, n_freqs)
    for i in range(n_mels):
        left, center, right = hz_points[i].item(), hz_points[i + 1].item(), hz_points[i + 2].item()
        up = (fft_freqs - left) / max(center - left, 1e-5)
        down = (right - fft_freqs) / max(right - center, 1e-5)
        fb[i] = torch.clamp(torch.minimum(up, down), min=0.0)
    return fb


class MultiResolutionMelLoss(nn.Module):
    def __init__(self, sample_rate: int = 8000, fft_sizes: Sequence[int] = (64, 128),
                 hop_sizes: Sequence[int] = (16, 32), win_lengths: Sequence[int] = (64, 96),
                 n_mels: Sequence[int] = (10, 16), window: str = "hann", log_eps: float = 1e-5,
                 sc_weight: float = 1.0, mag_weight: float = 1.0):
        super().__init__()
        if not (len(fft_sizes) == len(hop_sizes) == len(win_lengths) == len(n_mels)):
            raise ValueError("all resolution lists must have the same length")
        window_fns = {"hann": torch.hann_window, "hamming": torch.hamming_window, "blackman": torch.blackman_window}
        if window not in window_fns:
            raise ValueError(f"unsupported window {window!r}; choose from {sorted(window_fns)}")
        self.resolutions = list(zip(fft_sizes, hop_sizes, win_lengths, n_mels))
        for i, (n_fft, hop, win, nm) in enumerate(self.resolutions):
            if win > n_fft:
                raise ValueError(f"win_length {win} > n_fft {n_fft}")
            self.register_buffer(f"window_{i}", window_fns[window](win), persistent=False)
            self.register_buffer(f"mel_fb_{i}", mel_filterbank(n_fft, nm, sample_rate), persistent=False)
        self.log_eps = log_eps
        self.sc_weight = sc_weight
        self.mag_weight = mag_weight

    def _mel(self, wav, i):
        n_fft, hop, win, _ = self.resolutions[i]
        spec = torch.stft(wav, n_fft, hop_length=hop, win_length=win, window=getattr(self, f"window_{i}"),
                          center=True, return_complex=True)
        mag = spec.abs().clamp(min=1e-7)
        return torch.matmul(getattr(self, f"mel_fb_{i}"), mag)      # (B, n_mels, frames)

    def forward(self, pred, target, lengths: Optional[torch.Tensor] = None):
        if pred.dim() == 3:
            pred = pred.squeeze(1)
        if target.dim() == 3:
            target = target.squeeze(1)
        if pred.shape[-1] != target.shape[-1]:
            n = min(pred.shape[-1], target.shape[-1])
            warnings.warn(f"length mismatch {pred.shape[-1]} vs {target.shape[-1]}, cropping to {n}")
            pred, target = pred[..., :n], target[..., :n]

        total = pred.new_zeros(())
        logs: Dict[str, float] = {}
        for i, (n_fft, hop, _, _) in enumerate(self.resolutions):
            p, t = self._mel(pred, i), self._mel(target, i)
            if lengths is not None:
                frame_mask = sequence_mask(lengths // hop + 1, p.shape[-1])[:, None, :].to(p.dtype)
                p, t = p * frame_mask, t * frame_mask
            sc = torch.norm(t - p, p="fro") / torch.norm(t, p="fro").clamp(min=1e-7)
            mag = F.l1_loss(torch.log(p + self.log_eps), torch.log(t + self.log_eps))
            total = total + self.sc_weight * sc + self.mag_weight * mag
            logs[f"sc_{n_fft}"] = float(sc.detach())
            logs[f"mag_{n_fft}"] = float(mag.detach())
        return total / len(self.resolutions), logs


# 10. attentive statistics pooling for speaker embeddings (ECAPA style)
class AttentiveStatsPooling(nn.Module):
    def __init__(self, channels: int = 16, attn_hidden: int = 8, emb_dim: int = 12,
                 global_context: bool = True, eps: float = 1e-6, normalize: bool = True):
        super().__init__()
        self.global_context = global_context
        self.eps = eps
        self.normalize = normalize
        in_ch = channels * 3 if global_context else channels
        self.attention = nn.Sequential(
            nn.Conv1d(in_ch, attn_hidden, 1), nn.Tanh(), nn.Conv1d(attn_hidden, channels, 1),
        )
        self.bn = nn.BatchNorm1d(channels * 2)
        self.fc = nn.Linear(channels * 2, emb_dim)

    def _stats(self, x, w):
        mean = (w * x).sum(dim=2, keepdim=True)
        var = (w * (x - mean).pow(2)).sum(dim=2, keepdim=True)
        return mean, torch.sqrt(var.clamp(min=self.eps))

    def forward(self, x, lengths: Optional[torch.Tensor] = None):
        # x: (B, C, T); lengths either absolute frames (int) or relative in (0, 1] (float)
        b, c, t = x.shape
        if lengths is None:
            mask = torch.ones(b, 1, t, device=x.device, dtype=x.dtype)
        else:
            if lengths.is_floating_point():
                lengths = (lengths * t).round().long()
            lengths = lengths.clamp(min=1, max=t)
            mask = sequence_mask(lengths, t)[:, None, :].to(x.dtype)

        if self.global_context:
            total = mask.sum(dim=2, keepdim=True)
            mean, std = self._stats(x, mask / total)
            attn_in = torch.cat([x, mean.expand(-1, -1, t), std.expand(-1, -1, t)], dim=1)
        else:
            attn_in = x
        scores = self.attention(attn_in)
        scores = scores.masked_fill(mask == 0, float("-inf"))
        weights = F.softmax(scores, dim=2)
        mean, std = self._stats(x, weights)
        pooled = torch.cat([mean, std], dim=1).squeeze(-1)
        emb = self.fc(self.bn(pooled))
        return F.normalize(emb, dim=-1) if self.normalize else emb


# 11. energy-based voice activity detection that trims leading/trailing silence
class EnergyVADTrimmer(nn.Module):
    def __init__(self, frame_length: int = 32, hop_length: int = 16, threshold_db: float = -30.0,
                 relative: bool = True, min_speech_frames: int = 2, pad_frames: int = 1):
        super().__init__()
        self.frame_length = frame_length
        self.hop_length = hop_length
        self.threshold_db = threshold_db
        self.relative = relative
        self.min_speech_frames = min_speech_frames
        self.pad_frames = pad_frames
        self.gain = nn.Parameter(torch.ones(1))  # learnable input gain, keeps it a "module"

    def forward(self, wav, lengths: Optional[torch.Tensor] = None):
        if wav.dim() == 3:
            wav = wav.squeeze(1)
        b, n = wav.shape
        if n < self.frame_length:
            raise ValueError(f"waveform of {n} samples shorter than one frame ({self.frame_length})")
        if lengths is None:
            lengths = torch.full((b,), n, dtype=torch.long, device=wav.device)
        wav = wav * self.gain
        frames = wav.unfold(-1, self.frame_length, self.hop_length)          # (B, F, L)
        energy_db = 10.0 * torch.log10(frames.pow(2).mean(dim=-1) + 1e-10)
        n_valid = ((lengths - self.frame_length) // self.hop_length + 1).clamp(min=1)
        valid = sequence_mask(n_valid, frames.shape[1])
        energy_db = energy_db.masked_fill(~valid, -100.0)
        if self.relative:
            threshold = energy_db.max(dim=1, keepdim=True).values + self.threshold_db
        else:
            threshold = torch.full_like(energy_db[:, :1], self.threshold_db)
        voiced = (energy_db > threshold) & valid

        trimmed, spans = [], []
        lens = lengths.tolist()
        for i in range(b):
            idx = torch.nonzero(voiced[i]).flatten().tolist()
            if len(idx) < self.min_speech_frames:
                logger.debug("utterance %d: no speech found, keeping it untrimmed", i)
                start, end = 0, lens[i]
            else:
                first = max(0, idx[0] - self.pad_frames)
                last = idx[-1] + self.pad_frames
                start = first * self.hop_length
                end = min(lens[i], last * self.hop_length + self.frame_length)
            trimmed.append(wav[i, start:end])
            spans.append((start, end))
        out = pad_sequence(trimmed, batch_first=True)
        new_lengths = torch.tensor([e - s for s, e in spans], device=wav.device)
        return out, new_lengths, spans


# 12. streaming chunked encoder with a left-context cache held on the module
class StreamingChunkedEncoder(nn.Module):
    def __init__(self, in_dim: int = 8, d_model: int = 16, n_heads: int = 2, chunk_size: int = 4,
                 left_context: int = 8, conv_kernel: int = 3, dropout: float = 0.0):
        super().__init__()
        self.chunk_size = chunk_size
        self.left_context = left_context
        self.conv_kernel = conv_kernel
        self.in_proj = nn.Linear(in_dim, d_model)
        self.dw_conv = nn.Conv1d(d_model, d_model, conv_kernel, groups=d_model)
        self.ln_attn = nn.LayerNorm(d_model)
        self.attn = nn.MultiheadAttention(d_model, n_heads, dropout=dropout, batch_first=True)
        self.ln_ff = nn.LayerNorm(d_model)
        self.ff = nn.Sequential(nn.Linear(d_model, 2 * d_model), nn.GELU(), nn.Linear(2 * d_model, d_model))
        self.reset_state()

    def reset_state(self):
        self.attn_cache: Optional[torch.Tensor] = None
        self.conv_cache: Optional[torch.Tensor] = None
        self.frames_seen = 0
        self.batch_size: Optional[int] = None

    def _encode_chunk(self, x):
        h = self.in_proj(x)                                    # (B, c, D)
        conv_in = h.transpose(1, 2)
        if self.conv_cache is None:
            cache = conv_in.new_zeros(conv_in.shape[0], conv_in.shape[1], self.conv_kernel - 1)
        else:
            cache = self.conv_cache
        conv_in = torch.cat([cache, conv_in], dim=-1)
        self.conv_cache = conv_in[..., -(self.conv_kernel - 1):].detach()
        h = h + self.dw_conv(conv_in).transpose(1, 2)

        memory = h if self.attn_cache is None else torch.cat([self.attn_cache, h], dim=1)
        q = self.ln_attn(h)
        kv = self.ln_attn(memory)
        attn_out, _ = self.attn(q, kv, kv, need_weights=False)
        h = h + attn_out
        h = h + self.ff(self.ln_ff(h))
        # keep only the last `left_context` frames of (pre-norm) memory for the next chunk
        self.attn_cache = memory[:, -self.left_context:].detach() if self.left_context > 0 else None
        self.frames_seen += x.shape[1]
        return h

    def forward(self, x, reset: bool = False):
        b, t, _ = x.shape
        if reset or (self.batch_size is not None and self.batch_size != b):
            if not reset:
                logger.info("batch size changed %s -> %d, resetting streaming state", self.batch_size, b)
            self.reset_state()
        self.batch_size = b
        outputs = []
        for start in range(0, t, self.chunk_size):
            outputs.append(self._encode_chunk(x[:, start:start + self.chunk_size]))
        return torch.cat(outputs, dim=1), self.frames_seen


# 13. diffusion denoiser: Python-float noise schedule, timestep embeddings, CFG
class CFGDiffusionDenoiser(nn.Module):
    def __init__(self, dim: int = 8, cond_dim: int = 6, hidden: int = 32, temb_dim: int = 16,
                 num_timesteps: int = 50, schedule: str = "cosine", cond_drop_prob: float = 0.1,
                 prediction_type: str = "eps"):
        super().__init__()
        if prediction_type not in ("eps", "x0"):
            raise ValueError(prediction_type)
        self.dim = dim
        self.temb_dim = temb_dim
        self.num_timesteps = num_timesteps
        self.cond_drop_prob = cond_drop_prob
        self.prediction_type = prediction_type
        self.betas = make_beta_schedule(schedule, num_timesteps)
        self.alphas_cumprod = list(itertools.accumulate((1.0 - b for b in self.betas), operator.mul))
        self.null_cond = nn.Parameter(torch.zeros(cond_dim))
        self.time_mlp = nn.Sequential(nn.Linear(temb_dim, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
        self.in_proj = nn.Linear(dim + cond_dim, hidden)
        self.net = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, dim))

    def denoise(self, x_t, t: torch.Tensor, cond):
        temb = self.time_mlp(timestep_embedding(t, self.temb_dim))
        h = self.in_proj(torch.cat([x_t, cond], dim=-1)) + temb
        return self.net(h)

    def _alpha_bar(self, t, like):
        if isinstance(t, int):
            return self.alphas_cumprod[t]
        table = torch.tensor(self.alphas_cumprod, dtype=like.dtype, device=like.device)
        return table[t][:, None]

    def forward(self, x_t, t: Union[int, torch.Tensor], cond, guidance_scale: float = 1.0):
        b = x_t.shape[0]
        if isinstance(t, int):
            if not 0 <= t < self.num_timesteps:
                raise IndexError(f"timestep {t} out of range [0, {self.num_timesteps})")
            t_vec = torch.full((b,), t, dtype=torch.long, device=x_t.device)
        else:
            t_vec = t.to(x_t.device).long()
        null = self.null_cond.expand(b, -1)

        if self.training and self.cond_drop_prob > 0:
            drop = torch.rand(b, 1, device=x_t.device) < self.cond_drop_prob
            cond = torch.where(drop, null, cond)
            out = self.denoise(x_t, t_vec, cond)
        elif guidance_scale == 1.0:
            out = self.denoise(x_t, t_vec, cond)
        else:
            both = self.denoise(torch.cat([x_t, x_t]), torch.cat([t_vec, t_vec]), torch.cat([cond, null]))
            out_cond, out_uncond = both.chunk(2)
            out = out_uncond + guidance_scale * (out_cond - out_uncond)

        a = self._alpha_bar(t, x_t)
        if self.prediction_type == "eps":
            eps = out
            x0 = (x_t - (1 - a) ** 0.5 * eps) / a ** 0.5
        else:
            x0 = out
            eps = (x_t - a ** 0.5 * x0) / (1 - a) ** 0.5
        return eps, x0


# 14. DDIM sampler loop over a strided set of timesteps
class DDIMSampler(nn.Module):
    def __init__(self, denoiser: Optional[CFGDiffusionDenoiser] = None, eta: float = 0.0,
                 clip_x0: bool = True, clip_range: float = 1.0):
        super().__init__()
        self.denoiser = denoiser or CFGDiffusionDenoiser()
        self.eta = eta
        self.clip_x0 = clip_x0
        self.clip_range = clip_range

    def make_timesteps(self, num_steps: int) -> List[int]:
        total = self.denoiser.num_timesteps
        if num_steps > total:
            warnings.warn(f"num_steps={num_steps} > trained timesteps {total}; using {total}")
            num_steps = total
        stride = total // num_steps
        return list(range(0, total, stride))[:num_steps][::-1]

    @torch.no_grad()
    def forward(self, cond, num_steps: int = 10, guidance_scale: float = 3.0,
                x_T: Optional[torch.Tensor] = None, return_trajectory: bool = False):
        b = cond.shape[0]
        x = x_T if x_T is not None else torch.randn(b, self.denoiser.dim, device=cond.device)
        timesteps = self.make_timesteps(num_steps)
        abar = self.denoiser.alphas_cumprod
        was_training = self.denoiser.training
        self.denoiser.eval()
        trajectory = []
        try:
            for i, t in enumerate(timesteps):
                t_prev = timesteps[i + 1] if i + 1 < len(timesteps) else -1
                a_t = abar[t]
                a_prev = abar[t_prev] if t_prev >= 0 else 1.0
                eps, x0 = self.denoiser(x, t, cond, guidance_scale)
                if self.clip_x0:
                    x0 = x0.clamp(-self.clip_range, self.clip_range)
                    eps = (x - a_t ** 0.5 * x0) / (1 - a_t) ** 0.5
                sigma = self.eta * math.sqrt((1 - a_prev) / (1 - a_t) * (1 - a_t / a_prev))
                direction = math.sqrt(max(0.0, 1 - a_prev - sigma ** 2)) * eps
                x = a_prev ** 0.5 * x0 + direction
                if sigma > 0:
                    x = x + sigma * torch.randn_like(x)
                if return_trajectory:
                    trajectory.append(x0)
        finally:
            self.denoiser.train(was_training)
        if return_trajectory:
            return x, torch.stack(trajectory, dim=1)
        return x


# 15. autoregressive audio-token decoder with temperature and top-k sampling
@dataclass
class TokenDecoderConfig:
    vocab_size: int = 40
    d_model: int = 16
    n_heads: int = 2
    n_layers: int = 1
    max_context: int = 32
    cond_dim: int = 12
    bos_id: int = 0
    eos_id: int = 1
    pad_id: int = 2


class AudioTokenDecoder(nn.Module):
    def __init__(self, cfg: Optional[TokenDecoderConfig] = None):
        super().__init__()
        self.cfg = cfg = cfg or TokenDecoderConfig()
        self.tok_emb = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos_emb = nn.Embedding(cfg.max_context + 1, cfg.d_model)
        self.cond_proj = nn.Linear(cfg.cond_dim, cfg.d_model)
        layer = nn.TransformerEncoderLayer(cfg.d_model, cfg.n_heads, 2 * cfg.d_model, dropout=0.0,
                                           batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, cfg.n_layers, enable_nested_tensor=False)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size)

    def logits(self, tokens, cond: Optional[torch.Tensor] = None):
        b, t = tokens.shape
        h = self.tok_emb(tokens) + self.pos_emb(torch.arange(t, device=tokens.device))[None]
        if cond is not None:
            # conditioning vector (e.g. speaker embedding) as a prefix token
            h = torch.cat([self.cond_proj(cond)[:, None], h], dim=1)
        n = h.shape[1]
        causal = torch.triu(torch.ones(n, n, dtype=torch.bool, device=tokens.device), diagonal=1)
        h = self.blocks(h, mask=causal)
        if cond is not None:
            h = h[:, 1:]
        return self.head(h)

    @torch.no_grad()
    def forward(self, prompt, cond: Optional[torch.Tensor] = None, max_new_tokens: int = 8,
                temperature: float = 1.0, top_k: int = 0, min_new_tokens: int = 0):
        cfg = self.cfg
        if temperature < 0:
            raise ValueError(f"temperature must be >= 0, got {temperature}")
        if prompt.dim() == 1:
            prompt = prompt[None]
        b, prompt_len = prompt.shape
        tokens = prompt
        finished = torch.zeros(b, dtype=torch.bool, device=prompt.device)
        for step in range(max_new_tokens):
            context = tokens[:, -cfg.max_context:]
            logits = self.logits(context, cond)[:, -1].float()
            logits[:, cfg.pad_id] = float("-inf")
            logits[:, cfg.bos_id] = float("-inf")
            if step < min_new_tokens:
                logits[:, cfg.eos_id] = float("-inf")
            if temperature == 0.0:
                next_tok = logits.argmax(dim=-1)
            else:
                logits = logits / temperature
                if top_k > 0:
                    k = min(top_k, logits.shape[-1])
                    kth = torch.topk(logits, k).values[:, -1:]
                    logits = logits.masked_fill(logits < kth, float("-inf"))
                next_tok = torch.multinomial(F.softmax(logits, dim=-1), 1).squeeze(1)
            next_tok = torch.where(finished, torch.full_like(next_tok, cfg.pad_id), next_tok)
            tokens = torch.cat([tokens, next_tok[:, None]], dim=1)
            finished = finished | (next_tok == cfg.eos_id)
            if bool(finished.all()):
                logger.debug("all sequences finished after %d steps", step + 1)
                break
        generated = tokens[:, prompt_len:]
        lengths = (generated != cfg.pad_id).sum(dim=1)
        return generated, lengths


# 16. neural codec with residual vector quantisation over a configurable number of quantisers
class ResidualVQCodec(nn.Module):
    def __init__(self, hidden: int = 16, dim: int = 8, n_quantizers: int = 4, codebook_size: int = 16,
                 stride: int = 4, sample_rate: int = 8000, quantizer_dropout: float = 0.5,
                 commitment_weight: float = 0.25):
        super().__init__()
        self.stride = stride
        self.n_quantizers = n_quantizers
        self.codebook_size = codebook_size
        self.sample_rate = sample_rate
        self.quantizer_dropout = quantizer_dropout
        self.commitment_weight = commitment_weight
        self.encoder = nn.Sequential(
            nn.Conv1d(1, hidden, 7, padding=3), nn.ELU(),
            nn.Conv1d(hidden, hidden, 2 * stride, stride=stride, padding=stride // 2), nn.ELU(),
            nn.Conv1d(hidden, dim, 3, padding=1),
        )
        self.codebooks = nn.ModuleList([nn.Embedding(codebook_size, dim) for _ in range(n_quantizers)])
        self.decoder = nn.Sequential(
            nn.Conv1d(dim, hidden, 3, padding=1), nn.ELU(),
            nn.ConvTranspose1d(hidden, hidden, 2 * stride, stride=stride, padding=stride // 2), nn.ELU(),
            nn.Conv1d(hidden, 1, 7, padding=3),
        )

    @property
    def frame_rate(self) -> float:
        return self.sample_rate / self.stride

    def quantizers_for_bandwidth(self, bandwidth_kbps: float) -> int:
        bits_per_q = math.log2(self.codebook_size) * self.frame_rate
        n = int(bandwidth_kbps * 1000 // bits_per_q)
        return max(1, min(self.n_quantizers, n))

    def quantize(self, z, n_q: int):
        b, d, t = z.shape
        residual = z.permute(0, 2, 1).reshape(-1, d)
        quantized = torch.zeros_like(residual)
        codes, losses = [], []
        for i in range(n_q):
            cb = self.codebooks[i].weight
            idx = torch.cdist(residual, cb).argmin(dim=-1)
            q = cb[idx]
            losses.append(F.mse_loss(q, residual.detach()) + self.commitment_weight * F.mse_loss(residual, q.detach()))
            quantized = quantized + q
            residual = residual - q.detach()
            codes.append(idx.view(b, t))
        flat_z = z.permute(0, 2, 1).reshape(-1, d)
        quantized = flat_z + (quantized - flat_z).detach()
        quantized = quantized.view(b, t, d).permute(0, 2, 1)
        return quantized, torch.stack(codes, dim=1), sum(losses) / n_q

    def forward(self, wav, n_quantizers: Optional[int] = None, bandwidth_kbps: Optional[float] = None):
        if wav.dim() == 2:
            wav = wav[:, None]
        orig_len = wav.shape[-1]
        pad = (-orig_len) % self.stride
        if pad:
            wav = F.pad(wav, (0, pad))

        if n_quantizers is None and bandwidth_kbps is not None:
            n_quantizers = self.quantizers_for_bandwidth(bandwidth_kbps)
        if n_quantizers is None:
            n_quantizers = self.n_quantizers
            if self.training and self.quantizer_dropout > 0 and torch.rand(()).item() < self.quantizer_dropout:
                n_quantizers = int(torch.randint(1, self.n_quantizers + 1, ()).item())
        if not 1 <= n_quantizers <= self.n_quantizers:
            raise ValueError(f"n_quantizers must be in [1, {self.n_quantizers}], got {n_quantizers}")

        z = self.encoder(wav)
        zq, codes, vq_loss = self.quantize(z, n_quantizers)
        recon = self.decoder(zq)[..., :orig_len]
        kbps = n_quantizers * math.log2(self.codebook_size) * self.frame_rate / 1000.0
        return {"audio": recon, "codes": codes, "vq_loss": vq_loss, "n_quantizers": n_quantizers,
                "bandwidth_kbps": kbps}


# 17. CTC head with greedy decoding to strings
class CTCGreedyHead(nn.Module):
    def __init__(self, in_dim: int = 16, alphabet: str = "_ abcdefghijklmnop'", blank_id: int = 0,
                 dropout: float = 0.1):
        super().__init__()
        self.alphabet = list(alphabet)
        self.blank_id = blank_id
        self.dropout = nn.Dropout(dropout)
        self.proj = nn.Linear(in_dim, len(self.alphabet))
        self.char_to_id = {ch: i for i, ch in enumerate(self.alphabet)}

    def encode_text(self, texts: List[str]) -> Tuple[torch.Tensor, torch.Tensor]:
        ids = [[self.char_to_id[c] for c in t.lower() if c in self.char_to_id and c != self.alphabet[self.blank_id]]
               for t in texts]
        lengths = torch.tensor([len(x) for x in ids], dtype=torch.long)
        return torch.tensor(list(itertools.chain.from_iterable(ids)), dtype=torch.long), lengths

    def greedy_decode(self, log_probs, lengths: List[int]) -> List[str]:
        best = log_probs.argmax(dim=-1).tolist()
        texts = []
        for seq, n in zip(best, lengths):
            chars, prev = [], None
            for tok in seq[:n]:
                if tok != prev and tok != self.blank_id:
                    chars.append(self.alphabet[tok])
                prev = tok
            texts.append("".join(chars))
        return texts

    def forward(self, feats, lengths: Optional[torch.Tensor] = None, transcripts: Optional[List[str]] = None):
        b, t, _ = feats.shape
        if lengths is None:
            lengths = torch.full((b,), t, dtype=torch.long)
        log_probs = F.log_softmax(self.proj(self.dropout(feats)), dim=-1)
        out: Dict[str, object] = {"log_probs": log_probs}
        if not self.training:
            out["hypotheses"] = self.greedy_decode(log_probs, lengths.tolist())
        if transcripts is not None:
            if len(transcripts) != b:
                raise ValueError(f"{len(transcripts)} transcripts for a batch of {b}")
            targets, target_lengths = self.encode_text(transcripts)
            out["loss"] = F.ctc_loss(log_probs.transpose(0, 1), targets, lengths, target_lengths,
                                     blank=self.blank_id, reduction="mean", zero_infinity=True)
        return out


# 18. VITS-style decoder trained on random latent segments, full-length at inference
class RandomSegmentDecoder(nn.Module):
    def __init__(self, channels: int = 8, hidden: int = 16, segment_size: int = 4, hop_length: int = 4):
        super().__init__()
        self.segment_size = segment_size
        self.hop_length = hop_length
        self.pre = nn.Conv1d(channels, hidden, 3, padding=1)
        self.up = nn.ConvTranspose1d(hidden, hidden // 2, 2 * hop_length, stride=hop_length, padding=hop_length // 2)
        self.post = nn.Conv1d(hidden // 2, 1, 3, padding=1)

    def decode(self, z):
        return torch.tanh(self.post(F.leaky_relu(self.up(F.leaky_relu(self.pre(z), 0.1)), 0.1)))

    @staticmethod
    def slice_segments(x, starts: List[int], size: int):
        return torch.stack([x[i, :, s:s + size] for i, s in enumerate(starts)])

    def forward(self, z, z_lengths: torch.Tensor, wav: Optional[torch.Tensor] = None):
        b, c, t = z.shape
        if not self.training:
            mask = sequence_mask(z_lengths, t)[:, None].to(z.dtype)
            audio = self.decode(z * mask)
            return {"audio": audio, "audio_lengths": z_lengths * self.hop_length}

        seg = self.segment_size
        if t < seg:
            z = F.pad(z, (0, seg - t))
        max_start = (z_lengths - seg + 1).clamp(min=1)
        starts = (torch.rand(b, device=z.device) * max_start).long().tolist()
        z_seg = self.slice_segments(z, starts, seg)
        audio = self.decode(z_seg)
        out = {"audio": audio, "starts": starts}
        if wav is not None:
            wav = wav if wav.dim() == 3 else wav[:, None]
            need = (max(starts) + seg) * self.hop_length
            if wav.shape[-1] < need:
                wav = F.pad(wav, (0, need - wav.shape[-1]))
            out["wav_segment"] = self.slice_segments(wav, [s * self.hop_length for s in starts],
                                                     seg * self.hop_length)
        return out
