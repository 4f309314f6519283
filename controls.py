"""What the studies beyond the paper add to a run; train.py imports this file only for a run that
asks for one of them, so a run without them computes what it did before they existed.

The noise controls (docs/registered/information.md): terms with the KL prior's size and no
information, added to the loss by train.training_loss through `prior_loss(kind="logit-noise")` and
`--weight-noise`. Each adds 0 to the loss's value (written <x - detach(x), g>: value 0, gradient g)
and draws from its own random stream.
KL targets without the information: `query_target` and `shuffled_target` (--prior query, shuffled).
The update log (--log-updates, docs/registered/plateau.md): what moves on the plateau.
Another initialisation (--init pytorch, docs/registered/sensitivity.md): `pytorch_init_`.
"""
import math

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

# ---------------------------------------------------------------------------------------
# KL targets without the oracle's information (train.batches maps --prior shuffled and query here)

# The shuffled target's own random stream: seed plus this offset, an arbitrary prime (the 1,000,000th),
# part of what a run computes, so it never changes.
SHUFFLE_SEED_OFFSET = 15485863


def query_target(task, split):
    """All mass on the query position (N, T): a KL target with no information that puts nothing
    on the distractors (docs/registered/plateau.md)."""
    n = len(task.train_x if split == "train" else task.test_x)
    if task.qpos is not None:
        raise ValueError("the query target is for tasks whose query is the last position")
    q = torch.zeros(n, task.seq_len)
    q[:, task.query_pos] = 1.0
    return q


def shuffled_target(task, split, seed):
    """The shuffled oracle (N, T): per row, mass 1/k on k keys drawn at random among those the
    query attends to, never the row's own informative set: the oracle's form without its
    information (docs/registered/information.md). Drawn from a stream of its own (seed +
    SHUFFLE_SEED_OFFSET), so a run gets the same pairs for the same rows every time it asks (a
    run resumed from a checkpoint included); a row whose draw is its informative set draws again."""
    if task.qpos is not None:
        raise ValueError("the shuffled oracle is for tasks whose query sees every key")
    q = task.oracle_for(split)
    n, T = q.shape
    gen = torch.Generator().manual_seed(seed + SHUFFLE_SEED_OFFSET + (split == "test"))
    out, todo = torch.zeros(n, T), torch.arange(n)
    while len(todo):
        pick = torch.rand(len(todo), T, generator=gen).topk(task.k, dim=-1).indices   # k keys, uniformly
        out[todo] = torch.zeros(len(todo), T).scatter_(1, pick, 1.0 / task.k)
        todo = todo[((out[todo] > 0) == (q[todo] > 0)).all(-1)]                      # the oracle's set: again
    return out


def uninformed_target(prior, task, split, seed):
    """--prior query or shuffled: that target for a split of the task."""
    return query_target(task, split) if prior == "query" else shuffled_target(task, split, seed)


# ---------------------------------------------------------------------------------------
# The update log (--log-updates)

# the parameters whose AdamW updates --log-updates follows: attention's routing and the embeddings
UPDATE_PARAMS = ("W_Q", "W_K", "embed", "pos")


@torch.no_grad()
def adam_update_rms(opt, params, lrs):
    """{name: RMS of the update AdamW's last step gave the parameter}: lr * m_hat / (sqrt(v_hat) + eps),
    its bias-corrected moments read from the optimizer's state (torch.optim.AdamW's own formula);
    the decoupled decay lr * wd * theta is not part of it. params: {name: parameter}; lrs: the
    learning rate of that last step, per parameter group. 0 for a parameter not yet stepped."""
    out = {name: 0.0 for name in params}
    names = {id(p): n for n, p in params.items()}
    for group, lr in zip(opt.param_groups, lrs):
        beta1, beta2 = group["betas"]
        for p in group["params"]:
            state = opt.state.get(p, {})
            if id(p) not in names or "exp_avg" not in state:
                continue
            t = float(state["step"])
            denom = state["exp_avg_sq"].double().sqrt() / math.sqrt(1 - beta2 ** t) + group["eps"]
            update = (lr / (1 - beta1 ** t)) * state["exp_avg"].double() / denom
            out[names[id(p)]] = update.pow(2).mean().sqrt().item()
    return out


def update_stats(model, opt, out, lrs):
    """What --log-updates adds to an epoch's row (docs/registered/plateau.md): the RMS of AdamW's
    last update to each of UPDATE_PARAMS, and the training set's attention mass per position,
    averaged over examples and heads (the redrawn distractors are the training set's)."""
    rms = adam_update_rms(opt, {n: getattr(model, n) for n in UPDATE_PARAMS}, lrs)
    mass = out["attn"].detach().double().mean(0).sum(0).div(model.n_heads)
    return {**{f"update_rms_{n}": v for n, v in rms.items()}, "train_attn_mass": mass.tolist()}


@torch.no_grad()
def pytorch_init_(model):
    """PyTorch's default initialisation in place of the paper's (a reading of §3's "standard initialization",
    docs/registered/sensitivity.md): nn.Embedding's N(0, 1) for the tables (token vectors of norm ~sqrt(d),
    not ~1: sharp attention at init), nn.Linear's U(+-1/sqrt(fan_in)) for every other weight and bias."""
    for name, p in model.named_parameters():
        if name in ("embed", "pos"):
            p.normal_(0.0, 1.0)
        else:                        # a (out, in) weight, or a bias whose fan_in is its layer's
            fan_in = p.shape[1] if p.dim() == 2 else {"b_in": model.W_in, "b_out": model.W_out}[name].shape[1]
            p.uniform_(-1 / math.sqrt(fan_in), 1 / math.sqrt(fan_in))
