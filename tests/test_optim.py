"""Each optimizer's step against its update rule; Def. 3.2 norm contraction; Muon's groups."""
import pytest
import torch

import optim
import optim_appendix
from model import Transformer


def tiny_model(seed=0):
    torch.manual_seed(seed)
    return Transformer(vocab_size=8, n_classes=7, seq_len=4, d_model=16, n_heads=2, d_mlp=32)


def test_lion_step_matches_its_rule():
    torch.manual_seed(0)
    p = torch.nn.Parameter(torch.randn(5, 3))
    opt = optim_appendix.Lion([p], lr=0.01, betas=(0.9, 0.99), weight_decay=0.5)
    m = torch.zeros(5, 3)
    for _ in range(3):
        g = torch.randn(5, 3)
        theta = p.detach().clone()
        p.grad = g.clone()
        opt.step()
        c = 0.9 * m + 0.1 * g
        want = theta * (1 - 0.01 * 0.5) - 0.01 * torch.sign(c)
        m = 0.99 * m + 0.01 * g
        torch.testing.assert_close(p.detach(), want)
        torch.testing.assert_close(opt.state[p]["exp_avg"], m)


def test_muon_update_is_nearly_orthogonal():
    torch.manual_seed(0)
    p = torch.nn.Parameter(torch.randn(32, 16))
    opt = torch.optim.Muon([p], lr=1.0, weight_decay=0.0, momentum=0.0, nesterov=False, adjust_lr_fn="original")
    before = p.detach().clone()
    p.grad = torch.randn(32, 16)
    opt.step()
    update = (before - p.detach()) / (max(1, 32 / 16) ** 0.5)     # undo Keller's shape scaling
    s = torch.linalg.svdvals(update)
    # Newton-Schulz with the quintic coefficients lands the singular values in ~[0.7, 1.2]
    assert s.min() > 0.6 and s.max() < 1.25


def test_muon_builder_takes_exactly_the_hidden_matrices():
    m = tiny_model()
    opt = optim.build_optimizer(m, "muon")
    muon, adamw = opt.optimizers
    names = {id(p): n for n, p in m.named_parameters()}
    assert isinstance(muon, torch.optim.Muon)
    assert {names[id(p)] for g in muon.param_groups for p in g["params"]} == \
        {"W_Q", "W_K", "W_V", "W_O", "W_in", "W_out"}
    assert {names[id(p)] for g in adamw.param_groups for p in g["params"]} == \
        {"embed", "pos", "W_U", "b_in", "b_out"}


@pytest.mark.parametrize("name", optim.OPTIMIZERS)
def test_norm_contraction_with_zero_gradient(name):
    """Def. 3.2: with a zero task gradient every step shrinks every W by at least the factor
    its own decay implies (1 - lr_eff * wd_eff), and in steady state by the factor shared by
    all optimizers through the builder's mapping, 1 - 1e-3 * 1.0 (SGD reaches it once its
    momentum buffer has filled: 1 - lr_eff * wd_eff / (1 - momentum))."""
    m = tiny_model()
    opt = optim.build_optimizer(m, name, lr=1e-3, wd=1.0)
    first_step_decay = {"sgd": 0.1 * 1e-3}.get(name, 1e-3)          # lr_eff * wd_eff
    for step in range(300):
        before = {n: p.detach().clone() for n, p in m.named_parameters()}
        for p in m.parameters():
            p.grad = torch.zeros_like(p)
        opt.step()
        for n, p in m.named_parameters():
            if before[n].norm() > 0:
                ratio = (p.detach().norm() / before[n].norm()).item()
                assert ratio <= 1 - first_step_decay + 1e-6, (name, n, step, ratio)
                if step == 0:
                    assert ratio == pytest.approx(1 - first_step_decay, abs=1e-6), (name, n, ratio)
    # (SGD's buffer remembers the slightly larger past weights: 1.009e-3 instead of 1e-3)
    assert ratio == pytest.approx(1 - optim.decay_per_step(name, 1e-3, 1.0), abs=2e-5)
    assert optim.decay_per_step(name, 1e-3, 1.0) == pytest.approx(1e-3)


def test_unknown_optimizer():
    with pytest.raises(ValueError, match="unknown optimizer"):
        optim.build_optimizer(tiny_model(), "adam")


def test_adamw_multi_tensor_step_equals_torchs_default():
    """build_optimizer's AdamW (foreach=True, for speed) takes exactly the steps of torch's
    default per-tensor AdamW: on a CPU the multi-tensor ops run the same kernels in the same
    order, so the weights agree bitwise, and so every stored run stays reproducible."""
    models = [tiny_model(), tiny_model()]
    opts = [optim.build_optimizer(models[0], "adamw", lr=1e-2, wd=1.0),
            torch.optim.AdamW(models[1].parameters(), lr=1e-2, weight_decay=1.0, foreach=False)]
    assert opts[0].defaults["foreach"] is True
    g = torch.Generator().manual_seed(1)
    for _ in range(20):
        grads = [torch.randn(p.shape, generator=g) for p in models[0].parameters()]
        for model, opt in zip(models, opts):
            for p, grad in zip(model.parameters(), grads):
                p.grad = grad.clone()
            opt.step()
    for p, q in zip(models[0].parameters(), models[1].parameters()):
        assert torch.equal(p, q)
