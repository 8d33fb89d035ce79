"""Healthy verifier targets over hazards.py: every one of them runs (status ok)."""

import torch
from hazards import BranchModel, PrintModel, SideEffects, Stateful, Unflagged, checked, scalar_and_mask

from compilelint.verify.targets import target


def target_print():
    return PrintModel().eval(), [(torch.randn(2, 8),)]


@target
def branch():
    return BranchModel(), [(torch.ones(4),)]


def target_scalar_and_mask():
    return scalar_and_mask, [(torch.randn(16),)]


def target_checked():
    return checked, [(torch.randn(8),)]


def target_side_effects():
    return SideEffects(), [(torch.randn(4),), ((torch.randn(4),), {"debug": False})]


def target_unflagged():
    return Unflagged(), [(torch.randn(4),)]


def target_stateful():
    return Stateful(), [(torch.ones(3),), (torch.ones(3),), (torch.ones(3),)]
