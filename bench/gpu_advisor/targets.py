"""Targets of the GPU advisor bench: six real models (and one fixed by hand), three input
sets each (the later ones change the batch, to show recompiles)."""

from __future__ import annotations

import torch

from models import GAT, ClassifierWithMetric, ODEBlock, PrintingMLP, PrintingMLPFixed


def _seed() -> None:
    torch.manual_seed(0)


def target_timm_sequencer2d_s():
    import timm

    _seed()
    model = timm.create_model("sequencer2d_s", pretrained=False).eval()
    return model, [(torch.randn(b, 3, 224, 224),) for b in (8, 8, 16)]


def target_torchvision_resnet18():
    import torchvision

    _seed()
    model = torchvision.models.resnet18().eval()
    return model, [(torch.randn(b, 3, 224, 224),) for b in (32, 32, 64)]


def target_transformers_gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel

    _seed()
    model = GPT2LMHeadModel(GPT2Config(n_layer=4, n_embd=512, n_head=8, vocab_size=8192)).eval()
    model.config.use_cache = False
    return model, [(torch.randint(0, 8192, (b, t)),) for b, t in ((8, 128), (8, 128), (8, 192))]


def target_torchdiffeq_ode_block():
    _seed()
    return ODEBlock().eval(), [(torch.randn(b, 64),) for b in (256, 256, 512)]


def target_pyg_gat():
    _seed()
    def graph(nodes: int) -> tuple[torch.Tensor, torch.Tensor]:
        return torch.randn(nodes, 32), torch.randint(0, nodes, (2, nodes * 8))
    return GAT().eval(), [graph(n) for n in (2000, 2000, 3000)]


def target_torchmetrics_accuracy():
    _seed()
    return ClassifierWithMetric().eval(), [(torch.randn(b, 256), torch.randint(0, 10, (b,))) for b in (512, 512, 1024)]


def target_printing_mlp():
    _seed()
    return PrintingMLP().eval().to(torch.bfloat16), [(torch.randn(b, 1024, dtype=torch.bfloat16),) for b in (256, 256, 512)]


def target_printing_mlp_fixed():
    """The same model with the print guarded by torch.compiler.is_compiling() (what --fix does)."""
    _seed()
    model = PrintingMLPFixed().eval().to(torch.bfloat16)
    return model, [(torch.randn(b, 1024, dtype=torch.bfloat16),) for b in (256, 256, 512)]


# -- fixed by hand, where --fix has no fix -----------------------------------------------
def target_timm_sequencer2d_s_fixed():
    """Each nn.LSTM kept out of the compiled region (torch.compiler.disable on its forward)."""
    import timm

    from models import keep_lstms_eager

    _seed()
    model = keep_lstms_eager(timm.create_model("sequencer2d_s", pretrained=False).eval())
    return model, [(torch.randn(b, 3, 224, 224),) for b in (8, 8, 16)]


def target_torchdiffeq_ode_block_fixed():
    """The solver eager, its dynamics compiled (torch.unique in the solver's set-up)."""
    from models import ODEBlockFixed

    _seed()
    return ODEBlockFixed().eval(), [(torch.randn(b, 64),) for b in (256, 256, 512)]


def target_pyg_gat_fixed(device="cpu"):
    """Self-loops added once outside the model; nodes and edges marked dynamic."""
    from torch_geometric.utils import add_self_loops, remove_self_loops

    from models import GATFixed

    _seed()

    def graph(nodes: int) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.randn(nodes, 32, device=device)
        edges = torch.randint(0, nodes, (2, nodes * 8), device=device)
        edges = add_self_loops(remove_self_loops(edges)[0], num_nodes=nodes)[0]
        torch._dynamo.maybe_mark_dynamic(x, 0)  # "maybe": no error if Dynamo must specialise it
        torch._dynamo.maybe_mark_dynamic(edges, 1)
        return x, edges

    return GATFixed().to(device).eval(), [graph(n) for n in (2000, 2000, 3000)]


def target_timm_sequencer2d_s_allow_rnn():
    """Dynamo traces the LSTMs (torch._dynamo.config.allow_rnn): keeping them eager does not
    remove the break, which comes at the LSTM module's call (measured on torch 2.13, CPU)."""
    import timm

    torch._dynamo.config.allow_rnn = True
    _seed()
    model = timm.create_model("sequencer2d_s", pretrained=False).eval()
    return model, [(torch.randn(b, 3, 224, 224),) for b in (8, 8, 16)]
