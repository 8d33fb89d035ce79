"""Targets for bench/user_patterns.py: training_machinery.py."""
import torch
import training_machinery as m


def _x(*s):
    return torch.randn(*s)


def target_scheduled_loss_wrapper():
    return m.ScheduledLossWrapper(), [(_x(4, 16), torch.randint(0, 5, (4,))), (_x(6, 16), torch.randint(0, 5, (6,))),
                                      (_x(4, 16), torch.randint(0, 5, (4,)))]


def target_distillation_loss():
    return m.DistillationLoss(), [(_x(4, 16), torch.randint(0, 6, (4,))), (_x(6, 16), torch.randint(0, 6, (6,)), 4.0),
                                  (_x(4, 16), torch.randint(0, 6, (4,)), 1.0)]


def target_moco_queue():
    return m.MoCoQueue(), [(_x(4, 16), _x(4, 16)), (_x(8, 16), _x(8, 16)), (_x(6, 16), _x(6, 16)), (_x(8, 16), _x(8, 16))]


def target_prototype_memory():
    return m.PrototypeMemory(), [(_x(6, 16), torch.randint(0, 5, (6,))), (_x(8, 16), torch.randint(0, 5, (8,))),
                                 (_x(6, 16), torch.randint(0, 5, (6,)))]


def target_seq_len_curriculum():
    return m.SeqLenCurriculum(), [(_x(2, 20, 16),), (_x(2, 20, 16),), (_x(3, 24, 16), 3), (_x(2, 12, 16), 1)]


def target_selective_checkpoint_stack():
    return m.SelectiveCheckpointStack(), [(_x(2, 5, 16),), (_x(3, 7, 16),)]


def target_metric_tracking_classifier():
    return m.MetricTrackingClassifier(), [(_x(4, 16), torch.randint(0, 4, (4,))), (_x(6, 16), torch.randint(0, 4, (6,))),
                                          (_x(4, 16), torch.randint(0, 4, (4,)))]


def target_class_balanced_focal_loss():
    return m.ClassBalancedFocalLoss(), [(_x(6, 4), torch.randint(0, 4, (6,))), (_x(8, 4), torch.randint(0, 4, (8,)), 1.0),
                                        (_x(6, 4), torch.randint(0, 4, (6,)), 3.0)]


def target_focal_loss():
    return m.FocalLoss(), [(_x(6, 3), torch.randint(0, 2, (6, 3)).float()), (_x(10, 3), torch.randint(0, 2, (10, 3)).float())]


def target_sim_clr_loss():
    return m.SimCLRLoss(), [(_x(4, 16), _x(4, 16)), (_x(6, 16), _x(6, 16))]


def target_info_nce():
    return m.InfoNCE(), [(_x(4, 8), _x(4, 8)), (_x(7, 8), _x(7, 8))]


def target_amp_loss_scaler():
    return m.AmpLossScaler(), [(_x(4, 16), torch.randint(0, 4, (4,))), (_x(6, 16), torch.randint(0, 4, (6,))),
                               (_x(4, 16), torch.randint(0, 4, (4,))), (_x(4, 16), torch.randint(0, 4, (4,)))]


def target_scheduled_drop_path_net():
    return m.ScheduledDropPathNet(), [(_x(2, 5, 16),), (_x(3, 5, 16),), (_x(2, 7, 16),)]


def target_hard_example_mining_loss():
    return m.HardExampleMiningLoss(), [(_x(8, 16), torch.randint(0, 5, (8,))), (_x(10, 16), torch.randint(0, 5, (10,)), 0.3),
                                       (_x(8, 16), torch.randint(0, 5, (8,)), 0.75)]


def target_aux_loss_collector():
    return m.AuxLossCollector(), [(_x(6, 16),), (_x(9, 16),)]


def target_activation_stats_recorder():
    return m.ActivationStatsRecorder(), [(_x(4, 16),), (_x(6, 16),)]


def target_early_exit_classifier():
    mod = m.EarlyExitClassifier().eval()
    return mod, [(_x(2, 16),), (_x(3, 16), 0.5), (_x(2, 16), 0.34)]


def target_non_finite_loss_guard():
    bad = _x(4, 16)
    bad[0, 0] = float("nan")
    return m.NonFiniteLossGuard(), [(_x(4, 16), _x(4)), (bad, _x(4)), (_x(6, 16), _x(6))]


def target_centered_self_distillation():
    return m.CenteredSelfDistillation(), [(_x(4, 16), _x(4, 8)), (_x(6, 16), _x(6, 8))]
