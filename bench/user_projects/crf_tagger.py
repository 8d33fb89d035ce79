"""A BiLSTM-CRF tagger; decoding is compiled on its own, as users do to speed up inference."""
import torch
from torch import nn
from torchcrf import CRF


class Tagger(nn.Module):
    def __init__(self, vocab=50, dim=16, tags=5):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.lstm = nn.LSTM(dim, dim, batch_first=True, bidirectional=True)
        self.proj = nn.Linear(2 * dim, tags)
        self.crf = CRF(tags, batch_first=True)

    def forward(self, tokens, tags, mask):
        emissions = self.proj(self.lstm(self.embed(tokens))[0])
        return -self.crf(emissions, tags, mask=mask, reduction="mean")

    def emissions(self, tokens):
        return self.proj(self.lstm(self.embed(tokens))[0])


def build_decoder(tags=5):
    crf = CRF(tags, batch_first=True)
    decode = torch.compile(crf.decode)
    return crf, decode
