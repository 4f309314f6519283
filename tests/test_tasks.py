import pytest
import torch

from tasks import make_task


@pytest.mark.parametrize("name,fn", [("add", lambda o: o.sum(1)), ("mul", lambda o: o[:, 0] * o[:, 1]),
                                     ("addk", lambda o: o.sum(1))])
def test_labels_from_operands(name, fn):
    t = make_task(name, p=7, frac=0.4, n_distractors=3, seed=0, n_operands=3)
    k = len(t.informative)
    assert k == (3 if name == "addk" else 2)
    for x, y in ((t.train_x, t.train_y), (t.test_x, t.test_y)):
        assert torch.equal(y, fn(x[:, :k]) % 7)
        assert (x[:, -1] == 7).all() and (x[:, :-1] < 7).all()
        assert x.shape[1] == k + 3 + 1


def test_split_sizes_disjoint_and_complete():
    t = make_task("add", p=13, frac=0.3, seed=1)
    assert len(t.train_x) == round(0.3 * 169) and len(t.train_x) + len(t.test_x) == 169
    pairs = lambda x: {tuple(r) for r in x[:, :2].tolist()}
    tr, te = pairs(t.train_x), pairs(t.test_x)
    assert not tr & te and len(tr | te) == 169


def test_data_is_determined_by_the_seed():
    a, b, c = (make_task("add", p=11, seed=s) for s in (3, 3, 4))
    assert torch.equal(a.train_x, b.train_x) and torch.equal(a.test_x, b.test_x)
    assert not torch.equal(a.train_x, c.train_x)


def test_oracle_and_adversarial_targets():
    t = make_task("add", p=11, n_distractors=2)
    q = t.oracle(4)
    assert q.shape == (4, 5)
    assert torch.allclose(q.sum(1), torch.ones(4)) and torch.allclose(q[:, :2].sum(1), torch.ones(4))
    assert (q[:, 2:] == 0).all()                                   # distractors and the query get 0
    adv = t.adversarial(4)
    assert torch.allclose(adv[:, 2:4].sum(1), torch.ones(4)) and (adv[:, :2] == 0).all() and (adv[:, 4] == 0).all()


@pytest.mark.parametrize("rho", [1.0, 0.2])
def test_refresh_redraws_only_distractors_at_the_given_rate(rho):
    t = make_task("add", p=31, frac=0.5, n_distractors=2, seed=0)
    before, test_before = t.train_x.clone(), t.test_x.clone()
    t.refresh_distractors(rho)
    assert torch.equal(t.train_x[:, [0, 1, 4]], before[:, [0, 1, 4]])
    assert torch.equal(t.test_x, test_before)                      # test distractors stay fixed
    changed = (t.train_x[:, 2:4] != before[:, 2:4]).any(1).double().mean().item()
    # a redrawn row keeps both distractors with probability 1/31^2
    assert changed == pytest.approx(rho, abs=0.05)
    kept = t.train_x.clone()
    t.refresh_distractors(0.0)
    assert torch.equal(t.train_x, kept)


def test_bad_arguments():
    for kw in (dict(name="sub"), dict(p=2), dict(frac=0.0), dict(frac=1.0), dict(n_distractors=-1)):
        with pytest.raises(ValueError):
            make_task(**kw)
