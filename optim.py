"""Optimizers for the robustness study (paper App. B, Def. 3.2, App. F.4):
`build_optimizer(model, "lion", lr=1e-3, wd=1.0)`. AdamW, SGD and Muon (on the 2-D hidden matrices,
AdamW on the rest) are torch's; Lion is written out below. All four are norm-contractive with a
zero task gradient (Def. 3.2): a step multiplies W by 1 - lr * wd (SGD: 1 - lr * wd / (1 - momentum)
once its momentum has filled, as torch's SGD adds wd * W to the gradient). The builder takes the
AdamW (lr, wd) and keeps that per-step decay for every optimizer, so Eq. 5's weight-decay clock is
shared: lr_eff * wd_eff = lr * wd per step.
  adamw  lr,        wd
  sgd    lr * 100,  wd / 1000     (plain SGD needs a larger step; momentum 0.9 amplifies the
                                   coupled decay 10x in steady state: 0.1 * 1e-3 / 0.1 = 1e-3)
  lion   lr / 10,   wd * 10       (Lion's authors: 3-10x smaller lr, larger wd; its own
                                   beta2 0.99, so train.py refuses --beta2 with lion)
  muon   lr,        wd            (torch's "match_rms_adamw" scaling reuses AdamW's lr and wd)
"""
import torch

OPTIMIZERS = ("adamw", "sgd", "lion", "muon")
SGD_MOMENTUM = 0.9
SGD_LR_SCALE, SGD_WD_SCALE = 100, 1000     # the module docstring's table, row sgd


def decay_per_step(name, lr, wd):
    """The steady-state per-step shrink 1 - factor of every weight under a zero task
    gradient, for the AdamW-equivalent (lr, wd) given to build_optimizer."""
    if name == "sgd":
        return (lr * SGD_LR_SCALE) * (wd / SGD_WD_SCALE) / (1 - SGD_MOMENTUM)
    return lr * wd


class Lion(torch.optim.Optimizer):
    """Lion (Chen et al. 2023) with decoupled weight decay:
        c = beta1 m + (1 - beta1) g;   theta <- theta (1 - lr wd) - lr sign(c);
        m <- beta2 m + (1 - beta2) g."""

    def __init__(self, params, lr=1e-4, betas=(0.9, 0.99), weight_decay=0.0):
        super().__init__(params, dict(lr=lr, betas=betas, weight_decay=weight_decay))

    @torch.no_grad()
    def step(self, closure=None):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                m = self.state[p].setdefault("exp_avg", torch.zeros_like(p))
                c = m.mul(beta1).add_(p.grad, alpha=1 - beta1)
                p.mul_(1 - group["lr"] * group["weight_decay"])
                p.add_(c.sign_(), alpha=-group["lr"])
                m.mul_(beta2).add_(p.grad, alpha=1 - beta2)


class Combined:
    """Several optimizers stepped as one (Muon + AdamW), with their param_groups for the warm-up."""

    def __init__(self, *optimizers):
        self.optimizers = optimizers

    @property
    def param_groups(self):
        return [g for o in self.optimizers for g in o.param_groups]

    def step(self):
        for o in self.optimizers:
            o.step()

    def zero_grad(self, set_to_none=True):
        for o in self.optimizers:
            o.zero_grad(set_to_none=set_to_none)

    def state_dict(self):
        return {"optimizers": [o.state_dict() for o in self.optimizers]}

    def load_state_dict(self, state):
        for o, s in zip(self.optimizers, state["optimizers"]):
            o.load_state_dict(s)


def muon_params(model):
    """The 2-D hidden matrices: attention and MLP weights (not embeddings, unembedding, biases)."""
    return [p for n, p in model.named_parameters() if p.dim() == 2 and n not in ("embed", "pos", "W_U")]


def decay_groups(model, wd):
    """AdamW's parameter groups as nanoGPT's configure_optimizers makes them: weight decay on every
    matrix (two or more dimensions), none on LayerNorm gains and shifts and on biases (one)."""
    params = list(model.parameters())
    return [{"params": [p for p in params if p.dim() >= 2], "weight_decay": wd},
            {"params": [p for p in params if p.dim() < 2], "weight_decay": 0.0}]


def build_optimizer(model, name="adamw", lr=1e-3, wd=1.0, betas=(0.9, 0.999), decay_norms=True):
    """Any of OPTIMIZERS from the AdamW-equivalent (lr, wd) (the module docstring). AdamW's foreach=True
    gives bitwise the weights of torch's CPU default in two thirds of its time (tests/test_optim.py);
    fused=True would be faster but rounds differently. decay_norms=False: decay_groups."""
    if name == "adamw":
        params = model.parameters() if decay_norms else decay_groups(model, wd)   # --no-decay-norms: two groups
        return torch.optim.AdamW(params, lr=lr, betas=betas, weight_decay=wd, foreach=True)
    if name == "sgd":
        return torch.optim.SGD(model.parameters(), lr=lr * SGD_LR_SCALE, momentum=SGD_MOMENTUM,
                               weight_decay=wd / SGD_WD_SCALE)
    if name == "lion":
        return Lion(model.parameters(), lr=lr / 10, betas=(betas[0], 0.99), weight_decay=wd * 10)
    if name == "muon":
        hidden = muon_params(model)
        ids = {id(p) for p in hidden}
        rest = [p for p in model.parameters() if id(p) not in ids]
        return Combined(torch.optim.Muon(hidden, lr=lr, weight_decay=wd, adjust_lr_fn="match_rms_adamw"),
                        torch.optim.AdamW(rest, lr=lr, betas=betas, weight_decay=wd, foreach=True))
    raise ValueError(f"unknown optimizer {name!r}; choose from {', '.join(OPTIMIZERS)}")
