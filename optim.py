"""Optimizers for the robustness study (paper App. B, Def. 3.2, App. F.4):
`build_optimizer(model, "lion", lr=1e-3, wd=1.0)`. AdamW, SGD and Muon (on the 2-D hidden matrices,
AdamW on the rest) are torch's; Lion is written out in optim_appendix.py, loaded only for Lion and Muon.
All four are norm-contractive with a zero task gradient (Def. 3.2): a step multiplies W by 1 - lr * wd
(SGD: 1 - lr * wd / (1 - momentum) once its momentum has filled, as torch's SGD adds wd * W to the gradient).
The builder takes the AdamW (lr, wd) and keeps that per-step decay for every optimizer, so Eq. 5's weight-decay
clock is shared: lr_eff * wd_eff = lr * wd per step.
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
    if name in ("lion", "muon"):            # App. B's other two: optim_appendix.py, loaded only for them
        from optim_appendix import lion_or_muon
        return lion_or_muon(model, name, lr, wd, betas)
    raise ValueError(f"unknown optimizer {name!r}; choose from {', '.join(OPTIMIZERS)}")
