"""Controls beyond the paper (docs/registered/information.md): terms with the KL prior's size and no
information, added to the loss by train.training_loss through `prior_loss(kind="logit-noise")` and
`--weight-noise`. Each adds 0 to the loss's value (written <x - detach(x), g>: value 0, gradient g)
and draws from its own random stream, so a run without them computes what it did before they existed.
"""
import torch

from device import generator_on

NOISE_SEED_OFFSET = 1299709      # the noise controls' stream (--prior-kind logit-noise, --weight-noise): the 100,000th prime


def logit_noise(scores, q, gen):
    """sum_j (s_j - detach(s_j)) g_j, averaged over examples and heads like the KL: the value is 0
    and the gradient on the logits is g / (B H), where the KL's mean has (a - q) / (B H). g is
    Gaussian, centred over the keys (a softmax's logit gradient always sums to zero), scaled to
    ||g|| = ||a - q|| example by example and head by head: at the logits it pushes as hard as the
    prior would, in no direction (at the weights far less: its directions cancel over the training
    set, docs/figures.md). (Every key the query sees: tasks with causal rows are refused.)"""
    s = scores.double()
    q = q[:, None, :] if q.dim() == 2 else q                          # (B, T): every head the same
    size = (torch.softmax(s.detach(), dim=-1) - q).norm(dim=-1, keepdim=True)
    eps = torch.randn(s.shape, generator=gen, device=s.device, dtype=s.dtype)
    eps = eps - eps.mean(-1, keepdim=True)
    g = eps * (size / eps.norm(dim=-1, keepdim=True))
    return ((s - s.detach()) * g).sum(-1).mean()


def weight_noise(model, rms, gen):
    """The 2026 'Adam freeze' account's control: sum over every weight matrix (every parameter
    of two or more dimensions) of <W, detach(eps)>, eps ~ N(0, rms^2) drawn afresh at every
    call. Written as <W - detach(W), eps>: the gradient is eps, the value 0 (the reported loss is
    the run's own)."""
    total = 0.0
    for p in model.parameters():
        if p.dim() >= 2:
            eps = torch.randn(p.shape, generator=gen, device=p.device, dtype=p.dtype) * rms
            total = total + ((p - p.detach()) * eps).sum()
    return total


def noise_generator(cfg, device):
    """The noise controls' own random stream (seed + NOISE_SEED_OFFSET, on the device), or None
    for a run without them: nothing else draws from it, so it moves no other stream."""
    if cfg.weight_noise or (cfg.lam and cfg.prior_kind == "logit-noise"):
        return generator_on(device).manual_seed(cfg.seed + NOISE_SEED_OFFSET)
    return None
