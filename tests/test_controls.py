"""The information-or-any-gradient study's controls (docs/registered/information.md): the shuffled
oracle, the matched noise on the attention logits, the rival account's weight noise."""
import itertools

import pytest
import torch

import controls
import train
from diagnostics import kl_to_target
from model import Transformer
from tasks import make_task

TINY = dict(p=11, frac=0.5, epochs=30, eval_every=5, d_model=16, d_mlp=32, quiet=True, threads=1, device="cpu")


def test_the_shuffled_target_has_the_oracles_form_and_never_its_pair():
    task = make_task("add", p=23, frac=0.5, n_distractors=2, seed=0)
    q, oracle = controls.shuffled_target(task, "train", seed=0), task.oracle_for("train")
    assert ((q > 0).sum(-1) == 2).all() and torch.allclose(q.sum(-1), torch.ones(len(q)))
    assert set(q.unique().tolist()) == {0.0, 0.5}
    assert not ((q > 0) == (oracle > 0)).all(-1).any()            # never the operand pair
    # drawn at random among the other 9 pairs of the 5 keys (the query's own included), about evenly
    pairs = [tuple(row.nonzero().flatten().tolist()) for row in q]
    counts = {pair: pairs.count(pair) for pair in itertools.combinations(range(5), 2)}
    assert counts.pop((0, 1)) == 0
    expected = len(pairs) / 9
    assert all(abs(c - expected) < 4 * expected ** 0.5 for c in counts.values()), counts
    # the same pairs for the same rows every time the run asks; another seed, other pairs
    assert torch.equal(q, controls.shuffled_target(task, "train", seed=0))
    assert not torch.equal(q, controls.shuffled_target(task, "train", seed=1))


def test_the_shuffled_target_is_kept_for_the_run_while_distractors_are_redrawn(monkeypatch):
    targets, inputs = [], []
    real = train.forward_backward
    def spy(model, opt, forward, batch, cfg, lam, measure=False, noise=None, qk=None):
        targets.append(batch["target"].clone())
        inputs.append(batch["x"].clone())
        return real(model, opt, forward, batch, cfg, lam, measure, noise, qk)
    monkeypatch.setattr(train, "forward_backward", spy)
    cfg = train.make_config(**TINY, lam=0.3, prior="shuffled", distractors="fresh")
    train.train(cfg)
    assert len(targets) == TINY["epochs"] + 1          # epochs 0..30, the last measured only
    assert all(torch.equal(t, targets[0]) for t in targets)
    assert not torch.equal(inputs[0], inputs[-1])                  # the distractors did move
    oracle = train.task_of(cfg).oracle_for("train")
    assert not ((targets[0] > 0) == (oracle > 0)).all(-1).any()


def _scores(B=7, H=2, T=5, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(B, H, T, generator=g, dtype=torch.float64).mul(2).requires_grad_(True)


def test_the_logit_noise_gradient_has_the_kls_norm_zero_sum_and_no_value():
    task = make_task("add", p=23, frac=0.5, n_distractors=2, seed=0)
    s = _scores()
    q = task.oracle_for("train")[: s.shape[0]]
    gen = torch.Generator().manual_seed(1)
    value = train.prior_loss(s, q, "logit-noise", gen)
    assert value.item() == 0.0
    (g,) = torch.autograd.grad(value, s)
    (g_kl,) = torch.autograd.grad(kl_to_target(q, torch.log_softmax(s, -1)).mean(), s)
    n = s.shape[0] * s.shape[1]
    a = torch.softmax(s.detach(), -1)
    torch.testing.assert_close(g.norm(dim=-1), (a - q[:, None]).norm(dim=-1) / n, rtol=1e-12, atol=0)
    torch.testing.assert_close(g.norm(dim=-1), g_kl.norm(dim=-1), rtol=1e-12, atol=0)   # example by example
    torch.testing.assert_close(g.sum(-1), torch.zeros_like(g.sum(-1)), rtol=0, atol=1e-15)
    # no direction: it is not the KL's, and it is drawn afresh at every call (every epoch)
    cos = (g * g_kl).sum(-1) / (g.norm(dim=-1) * g_kl.norm(dim=-1))
    assert cos.abs().mean() < 0.9
    (g2,) = torch.autograd.grad(train.prior_loss(s, q, "logit-noise", gen), s)
    assert not torch.allclose(g, g2)
    torch.testing.assert_close(g2.norm(dim=-1), g.norm(dim=-1), rtol=1e-12, atol=0)


def test_the_logit_noise_averages_to_no_direction():
    """Over many draws the mean gradient vanishes, where the KL's does not (no information)."""
    q = torch.tensor([[0.5, 0.5, 0.0, 0.0, 0.0]], dtype=torch.float64)
    s = torch.zeros(1, 1, 5, dtype=torch.float64, requires_grad=True)
    gen = torch.Generator().manual_seed(0)
    mean = sum(torch.autograd.grad(train.prior_loss(s, q, "logit-noise", gen), s)[0] for _ in range(4000)) / 4000
    size = (torch.full((5,), 0.2, dtype=torch.float64) - q[0]).norm()
    assert mean.norm() < 0.05 * size


def test_the_weight_noise_adds_a_gradient_of_its_rms_to_every_matrix_and_nothing_to_the_loss():
    task = make_task("add", p=23, frac=0.5, n_distractors=2, seed=0)
    torch.manual_seed(0)
    model = Transformer(task.vocab_size, task.n_classes, task.seq_len, 64, 1, 256)
    x, y = task.train_x, task.train_y
    grads, losses = {}, {}
    for rms in (0.0, 3e-4):
        cfg = train.make_config(weight_noise=rms)
        model.zero_grad()
        out = model.run(x)
        loss, _, _ = train.training_loss(model, out, y, None, cfg, 0.0, torch.Generator().manual_seed(5))
        loss.backward()
        losses[rms] = loss.item()
        grads[rms] = {n: p.grad.clone() for n, p in model.named_parameters()}
    assert losses[3e-4] == losses[0.0]
    for name, p in model.named_parameters():
        diff = grads[3e-4][name] - grads[0.0][name]
        if p.dim() >= 2:
            assert diff.pow(2).mean().sqrt().item() == pytest.approx(3e-4, rel=0.05), name
            assert abs(diff.mean().item()) < 3e-4 * 5 / diff.numel() ** 0.5, name
        else:
            assert torch.equal(diff, torch.zeros_like(diff)), name      # biases: no noise
    gen = torch.Generator().manual_seed(5)
    first = controls.weight_noise(model, 3e-4, gen)
    (a,) = torch.autograd.grad(first, model.W_in)
    (b,) = torch.autograd.grad(controls.weight_noise(model, 3e-4, gen), model.W_in)
    assert not torch.equal(a, b)                                            # fresh at every step


def test_the_controls_change_nothing_when_off():
    """No generator for a run without them, and a run that names them at strength 0 is the
    default run, bitwise (same process)."""
    assert controls.noise_generator(train.make_config(), torch.device("cpu")) is None
    assert controls.noise_generator(train.make_config(prior_kind="logit-noise"), torch.device("cpu")) is None
    base = train.train(train.make_config(**TINY, distractors="fresh"))[1]
    for changes in (dict(prior_kind="logit-noise"), dict(prior="shuffled"), dict(weight_noise=0.0)):
        assert train.train(train.make_config(**TINY, distractors="fresh", **changes))[1] == base, changes


@pytest.mark.parametrize("changes", [dict(lam=0.3, prior_kind="logit-noise"), dict(weight_noise=3e-4),
                                     dict(lam=0.3, prior="shuffled")])
def test_each_control_changes_the_run_and_repeats_bitwise(changes):
    base = train.train(train.make_config(**TINY, distractors="fresh"))[1]
    once = train.train(train.make_config(**TINY, distractors="fresh", **changes))[1]
    again = train.train(train.make_config(**TINY, distractors="fresh", **changes))[1]
    assert once == again and once["train_loss"] != base["train_loss"]


def test_the_controls_refuse_what_they_cannot_mean():
    for changes in (dict(task="arparity", distractors="fixed", prior="shuffled", lam=0.1),
                    dict(task="arparity", distractors="fixed", prior_kind="logit-noise", lam=0.1),
                    dict(weight_noise=-1.0)):
        with pytest.raises(ValueError):
            train.validate(train.make_config(**changes))
