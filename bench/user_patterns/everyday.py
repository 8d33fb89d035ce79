"""Everyday model code: tensors in Python builtins, text, storages, properties, data-dependent
shapes (bench/user_patterns.py)."""

import copy
import functools
import inspect
import math
import operator
import os
import random
import time

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(4))

    @property
    def gain(self):
        return float(self.w.max())

    def forward(self, x):
        return x * self.gain


class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = Scaled()

    def forward(self, x):
        return x + self.inner.gain


class TorchEqual(nn.Module):
    def forward(self, x, y):
        if torch.equal(x, y):
            return x
        return x + y


class AllClose(nn.Module):
    def forward(self, x, y):
        if torch.allclose(x, y):
            return x
        return x - y


class Categorical(nn.Module):
    def forward(self, logits):
        dist = torch.distributions.Categorical(logits=logits)
        return dist.log_prob(torch.zeros(logits.shape[0], dtype=torch.long))


class NormalDist(nn.Module):
    def forward(self, mu):
        dist = torch.distributions.Normal(mu, torch.ones_like(mu))
        return dist.log_prob(mu)


class HookInForward(nn.Module):
    def forward(self, x):
        y = x * 2
        if y.requires_grad:
            y.register_hook(lambda g: g * 2)
        return y + 1


class SignatureInForward(nn.Module):
    def helper(self, x, scale=2):
        return x * scale

    def forward(self, x):
        params = inspect.signature(self.helper).parameters
        return self.helper(x, **{k: 3 for k in params if k == "scale"})


class PackPadded(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.Linear(4, 4)

    def forward(self, x, lengths):
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, _ = nn.utils.rnn.pad_packed_sequence(packed, batch_first=True)
        return self.gru(out)


class FStringTensor(nn.Module):
    def forward(self, x):
        name = f"value={x.sum()}"
        return x * len(name)


class ReprTensor(nn.Module):
    def forward(self, x):
        text = str(x.mean())
        return x + len(text)


class ManualSeed(nn.Module):
    def forward(self, x):
        torch.manual_seed(0)
        return x + torch.rand_like(x)


class RandomShuffle(nn.Module):
    def forward(self, x):
        idx = list(range(x.shape[0]))
        random.shuffle(idx)
        return x[idx]


class EnvLookup(nn.Module):
    def forward(self, x):
        if os.environ.get("COMPILELINT_PROBE_FLAG"):
            return x * 2
        return x + 1


class PerfCounter(nn.Module):
    def forward(self, x):
        t0 = time.perf_counter()
        y = x * 2
        self.elapsed = time.perf_counter() - t0
        return y


class MathIsnan(nn.Module):
    def forward(self, x):
        s = x.sum()
        if math.isnan(s):
            return torch.zeros_like(x)
        return x


class TolistSet(nn.Module):
    def forward(self, x):
        labels = x.argmax(-1)
        n = len(set(labels.tolist()))
        return x * n


class JitScriptHelper(nn.Module):
    def forward(self, x):
        return scripted_add(x, x)


@torch.jit.script
def scripted_add(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return a + b


class ReentrantCheckpoint(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        return torch.utils.checkpoint.checkpoint(self.lin, x, use_reentrant=True)


class ApplyInPlace(nn.Module):
    def forward(self, x):
        y = x.clone()
        y.apply_(lambda v: v * 2)
        return y


class IsNonzero(nn.Module):
    def forward(self, x):
        if x.sum().is_nonzero():
            return x
        return -x


class RegisterBufferInForward(nn.Module):
    def forward(self, x):
        self.register_buffer("last", x.detach())
        return x * 2


class DeepcopyTensor(nn.Module):
    def forward(self, x):
        y = copy.deepcopy(x)
        return y + 1


class CopyModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)

    def forward(self, x):
        clone = copy.copy(self.lin)
        return clone(x)


class NumpyPercentile(nn.Module):
    def forward(self, x):
        q = np.percentile(x.detach().numpy(), 90)
        return x.clamp(max=float(q))


class FromNumpy(nn.Module):
    def forward(self, x):
        mask = torch.from_numpy(np.tril(np.ones((x.shape[-1], x.shape[-1]), dtype=np.float32)))
        return x @ mask


class NewTensorFromList(nn.Module):
    def forward(self, x):
        sizes = [int(s) for s in x.shape]
        return x.new_tensor(sizes).sum() + x


class StorageAccess(nn.Module):
    def forward(self, x):
        if x.data_ptr() == 0:
            return x
        return x + 1


class GradAccess(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(4))

    def forward(self, x):
        if self.w.grad is not None:
            return x * self.w.grad
        return x * self.w


class TrainingFlagFlip(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return x * self.calls


class ReduceShape(nn.Module):
    def forward(self, x):
        n = functools.reduce(operator.mul, x.shape[1:], 1)
        return x.reshape(x.shape[0], n)


class SortedByValue(nn.Module):
    def forward(self, x):
        parts = list(x.unbind(0))
        parts = sorted(parts, key=lambda t: t.sum())
        return torch.stack(parts)


class TopkThenIndex(nn.Module):
    def forward(self, x):
        k = int((x > 0).sum())
        return x.topk(max(k, 1)).values


class Multinomial(nn.Module):
    def forward(self, probs):
        return torch.multinomial(probs.softmax(-1), 1)


class IsinMask(nn.Module):
    def forward(self, x):
        keep = torch.isin(x.argmax(-1), torch.tensor([0, 1]))
        return x[keep]


class HistcHelper(nn.Module):
    def forward(self, x):
        return torch.histc(x, bins=4)


class SplitBySizes(nn.Module):
    def forward(self, x, sizes):
        return torch.split(x, sizes.tolist())


class RepeatInterleave(nn.Module):
    def forward(self, x, counts):
        return torch.repeat_interleave(x, counts, dim=0)


class BoolMaskAssign(nn.Module):
    def forward(self, x):
        y = x.clone()
        y[y < 0] = 0
        return y


class MaskedFillScalar(nn.Module):
    def forward(self, x):
        fill = x.min().item()
        return x.masked_fill(x > 0, fill)


class DictOfModules(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({"a": nn.Linear(4, 4), "b": nn.Linear(4, 4)})

    def forward(self, x):
        outs = {name: head(x) for name, head in self.heads.items()}
        return sum(outs.values())


class WhileConverge(nn.Module):
    def forward(self, x):
        i = 0
        while (x.abs() > 1).any() and i < 10:
            x = x / 2
            i += 1
        return x


class NonzeroLoop(nn.Module):
    def forward(self, x):
        out = torch.zeros_like(x)
        for i in torch.nonzero(x[:, 0] > 0).flatten():
            out[i] = x[i]
        return out
