"""An MLP-Mixer written with einops."""
import torch
from einops import rearrange, reduce
from torch import nn


class MixerBlock(nn.Module):
    def __init__(self, tokens, dim):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.token_mlp = nn.Sequential(nn.Linear(tokens, tokens), nn.GELU(), nn.Linear(tokens, tokens))
        self.norm2 = nn.LayerNorm(dim)
        self.channel_mlp = nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))

    def forward(self, x):
        y = rearrange(self.norm1(x), "b n d -> b d n")
        x = x + rearrange(self.token_mlp(y), "b d n -> b n d")
        return x + self.channel_mlp(self.norm2(x))


class Mixer(nn.Module):
    def __init__(self, patch=4, image=16, dim=32, depth=2, classes=10):
        super().__init__()
        self.patch = patch
        tokens = (image // patch) ** 2
        self.embed = nn.Linear(3 * patch * patch, dim)
        self.blocks = nn.ModuleList([MixerBlock(tokens, dim) for _ in range(depth)])
        self.head = nn.Linear(dim, classes)

    def forward(self, img):
        x = rearrange(img, "b c (h p1) (w p2) -> b (h w) (p1 p2 c)", p1=self.patch, p2=self.patch)
        x = self.embed(x)
        for block in self.blocks:
            x = block(x)
        return self.head(reduce(x, "b n d -> b d", "mean"))
