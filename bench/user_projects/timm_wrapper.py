"""Image classifiers built on timm backbones."""
import timm
import torch
from timm.models.vision_transformer import VisionTransformer
from torch import nn


class Classifier(nn.Module):
    def __init__(self, classes=5):
        super().__init__()
        self.backbone = timm.create_model("resnet18", pretrained=False, num_classes=0)
        self.head = nn.Linear(self.backbone.num_features, classes)

    def forward(self, x):
        return self.head(self.backbone(x))


class TinyViT(nn.Module):
    def __init__(self, classes=5):
        super().__init__()
        self.vit = VisionTransformer(img_size=32, patch_size=8, embed_dim=32, depth=2, num_heads=2, num_classes=0)
        self.head = nn.Linear(32, classes)

    def forward(self, x):
        feats = self.vit.forward_features(x)
        return self.head(self.vit.forward_head(feats, pre_logits=True))
