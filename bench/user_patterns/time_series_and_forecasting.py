"""bench/user_patterns part "time_series_and_forecasting": time series models
written blind (without reading the linter's rules, fixtures or tests), in the way
ML engineers tend to write them inside their models. Domains: sliding-window
encoding with unfold and a Python stride, reversible instance normalisation
(RevIN) keeping its statistics on self, DLinear seasonal-trend decomposition
with a moving average, DeepAR-style autoregressive sampling, a pinball loss over
a list of quantiles, missing-value masks with forward-fill imputation, lag
features from a list of lags, calendar features from integer timestamps, N-BEATS
blocks and stacks with trend / seasonality basis expansion, a PatchTST-style
patching transformer padded to a multiple of the patch length, a causal TCN, an
LSTM encoder-decoder with teacher forcing, scaling by the max of the context,
Fourier time features, reconstruction-based anomaly scores with a running
threshold, a Kalman (RTS) smoother, dynamic time warping, and multi-horizon
decoding with an early exit.
"""
import logging
import math
import random
import warnings
from collections import defaultdict
from typing import Optional, Sequence

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------
# 1. sliding-window encoder (unfold with a Python stride)
# ---------------------------------------------------------------------------
class SlidingWindowEncoder(nn.Module):
    """Cuts a multivariate series into overlapping windows, embeds each window
    and pools them into a one-step forecast."""

    def __init__(self, n_features: int = 4, window: int = 16, stride: int = 8, d_model: int = 32):
        super().__init__()
        self.window = window
        self.stride = stride
        self.proj = nn.Linear(window * n_features, d_model)
        self.out = nn.Linear(d_model, 1)

    def forward(self, x, stride: Optional[int] = None):
        stride = stride or self.stride
        B, L, C = x.shape
        if L < self.window:
            # too short for a single window: left pad with zeros
            x = F.pad(x, (0, 0, self.window - L, 0))
            L = self.window
        n_windows = (L - self.window) // stride + 1
        used = (n_windows - 1) * stride + self.window
        if used < L:
            # keep the most recent part of the series
            logger.debug("dropping %d oldest steps to fit windows", L - used)
            x = x[:, L - used:]
        windows = x.unfold(1, self.window, stride)  # B, n, C, window
        windows = windows.permute(0, 1, 3, 2).reshape(B, n_windows, -1)
        h = torch.relu(self.proj(windows))
        return self.out(h.mean(dim=1)).squeeze(-1)


# ---------------------------------------------------------------------------
# 2. reversible instance normalisation
# ---------------------------------------------------------------------------
class RevIN(nn.Module):
    def __init__(self, num_features: int = 3, eps: float = 1e-5, affine: bool = True):
        super().__init__()
        self.num_features = num_features
        self.eps = eps
        self.affine = affine
        if self.affine:
            self.affine_weight = nn.Parameter(torch.ones(num_features))
            self.affine_bias = nn.Parameter(torch.zeros(num_features))

    def forward(self, x, mode: str):
        if mode == "norm":
            self._get_statistics(x)
            x = self._normalize(x)
        elif mode == "denorm":
            x = self._denormalize(x)
        else:
            raise NotImplementedError(mode)
        return x

    def _get_statistics(self, x):
        dim2reduce = tuple(range(1, x.ndim - 1))
        self.mean = torch.mean(x, dim=dim2reduce, keepdim=True).detach()
        self.stdev = torch.sqrt(torch.var(x, dim=dim2reduce, keepdim=True, unbiased=False) + self.eps).detach()

    def _normalize(self, x):
        x = (x - self.mean) / self.stdev
        if self.affine:
            x = x * self.affine_weight + self.affine_bias
        return x

    def _denormalize(self, x):
        if self.affine:
            x = (x - self.affine_bias) / (self.affine_weight + self.eps * self.eps)
        return x * self.stdev + self.mean


# ---------------------------------------------------------------------------
# 3. DLinear: moving-average decomposition + two linear heads
# ---------------------------------------------------------------------------
class DLinear(nn.Module):
    def __init__(self, seq_len: int = 48, pred_len: int = 12, n_channels: int = 3,
                 kernel_size: int = 25, individual: bool = False):
        super().__init__()
        self.seq_len = seq_len
        self.pred_len = pred_len
        self.channels = n_channels
        self.kernel_size = kernel_size
        self.individual = individual
        self.avg = nn.AvgPool1d(kernel_size=kernel_size, stride=1, padding=0)
        if individual:
            self.Linear_Seasonal = nn.ModuleList([nn.Linear(seq_len, pred_len) for _ in range(n_channels)])
            self.Linear_Trend = nn.ModuleList([nn.Linear(seq_len, pred_len) for _ in range(n_channels)])
        else:
            self.Linear_Seasonal = nn.Linear(seq_len, pred_len)
            self.Linear_Trend = nn.Linear(seq_len, pred_len)

    def moving_avg(self, x):
        # pad both ends with the edge values so the trend has the same length
        front = x[:, 0:1, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        end = x[:, -1:, :].repeat(1, (self.kernel_size - 1) // 2, 1)
        x = torch.cat([front, x, end], dim=1)
        return self.avg(x.permute(0, 2, 1)).permute(0, 2, 1)

    def forward(self, x):
        B, L, C = x.shape
        if L > self.seq_len:
            x = x[:, -self.seq_len:]
        elif L < self.seq_len:
            x = torch.cat([x[:, :1].repeat(1, self.seq_len - L, 1), x], dim=1)
        trend = self.moving_avg(x)
        seasonal = x - trend
        seasonal, trend = seasonal.permute(0, 2, 1), trend.permute(0, 2, 1)
        if self.individual:
            seasonal_out = torch.zeros([B, C, self.pred_len], dtype=seasonal.dtype, device=seasonal.device)
            trend_out = torch.zeros([B, C, self.pred_len], dtype=trend.dtype, device=trend.device)
            for i in range(self.channels):
                seasonal_out[:, i, :] = self.Linear_Seasonal[i](seasonal[:, i, :])
                trend_out[:, i, :] = self.Linear_Trend[i](trend[:, i, :])
        else:
            seasonal_out = self.Linear_Seasonal(seasonal)
            trend_out = self.Linear_Trend(trend)
        return (seasonal_out + trend_out).permute(0, 2, 1)


# ---------------------------------------------------------------------------
# 4. DeepAR-style autoregressive sampling
# ---------------------------------------------------------------------------
class DeepARSampler(nn.Module):
    def __init__(self, n_covariates: int = 2, hidden: int = 24, num_layers: int = 2, num_samples: int = 10):
        super().__init__()
        self.rnn = nn.LSTM(1 + n_covariates, hidden, num_layers, batch_first=True)
        self.mu = nn.Linear(hidden, 1)
        self.presigma = nn.Linear(hidden, 1)
        self.num_samples = num_samples

    def forward(self, past_target, past_cov, future_cov, num_samples: Optional[int] = None):
        num_samples = num_samples or self.num_samples
        B, T = past_target.shape
        horizon = future_cov.shape[1]
        scale = past_target.abs().mean(dim=1, keepdim=True) + 1.0
        z = past_target / scale
        _, (h, c) = self.rnn(torch.cat([z.unsqueeze(-1), past_cov], dim=-1))
        h = h.repeat_interleave(num_samples, dim=1)
        c = c.repeat_interleave(num_samples, dim=1)
        last = z[:, -1:].repeat_interleave(num_samples, dim=0)
        fc = future_cov.repeat_interleave(num_samples, dim=0)
        samples = []
        for t in range(horizon):
            step_in = torch.cat([last, fc[:, t]], dim=-1).unsqueeze(1)
            o, (h, c) = self.rnn(step_in, (h, c))
            mu = self.mu(o[:, -1])
            sigma = F.softplus(self.presigma(o[:, -1])) + 1e-3
            last = torch.distributions.Normal(mu, sigma).sample()
            samples.append(last)
        samples = torch.cat(samples, dim=1).view(B, num_samples, horizon) * scale.unsqueeze(1)
        return {
            "mean": samples.mean(dim=1),
            "p10": samples.quantile(0.1, dim=1),
            "p90": samples.quantile(0.9, dim=1),
        }


# ---------------------------------------------------------------------------
# 5. quantile (pinball) loss over a list of quantiles
# ---------------------------------------------------------------------------
class QuantileLoss(nn.Module):
    def __init__(self, quantiles: Sequence[float] = (0.1, 0.5, 0.9)):
        super().__init__()
        self.quantiles = list(quantiles)
        self.last_losses = {}

    def forward(self, preds, target, mask=None):
        assert preds.shape[-1] == len(self.quantiles), "one prediction per quantile"
        losses = []
        for i, q in enumerate(self.quantiles):
            errors = target - preds[..., i]
            loss_q = torch.max((q - 1) * errors, q * errors)
            if mask is not None:
                loss_q = loss_q * mask
            losses.append(loss_q.unsqueeze(-1))
            self.last_losses[f"q{int(q * 100)}"] = loss_q.mean().item()
        loss = torch.cat(losses, dim=-1).sum(dim=-1)
        if mask is not None:
            return loss.sum() / mask.sum().clamp(min=1.0)
        return loss.mean()


# ---------------------------------------------------------------------------
# 6. missing-value mask + forward-fill imputation
# ---------------------------------------------------------------------------
class MissingValueImputer(nn.Module):
    """Forward-fills NaNs, appends the observed mask and runs a GRU."""

    def __init__(self, n_features: int = 3, hidden: int = 16, max_missing_frac: float = 0.5):
        super().__init__()
        self.gru = nn.GRU(2 * n_features, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_features)
        self.max_missing_frac = max_missing_frac
        self.n_seen = 0
        self.n_missing = 0

    def forward(self, x):
        mask = ~torch.isnan(x)
        missing_frac = 1.0 - mask.float().mean().item()
        self.n_seen += x.numel()
        self.n_missing += int((~mask).sum())
        if missing_frac > self.max_missing_frac:
            warnings.warn(f"{missing_frac:.0%} of the inputs are missing")
        filled = x.clone()
        if not mask.all():
            col_mean = torch.nan_to_num(torch.nanmean(x, dim=1), nan=0.0)
            filled[:, 0] = torch.where(mask[:, 0], x[:, 0], col_mean)
            for t in range(1, x.shape[1]):
                filled[:, t] = torch.where(mask[:, t], x[:, t], filled[:, t - 1])
        out, _ = self.gru(torch.cat([filled, mask.float()], dim=-1))
        return self.head(out[:, -1]), filled


# ---------------------------------------------------------------------------
# 7. lag features from a list of lags
# ---------------------------------------------------------------------------
class LagFeatureForecaster(nn.Module):
    def __init__(self, lags: Sequence[int] = (1, 2, 3, 7, 14), hidden: int = 32, horizon: int = 4):
        super().__init__()
        self.lags = list(lags)
        # lags + rolling mean/std
        self.mlp = nn.Sequential(nn.Linear(len(self.lags) + 2, hidden), nn.ReLU(), nn.Linear(hidden, horizon))

    def forward(self, series, lags: Optional[Sequence[int]] = None):
        active = self.lags if lags is None else list(lags)
        B, T = series.shape
        usable = [lag for lag in active if lag <= T]
        if len(usable) < len(active):
            logger.warning("dropping lags %s for a series of length %d", [l for l in active if l > T], T)
        level = series[:, -1:].abs() + 1e-3
        feats = []
        for lag in self.lags:
            if lag in usable:
                feats.append(series[:, T - lag] / level[:, 0])
            else:
                feats.append(torch.zeros(B, dtype=series.dtype))
        window = series[:, -min(T, 7):]
        feats.append(window.mean(dim=1) / level[:, 0])
        feats.append(window.std(dim=1) / level[:, 0] if window.shape[1] > 1 else torch.zeros(B))
        return self.mlp(torch.stack(feats, dim=1)) * level


# ---------------------------------------------------------------------------
# 8. calendar features from integer unix timestamps
# ---------------------------------------------------------------------------
class CalendarFeatureEmbedding(nn.Module):
    FREQ_SECONDS = {"t": 60, "h": 3600, "d": 86400}

    def __init__(self, d_model: int = 16):
        super().__init__()
        self.value_proj = nn.Linear(1, d_model)
        self.hour = nn.Embedding(24, d_model)
        self.weekday = nn.Embedding(7, d_model)
        self.day = nn.Embedding(32, d_model)
        self.month = nn.Embedding(13, d_model)

    def _infer_freq(self, timestamps):
        step = int(timestamps[0, 1] - timestamps[0, 0]) if timestamps.shape[1] > 1 else 3600
        for name, secs in self.FREQ_SECONDS.items():
            if step <= secs:
                return name
        return "d"

    def forward(self, values, timestamps, freq: Optional[str] = None):
        if freq is None:
            freq = self._infer_freq(timestamps)
        days = timestamps // 86400
        weekday = (days + 3) % 7  # 1970-01-01 was a Thursday
        day_of_year = days % 365
        month = (day_of_year // 31 + 1).clamp(max=12)
        dom = (day_of_year % 31 + 1).clamp(max=31)
        emb = self.value_proj(values.unsqueeze(-1))
        emb = emb + self.weekday(weekday) + self.month(month) + self.day(dom)
        if freq in ("t", "h"):
            emb = emb + self.hour((timestamps // 3600) % 24)
        return emb


# ---------------------------------------------------------------------------
# 9-10. N-BEATS blocks with basis expansion, and the stacked model
# ---------------------------------------------------------------------------
class NBeatsBlock(nn.Module):
    def __init__(self, backcast_len: int = 32, forecast_len: int = 8, hidden: int = 32,
                 basis: str = "generic", degree: int = 3, harmonics: int = 4):
        super().__init__()
        self.basis = basis
        self.fc = nn.Sequential(nn.Linear(backcast_len, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        t_b = np.arange(backcast_len) / backcast_len
        t_f = np.arange(forecast_len) / forecast_len
        if basis == "trend":
            theta_dim = degree + 1
            back = np.stack([t_b ** i for i in range(theta_dim)])
            fore = np.stack([t_f ** i for i in range(theta_dim)])
        elif basis == "seasonality":
            theta_dim = 2 * harmonics
            back = np.concatenate([np.cos(2 * np.pi * np.outer(np.arange(harmonics), t_b)),
                                   np.sin(2 * np.pi * np.outer(np.arange(harmonics), t_b))])
            fore = np.concatenate([np.cos(2 * np.pi * np.outer(np.arange(harmonics), t_f)),
                                   np.sin(2 * np.pi * np.outer(np.arange(harmonics), t_f))])
        else:
            theta_dim = hidden // 2
            back = fore = None
            self.back_lin = nn.Linear(theta_dim, backcast_len)
            self.fore_lin = nn.Linear(theta_dim, forecast_len)
        if back is not None:
            self.register_buffer("back_basis", torch.tensor(back, dtype=torch.float32))
            self.register_buffer("fore_basis", torch.tensor(fore, dtype=torch.float32))
        self.theta_b = nn.Linear(hidden, theta_dim, bias=False)
        self.theta_f = nn.Linear(hidden, theta_dim, bias=False)

    def forward(self, x):
        h = self.fc(x)
        tb, tf = self.theta_b(h), self.theta_f(h)
        if self.basis == "generic":
            return self.back_lin(tb), self.fore_lin(tf)
        return tb @ self.back_basis, tf @ self.fore_basis


class NBeatsNet(nn.Module):
    def __init__(self, backcast_len: int = 32, forecast_len: int = 8,
                 stack_types: Sequence[str] = ("trend", "seasonality", "generic"),
                 blocks_per_stack: int = 2, hidden: int = 32, share_weights: bool = True):
        super().__init__()
        self.backcast_len = backcast_len
        self.forecast_len = forecast_len
        self.stacks = nn.ModuleDict()
        for name in stack_types:
            if share_weights:
                block = NBeatsBlock(backcast_len, forecast_len, hidden, basis=name)
                blocks = [block] * blocks_per_stack
            else:
                blocks = [NBeatsBlock(backcast_len, forecast_len, hidden, basis=name) for _ in range(blocks_per_stack)]
            self.stacks[name] = nn.ModuleList(blocks)

    def forward(self, x, return_stacks: bool = False):
        if x.shape[1] > self.backcast_len:
            x = x[:, -self.backcast_len:]
        elif x.shape[1] < self.backcast_len:
            raise ValueError(f"need at least {self.backcast_len} steps, got {x.shape[1]}")
        residual = x
        forecast = torch.zeros(x.shape[0], self.forecast_len, dtype=x.dtype, device=x.device)
        contributions = {}
        for name, blocks in self.stacks.items():
            stack_fc = 0.0
            for block in blocks:
                b, f = block(residual)
                residual = residual - b
                stack_fc = stack_fc + f
            contributions[name] = stack_fc
            forecast = forecast + stack_fc
        if return_stacks:
            return forecast, contributions
        return forecast


# ---------------------------------------------------------------------------
# 11. PatchTST-style patching transformer
# ---------------------------------------------------------------------------
class PatchTST(nn.Module):
    def __init__(self, n_channels: int = 3, pred_len: int = 12, patch_len: int = 8,
                 d_model: int = 32, n_heads: int = 4, n_layers: int = 2, max_patches: int = 8):
        super().__init__()
        self.patch_len = patch_len
        self.max_patches = max_patches
        self.revin = RevIN(n_channels)
        self.patch_embed = nn.Linear(patch_len, d_model)
        self.pos = nn.Parameter(torch.randn(1, max_patches, d_model) * 0.02)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, dim_feedforward=2 * d_model,
                                           dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers)
        self.head = nn.Linear(2 * d_model, pred_len)

    def forward(self, x):
        B, L, C = x.shape
        x = self.revin(x, "norm").permute(0, 2, 1)  # B, C, L
        if L % self.patch_len != 0:
            pad = self.patch_len - L % self.patch_len
            x = F.pad(x, (pad, 0), mode="replicate")
        n_patches = x.shape[-1] // self.patch_len
        if n_patches > self.max_patches:
            warnings.warn(f"truncating {n_patches} patches to the last {self.max_patches}")
            x = x[..., -self.max_patches * self.patch_len:]
            n_patches = self.max_patches
        patches = x.unfold(-1, self.patch_len, self.patch_len)  # B, C, N, P
        z = self.patch_embed(patches).reshape(B * C, n_patches, -1) + self.pos[:, :n_patches]
        z = self.encoder(z)
        z = torch.cat([z[:, -1], z.mean(dim=1)], dim=-1)
        y = self.head(z).reshape(B, C, -1).permute(0, 2, 1)
        return self.revin(y, "denorm")


# ---------------------------------------------------------------------------
# 12. temporal convolutional network with causal padding
# ---------------------------------------------------------------------------
class CausalTCN(nn.Module):
    def __init__(self, in_ch: int = 2, channels: Sequence[int] = (16, 16, 24),
                 kernel_size: int = 3, horizon: int = 6):
        super().__init__()
        self.kernel_size = kernel_size
        self.dilations = [2 ** i for i in range(len(channels))]
        self.convs = nn.ModuleList()
        self.downsample = nn.ModuleList()
        prev = in_ch
        for ch, d in zip(channels, self.dilations):
            self.convs.append(nn.Conv1d(prev, ch, kernel_size, dilation=d))
            self.downsample.append(nn.Conv1d(prev, ch, 1) if prev != ch else nn.Identity())
            prev = ch
        self.receptive_field = 1 + sum((kernel_size - 1) * d for d in self.dilations)
        self.head = nn.Linear(prev, horizon)

    def forward(self, x):
        x = x.transpose(1, 2)  # B, C, L
        if x.shape[-1] < self.receptive_field:
            warnings.warn(f"sequence length {x.shape[-1]} < receptive field {self.receptive_field}")
        for conv, down, d in zip(self.convs, self.downsample, self.dilations):
            pad = (self.kernel_size - 1) * d
            out = conv(F.pad(x, (pad, 0)))
            x = F.relu(out + down(x))
        return self.head(x[:, :, -1])


# ---------------------------------------------------------------------------
# 13. LSTM encoder-decoder with teacher forcing
# ---------------------------------------------------------------------------
class Seq2SeqForecaster(nn.Module):
    def __init__(self, n_features: int = 2, hidden: int = 24, teacher_forcing_ratio: float = 0.5):
        super().__init__()
        self.encoder = nn.LSTM(n_features, hidden, batch_first=True)
        self.decoder = nn.LSTMCell(1, hidden)
        self.out = nn.Linear(hidden, 1)
        self.teacher_forcing_ratio = teacher_forcing_ratio

    def forward(self, src, horizon: int = 8, target=None):
        _, (h, c) = self.encoder(src)
        h, c = h[-1], c[-1]
        dec_in = src[:, -1, :1]  # the target series is feature 0
        use_tf = target is not None and self.training
        outputs = []
        for t in range(horizon):
            h, c = self.decoder(dec_in, (h, c))
            pred = self.out(h)
            outputs.append(pred)
            if use_tf and random.random() < self.teacher_forcing_ratio:
                dec_in = target[:, t:t + 1]
            else:
                dec_in = pred
        return torch.cat(outputs, dim=1)


# ---------------------------------------------------------------------------
# 14. scaling by the max of the context window
# ---------------------------------------------------------------------------
class ContextMaxScaledMLP(nn.Module):
    def __init__(self, context_len: int = 32, horizon: int = 8, hidden: int = 32, min_scale: float = 1e-3):
        super().__init__()
        self.context_len = context_len
        self.min_scale = min_scale
        self.net = nn.Sequential(nn.Linear(context_len, hidden), nn.ReLU(), nn.Linear(hidden, horizon))
        self.zero_series_seen = 0

    def forward(self, context, observed_mask=None):
        if observed_mask is None:
            observed_mask = torch.ones_like(context)
        scale = (context.abs() * observed_mask).max(dim=1, keepdim=True).values
        n_zero = int((scale < self.min_scale).sum())
        if n_zero:
            self.zero_series_seen += n_zero
            logger.info("%d all-zero series in batch (total %d)", n_zero, self.zero_series_seen)
        scale = scale.clamp(min=self.min_scale)
        x = context * observed_mask / scale
        L = x.shape[1]
        if L < self.context_len:
            x = F.pad(x, (self.context_len - L, 0))
        elif L > self.context_len:
            x = x[:, -self.context_len:]
        return self.net(x) * scale, scale


# ---------------------------------------------------------------------------
# 15. Fourier time features
# ---------------------------------------------------------------------------
class FourierFeatureForecaster(nn.Module):
    def __init__(self, periods: Sequence[float] = (24.0, 168.0), n_harmonics: int = 3, hidden: int = 16):
        super().__init__()
        self.periods = list(periods)
        self.n_harmonics = n_harmonics
        n_feat = 2 * len(self.periods) * n_harmonics
        self.rnn = nn.GRU(1 + n_feat, hidden, batch_first=True)
        self.head = nn.Linear(hidden + n_feat, 1)

    def fourier(self, t):
        feats = []
        for p in self.periods:
            for k in range(1, self.n_harmonics + 1):
                w = 2 * math.pi * k / p
                feats.append(torch.sin(w * t))
                feats.append(torch.cos(w * t))
        return torch.stack(feats, dim=-1)

    def forward(self, y, start_index: int = 0, horizon: int = 6):
        B, L = y.shape
        t_all = torch.arange(start_index, start_index + L + horizon, dtype=torch.float32)
        f = self.fourier(t_all)
        f_past = f[:L].unsqueeze(0).expand(B, -1, -1)
        out, _ = self.rnn(torch.cat([y.unsqueeze(-1), f_past], dim=-1))
        ctx = out[:, -1]
        preds = []
        for i in range(horizon):
            preds.append(self.head(torch.cat([ctx, f[L + i].expand(B, -1)], dim=-1)))
        return torch.cat(preds, dim=1)


# ---------------------------------------------------------------------------
# 16. reconstruction-error anomaly scores with a running threshold
# ---------------------------------------------------------------------------
class ReconstructionAnomalyScorer(nn.Module):
    def __init__(self, n_features: int = 4, window: int = 16, latent: int = 8,
                 k_sigma: float = 3.0, momentum: float = 0.1):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(window * n_features, 32), nn.ReLU(), nn.Linear(32, latent))
        self.decoder = nn.Sequential(nn.Linear(latent, 32), nn.ReLU(), nn.Linear(32, window * n_features))
        self.k_sigma = k_sigma
        self.momentum = momentum
        self.register_buffer("err_mean", torch.tensor(0.0))
        self.register_buffer("err_var", torch.tensor(1.0))
        self.num_batches = 0
        self.alarm_log = []

    def forward(self, x, threshold: Optional[float] = None):
        B = x.shape[0]
        recon = self.decoder(self.encoder(x.reshape(B, -1))).view_as(x)
        err = ((recon - x) ** 2).mean(dim=(1, 2))
        if self.training:
            with torch.no_grad():
                m = self.momentum
                self.err_mean.mul_(1 - m).add_(m * err.mean())
                self.err_var.mul_(1 - m).add_(m * err.var(unbiased=False))
            self.num_batches += 1
        if threshold is None:
            threshold = (self.err_mean + self.k_sigma * self.err_var.sqrt()).item()
        scores = (err - self.err_mean) / (self.err_var.sqrt() + 1e-6)
        flags = err > threshold
        n_alarm = int(flags.sum().item())
        if n_alarm > 0:
            self.alarm_log.append((self.num_batches, n_alarm))
            if n_alarm > B // 2:
                logger.warning("%d/%d windows flagged as anomalous", n_alarm, B)
        return {"recon_error": err, "score": scores, "is_anomaly": flags}


# ---------------------------------------------------------------------------
# 17. Kalman filter + RTS smoother for a local-level model
# ---------------------------------------------------------------------------
class KalmanSmoother(nn.Module):
    def __init__(self, init_q: float = 0.1, init_r: float = 1.0, init_var: float = 10.0):
        super().__init__()
        self.log_q = nn.Parameter(torch.tensor(math.log(init_q)))
        self.log_r = nn.Parameter(torch.tensor(math.log(init_r)))
        self.init_var = init_var

    def forward(self, y, mask=None, smooth: bool = True):
        B, T = y.shape
        q, r = self.log_q.exp(), self.log_r.exp()
        m = torch.nan_to_num(y[:, 0]).clone()
        P = torch.full((B,), self.init_var)
        means, covs, pred_means, pred_covs = [], [], [], []
        for t in range(T):
            m_pred = m
            P_pred = P + q if t > 0 else P
            if mask is None or bool(mask[:, t].all()):
                K = P_pred / (P_pred + r)
                m = m_pred + K * (y[:, t] - m_pred)
            else:
                obs = mask[:, t]
                K = torch.where(obs, P_pred / (P_pred + r), torch.zeros_like(P_pred))
                innov = torch.where(obs, y[:, t] - m_pred, torch.zeros_like(m_pred))
                m = m_pred + K * innov
            P = (1 - K) * P_pred
            pred_means.append(m_pred)
            pred_covs.append(P_pred)
            means.append(m)
            covs.append(P)
        if not smooth:
            return torch.stack(means, dim=1), torch.stack(covs, dim=1)
        ms = [None] * T
        Ps = [None] * T
        ms[-1], Ps[-1] = means[-1], covs[-1]
        for t in range(T - 2, -1, -1):
            G = covs[t] / pred_covs[t + 1]
            ms[t] = means[t] + G * (ms[t + 1] - pred_means[t + 1])
            Ps[t] = covs[t] + G ** 2 * (Ps[t + 1] - pred_covs[t + 1])
        return torch.stack(ms, dim=1), torch.stack(Ps, dim=1)


# ---------------------------------------------------------------------------
# 18. dynamic time warping distance (hard or soft min, optional band)
# ---------------------------------------------------------------------------
class DTWDistance(nn.Module):
    def __init__(self, gamma: float = 0.0, band: Optional[int] = None, normalize: bool = True):
        super().__init__()
        self.gamma = gamma
        self.band = band
        self.normalize = normalize

    def forward(self, x, y, band: Optional[int] = None):
        band = self.band if band is None else band
        B, N, _ = x.shape
        M = y.shape[1]
        if band is not None and abs(N - M) > band:
            warnings.warn(f"band {band} narrower than length difference {abs(N - M)}; widening")
            band = abs(N - M)
        cost = torch.cdist(x, y) ** 2  # B, N, M
        inf = torch.full((B,), float("inf"))
        R = {(0, 0): torch.zeros(B)}
        for i in range(1, N + 1):
            lo, hi = 1, M
            if band is not None:
                lo, hi = max(1, i - band), min(M, i + band)
            for j in range(lo, hi + 1):
                prev = torch.stack([R.get((i - 1, j - 1), inf), R.get((i - 1, j), inf), R.get((i, j - 1), inf)], dim=-1)
                if self.gamma > 0:
                    softmin = -self.gamma * torch.logsumexp(-prev / self.gamma, dim=-1)
                else:
                    softmin = prev.min(dim=-1).values
                R[(i, j)] = cost[:, i - 1, j - 1] + softmin
        d = R[(N, M)]
        if self.normalize:
            d = d / (N + M)
        return d


# ---------------------------------------------------------------------------
# 19. multi-horizon heads with an early exit once the forecast settles
# ---------------------------------------------------------------------------
class MultiHorizonEarlyExit(nn.Module):
    def __init__(self, context_len: int = 24, hidden: int = 32, horizons: Sequence[int] = (1, 6, 12),
                 n_blocks: int = 4, tol: float = 1e-2):
        super().__init__()
        self.horizons = sorted(horizons)
        self.tol = tol
        self.inp = nn.Linear(context_len, hidden)
        self.blocks = nn.ModuleList([
            nn.Sequential(nn.LayerNorm(hidden), nn.Linear(hidden, hidden), nn.GELU()) for _ in range(n_blocks)
        ])
        self.heads = nn.ModuleDict({str(h): nn.Linear(hidden, h) for h in self.horizons})
        self.exit_counts = defaultdict(int)

    def forward(self, context, horizon: int = 6, early_exit: Optional[bool] = None):
        if early_exit is None:
            early_exit = not self.training
        key = str(horizon)
        if key not in self.heads:
            bigger = [h for h in self.horizons if h >= horizon]
            if not bigger:
                raise ValueError(f"horizon {horizon} > largest trained horizon {self.horizons[-1]}")
            key = str(bigger[0])
            logger.debug("no head for horizon %d, using %s and slicing", horizon, key)
        head = self.heads[key]
        h = self.inp(context)
        prev = None
        for i, block in enumerate(self.blocks):
            h = h + block(h)
            if early_exit and i < len(self.blocks) - 1:
                pred = head(h)
                if prev is not None and (pred - prev).abs().max().item() < self.tol:
                    self.exit_counts[i] += 1
                    return pred[:, :horizon]
                prev = pred
        self.exit_counts[len(self.blocks) - 1] += 1
        return head(h)[:, :horizon]
