"""Targets for bench/user_patterns.py: time_series_and_forecasting.py."""
import torch
import time_series_and_forecasting as m


def _x(*s):
    return torch.randn(*s)


def _with_nans(*s, p=0.2):
    x = torch.randn(*s)
    x[torch.rand(*s) < p] = float("nan")
    return x


def _hourly(b, length, start=1_700_000_000, step=3600):
    return start + torch.arange(length, dtype=torch.long).unsqueeze(0).repeat(b, 1) * step


def target_sliding_window_encoder():
    return m.SlidingWindowEncoder(), [(_x(4, 40, 4),), (_x(2, 64, 4),), (_x(4, 40, 4), 4), (_x(3, 10, 4),)]


def target_revin():
    return m.RevIN(3), [(_x(4, 32, 3), "norm"), (_x(4, 8, 3), "denorm"),
                        (_x(2, 48, 3), "norm"), (_x(2, 12, 3), "denorm")]


def target_dlinear():
    return m.DLinear(individual=True), [(_x(4, 48, 3),), (_x(2, 60, 3),), (_x(4, 40, 3),)]


def target_deepar_sampler():
    return m.DeepARSampler(), [(_x(4, 24), _x(4, 24, 2), _x(4, 6, 2)),
                               (_x(2, 32), _x(2, 32, 2), _x(2, 8, 2), 20),
                               (_x(4, 24), _x(4, 24, 2), _x(4, 6, 2))]


def target_quantile_loss():
    mask = (torch.rand(2, 8) > 0.3).float()
    return m.QuantileLoss(), [(_x(4, 12, 3), _x(4, 12)), (_x(2, 8, 3), _x(2, 8), mask), (_x(6, 12, 3), _x(6, 12))]


def target_missing_value_imputer():
    return m.MissingValueImputer(), [(_with_nans(4, 20, 3),), (_x(4, 20, 3),), (_with_nans(2, 32, 3, p=0.6),)]


def target_lag_feature_forecaster():
    return m.LagFeatureForecaster(), [(_x(4, 30),), (_x(2, 10),), (_x(4, 30), [1, 7]), (_x(8, 30),)]


def target_calendar_feature_embedding():
    return m.CalendarFeatureEmbedding(), [(_x(4, 24), _hourly(4, 24)), (_x(2, 16), _hourly(2, 16, step=86400)),
                                          (_x(4, 24), _hourly(4, 24), "d")]


def target_nbeats_block():
    return m.NBeatsBlock(basis="seasonality"), [(_x(4, 32),), (_x(6, 32),)]


def target_nbeats_net():
    return m.NBeatsNet(), [(_x(4, 32),), (_x(2, 40),), (_x(4, 32), True)]


def target_patchtst():
    return m.PatchTST().eval(), [(_x(4, 48, 3),), (_x(2, 44, 3),), (_x(4, 64, 3),), (_x(2, 80, 3),)]


def target_causal_tcn():
    return m.CausalTCN(), [(_x(4, 32, 2),), (_x(2, 48, 2),), (_x(4, 10, 2),)]


def target_seq2seq_forecaster():
    return m.Seq2SeqForecaster(), [(_x(4, 24, 2), 8), (_x(2, 32, 2), 12, _x(2, 12)), (_x(4, 24, 2), 4)]


def target_context_max_scaled_mlp():
    ctx = _x(4, 32)
    ctx[1] = 0.0
    mask = (torch.rand(2, 24) > 0.2).float()
    return m.ContextMaxScaledMLP(), [(_x(4, 32),), (ctx,), (_x(2, 24), mask), (_x(6, 40),)]


def target_fourier_feature_forecaster():
    return m.FourierFeatureForecaster(), [(_x(4, 48),), (_x(4, 48), 48), (_x(2, 32), 100, 12)]


def target_reconstruction_anomaly_scorer():
    spiky = _x(8, 16, 4)
    spiky[:5] *= 10.0
    return m.ReconstructionAnomalyScorer(), [(_x(4, 16, 4),), (spiky,), (_x(6, 16, 4), 2.5)]


def target_kalman_smoother():
    mask = torch.rand(2, 24) > 0.25
    return m.KalmanSmoother(), [(_x(4, 20),), (_x(2, 24), mask), (_x(4, 20), None, False)]


def target_dtw_distance():
    return m.DTWDistance(gamma=0.1), [(_x(2, 10, 3), _x(2, 12, 3)), (_x(4, 8, 3), _x(4, 8, 3), 2),
                                      (_x(2, 12, 3), _x(2, 6, 3), 3)]


def target_multi_horizon_early_exit():
    return m.MultiHorizonEarlyExit(), [(_x(4, 24), 6), (_x(2, 24), 3), (_x(4, 24), 12, True), (_x(8, 24), 1, False)]
