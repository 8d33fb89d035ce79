"""bench/verify_model.py fixed by hand, as `compilelint --fix --unsafe-fixes` should fix it:
the print guarded (CL101, safe), the clamp branch turned into torch.where (CL103, unsafe:
both arms are computed). bench/verify_gpu.sh uses this copy when --fix does not exist yet.
"""

import torch
import torch.nn.functional as F
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int, heads: int, index: int, clip: float = 30.0) -> None:
        super().__init__()
        self.heads = heads
        self.index = index
        self.clip = clip
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, 4 * dim)
        self.fc2 = nn.Linear(4 * dim, dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, dim = x.shape
        if not torch.compiler.is_compiling():
            print("block", self.index, "input", tuple(x.shape))
        qkv = self.qkv(self.norm1(x)).view(batch, length, 3, self.heads, dim // self.heads)
        q, k, v = qkv.permute(2, 0, 3, 1, 4)
        attn = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(attn.transpose(1, 2).reshape(batch, length, dim))
        h = self.fc2(F.gelu(self.fc1(self.norm2(x))))
        h = torch.where(h.abs().amax() > self.clip, h.clamp(-self.clip, self.clip), h)
        return x + h


class TinyTransformer(nn.Module):
    def __init__(self, dim: int, heads: int, layers: int) -> None:
        super().__init__()
        self.blocks = nn.ModuleList(Block(dim, heads, i) for i in range(layers))
        self.norm = nn.LayerNorm(dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for block in self.blocks:
            x = block(x)
        return self.norm(x)
