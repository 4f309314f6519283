"""The general structural prior (App. F.2): penalty kinds, schedules, the teacher target."""
import math

import pytest
import torch

import train
from model import Transformer
from tasks import make_task


def test_undirected_penalties_at_uniform_and_one_hot():
    T = 5
    uniform = torch.zeros(1, 1, T)
    one_hot = torch.tensor([[[0.0, 60.0, 0.0, 0.0, 0.0]]])      # softmax = one-hot to float64 precision
    assert train.prior_loss(uniform, None, "entropy").item() == pytest.approx(math.log(T), rel=1e-12)
    assert train.prior_loss(uniform, None, "sparsity").item() == pytest.approx(1 - 1 / T, rel=1e-12)
    assert train.prior_loss(one_hot, None, "entropy").item() == pytest.approx(0, abs=1e-20)
    assert train.prior_loss(one_hot, None, "sparsity").item() == pytest.approx(0, abs=1e-20)
    # the minimum is any one-hot: blind to *which* position (undirected)
    other = one_hot.roll(2, -1)
    for kind in ("entropy", "sparsity"):
        assert train.prior_loss(other, None, kind).item() == train.prior_loss(one_hot, None, kind).item()


def test_undirected_penalty_gradients_match_closed_forms():
    torch.manual_seed(0)
    s = torch.randn(6, 2, 5, dtype=torch.float64, requires_grad=True)
    a = torch.softmax(s.detach(), -1)
    n = s.shape[0] * s.shape[1]                      # prior_loss is a mean over examples and heads
    H = -(a * a.log()).sum(-1, keepdim=True)
    closed = {"entropy": -a * (a.log() + H) / n,                                     # -a_j (log a_j + H)
              "sparsity": -2 * a * (a - a.pow(2).sum(-1, keepdim=True)) / n}       # -2 a_j (a_j - ||a||^2)
    for kind, want in closed.items():
        (g,) = torch.autograd.grad(train.prior_loss(s, None, kind), s)
        torch.testing.assert_close(g, want, rtol=1e-10, atol=1e-14)


def test_l1_on_the_attention_logits_and_its_gradient():
    """C6-L1 (docs/registered/sensitivity.md): mean over rows and heads of sum_i |s_i|, d/ds = sign(s) / n;
    keys a causal query cannot see (-inf) are left out, with zero gradient."""
    s = torch.tensor([[[1.0, -2.0, 0.5]], [[-0.25, 3.0, -float("inf")]]], dtype=torch.float64, requires_grad=True)
    loss = train.prior_loss(s, None, "l1-logits")
    assert loss.item() == pytest.approx((3.5 + 3.25) / 2)
    (g,) = torch.autograd.grad(loss, s)
    assert g.tolist() == [[[0.5, -0.5, 0.5]], [[-0.5, 0.5, 0.0]]]


def test_schedules():
    cfg = train.make_config(lam=0.5)
    assert [train.prior_weight(cfg, t) for t in (0, 10, 9999)] == [0.5, 0.5, 0.5]
    late = train.make_config(lam=0.5, prior_start=1000)
    assert [train.prior_weight(late, t) for t in (0, 999, 1000, 5000)] == [0.0, 0.0, 0.5, 0.5]
    anneal = train.make_config(lam=0.5, prior_anneal=1000)
    got = [train.prior_weight(anneal, t) for t in (0, 250, 500, 1000, 3000)]
    assert got == pytest.approx([0.5, 0.375, 0.25, 0.0, 0.0])
    both = train.make_config(lam=0.5, prior_start=200, prior_anneal=100)
    assert [train.prior_weight(both, t) for t in (199, 200, 250, 300)] == pytest.approx([0, 0.5, 0.25, 0])


def test_schedule_reaches_the_loss():
    """With a late start, the first epochs train exactly like lambda = 0."""
    kw = dict(p=11, frac=0.5, epochs=6, eval_every=1, threads=1, quiet=True, device="cpu")   # bitwise: the CPU's
    _, h0 = train.train(train.make_config(**kw))
    _, hl = train.train(train.make_config(lam=1.0, prior_start=4, **kw))
    assert hl["prior_weight"] == [0, 0, 0, 0, 1, 1, 1]
    assert hl["train_loss"][:5] == h0["train_loss"][:5]           # bitwise: lambda(t) = 0 until t = 4
    assert hl["train_loss"][5] != h0["train_loss"][5]
    assert hl["prior_loss"][0] > 0                                # logged while off


def test_teacher_target_is_the_teachers_attention_without_gradient():
    task = make_task("add", p=11, frac=0.5, n_distractors=2, seed=0)
    torch.manual_seed(1)
    teacher = Transformer(task.vocab_size, task.n_classes, task.seq_len, 16, 2, 32).requires_grad_(False)
    torch.manual_seed(2)
    student = Transformer(task.vocab_size, task.n_classes, task.seq_len, 16, 2, 32)
    x = task.train_x
    q = train.teacher_attention(teacher, x)
    torch.testing.assert_close(q, teacher.run(x)["attn"])
    assert not q.requires_grad and q.shape == (len(x), 2, task.seq_len)       # one target per head
    train.prior_loss(student.run(x)["scores"], q).backward()
    assert all(p.grad is None for p in teacher.parameters())
    assert student.W_Q.grad is not None and student.W_Q.grad.abs().sum() > 0


def test_teacher_run_sees_the_students_inputs(tmp_path):
    """A teacher equal to the student's own initialisation gives KL ~ 0 at every epoch of a
    short run (warm-up: the student barely moves) only if the teacher is re-run on each
    epoch's freshly drawn distractors; another initialisation as teacher gives KL >> 0."""
    kw = dict(p=11, frac=0.5, epochs=3, eval_every=1, threads=1, quiet=True, n_heads=2, d_model=16, d_mlp=32)
    for init_seed in (0, 5):
        weights = {}
        train.train(train.make_config(init_seed=init_seed, **kw), weights=weights)
        torch.save(weights["init"], tmp_path / f"init{init_seed}.pt")
    _, h = train.train(train.make_config(lam=1.0, prior="teacher", teacher=str(tmp_path / "init0.pt"), **kw))
    assert max(h["prior_loss"]) < 1e-5                     # float32 attention rounding, 4 epochs
    _, h = train.train(train.make_config(lam=1.0, prior="teacher", teacher=str(tmp_path / "init5.pt"), **kw))
    assert h["prior_loss"][0] > 1e-3


def test_prior_flag_errors():
    for bad in (dict(prior="teacher"), dict(prior_kind="l1"), dict(teacher="/nonexistent.pt", prior="teacher"),
                dict(prior_anneal=0), dict(prior_start=-1)):
        with pytest.raises(ValueError):
            train.validate(train.make_config(**bad))


def test_each_kl_target_reaches_the_run():
    """--prior picks the KL target q the loss sees: oracle, adversarial or uniform."""
    task = make_task("add", p=11, n_distractors=2)
    want = {"oracle": task.oracle_for("train"), "adversarial": task.adversarial_for("train"),
            "uniform": task.uniform_for("train")}
    for prior, q in want.items():
        train_set, _ = train.batches(task, train.make_config(p=11, lam=1.0, prior=prior), torch.device("cpu"))
        assert torch.equal(train_set["target"], q), prior
    assert len({tuple(q[0].tolist()) for q in want.values()}) == 3


def test_l1_logits_prior_reaches_the_run():
    """--prior-kind l1-logits is the penalty the run logs: at epoch 0, the initial model's
    sum |s_i| over the training rows."""
    cfg = train.make_config(p=7, epochs=3, eval_every=1, lam=0.1, prior_kind="l1-logits", quiet=True)
    task, model = train.build_run(cfg, torch.device("cpu"))
    at_init = train.prior_loss(model.run(task.train_x)["scores"], None, "l1-logits").item()
    summary, history = train.train(cfg)
    assert history["prior_loss"][0] == pytest.approx(at_init, rel=1e-9)
    assert history["prior_loss"][-1] < at_init           # the penalty pulls the logits toward 0
