"""GPU fault targets for bench/verify_gpu.sh (reliability.md §4.6, the CUDA rows).

Each runs in its own process, so the poisoned CUDA context of the device-side assert
cannot reach the healthy target after it.
"""

import torch


def _allocate_64_tib(x):
    return torch.empty(1 << 46, dtype=torch.uint8, device=x.device)


def target_cuda_oom(device: str = "cuda"):
    return _allocate_64_tib, [(torch.ones(2, device=device),)]


def _out_of_bounds(x):
    y = x[torch.tensor([100], device=x.device)]
    torch.cuda.synchronize()
    return y


def target_device_side_assert(device: str = "cuda"):
    return _out_of_bounds, [(torch.zeros(10, device=device),)]


def _healthy(x):
    return torch.nn.functional.gelu(x @ x.T).sum(dim=-1)


def target_healthy_after_faults(device: str = "cuda"):
    return _healthy, [(torch.randn(256, 256, device=device),)]
