"""User patterns, part eight (session 14, written before running the linter on them):
detection post-processing (box decoding, NMS, anchors, IoU metrics), diffusion sampling
(schedulers, guidance, timestep embeddings), audio front ends (STFT, mel filters, framing),
segmentation heads, reinforcement-learning heads and a GAN gradient penalty."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


def box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[None, :, :2])
    rb = torch.min(a[:, None, 2:], b[None, :, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area_a[:, None] + area_b[None, :] - inter)


class GreedyNMS(nn.Module):
    def __init__(self, threshold: float = 0.5):
        super().__init__()
        self.threshold = threshold

    def forward(self, boxes, scores):
        order = scores.argsort(descending=True)
        keep = []
        while order.numel() > 0:
            i = order[0]
            keep.append(i)
            if order.numel() == 1:
                break
            ious = box_iou(boxes[i].unsqueeze(0), boxes[order[1:]])[0]
            order = order[1:][ious <= self.threshold]
        return torch.stack(keep)


class BoxDecoder(nn.Module):
    def __init__(self, clip: float = math.log(1000.0 / 16)):
        super().__init__()
        self.clip = clip

    def forward(self, anchors, deltas):
        widths = anchors[:, 2] - anchors[:, 0]
        heights = anchors[:, 3] - anchors[:, 1]
        cx = anchors[:, 0] + 0.5 * widths
        cy = anchors[:, 1] + 0.5 * heights
        dx, dy, dw, dh = deltas.unbind(-1)
        dw = dw.clamp(max=self.clip)
        dh = dh.clamp(max=self.clip)
        px = dx * widths + cx
        py = dy * heights + cy
        pw = torch.exp(dw) * widths
        ph = torch.exp(dh) * heights
        return torch.stack([px - pw / 2, py - ph / 2, px + pw / 2, py + ph / 2], -1)


class AnchorGenerator(nn.Module):
    def __init__(self, sizes=(32, 64), ratios=(0.5, 1.0, 2.0)):
        super().__init__()
        self.sizes = sizes
        self.ratios = ratios

    def forward(self, feature, stride: int = 8):
        h, w = feature.shape[-2:]
        cells = []
        for size in self.sizes:
            for ratio in self.ratios:
                aw = size * math.sqrt(ratio)
                ah = size / math.sqrt(ratio)
                cells.append([-aw / 2, -ah / 2, aw / 2, ah / 2])
        base = torch.tensor(cells)
        ys = torch.arange(h) * stride
        xs = torch.arange(w) * stride
        yy, xx = torch.meshgrid(ys, xs, indexing="ij")
        shifts = torch.stack([xx, yy, xx, yy], -1).reshape(-1, 1, 4)
        return (shifts + base).reshape(-1, 4)


class ScoreFilter(nn.Module):
    def forward(self, boxes, scores, min_score: float = 0.3):
        keep = scores > min_score
        boxes, scores = boxes[keep], scores[keep]
        top = min(100, scores.numel())
        scores, idx = scores.topk(top)
        return boxes[idx], scores


class DetectionMetrics(nn.Module):
    def forward(self, pred, target):
        iou = box_iou(pred, target)
        best, _ = iou.max(1)
        hits = (best > 0.5).sum()
        precision = hits / max(len(pred), 1)
        recall = hits / max(len(target), 1)
        return {"precision": precision, "recall": recall, "mean_iou": best.mean().item()}


class DDIMStep(nn.Module):
    def __init__(self, steps: int = 50):
        super().__init__()
        betas = torch.linspace(1e-4, 0.02, 1000)
        self.register_buffer("alphas_cumprod", torch.cumprod(1 - betas, 0))
        self.steps = steps

    def forward(self, sample, noise_pred, t):
        prev_t = t - 1000 // self.steps
        alpha_t = self.alphas_cumprod[t]
        alpha_prev = self.alphas_cumprod[prev_t] if prev_t >= 0 else torch.tensor(1.0)
        x0 = (sample - (1 - alpha_t).sqrt() * noise_pred) / alpha_t.sqrt()
        return alpha_prev.sqrt() * x0 + (1 - alpha_prev).sqrt() * noise_pred


class ListScheduler(nn.Module):
    def __init__(self):
        super().__init__()
        self.sigmas = [float(s) for s in torch.linspace(10.0, 0.1, 20)]

    def forward(self, x, denoised, step: int):
        sigma = self.sigmas[step]
        sigma_next = self.sigmas[step + 1]
        d = (x - denoised) / sigma
        return x + d * (sigma_next - sigma)


class TimestepEmbedding(nn.Module):
    def __init__(self, dim: int = 16):
        super().__init__()
        self.dim = dim
        self.proj = nn.Linear(dim, dim)

    def forward(self, t):
        half = self.dim // 2
        freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / half)
        args = t[:, None].float() * freqs[None]
        emb = torch.cat([torch.cos(args), torch.sin(args)], dim=-1)
        return self.proj(emb)


class GuidedDenoiser(nn.Module):
    def __init__(self, d: int = 8):
        super().__init__()
        self.net = nn.Linear(d, d)

    def forward(self, x, cond, scale=7.5):
        both = self.net(torch.cat([x, x]) + torch.cat([torch.zeros_like(cond), cond]))
        uncond, text = both.chunk(2)
        if scale == 1.0:
            return text
        return uncond + scale * (text - uncond)


class SamplingLoop(nn.Module):
    def __init__(self, d: int = 8, steps: int = 4):
        super().__init__()
        self.net = nn.Linear(d, d)
        self.steps = steps

    def forward(self, x):
        for i, t in enumerate(torch.linspace(1.0, 0.0, self.steps)):
            eps = self.net(x)
            x = x - eps * t.item() / self.steps
        return x


class SpectrogramFrontEnd(nn.Module):
    def __init__(self, n_fft: int = 64, hop: int = 16):
        super().__init__()
        self.n_fft = n_fft
        self.hop = hop
        self.register_buffer("window", torch.hann_window(n_fft))

    def forward(self, wav):
        spec = torch.stft(wav, self.n_fft, self.hop, window=self.window, return_complex=True)
        return spec.abs().pow(2).clamp(min=1e-10).log()


class MelFilter(nn.Module):
    def __init__(self, n_mels: int = 8, sr: int = 16000):
        super().__init__()
        self.n_mels = n_mels
        self.sr = sr

    def forward(self, power):
        n_freqs = power.shape[-2]
        mel_max = 2595 * np.log10(1 + (self.sr / 2) / 700)
        mels = np.linspace(0, mel_max, self.n_mels + 2)
        hz = 700 * (10 ** (mels / 2595) - 1)
        bins = np.floor((n_freqs - 1) * 2 * hz / self.sr).astype(int)
        fb = torch.zeros(self.n_mels, n_freqs)
        for m in range(1, self.n_mels + 1):
            left, center, right = bins[m - 1], bins[m], bins[m + 1]
            for k in range(left, center):
                fb[m - 1, k] = (k - left) / max(center - left, 1)
            for k in range(center, right):
                fb[m - 1, k] = (right - k) / max(right - center, 1)
        return torch.einsum("mf,...ft->...mt", fb, power)


class Framing(nn.Module):
    def forward(self, wav, frame: int = 32, hop: int = 16):
        pad = (hop - (wav.shape[-1] - frame) % hop) % hop
        wav = F.pad(wav, (0, pad))
        frames = wav.unfold(-1, frame, hop)
        energy = frames.pow(2).mean(-1)
        voiced = energy > energy.mean()
        return frames[voiced]


class SegmentationHead(nn.Module):
    def __init__(self, c: int = 4, classes: int = 3):
        super().__init__()
        self.conv = nn.Conv2d(c, classes, 1)

    def forward(self, feature, image_size):
        logits = self.conv(feature)
        logits = F.interpolate(logits, size=image_size, mode="bilinear", align_corners=False)
        return logits.argmax(1)


class ClassHistogram(nn.Module):
    def forward(self, labels, classes: int = 3):
        counts = torch.bincount(labels.flatten(), minlength=classes)
        present = [c for c in range(classes) if counts[c] > 0]
        return counts.float() / counts.sum(), len(present)


class ConfusionMatrix(nn.Module):
    def forward(self, pred, target, classes: int = 3):
        idx = target.flatten() * classes + pred.flatten()
        cm = torch.bincount(idx, minlength=classes * classes).reshape(classes, classes)
        iou = cm.diag() / (cm.sum(0) + cm.sum(1) - cm.diag()).clamp(min=1)
        return cm, iou.nanmean()


class PolicyHead(nn.Module):
    def __init__(self, d: int = 8, actions: int = 4):
        super().__init__()
        self.logits = nn.Linear(d, actions)
        self.value = nn.Linear(d, 1)

    def forward(self, obs):
        dist = torch.distributions.Categorical(logits=self.logits(obs))
        action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.value(obs).squeeze(-1)


class EpsilonGreedy(nn.Module):
    def __init__(self, d: int = 8, actions: int = 4, eps: float = 0.1):
        super().__init__()
        self.q = nn.Linear(d, actions)
        self.eps = eps
        self.actions = actions

    def forward(self, obs):
        q = self.q(obs)
        if np.random.rand() < self.eps:
            return torch.randint(0, self.actions, (obs.shape[0],))
        return q.argmax(-1)


class GradientPenalty(nn.Module):
    def __init__(self, d: int = 8):
        super().__init__()
        self.critic = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, 1))

    def forward(self, real, fake):
        alpha = torch.rand(real.shape[0], 1)
        mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
        score = self.critic(mixed)
        grads = torch.autograd.grad(score.sum(), mixed, create_graph=True)[0]
        return ((grads.norm(2, dim=1) - 1) ** 2).mean()
