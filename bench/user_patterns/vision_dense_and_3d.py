"""bench/user_patterns part "vision_dense_and_3d": dense prediction, vision
transformer and 3D vision modules written blind (without reading the linter's
rules, fixtures or tests), in the way ML engineers tend to write them inside
their models. Domains: a ViT with position embeddings interpolated to the input
grid, Swin-style shifted window attention with padding, a relative position
bias table and a shift mask cached per padded size, a UNet decoder that crops
skip connections, an FPN neck with nearest upsampling, a DETR-style set
criterion with greedy matching, panoptic post-processing with per-image loops,
optical flow warping with grid_sample and a cached meshgrid, a depth head with
a scale-invariant log loss on valid pixels, NeRF ray sampling with hierarchical
resampling, PointNet++ farthest point sampling and ball query, dynamic
voxelisation with unique, LiDAR-to-camera projection with intrinsics as Python
lists, flip/scale test-time augmentation, sliding-window inference with
gaussian weights, packed variable-resolution patch tokens, multi-scale
deformable attention sampling, and keypoint heatmap decoding.
"""
import logging
import math
import warnings
from collections import OrderedDict
from typing import Dict, List, Optional, Tuple

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger(__name__)


def _conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


def window_partition(x, ws):
    B, H, W, C = x.shape
    x = x.view(B, H // ws, ws, W // ws, ws, C)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(-1, ws, ws, C)


def window_reverse(windows, ws, H, W):
    B = int(windows.shape[0] / (H * W / ws / ws))
    x = windows.view(B, H // ws, W // ws, ws, ws, -1)
    return x.permute(0, 1, 3, 2, 4, 5).contiguous().view(B, H, W, -1)


def index_points(points, idx):
    """points: (B, N, C), idx: (B, S) or (B, S, K) -> gathered points."""
    B = points.shape[0]
    view_shape = [B] + [1] * (idx.dim() - 1)
    batch = torch.arange(B, device=points.device).view(view_shape).expand_as(idx)
    return points[batch, idx]


# 1. ViT with interpolated position embeddings
class InterpolatedPosEmbedViT(nn.Module):
    def __init__(self, in_chans=3, embed_dim=32, patch_size=4, pretrain_img_size=16, depth=2,
                 num_heads=4, num_classes=10):
        super().__init__()
        self.patch_size = patch_size
        self.patch_embed = nn.Conv2d(in_chans, embed_dim, patch_size, stride=patch_size)
        num_patches = (pretrain_img_size // patch_size) ** 2
        self.cls_token = nn.Parameter(torch.zeros(1, 1, embed_dim))
        self.pos_embed = nn.Parameter(torch.randn(1, num_patches + 1, embed_dim) * 0.02)
        layer = nn.TransformerEncoderLayer(embed_dim, num_heads, embed_dim * 2, dropout=0.0, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, depth, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(embed_dim)
        self.head = nn.Linear(embed_dim, num_classes)

    def interpolate_pos_encoding(self, h, w):
        N = self.pos_embed.shape[1] - 1
        if h * w == N and h == w:
            return self.pos_embed
        class_pos = self.pos_embed[:, :1]
        patch_pos = self.pos_embed[:, 1:]
        gs = int(math.sqrt(N))
        patch_pos = patch_pos.reshape(1, gs, gs, -1).permute(0, 3, 1, 2)
        patch_pos = F.interpolate(patch_pos, size=(h, w), mode="bicubic", align_corners=False)
        patch_pos = patch_pos.permute(0, 2, 3, 1).reshape(1, h * w, -1)
        return torch.cat([class_pos, patch_pos], dim=1)

    def forward(self, x, return_tokens=False):
        B, _, H, W = x.shape
        p = self.patch_size
        pad_h, pad_w = (p - H % p) % p, (p - W % p) % p
        if pad_h or pad_w:
            logger.debug("padding input %dx%d to multiple of %d", H, W, p)
            x = F.pad(x, (0, pad_w, 0, pad_h))
        x = self.patch_embed(x)
        h, w = x.shape[-2:]
        x = x.flatten(2).transpose(1, 2)
        x = torch.cat([self.cls_token.expand(B, -1, -1), x], dim=1)
        x = x + self.interpolate_pos_encoding(h, w)
        x = self.norm(self.blocks(x))
        if return_tokens:
            return x[:, 1:].transpose(1, 2).reshape(B, -1, h, w)
        return self.head(x[:, 0])


# 2. Swin-style shifted window attention
class ShiftedWindowAttentionBlock(nn.Module):
    def __init__(self, dim=16, num_heads=2, window_size=4, shift_size=2):
        super().__init__()
        self.num_heads, self.window_size, self.shift_size = num_heads, window_size, shift_size
        self.scale = (dim // num_heads) ** -0.5
        self.norm, self.qkv, self.proj = nn.LayerNorm(dim), nn.Linear(dim, dim * 3), nn.Linear(dim, dim)
        ws = window_size
        self.relative_position_bias_table = nn.Parameter(torch.zeros((2 * ws - 1) ** 2, num_heads))
        nn.init.trunc_normal_(self.relative_position_bias_table, std=0.02)
        coords = torch.stack(torch.meshgrid(torch.arange(ws), torch.arange(ws), indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0).contiguous()
        rel += ws - 1
        rel[:, :, 0] *= 2 * ws - 1
        self.register_buffer("relative_position_index", rel.sum(-1), persistent=False)
        self._mask_cache = {}

    def _attn_mask(self, Hp, Wp, device):
        key = (Hp, Wp, str(device))
        if key not in self._mask_cache:
            ws, s = self.window_size, self.shift_size
            img_mask = torch.zeros((1, Hp, Wp, 1), device=device)
            cnt = 0
            for hs in (slice(0, -ws), slice(-ws, -s), slice(-s, None)):
                for wsl in (slice(0, -ws), slice(-ws, -s), slice(-s, None)):
                    img_mask[:, hs, wsl, :] = cnt
                    cnt += 1
            mw = window_partition(img_mask, ws).view(-1, ws * ws)
            mask = mw.unsqueeze(1) - mw.unsqueeze(2)
            mask = mask.masked_fill(mask != 0, -100.0).masked_fill(mask == 0, 0.0)
            self._mask_cache[key] = mask
        return self._mask_cache[key]

    def forward(self, x, H, W):
        B, L, C = x.shape
        assert L == H * W, "input feature has wrong size"
        shortcut = x
        x = self.norm(x).view(B, H, W, C)
        ws = self.window_size
        shift = self.shift_size if min(H, W) > ws else 0
        pad_b, pad_r = (ws - H % ws) % ws, (ws - W % ws) % ws
        x = F.pad(x, (0, 0, 0, pad_r, 0, pad_b))
        Hp, Wp = x.shape[1], x.shape[2]
        mask = None
        if shift > 0:
            x = torch.roll(x, shifts=(-shift, -shift), dims=(1, 2))
            mask = self._attn_mask(Hp, Wp, x.device)
        windows = window_partition(x, ws).view(-1, ws * ws, C)
        Bw, N, _ = windows.shape
        qkv = self.qkv(windows).reshape(Bw, N, 3, self.num_heads, C // self.num_heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        attn = (q * self.scale) @ k.transpose(-2, -1)
        bias = self.relative_position_bias_table[self.relative_position_index.view(-1)].view(N, N, -1)
        attn = attn + bias.permute(2, 0, 1).unsqueeze(0)
        if mask is not None:
            nW = mask.shape[0]
            attn = attn.view(Bw // nW, nW, self.num_heads, N, N) + mask.unsqueeze(1).unsqueeze(0)
            attn = attn.view(-1, self.num_heads, N, N)
        out = (attn.softmax(-1) @ v).transpose(1, 2).reshape(Bw, N, C)
        x = window_reverse(self.proj(out).view(-1, ws, ws, C), ws, Hp, Wp)
        if shift > 0:
            x = torch.roll(x, shifts=(shift, shift), dims=(1, 2))
        x = x[:, :H, :W, :].contiguous()
        return shortcut + x.view(B, H * W, C)


# 3. UNet decoder with cropped skip connections
class UNetDecoder(nn.Module):
    def __init__(self, channels=(32, 16, 8), num_classes=3):
        super().__init__()
        self.ups = nn.ModuleList([nn.ConvTranspose2d(channels[i], channels[i + 1], 2, stride=2)
                                  for i in range(len(channels) - 1)])
        self.convs = nn.ModuleList([_conv_block(channels[i + 1] * 2, channels[i + 1])
                                    for i in range(len(channels) - 1)])
        self.head = nn.Conv2d(channels[-1], num_classes, 1)

    @staticmethod
    def center_crop(t, target_hw):
        h, w = t.shape[-2:]
        th, tw = target_hw
        dy, dx = (h - th) // 2, (w - tw) // 2
        return t[:, :, dy:dy + th, dx:dx + tw]

    def forward(self, bottleneck, skips: List[torch.Tensor], out_size=None):
        x = bottleneck
        for up, conv, skip in zip(self.ups, self.convs, skips):
            x = up(x)
            if skip.shape[-2:] != x.shape[-2:]:
                if skip.shape[-2] >= x.shape[-2] and skip.shape[-1] >= x.shape[-1]:
                    skip = self.center_crop(skip, x.shape[-2:])
                else:
                    dh, dw = x.shape[-2] - skip.shape[-2], x.shape[-1] - skip.shape[-1]
                    skip = F.pad(skip, [dw // 2, dw - dw // 2, dh // 2, dh - dh // 2])
            x = conv(torch.cat([x, skip], dim=1))
        logits = self.head(x)
        if out_size is not None:
            logits = F.interpolate(logits, size=tuple(out_size), mode="bilinear", align_corners=False)
        return logits


# 4. FPN neck with top-down nearest upsampling
class FeaturePyramidNeck(nn.Module):
    def __init__(self, in_channels=(8, 16, 32), out_channels=16, extra_levels=1):
        super().__init__()
        self.lateral = nn.ModuleList([nn.Conv2d(c, out_channels, 1) for c in in_channels])
        self.output = nn.ModuleList([nn.Conv2d(out_channels, out_channels, 3, padding=1) for _ in in_channels])
        self.extra_levels = extra_levels

    def forward(self, feats, upsample_mode="nearest"):
        if isinstance(feats, dict):
            feats = list(feats.values())
        names = [f"p{i + 2}" for i in range(len(feats))]
        assert len(feats) == len(self.lateral), f"expected {len(self.lateral)} levels, got {len(feats)}"
        laterals = [l(f) for l, f in zip(self.lateral, feats)]
        for i in range(len(laterals) - 1, 0, -1):
            prev_shape = laterals[i - 1].shape[2:]
            if upsample_mode == "nearest":
                up = F.interpolate(laterals[i], size=prev_shape, mode="nearest")
            else:
                up = F.interpolate(laterals[i], size=prev_shape, mode="bilinear", align_corners=False)
            laterals[i - 1] = laterals[i - 1] + up
        outs = [conv(l) for conv, l in zip(self.output, laterals)]
        for _ in range(self.extra_levels):
            outs.append(F.max_pool2d(outs[-1], 1, stride=2))
            names.append(f"p{len(names) + 2}")
        return OrderedDict(zip(names, outs))


# 5. DETR-style set criterion
class DETRSetCriterion(nn.Module):
    def __init__(self, num_classes=4, eos_coef=0.1, cost_class=1.0, cost_bbox=5.0):
        super().__init__()
        self.num_classes, self.cost_class, self.cost_bbox = num_classes, cost_class, cost_bbox
        self.weights = {"loss_ce": 1.0, "loss_bbox": cost_bbox}
        empty_weight = torch.ones(num_classes + 1)
        empty_weight[-1] = eos_coef
        self.register_buffer("empty_weight", empty_weight)

    @staticmethod
    def _greedy_match(cost: np.ndarray):
        rows, cols = [], []
        cost = cost.copy()
        for _ in range(min(cost.shape)):
            i, j = np.unravel_index(np.argmin(cost), cost.shape)
            rows.append(int(i))
            cols.append(int(j))
            cost[i, :], cost[:, j] = np.inf, np.inf
        return np.array(rows, dtype=np.int64), np.array(cols, dtype=np.int64)

    @torch.no_grad()
    def match(self, pred_logits, pred_boxes, targets):
        indices = []
        for b, tgt in enumerate(targets):
            if len(tgt["labels"]) == 0:
                indices.append((torch.empty(0, dtype=torch.long), torch.empty(0, dtype=torch.long)))
                continue
            c = -self.cost_class * pred_logits[b].softmax(-1)[:, tgt["labels"]]
            c = c + self.cost_bbox * torch.cdist(pred_boxes[b], tgt["boxes"], p=1)
            i, j = self._greedy_match(c.cpu().numpy())
            indices.append((torch.as_tensor(i), torch.as_tensor(j)))
        return indices

    def forward(self, pred_logits, pred_boxes, targets: List[Dict[str, torch.Tensor]]):
        indices = self.match(pred_logits, pred_boxes, targets)
        num_boxes = max(float(sum(len(t["labels"]) for t in targets)), 1.0)
        batch_idx = torch.cat([torch.full_like(src, i) for i, (src, _) in enumerate(indices)])
        src_idx = torch.cat([src for src, _ in indices])
        target_classes = torch.full(pred_logits.shape[:2], self.num_classes, dtype=torch.long,
                                    device=pred_logits.device)
        target_classes[batch_idx, src_idx] = torch.cat([t["labels"][j] for t, (_, j) in zip(targets, indices)])
        losses = {"loss_ce": F.cross_entropy(pred_logits.transpose(1, 2), target_classes, self.empty_weight)}
        tgt_boxes = torch.cat([t["boxes"][j] for t, (_, j) in zip(targets, indices)], dim=0)
        if tgt_boxes.shape[0] > 0:
            losses["loss_bbox"] = F.l1_loss(pred_boxes[batch_idx, src_idx], tgt_boxes, reduction="sum") / num_boxes
        else:
            losses["loss_bbox"] = pred_boxes.sum() * 0.0
        total = sum(self.weights[k] * v for k, v in losses.items())
        logger.debug("detr losses: %s", {k: round(v.item(), 4) for k, v in losses.items()})
        return total, losses


# 6. panoptic post-processing
class PanopticPostProcessor(nn.Module):
    def __init__(self, num_classes=5, thing_ids=(0, 1, 2), threshold=0.3, overlap_threshold=0.6, min_area=2):
        super().__init__()
        self.num_classes = num_classes
        self.thing_ids = set(thing_ids)
        self.threshold, self.overlap_threshold, self.min_area = threshold, overlap_threshold, min_area

    def forward(self, pred_logits, pred_masks, target_sizes: Optional[List[Tuple[int, int]]] = None):
        results = []
        for i in range(pred_logits.shape[0]):
            scores, labels = pred_logits[i].softmax(-1)[:, :-1].max(-1)
            keep = scores > self.threshold
            cur_scores, cur_labels, cur_masks = scores[keep], labels[keep], pred_masks[i][keep]
            if target_sizes is not None:
                h, w = target_sizes[i]
                cur_masks = F.interpolate(cur_masks[None], size=(int(h), int(w)), mode="bilinear",
                                          align_corners=False)[0]
            h, w = cur_masks.shape[-2:]
            panoptic = torch.zeros((h, w), dtype=torch.int32, device=pred_masks.device)
            segments = []
            if cur_masks.shape[0] == 0:
                results.append({"panoptic_seg": panoptic, "segments_info": segments})
                continue
            mask_ids = (cur_scores.view(-1, 1, 1) * cur_masks.sigmoid()).argmax(0)
            stuff_memory = {}
            current_id = 0
            for k in range(cur_labels.shape[0]):
                pred_class = cur_labels[k].item()
                is_thing = pred_class in self.thing_ids
                mask = (mask_ids == k) & (cur_masks[k].sigmoid() >= 0.5)
                mask_area = int(mask.sum())
                original_area = (cur_masks[k] >= 0).sum().item()
                if mask_area < self.min_area or original_area == 0:
                    continue
                if mask_area / original_area < self.overlap_threshold:
                    continue
                if not is_thing and pred_class in stuff_memory:
                    panoptic[mask] = stuff_memory[pred_class]
                    continue
                current_id += 1
                if not is_thing:
                    stuff_memory[pred_class] = current_id
                panoptic[mask] = current_id
                segments.append({"id": current_id, "isthing": is_thing, "category_id": int(pred_class),
                                 "score": float(cur_scores[k])})
            results.append({"panoptic_seg": panoptic, "segments_info": segments})
        return results


# 7. optical flow warping with a cached base grid
class FlowWarpPhotometricLoss(nn.Module):
    def __init__(self, padding_mode="zeros", alpha1=0.01, alpha2=0.5):
        super().__init__()
        self.padding_mode, self.alpha1, self.alpha2 = padding_mode, alpha1, alpha2
        self._grid_cache = {}

    def _base_grid(self, B, H, W, device, dtype):
        key = (H, W, device, dtype)
        if key not in self._grid_cache:
            ys, xs = torch.meshgrid(torch.arange(H, device=device, dtype=dtype),
                                    torch.arange(W, device=device, dtype=dtype), indexing="ij")
            self._grid_cache[key] = torch.stack([xs, ys], 0)
        return self._grid_cache[key].unsqueeze(0).expand(B, -1, -1, -1)

    @staticmethod
    def upsample_flow(flow, size):
        sh, sw = size[0] / flow.shape[-2], size[1] / flow.shape[-1]
        flow = F.interpolate(flow, size=size, mode="bilinear", align_corners=False)
        return torch.cat([flow[:, :1] * sw, flow[:, 1:] * sh], dim=1)

    def warp(self, img, flow):
        B, _, H, W = img.shape
        grid = self._base_grid(B, H, W, img.device, img.dtype) + flow
        gx = 2.0 * grid[:, 0] / max(W - 1, 1) - 1.0
        gy = 2.0 * grid[:, 1] / max(H - 1, 1) - 1.0
        out = F.grid_sample(img, torch.stack([gx, gy], -1), mode="bilinear",
                            padding_mode=self.padding_mode, align_corners=True)
        valid = ((gx.abs() <= 1) & (gy.abs() <= 1)).unsqueeze(1).float()
        return out, valid

    def forward(self, img1, img2, flow_fw, flow_bw=None):
        size = tuple(img1.shape[-2:])
        if tuple(flow_fw.shape[-2:]) != size:
            flow_fw = self.upsample_flow(flow_fw, size)
            if flow_bw is not None:
                flow_bw = self.upsample_flow(flow_bw, size)
        warped, valid = self.warp(img2, flow_fw)
        if flow_bw is not None:
            bw_warped, _ = self.warp(flow_bw, flow_fw)
            diff = (flow_fw + bw_warped).pow(2).sum(1, keepdim=True)
            mag = flow_fw.pow(2).sum(1, keepdim=True) + bw_warped.pow(2).sum(1, keepdim=True)
            valid = valid * (diff <= self.alpha1 * mag + self.alpha2).float()
        photometric = (warped - img1).abs().mean(1, keepdim=True)
        loss = (photometric * valid).sum() / valid.sum().clamp(min=1.0)
        return loss, warped


# 8. depth head with scale-invariant log loss
class DepthHeadSILog(nn.Module):
    def __init__(self, in_channels=16, min_depth=1e-3, variance_focus=0.85):
        super().__init__()
        self.head = nn.Sequential(_conv_block(in_channels, 16), nn.Conv2d(16, 1, 3, padding=1))
        self.min_depth, self.variance_focus = min_depth, variance_focus
        self.last_metrics = {}

    def forward(self, feats, gt_depth=None, max_depth=10.0):
        pred = F.softplus(self.head(feats)) + self.min_depth
        if gt_depth is None:
            return pred, None
        if pred.shape[-2:] != gt_depth.shape[-2:]:
            pred = F.interpolate(pred, size=gt_depth.shape[-2:], mode="bilinear", align_corners=True)
        valid = (gt_depth > self.min_depth) & (gt_depth < max_depth)
        if valid.sum() == 0:
            warnings.warn("no valid depth pixels in batch")
            return pred, pred.sum() * 0.0
        d = torch.log(pred[valid]) - torch.log(gt_depth[valid])
        loss = torch.sqrt((d ** 2).mean() - self.variance_focus * d.mean() ** 2) * 10.0
        with torch.no_grad():
            abs_rel = ((pred[valid] - gt_depth[valid]).abs() / gt_depth[valid]).mean().item()
            ratio = torch.max(pred[valid] / gt_depth[valid], gt_depth[valid] / pred[valid])
            self.last_metrics = {"abs_rel": abs_rel, "a1": (ratio < 1.25).float().mean().item(),
                                 "valid_frac": valid.float().mean().item()}
        return pred, loss


# 9. NeRF with stratified + hierarchical sampling
class TinyNeRF(nn.Module):
    def __init__(self, num_freqs=4, hidden=32, n_coarse=16, n_fine=8, white_bkgd=False):
        super().__init__()
        self.num_freqs, self.n_coarse, self.n_fine, self.white_bkgd = num_freqs, n_coarse, n_fine, white_bkgd
        in_dim = 3 + 3 * 2 * num_freqs
        self.coarse = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, 4))
        self.fine = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, 4)) if n_fine else None

    def posenc(self, x):
        out = [x]
        for i in range(self.num_freqs):
            out += [torch.sin((2.0 ** i) * x), torch.cos((2.0 ** i) * x)]
        return torch.cat(out, -1)

    def render(self, mlp, pts, z_vals, rays_d):
        raw = mlp(self.posenc(pts))
        rgb, sigma = torch.sigmoid(raw[..., :3]), F.relu(raw[..., 3])
        dists = z_vals[..., 1:] - z_vals[..., :-1]
        dists = torch.cat([dists, torch.full_like(dists[..., :1], 1e10)], -1)
        dists = dists * rays_d.norm(dim=-1, keepdim=True)
        alpha = 1.0 - torch.exp(-sigma * dists)
        trans = torch.cumprod(torch.cat([torch.ones_like(alpha[..., :1]), 1.0 - alpha + 1e-10], -1), -1)[..., :-1]
        weights = alpha * trans
        rgb_map = (weights[..., None] * rgb).sum(-2)
        if self.white_bkgd:
            rgb_map = rgb_map + (1.0 - weights.sum(-1)[..., None])
        return rgb_map, (weights * z_vals).sum(-1), weights

    @staticmethod
    def sample_pdf(bins, weights, n_samples, det=False):
        weights = weights + 1e-5
        pdf = weights / weights.sum(-1, keepdim=True)
        cdf = torch.cat([torch.zeros_like(pdf[..., :1]), torch.cumsum(pdf, -1)], -1)
        if det:
            u = torch.linspace(0.0, 1.0, n_samples, device=bins.device).expand(*cdf.shape[:-1], n_samples)
        else:
            u = torch.rand(*cdf.shape[:-1], n_samples, device=bins.device)
        inds = torch.searchsorted(cdf, u.contiguous(), right=True)
        below = (inds - 1).clamp(min=0)
        above = inds.clamp(max=cdf.shape[-1] - 1)
        inds_g = torch.stack([below, above], -1)
        matched = [*inds_g.shape[:-1], cdf.shape[-1]]
        cdf_g = torch.gather(cdf.unsqueeze(-2).expand(matched), -1, inds_g)
        bins_g = torch.gather(bins.unsqueeze(-2).expand(matched), -1, inds_g)
        denom = cdf_g[..., 1] - cdf_g[..., 0]
        denom = torch.where(denom < 1e-5, torch.ones_like(denom), denom)
        t = (u - cdf_g[..., 0]) / denom
        return bins_g[..., 0] + t * (bins_g[..., 1] - bins_g[..., 0])

    def forward(self, rays_o, rays_d, near=2.0, far=6.0, perturb=True):
        N = rays_o.shape[0]
        t = torch.linspace(0.0, 1.0, self.n_coarse, device=rays_o.device)
        z = (near * (1.0 - t) + far * t).expand(N, self.n_coarse)
        stochastic = perturb and self.training
        if stochastic:
            mids = 0.5 * (z[..., 1:] + z[..., :-1])
            upper = torch.cat([mids, z[..., -1:]], -1)
            lower = torch.cat([z[..., :1], mids], -1)
            z = lower + (upper - lower) * torch.rand(z.shape, device=z.device)
        pts = rays_o[..., None, :] + rays_d[..., None, :] * z[..., :, None]
        rgb_c, depth_c, w = self.render(self.coarse, pts, z, rays_d)
        out = {"rgb_coarse": rgb_c, "depth_coarse": depth_c}
        if self.fine is not None:
            mids = 0.5 * (z[..., 1:] + z[..., :-1])
            z_f = self.sample_pdf(mids, w[..., 1:-1], self.n_fine, det=not stochastic).detach()
            z_all, _ = torch.sort(torch.cat([z, z_f], -1), -1)
            pts = rays_o[..., None, :] + rays_d[..., None, :] * z_all[..., :, None]
            out["rgb_fine"], out["depth_fine"], _ = self.render(self.fine, pts, z_all, rays_d)
        return out


# 10. PointNet++ set abstraction (FPS + ball query)
class PointNetSetAbstraction(nn.Module):
    def __init__(self, npoint=32, radius=0.4, nsample=8, in_channels=3, mlp=(16, 32)):
        super().__init__()
        self.npoint, self.radius, self.nsample = npoint, radius, nsample
        layers, last = [], 3 + in_channels
        for c in mlp:
            layers += [nn.Linear(last, c), nn.ReLU()]
            last = c
        self.mlp = nn.Sequential(*layers)

    def farthest_point_sample(self, xyz, npoint):
        B, N, _ = xyz.shape
        centroids = torch.zeros(B, npoint, dtype=torch.long, device=xyz.device)
        distance = torch.full((B, N), 1e10, device=xyz.device)
        if self.training:
            farthest = torch.randint(0, N, (B,), device=xyz.device)
        else:
            farthest = torch.zeros(B, dtype=torch.long, device=xyz.device)
        batch_idx = torch.arange(B, device=xyz.device)
        for i in range(npoint):
            centroids[:, i] = farthest
            centroid = xyz[batch_idx, farthest].view(B, 1, 3)
            distance = torch.minimum(distance, ((xyz - centroid) ** 2).sum(-1))
            farthest = distance.argmax(-1)
        return centroids

    def ball_query(self, xyz, new_xyz):
        B, N, _ = xyz.shape
        S = new_xyz.shape[1]
        sqrdists = torch.cdist(new_xyz, xyz) ** 2
        group_idx = torch.arange(N, device=xyz.device).view(1, 1, N).repeat(B, S, 1)
        group_idx[sqrdists > self.radius ** 2] = N
        group_idx = group_idx.sort(dim=-1)[0][:, :, :self.nsample]
        first = group_idx[:, :, :1].repeat(1, 1, group_idx.shape[-1])
        mask = group_idx == N
        group_idx[mask] = first[mask]
        return group_idx

    def forward(self, xyz, features=None):
        B, N, _ = xyz.shape
        npoint = self.npoint
        if N < npoint:
            logger.warning("only %d points, fewer than npoint=%d", N, npoint)
            npoint = N
        if features is None:
            features = xyz
        new_xyz = index_points(xyz, self.farthest_point_sample(xyz, npoint))
        idx = self.ball_query(xyz, new_xyz)
        grouped_xyz = (index_points(xyz, idx) - new_xyz.unsqueeze(2)) / self.radius
        grouped = torch.cat([grouped_xyz, index_points(features, idx)], dim=-1)
        return new_xyz, self.mlp(grouped).max(dim=2)[0]


# 11. dynamic voxelisation to a BEV canvas
class DynamicVoxelBEVEncoder(nn.Module):
    def __init__(self, voxel_size=(0.25, 0.25, 0.5), pc_range=(-2.0, -2.0, -1.0, 2.0, 2.0, 1.0),
                 in_channels=4, out_channels=16):
        super().__init__()
        self.voxel_size, self.pc_range = list(voxel_size), list(pc_range)
        grid = np.round((np.array(pc_range[3:]) - np.array(pc_range[:3])) / np.array(voxel_size))
        self.grid_size = grid.astype(np.int64).tolist()  # [nx, ny, nz]
        self.out_channels = out_channels
        self.pfn = nn.Sequential(nn.Linear(in_channels + 3, out_channels), nn.LayerNorm(out_channels), nn.ReLU())

    def forward(self, points_list: List[torch.Tensor]):
        nx, ny, nz = self.grid_size
        C = self.out_channels
        bev = []
        for b, pts in enumerate(points_list):
            lo = torch.tensor(self.pc_range[:3], dtype=pts.dtype, device=pts.device)
            vs = torch.tensor(self.voxel_size, dtype=pts.dtype, device=pts.device)
            coords = torch.floor((pts[:, :3] - lo) / vs).long()
            in_range = ((coords >= 0) & (coords < torch.tensor(self.grid_size, device=pts.device))).all(1)
            if not bool(in_range.all()):
                logger.debug("sample %d: dropping %d out-of-range points", b, int((~in_range).sum()))
            pts, coords = pts[in_range], coords[in_range]
            if pts.shape[0] == 0:
                bev.append(pts.new_zeros(C, ny, nx))
                continue
            flat = (coords[:, 2] * ny + coords[:, 1]) * nx + coords[:, 0]
            uniq, inv, counts = torch.unique(flat, return_inverse=True, return_counts=True)
            M = uniq.shape[0]
            mean_xyz = pts.new_zeros(M, 3).index_add_(0, inv, pts[:, :3]) / counts[:, None].to(pts.dtype)
            feat = self.pfn(torch.cat([pts, pts[:, :3] - mean_xyz[inv]], dim=1))
            voxel_feat = feat.new_zeros(M, C).scatter_reduce(0, inv[:, None].expand(-1, C), feat, reduce="amax",
                                                             include_self=False)
            bev_idx = uniq % (ny * nx)
            canvas = feat.new_zeros(C, ny * nx).scatter_reduce(1, bev_idx[None].expand(C, -1), voxel_feat.t(),
                                                              reduce="amax", include_self=True)
            bev.append(canvas.view(C, ny, nx))
        return torch.stack(bev)


# 12. LiDAR-to-camera projection with intrinsics as Python lists
class LidarCameraProjector(nn.Module):
    def __init__(self, intrinsics=None, image_size=(32, 32), feat_channels=8, min_depth=0.1):
        super().__init__()
        self.intrinsics = intrinsics or [[20.0, 0.0, 16.0], [0.0, 20.0, 16.0], [0.0, 0.0, 1.0]]
        self.image_size = image_size
        self.min_depth = min_depth
        self.conv = nn.Conv2d(3, feat_channels, 3, padding=1)

    def forward(self, image, points, extrinsics=None, intrinsics=None):
        K = torch.tensor(intrinsics if intrinsics is not None else self.intrinsics,
                         dtype=points.dtype, device=points.device)
        B, _, H, W = image.shape
        if (H, W) != tuple(self.image_size):
            K = K.clone()
            K[0] *= W / self.image_size[1]
            K[1] *= H / self.image_size[0]
        feats = self.conv(image)
        depth = image.new_zeros(B, 1, H, W)
        sampled = []
        for b in range(B):
            pts = points[b]
            if extrinsics is not None:
                T = extrinsics[b]
                pts = pts @ T[:3, :3].T + T[:3, 3]
            pts = pts[pts[:, 2] > self.min_depth]
            uvz = pts @ K.T
            u, v, z = uvz[:, 0] / uvz[:, 2], uvz[:, 1] / uvz[:, 2], pts[:, 2]
            ui, vi = u.round().long(), v.round().long()
            ok = (ui >= 0) & (ui < W) & (vi >= 0) & (vi < H)
            if ok.sum().item() == 0:
                sampled.append(feats.new_zeros(0, feats.shape[1]))
                continue
            u, v, z, ui, vi = u[ok], v[ok], z[ok], ui[ok], vi[ok]
            order = torch.argsort(z, descending=True)  # nearest written last
            depth[b, 0, vi[order], ui[order]] = z[order]
            grid = torch.stack([u / (W - 1) * 2 - 1, v / (H - 1) * 2 - 1], -1)[None, None]
            sampled.append(F.grid_sample(feats[b:b + 1], grid, align_corners=True)[0, :, 0].t())
        return depth, sampled


# 13. segmentation with flip / multi-scale test-time augmentation
class FlipTTASegmenter(nn.Module):
    def __init__(self, in_channels=3, num_classes=4, flips=("none", "hflip"), scales=(1.0,)):
        super().__init__()
        self.net = nn.Sequential(_conv_block(in_channels, 16), _conv_block(16, 16), nn.Conv2d(16, num_classes, 1))
        self.flips, self.scales = list(flips), list(scales)

    def forward(self, x, tta=None, scales=None):
        if tta is None:
            tta = not self.training
        if not tta:
            return self.net(x).softmax(1)
        H, W = x.shape[-2:]
        probs, n = 0.0, 0
        for s in scales or self.scales:
            xs = x if s == 1.0 else F.interpolate(x, size=(int(round(H * s)), int(round(W * s))),
                                                  mode="bilinear", align_corners=False)
            for flip in self.flips:
                dims = {"none": [], "hflip": [-1], "vflip": [-2]}[flip]
                xi = xs.flip(dims) if dims else xs
                out = self.net(xi)
                if dims:
                    out = out.flip(dims)
                if out.shape[-2:] != (H, W):
                    out = F.interpolate(out, size=(H, W), mode="bilinear", align_corners=False)
                probs = probs + out.softmax(1)
                n += 1
        return probs / n


# 14. sliding-window inference with gaussian importance
class SlidingWindowPredictor(nn.Module):
    def __init__(self, in_channels=3, num_classes=3, window=(16, 16), overlap=0.25, blend="gaussian"):
        super().__init__()
        self.net = nn.Sequential(_conv_block(in_channels, 8), nn.Conv2d(8, num_classes, 1))
        self.num_classes, self.window, self.overlap, self.blend = num_classes, tuple(window), overlap, blend
        self._importance_cache = {}

    def _importance(self, wh, ww, device):
        if (wh, ww) not in self._importance_cache:
            if self.blend == "gaussian":
                gy = np.exp(-0.5 * ((np.arange(wh) - (wh - 1) / 2) / (wh / 8)) ** 2)
                gx = np.exp(-0.5 * ((np.arange(ww) - (ww - 1) / 2) / (ww / 8)) ** 2)
                imp = np.outer(gy, gx)
                imp = np.maximum(imp / imp.max(), 1e-3)
            else:
                imp = np.ones((wh, ww))
            self._importance_cache[(wh, ww)] = torch.from_numpy(imp.astype(np.float32))
        return self._importance_cache[(wh, ww)].to(device)

    @staticmethod
    def _starts(size, win, stride):
        if size <= win:
            return [0]
        starts = list(range(0, size - win + 1, stride))
        if starts[-1] != size - win:
            starts.append(size - win)
        return starts

    def forward(self, image, overlap=None):
        B, _, H, W = image.shape
        wh, ww = self.window
        pad_h, pad_w = max(wh - H, 0), max(ww - W, 0)
        if pad_h or pad_w:
            image = F.pad(image, (0, pad_w, 0, pad_h))
        Hp, Wp = image.shape[-2:]
        ov = self.overlap if overlap is None else overlap
        sh, sw = max(int(wh * (1 - ov)), 1), max(int(ww * (1 - ov)), 1)
        imp = self._importance(wh, ww, image.device)
        out = image.new_zeros(B, self.num_classes, Hp, Wp)
        count = image.new_zeros(1, 1, Hp, Wp)
        for y in self._starts(Hp, wh, sh):
            for x in self._starts(Wp, ww, sw):
                logits = self.net(image[:, :, y:y + wh, x:x + ww])
                out[:, :, y:y + wh, x:x + ww] += logits * imp
                count[:, :, y:y + wh, x:x + ww] += imp
        return (out / count)[:, :, :H, :W]


# 15. packed variable-resolution patch tokens (NaViT-style)
class PackedPatchEncoder(nn.Module):
    def __init__(self, in_channels=3, patch_size=4, dim=32, max_grid=8, num_heads=4, token_drop=0.0):
        super().__init__()
        self.patch_size, self.max_grid, self.token_drop = patch_size, max_grid, token_drop
        self.proj = nn.Linear(in_channels * patch_size * patch_size, dim)
        self.pos_h = nn.Embedding(max_grid, dim)
        self.pos_w = nn.Embedding(max_grid, dim)
        self.attn = nn.MultiheadAttention(dim, num_heads, batch_first=True)
        self.norm = nn.LayerNorm(dim)

    def forward(self, images: List[torch.Tensor], token_drop: Optional[float] = None):
        p = self.patch_size
        drop = self.token_drop if token_drop is None else token_drop
        tokens, seq_ids = [], []
        for i, img in enumerate(images):
            _, H, W = img.shape
            gh, gw = H // p, W // p
            if gh > self.max_grid or gw > self.max_grid:
                warnings.warn(f"image {i} of size {H}x{W} exceeds max grid, resizing")
                gh, gw = min(gh, self.max_grid), min(gw, self.max_grid)
                img = F.interpolate(img[None], size=(gh * p, gw * p), mode="bilinear", align_corners=False)[0]
            img = img[:, :gh * p, :gw * p]
            patches = img.unfold(1, p, p).unfold(2, p, p).permute(1, 2, 0, 3, 4).reshape(gh * gw, -1)
            ys, xs = torch.meshgrid(torch.arange(gh), torch.arange(gw), indexing="ij")
            x = self.proj(patches) + self.pos_h(ys.flatten()) + self.pos_w(xs.flatten())
            if self.training and drop > 0:
                keep = max(1, int(x.shape[0] * (1 - drop)))
                x = x[torch.randperm(x.shape[0])[:keep]]
            tokens.append(x)
            seq_ids.append(torch.full((x.shape[0],), i, dtype=torch.long))
        packed = torch.cat(tokens)[None]
        ids = torch.cat(seq_ids)
        mask = ids[:, None] != ids[None, :]
        out, _ = self.attn(packed, packed, packed, attn_mask=mask)
        out = self.norm(out + packed)[0]
        return torch.stack([out[ids == i].mean(0) for i in range(len(images))])


# 16. multi-scale deformable attention sampling
class MultiScaleDeformableAttention(nn.Module):
    def __init__(self, dim=16, num_heads=2, num_levels=2, num_points=4):
        super().__init__()
        self.h, self.l, self.p = num_heads, num_levels, num_points
        self.sampling_offsets = nn.Linear(dim, num_heads * num_levels * num_points * 2)
        self.attention_weights = nn.Linear(dim, num_heads * num_levels * num_points)
        self.ref_head = nn.Linear(dim, 2)
        self.value_proj = nn.Linear(dim, dim)
        self.output_proj = nn.Linear(dim, dim)

    @staticmethod
    def reference_points(spatial_shapes, device):
        refs = []
        for H, W in spatial_shapes:
            ys, xs = torch.meshgrid(torch.linspace(0.5, H - 0.5, H, device=device),
                                    torch.linspace(0.5, W - 0.5, W, device=device), indexing="ij")
            refs.append(torch.stack([xs.reshape(-1) / W, ys.reshape(-1) / H], -1))
        return torch.cat(refs, 0)

    def forward(self, feats: List[torch.Tensor], query=None):
        assert len(feats) == self.l, f"expected {self.l} levels"
        spatial_shapes = [tuple(f.shape[-2:]) for f in feats]
        src = torch.cat([f.flatten(2).transpose(1, 2) for f in feats], 1)
        B, S, C = src.shape
        if query is None:
            query = src
            ref = self.reference_points(spatial_shapes, src.device)[None].expand(B, -1, -1)
        else:
            ref = self.ref_head(query).sigmoid()
        Lq, hd = query.shape[1], C // self.h
        value = self.value_proj(src).view(B, S, self.h, hd)
        offsets = self.sampling_offsets(query).view(B, Lq, self.h, self.l, self.p, 2)
        attw = self.attention_weights(query).view(B, Lq, self.h, self.l * self.p).softmax(-1)
        normalizer = torch.tensor([[w, h] for h, w in spatial_shapes], dtype=query.dtype, device=query.device)
        loc = ref[:, :, None, None, None, :] + offsets / normalizer[None, None, None, :, None, :]
        grids = 2 * loc - 1
        value_list = value.split([h * w for h, w in spatial_shapes], dim=1)
        sampled = []
        for lvl, (h, w) in enumerate(spatial_shapes):
            v = value_list[lvl].permute(0, 2, 3, 1).reshape(B * self.h, hd, h, w)
            g = grids[:, :, :, lvl].permute(0, 2, 1, 3, 4).reshape(B * self.h, Lq, self.p, 2)
            sampled.append(F.grid_sample(v, g, mode="bilinear", padding_mode="zeros", align_corners=False))
        sampled = torch.stack(sampled, -2).flatten(-2)
        w = attw.permute(0, 2, 1, 3).reshape(B * self.h, 1, Lq, self.l * self.p)
        out = (sampled * w).sum(-1).view(B, C, Lq).transpose(1, 2)
        return self.output_proj(out)


# 17. keypoint heatmap head with argmax decoding
class HeatmapKeypointHead(nn.Module):
    def __init__(self, in_channels=16, num_joints=5, stride=4, flip_pairs=((1, 2), (3, 4))):
        super().__init__()
        self.head = nn.Sequential(_conv_block(in_channels, 16), nn.Conv2d(16, num_joints, 1))
        self.stride = stride
        flip_index = list(range(num_joints))
        for a, b in flip_pairs:
            flip_index[a], flip_index[b] = b, a
        self.flip_index = flip_index

    def decode(self, heatmaps):
        B, J, H, W = heatmaps.shape
        flat_idx = heatmaps.flatten(2).argmax(-1).tolist()
        hm = heatmaps.detach().cpu().numpy()
        coords = np.zeros((B, J, 2), dtype=np.float32)
        scores = np.zeros((B, J), dtype=np.float32)
        for b in range(B):
            for j in range(J):
                y, x = divmod(flat_idx[b][j], W)
                m = hm[b, j]
                px, py = float(x), float(y)
                if 0 < x < W - 1 and 0 < y < H - 1:
                    px += 0.25 * np.sign(m[y, x + 1] - m[y, x - 1])
                    py += 0.25 * np.sign(m[y + 1, x] - m[y - 1, x])
                coords[b, j] = (px * self.stride, py * self.stride)
                scores[b, j] = m[y, x]
        return torch.from_numpy(coords), torch.from_numpy(scores)

    def forward(self, feats, flip_test=False, score_thresh=0.1):
        hm = self.head(feats)
        if flip_test:
            hm_f = self.head(feats.flip(-1)).flip(-1)[:, self.flip_index]
            hm = 0.5 * (hm + hm_f)
        coords, scores = self.decode(hm.sigmoid())
        visible = scores > score_thresh
        if visible.sum().item() == 0:
            logger.info("no keypoints above %.2f", score_thresh)
        return hm, coords, scores, visible
