"""The appendix's other two optimizers (paper App. B), loaded only by a run that asks for one: Lion,
written out, and torch's Muon on the 2-D hidden matrices stepped with AdamW on the rest. Their lr and
wd follow the rows lion and muon of optim.py's table (`lion_or_muon`).
"""
import torch


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


def lion_or_muon(model, name, lr, wd, betas):
    """optim.build_optimizer's lion and muon rows: (lr, wd) already the AdamW-equivalent pair."""
    if name == "lion":
        return Lion(model.parameters(), lr=lr / 10, betas=(betas[0], 0.99), weight_decay=wd * 10)
    hidden = muon_params(model)
    ids = {id(p) for p in hidden}
    rest = [p for p in model.parameters() if id(p) not in ids]
    return Combined(torch.optim.Muon(hidden, lr=lr, weight_decay=wd, adjust_lr_fn="match_rms_adamw"),
                    torch.optim.AdamW(rest, lr=lr, betas=betas, weight_decay=wd, foreach=True))
