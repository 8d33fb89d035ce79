"""Targets for bench/user_patterns.py: science_and_control.py."""
import torch
import science_and_control as m


def _x(*s):
    return torch.randn(*s)


def _cov(b, n):
    return torch.eye(n).expand(b, n, n).clone()


def _obs_with_gap(b, k):
    obs = torch.randn(b, k)
    obs[0, -1] = float("nan")
    return obs


def _mask(b, n):
    mask = torch.rand(b, n) > 0.4
    mask[:, 0] = True
    return mask


def target_heat_pinn():
    return m.HeatPINN(), [(torch.rand(16, 1), torch.rand(16, 1)), (torch.rand(24, 1), torch.rand(24, 1))]


def target_burgers_pinn():
    return m.BurgersPINN(), [
        (_x(16, 2),),
        (_x(20, 2), _x(6, 2), _x(6, 1)),
        (_x(12, 2), _x(4, 2)),
    ]


def target_rk4_ode_block():
    return m.RK4ODEBlock(), [
        (_x(4, 8),),
        (_x(6, 8), 0.0, 0.5, 5),
        (_x(4, 8), 0.0, 1.0, 8, True),
    ]


def target_adaptive_ode_block():
    return m.AdaptiveODEBlock(), [(_x(4, 8),), (_x(6, 8), 0.5), (_x(4, 8), 1.0, 0.05)]


def target_hamiltonian_nn():
    return m.HamiltonianNN(), [
        (_x(4, 2), _x(4, 2)),
        (_x(6, 2), _x(6, 2), 0.05, 3),
        (_x(4, 2), _x(4, 2), 0.2, 4),
    ]


def target_kalman_filter_step():
    return m.KalmanFilterStep(ctrl_dim=1), [
        (_x(3, 4), _cov(3, 4), _x(3, 2)),
        (_x(5, 4), _cov(5, 4), _obs_with_gap(5, 2), _x(5, 1)),
        (_x(2, 4), _cov(2, 4), _x(2, 2), _x(2, 1)),
    ]


def target_langevin_sampler():
    return m.LangevinSampler(), [(_x(8, 2),), (_x(12, 2), 5, 0.05), (_x(8, 2), 8, 0.01, 0.0)]


def target_metropolis_step():
    return m.MetropolisStep(), [(_x(8, 3),), (_x(12, 3), 0.5), (_x(8, 3), 2.0)]


def target_masked_actor_critic():
    return m.MaskedActorCritic(), [
        (_x(4, 8), _mask(4, 5)),
        (_x(6, 8), _mask(6, 5)),
        (_x(3, 8), _mask(3, 5), True),
    ]


def target_epsilon_greedy_q_net():
    return m.EpsilonGreedyQNet(), [(_x(4, 6),), (_x(8, 6),), (_x(4, 6), False)]


def target_gae_returns():
    return m.GAEReturns(), [
        (_x(5, 3), _x(5, 3), torch.rand(5, 3) < 0.2, _x(3)),
        (_x(8, 4), _x(8, 4), torch.rand(8, 4) < 0.2, _x(4)),
        (_x(6, 2), _x(6, 2), torch.zeros(6, 2, dtype=torch.bool), _x(2)),
    ]


def target_monte_carlo_value_loss():
    return m.MonteCarloValueLoss(), [(_x(10, 6), _x(10)), (_x(15, 6), _x(15), 0.9), (_x(7, 6), _x(7), 0.99)]


def target_ppo_clip_loss():
    return m.PPOClipLoss(), [
        (_x(16) * 0.1, _x(16) * 0.1, _x(16), _x(16), _x(16), torch.rand(16)),
        (_x(32) * 0.1, _x(32) * 0.1, _x(32), _x(32), _x(32), torch.rand(32), _x(32)),
        (_x(16) * 0.5, _x(16) * 0.5, _x(16), _x(16), _x(16), torch.rand(16)),
    ]


def target_boltzmann_policy():
    return m.BoltzmannPolicy(), [(_x(4, 6),), (_x(4, 6), 0.5), (_x(6, 6), 0.0), (_x(4, 6), 2.0)]


def target_safe_neural_controller():
    return m.SafeNeuralController(), [
        (_x(4, 4),),
        (_x(4, 4) * 3.0, _x(4, 4)),
        (_x(6, 4) * 3.0,),
    ]


def target_residual_lqr_controller():
    return m.ResidualLQRController(), [(_x(4, 4),), (_x(8, 4),)]


def target_particle_contact_simulator():
    return m.ParticleContactSimulator(), [
        (torch.rand(8, 2) * 2 - 1, _x(8, 2)),
        (torch.rand(6, 2) * 2 - 1, _x(6, 2), 0.05),
        (torch.rand(10, 2) * 2.2 - 1.1, _x(10, 2), 0.02),
    ]


def target_running_obs_norm():
    return m.RunningObsNorm(), [(_x(8, 6),), (_x(4, 8, 6),), (_x(1, 6),)]
