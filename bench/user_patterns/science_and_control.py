"""bench/user_patterns part "science_and_control": model code of the kind written
by researchers and engineers in scientific ML and control, written blind (without
reading the linter's rules, fixtures or tests). Domains covered: physics-informed
networks (PDE residuals through torch.autograd.grad with create_graph), ODE
integration inside forward (fixed-step RK4, adaptive Heun-Euler with an error
tolerance loop, a leapfrog Hamiltonian integrator), a Kalman filter
predict/update step, Langevin dynamics and a Metropolis accept/reject step,
reinforcement learning (masked actor-critic head, epsilon-greedy Q selection,
GAE and Monte-Carlo discounted returns, a PPO clipped loss with stats), neural
controllers with saturation, rate limits and a safety fallback, a learned
particle simulator with wall and particle contacts, a running observation
normaliser updated in forward, and a Boltzmann policy taking a Python float
temperature.
"""
import logging
import math
import random
import warnings
from collections import defaultdict
from typing import Optional

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical

logger = logging.getLogger(__name__)


def mlp(inp: int, hidden: int, out: int, act=nn.Tanh) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inp, hidden), act(), nn.Linear(hidden, hidden), act(), nn.Linear(hidden, out))


# ---------------------------------------------------------------------------
# Physics-informed networks
# ---------------------------------------------------------------------------

class HeatPINN(nn.Module):
    """u(x, t) for the 1D heat equation u_t = alpha * u_xx; forward returns the
    mean squared PDE residual on the collocation points and the prediction."""

    def __init__(self, hidden: int = 32, alpha: float = 0.1):
        super().__init__()
        self.net = mlp(2, hidden, 1)
        self.alpha = alpha

    def forward(self, x, t):
        x = x.detach().requires_grad_(True)
        t = t.detach().requires_grad_(True)
        u = self.net(torch.cat([x, t], dim=-1))
        ones = torch.ones_like(u)
        u_t = torch.autograd.grad(u, t, grad_outputs=ones, create_graph=True)[0]
        u_x = torch.autograd.grad(u, x, grad_outputs=ones, create_graph=True)[0]
        u_xx = torch.autograd.grad(u_x, x, grad_outputs=torch.ones_like(u_x), create_graph=True)[0]
        residual = u_t - self.alpha * u_xx
        return residual.pow(2).mean(), u


class BurgersPINN(nn.Module):
    """Viscous Burgers' PINN: u_t + u u_x = nu u_xx, with optional boundary data.
    Returns the weighted total loss and keeps the scalar breakdown for logging."""

    def __init__(self, hidden: int = 32, nu: float = 0.01 / math.pi, bc_weight: float = 10.0):
        super().__init__()
        self.net = mlp(2, hidden, 1)
        self.nu = nu
        self.bc_weight = bc_weight
        self.last_losses = {}

    def forward(self, coords, bc_coords=None, bc_values=None):
        with torch.enable_grad():
            coords = coords.clone().requires_grad_(True)
            u = self.net(coords)
            grads = torch.autograd.grad(u.sum(), coords, create_graph=True)[0]
            u_x, u_t = grads[:, 0:1], grads[:, 1:2]
            u_xx = torch.autograd.grad(u_x.sum(), coords, create_graph=True)[0][:, 0:1]
            residual = u_t + u * u_x - self.nu * u_xx
        losses = {"pde": residual.pow(2).mean()}
        if bc_coords is not None:
            if bc_values is None:
                bc_values = torch.zeros(bc_coords.shape[0], 1, dtype=coords.dtype)
            losses["bc"] = F.mse_loss(self.net(bc_coords), bc_values)
        total = losses["pde"] + self.bc_weight * losses.get("bc", 0.0)
        self.last_losses = {k: v.item() for k, v in losses.items()}
        return total


# ---------------------------------------------------------------------------
# ODE integration inside forward
# ---------------------------------------------------------------------------

class RK4ODEBlock(nn.Module):
    """Neural ODE block integrated with classic fixed-step RK4."""

    def __init__(self, dim: int = 8, hidden: int = 32):
        super().__init__()
        self.func = mlp(dim + 1, hidden, dim)

    def vector_field(self, t: float, y):
        tt = torch.full_like(y[..., :1], t)
        return self.func(torch.cat([y, tt], dim=-1))

    def forward(self, y0, t0: float = 0.0, t1: float = 1.0, n_steps: int = 10, return_traj: bool = False):
        h = (t1 - t0) / n_steps
        t, y = t0, y0
        traj = [y0]
        for _ in range(n_steps):
            k1 = self.vector_field(t, y)
            k2 = self.vector_field(t + h / 2, y + h / 2 * k1)
            k3 = self.vector_field(t + h / 2, y + h / 2 * k2)
            k4 = self.vector_field(t + h, y + h * k3)
            y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
            t += h
            if return_traj:
                traj.append(y)
        if return_traj:
            return torch.stack(traj, dim=1)
        return y


class AdaptiveODEBlock(nn.Module):
    """Neural ODE with an embedded Heun-Euler pair and step size control."""

    def __init__(self, dim: int = 8, hidden: int = 32, rtol: float = 1e-2, atol: float = 1e-3, max_steps: int = 20):
        super().__init__()
        self.func = mlp(dim, hidden, dim)
        self.rtol, self.atol = rtol, atol
        self.max_steps = max_steps
        self.nfe = 0

    def forward(self, y0, t1: float = 1.0, dt0: Optional[float] = None):
        t = 0.0
        dt = dt0 if dt0 is not None else 0.1 * t1
        y = y0
        n_steps = n_rejected = 0
        nfe = 0
        while t < t1 - 1e-9:
            if n_steps >= self.max_steps:
                warnings.warn(f"AdaptiveODEBlock: max_steps reached at t={t:.3f} < {t1}")
                break
            dt = min(dt, t1 - t)
            k1 = self.func(y)
            k2 = self.func(y + dt * k1)
            nfe += 2
            y_low = y + dt * k1
            y_high = y + 0.5 * dt * (k1 + k2)
            scale = self.atol + self.rtol * torch.maximum(y.abs(), y_high.abs())
            err = ((y_high - y_low) / scale).pow(2).mean().sqrt().item()
            if err <= 1.0:
                t += dt
                y = y_high
            else:
                n_rejected += 1
            factor = 5.0 if err == 0 else min(5.0, max(0.2, 0.9 * err ** -0.5))
            dt *= factor
            n_steps += 1
        self.nfe = nfe
        logger.debug("adaptive solve: %d steps, %d rejected, nfe=%d", n_steps, n_rejected, nfe)
        return y


class HamiltonianNN(nn.Module):
    """Learned Hamiltonian H(q, p) rolled out with a leapfrog integrator;
    dt and the number of steps are Python numbers passed per call."""

    def __init__(self, dim: int = 2, hidden: int = 32):
        super().__init__()
        self.H = mlp(2 * dim, hidden, 1, act=nn.Softplus)

    def _grads(self, q, p):
        with torch.enable_grad():
            if not q.requires_grad:
                q = q.detach().requires_grad_(True)
            if not p.requires_grad:
                p = p.detach().requires_grad_(True)
            energy = self.H(torch.cat([q, p], dim=-1)).sum()
            dq, dp = torch.autograd.grad(energy, (q, p), create_graph=self.training)
        return dq, dp

    def forward(self, q, p, dt: float = 0.1, n_steps: int = 5):
        qs = [q]
        for _ in range(n_steps):
            dHdq, _ = self._grads(q, p)
            p_half = p - 0.5 * dt * dHdq
            _, dHdp = self._grads(q, p_half)
            q = q + dt * dHdp
            dHdq, _ = self._grads(q, p_half)
            p = p_half - 0.5 * dt * dHdq
            qs.append(q)
        return torch.stack(qs, dim=1), p


# ---------------------------------------------------------------------------
# State estimation
# ---------------------------------------------------------------------------

class KalmanFilterStep(nn.Module):
    """One predict + update step of a linear Kalman filter with learned F, H and
    diagonal noise. NaNs in the observation mark missing sensor channels."""

    def __init__(self, state_dim: int = 4, obs_dim: int = 2, ctrl_dim: int = 0, gate: float = 9.0):
        super().__init__()
        self.F = nn.Parameter(torch.eye(state_dim) + 0.01 * torch.randn(state_dim, state_dim))
        self.H = nn.Parameter(0.5 * torch.randn(obs_dim, state_dim))
        self.B = nn.Parameter(0.1 * torch.randn(state_dim, ctrl_dim)) if ctrl_dim > 0 else None
        self.log_q = nn.Parameter(torch.full((state_dim,), -2.0))
        self.log_r = nn.Parameter(torch.full((obs_dim,), -1.0))
        self.gate = gate

    def forward(self, mean, cov, obs, control=None):
        n = mean.shape[-1]
        Q = torch.diag(self.log_q.exp())
        mean_pred = mean @ self.F.T
        if control is not None:
            if self.B is None:
                raise ValueError("this filter was built without a control input")
            mean_pred = mean_pred + control @ self.B.T
        cov_pred = self.F @ cov @ self.F.T + Q

        missing = torch.isnan(obs)
        if missing.all():
            return mean_pred, cov_pred, torch.zeros(mean.shape[0])
        obs = torch.nan_to_num(obs)
        r = self.log_r.exp() + missing.float() * 1e6  # huge noise on missing channels
        R = torch.diag_embed(r)

        S = self.H @ cov_pred @ self.H.T + R
        K = torch.linalg.solve(S, self.H @ cov_pred).transpose(-1, -2)
        innov = (obs - mean_pred @ self.H.T).masked_fill(missing, 0.0)
        mean_new = mean_pred + (K @ innov.unsqueeze(-1)).squeeze(-1)
        I_KH = torch.eye(n) - K @ self.H
        cov_new = I_KH @ cov_pred @ I_KH.transpose(-1, -2) + K @ R @ K.transpose(-1, -2)
        cov_new = 0.5 * (cov_new + cov_new.transpose(-1, -2))

        nis = (innov * torch.linalg.solve(S, innov.unsqueeze(-1)).squeeze(-1)).sum(-1)
        n_out = int((nis > self.gate).sum())
        if n_out:
            logger.info("kalman: %d/%d measurements outside the %.1f gate", n_out, nis.numel(), self.gate)
        return mean_new, cov_new, nis


# ---------------------------------------------------------------------------
# Sampling: Langevin dynamics and Metropolis
# ---------------------------------------------------------------------------

class LangevinSampler(nn.Module):
    """Energy-based model; forward runs unadjusted Langevin dynamics from x."""

    def __init__(self, dim: int = 2, hidden: int = 32, bound: float = 3.0):
        super().__init__()
        self.energy = mlp(dim, hidden, 1, act=nn.SiLU)
        self.bound = bound

    def forward(self, x, n_steps: int = 10, step_size: float = 0.01, noise_scale: Optional[float] = None):
        if noise_scale is None:
            noise_scale = math.sqrt(2 * step_size)
        x = x.detach()
        with torch.enable_grad():
            for _ in range(n_steps):
                x.requires_grad_(True)
                e = self.energy(x).sum()
                (g,) = torch.autograd.grad(e, x)
                x = x.detach() - step_size * g + noise_scale * torch.randn_like(x)
                x = x.clamp(-self.bound, self.bound)
        return x, self.energy(x).squeeze(-1)


class MetropolisStep(nn.Module):
    """Random-walk Metropolis step against a learned log-density, with the
    proposal scale adapted towards ~25% acceptance."""

    def __init__(self, dim: int = 3, hidden: int = 32, step_size: float = 0.5, adapt: bool = True):
        super().__init__()
        self.log_prob = mlp(dim, hidden, 1)
        self.step_size = step_size
        self.adapt = adapt
        self.n_accepted = 0
        self.n_proposed = 0

    def forward(self, x, temperature: float = 1.0):
        proposal = x + self.step_size * torch.randn_like(x)
        log_alpha = (self.log_prob(proposal) - self.log_prob(x)).squeeze(-1) / temperature
        accept = torch.rand_like(log_alpha).log() < log_alpha
        x_new = torch.where(accept.unsqueeze(-1), proposal, x)

        rate = accept.float().mean().item()
        self.n_accepted += int(accept.sum())
        self.n_proposed += accept.numel()
        if self.adapt:
            if rate < 0.2:
                self.step_size *= 0.9
            elif rate > 0.3:
                self.step_size *= 1.1
        return x_new, accept


# ---------------------------------------------------------------------------
# Reinforcement learning
# ---------------------------------------------------------------------------

class MaskedActorCritic(nn.Module):
    """Shared trunk, categorical policy with invalid actions masked out, value head."""

    def __init__(self, obs_dim: int = 8, n_actions: int = 5, hidden: int = 64):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.pi = nn.Linear(hidden, n_actions)
        self.v = nn.Linear(hidden, 1)

    def forward(self, obs, action_mask, deterministic: bool = False):
        h = self.trunk(obs)
        logits = self.pi(h)
        if not action_mask.any(dim=-1).all():
            raise RuntimeError("got a state with no legal actions")
        logits = logits.masked_fill(~action_mask, torch.finfo(logits.dtype).min)
        dist = Categorical(logits=logits)
        if deterministic:
            action = dist.probs.argmax(dim=-1)
        else:
            action = dist.sample()
        return action, dist.log_prob(action), dist.entropy(), self.v(h).squeeze(-1)


class EpsilonGreedyQNet(nn.Module):
    """DQN-style Q network that picks actions epsilon-greedily, decaying epsilon
    every call."""

    def __init__(self, obs_dim: int = 6, n_actions: int = 4, eps_start: float = 1.0, eps_end: float = 0.05,
                 decay_steps: int = 10):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, 64), nn.ReLU(), nn.Linear(64, n_actions))
        self.n_actions = n_actions
        self.eps_start, self.eps_end, self.decay_steps = eps_start, eps_end, decay_steps
        self.steps_done = 0

    @property
    def epsilon(self) -> float:
        return self.eps_end + (self.eps_start - self.eps_end) * math.exp(-self.steps_done / self.decay_steps)

    def forward(self, obs, explore: bool = True):
        q = self.net(obs)
        greedy = q.argmax(dim=-1)
        if not explore:
            return greedy, q
        eps = self.epsilon
        self.steps_done += 1
        actions = []
        for a in greedy.tolist():
            if random.random() < eps:
                actions.append(random.randrange(self.n_actions))
            else:
                actions.append(a)
        return torch.tensor(actions, dtype=torch.long, device=obs.device), q


class GAEReturns(nn.Module):
    """Generalised advantage estimation over a (T, N) rollout."""

    def __init__(self, gamma: float = 0.99, lam: float = 0.95, normalize: bool = True):
        super().__init__()
        self.gamma = gamma
        self.lam = lam
        self.normalize = normalize

    def forward(self, rewards, values, dones, last_value):
        T = rewards.shape[0]
        advantages = torch.zeros_like(rewards)
        last_gae = torch.zeros_like(last_value)
        for t in reversed(range(T)):
            next_value = last_value if t == T - 1 else values[t + 1]
            nonterminal = 1.0 - dones[t].float()
            delta = rewards[t] + self.gamma * next_value * nonterminal - values[t]
            last_gae = delta + self.gamma * self.lam * nonterminal * last_gae
            advantages[t] = last_gae
        returns = advantages + values
        if self.normalize and advantages.numel() > 1:
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        return advantages, returns


class MonteCarloValueLoss(nn.Module):
    """Value head regressed onto discounted Monte-Carlo returns of one episode;
    the returns are computed with numpy the way most RL codebases do it."""

    def __init__(self, obs_dim: int = 6, hidden: int = 32):
        super().__init__()
        self.value = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, obs, rewards, gamma: float = 0.99):
        r = rewards.detach().cpu().numpy()
        ret = np.zeros_like(r)
        running = 0.0
        for t in range(len(r) - 1, -1, -1):
            running = r[t] + gamma * running
            ret[t] = running
        target = torch.from_numpy(ret).to(obs)
        v = self.value(obs).squeeze(-1)
        return F.smooth_l1_loss(v, target)


class PPOClipLoss(nn.Module):
    """PPO clipped surrogate + value + entropy loss. Collects scalar stats for
    the logger and flags early stopping when the approximate KL is too big."""

    def __init__(self, clip_eps: float = 0.2, vf_coef: float = 0.5, ent_coef: float = 0.01,
                 target_kl: Optional[float] = 0.02):
        super().__init__()
        self.clip_eps = clip_eps
        self.vf_coef = vf_coef
        self.ent_coef = ent_coef
        self.target_kl = target_kl
        self.stats = defaultdict(list)
        self.early_stop = False

    def forward(self, new_logp, old_logp, advantages, values, returns, entropy, old_values=None):
        log_ratio = new_logp - old_logp
        ratio = log_ratio.exp()
        surr1 = ratio * advantages
        surr2 = ratio.clamp(1.0 - self.clip_eps, 1.0 + self.clip_eps) * advantages
        pg_loss = -torch.min(surr1, surr2).mean()

        if old_values is not None:
            v_clipped = old_values + (values - old_values).clamp(-self.clip_eps, self.clip_eps)
            v_loss = 0.5 * torch.max((values - returns) ** 2, (v_clipped - returns) ** 2).mean()
        else:
            v_loss = 0.5 * (values - returns).pow(2).mean()
        ent = entropy.mean()
        loss = pg_loss + self.vf_coef * v_loss - self.ent_coef * ent

        with torch.no_grad():
            approx_kl = ((ratio - 1) - log_ratio).mean().item()
            clipfrac = ((ratio - 1.0).abs() > self.clip_eps).float().mean().item()
        self.stats["pg_loss"].append(pg_loss.item())
        self.stats["v_loss"].append(v_loss.item())
        self.stats["entropy"].append(ent.item())
        self.stats["approx_kl"].append(approx_kl)
        self.stats["clipfrac"].append(clipfrac)
        if self.target_kl is not None and approx_kl > 1.5 * self.target_kl:
            logger.info("PPO early stop: approx_kl=%.4f > 1.5 * %.4f", approx_kl, self.target_kl)
            self.early_stop = True
        return loss


class BoltzmannPolicy(nn.Module):
    """Softmax (Boltzmann) exploration policy; temperature is a Python float and
    temperature 0 means greedy."""

    def __init__(self, obs_dim: int = 6, n_actions: int = 4, hidden: int = 32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, n_actions))

    def forward(self, obs, temperature: float = 1.0):
        logits = self.net(obs)
        if temperature <= 1e-6:
            actions = logits.argmax(dim=-1)
            return actions, F.one_hot(actions, logits.shape[-1]).to(logits.dtype)
        probs = F.softmax(logits / temperature, dim=-1)
        actions = torch.multinomial(probs, 1).squeeze(-1)
        return actions, probs


# ---------------------------------------------------------------------------
# Control
# ---------------------------------------------------------------------------

class SafeNeuralController(nn.Module):
    """Neural feedback controller with actuator saturation, a slew-rate limit
    relative to the previous command, and a linear fallback law for states
    outside the safe envelope."""

    def __init__(self, state_dim: int = 4, act_dim: int = 2, u_max: float = 2.0, du_max: float = 0.5,
                 state_limit: float = 5.0):
        super().__init__()
        self.net = mlp(state_dim, 32, act_dim)
        self.register_buffer("K_fallback", 0.5 * torch.ones(act_dim, state_dim))
        self.u_max = u_max
        self.du_max = du_max
        self.state_limit = state_limit
        self.prev_u = None
        self.n_interventions = 0

    def reset(self):
        self.prev_u = None

    def forward(self, state, reference=None):
        err = state if reference is None else state - reference
        u = self.u_max * torch.tanh(self.net(err))
        if self.prev_u is not None and self.prev_u.shape == u.shape:
            u = self.prev_u + torch.clamp(u - self.prev_u, -self.du_max, self.du_max)
        u = torch.clamp(u, -self.u_max, self.u_max)

        unsafe = state.abs().amax(dim=-1) > self.state_limit
        if unsafe.any():
            n_bad = int(unsafe.sum())
            self.n_interventions += n_bad
            logger.warning("safety envelope violated in %d/%d envs, using fallback law", n_bad, state.shape[0])
            u_safe = (-err @ self.K_fallback.T).clamp(-self.u_max, self.u_max)
            u = torch.where(unsafe.unsqueeze(-1), u_safe, u)
        self.prev_u = u.detach()
        return u


class ResidualLQRController(nn.Module):
    """u = -K x + residual(x), squashed to the actuator limits."""

    def __init__(self, state_dim: int = 4, act_dim: int = 2, u_max: float = 1.0, residual_scale: float = 0.2):
        super().__init__()
        K = torch.zeros(act_dim, state_dim)
        K[:, :act_dim] = torch.eye(act_dim)
        K[:, act_dim:2 * act_dim] = 0.8 * torch.eye(act_dim)
        self.register_buffer("K", K)
        self.residual = nn.Sequential(nn.Linear(state_dim, 32), nn.Tanh(), nn.Linear(32, act_dim), nn.Tanh())
        self.u_max = u_max
        self.residual_scale = residual_scale

    def forward(self, x):
        u = -x @ self.K.T + self.residual_scale * self.residual(x)
        return self.u_max * torch.tanh(u / self.u_max)


# ---------------------------------------------------------------------------
# Learned simulator
# ---------------------------------------------------------------------------

class ParticleContactSimulator(nn.Module):
    """One step of a learned 2D particle simulator: learned per-particle and
    pairwise accelerations, semi-implicit Euler, then reflecting walls and
    pairwise contact resolution with restitution."""

    def __init__(self, hidden: int = 32, radius: float = 0.1, cutoff: float = 0.5, restitution: float = 0.5,
                 box: float = 1.0):
        super().__init__()
        self.node_net = mlp(4, hidden, 2, act=nn.ReLU)
        self.edge_net = mlp(3, hidden, 2, act=nn.ReLU)
        self.radius = radius
        self.cutoff = cutoff
        self.restitution = restitution
        self.box = box
        self.num_contacts = 0

    def forward(self, pos, vel, dt: float = 0.01):
        n = pos.shape[0]
        acc = self.node_net(torch.cat([pos, vel], dim=-1))

        rel = pos[:, None, :] - pos[None, :, :]
        dist = rel.pow(2).sum(-1).add(1e-12).sqrt()
        neighbors = (dist < self.cutoff) & ~torch.eye(n, dtype=torch.bool)
        src, dst = neighbors.nonzero(as_tuple=True)
        if src.numel() > 0:
            edge_feat = torch.cat([rel[src, dst], dist[src, dst].unsqueeze(-1)], dim=-1)
            acc = acc.index_add(0, src, self.edge_net(edge_feat))

        vel = vel + dt * acc
        pos = pos + dt * vel

        # walls: reflect position and damp the normal velocity
        low = pos < -self.box
        high = pos > self.box
        pos = torch.where(low, -2 * self.box - pos, pos)
        pos = torch.where(high, 2 * self.box - pos, pos)
        vel = torch.where(low | high, -self.restitution * vel, vel)

        # particle-particle contacts
        d = pos[:, None, :] - pos[None, :, :]
        dist = d.pow(2).sum(-1).add(1e-12).sqrt()
        touching = torch.triu(dist < 2 * self.radius, diagonal=1)
        self.num_contacts = int(touching.sum())
        if self.num_contacts > 0:
            pos = pos.clone()
            vel = vel.clone()
            for i, j in touching.nonzero().tolist():
                normal = d[i, j] / dist[i, j]
                push = 0.5 * (2 * self.radius - dist[i, j]) * normal
                pos[i] = pos[i] + push
                pos[j] = pos[j] - push
                v_rel = torch.dot(vel[i] - vel[j], normal)
                if v_rel < 0:
                    impulse = -0.5 * (1 + self.restitution) * v_rel * normal
                    vel[i] = vel[i] + impulse
                    vel[j] = vel[j] - impulse
        return pos, vel


# ---------------------------------------------------------------------------
# Normalisation with running statistics
# ---------------------------------------------------------------------------

class RunningObsNorm(nn.Module):
    """Observation normaliser (as in PPO/SAC codebases): running mean/var kept
    with the parallel Welford update while training, then clipped."""

    def __init__(self, dim: int = 6, clip: float = 5.0, eps: float = 1e-8):
        super().__init__()
        self.register_buffer("mean", torch.zeros(dim))
        self.register_buffer("var", torch.ones(dim))
        self.count = 1e-4
        self.clip = clip
        self.eps = eps

    def forward(self, x):
        if x.dim() > 2:
            flat = x.reshape(-1, x.shape[-1])
        else:
            flat = x
        if self.training:
            with torch.no_grad():
                n = flat.shape[0]
                batch_mean = flat.mean(0)
                batch_var = flat.var(0, unbiased=False) if n > 1 else torch.zeros_like(batch_mean)
                delta = batch_mean - self.mean
                total = self.count + n
                self.mean += delta * n / total
                m2 = self.var * self.count + batch_var * n + delta.pow(2) * self.count * n / total
                self.var.copy_(m2 / total)
                self.count = total
        out = (x - self.mean) / torch.sqrt(self.var + self.eps)
        return out.clamp(-self.clip, self.clip)
