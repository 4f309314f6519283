import pytest
import torch

from tasks import make_task


@pytest.mark.parametrize("name,fn", [("add", lambda o: o.sum(1)), ("mul", lambda o: o[:, 0] * o[:, 1]),
                                     ("addk", lambda o: o.sum(1)),
                                     ("sub", lambda o: torch.tensor([(a - b) % 7 for a, b in o.tolist()]))])
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
    for kw in (dict(name="div"), dict(p=2), dict(frac=0.0), dict(frac=1.0), dict(n_distractors=-1)):
        with pytest.raises(ValueError):
            make_task(**kw)


def test_parity_labels_and_oracle():
    from tasks import make_task
    t = make_task("parity", n_bits=6, parity_k=3, frac=0.5, seed=0)
    assert len(t.train_x) + len(t.test_x) == 2 ** 6
    for x, y in ((t.train_x, t.train_y), (t.test_x, t.test_y)):
        for row, label in zip(x.tolist(), y.tolist()):
            assert label == row[0] ^ row[1] ^ row[2] and row[-1] == 2 and set(row[:-1]) <= {0, 1}
    q = t.oracle_for("train")
    assert torch.allclose(q[:, :3], torch.full((len(q), 3), 1 / 3)) and (q[:, 3:] == 0).all()


def test_permutation_composition():
    from tasks_appendix import compose
    g, h = (1, 0, 2), (0, 2, 1)                     # (g o h)(i) = g(h(i))
    assert compose(g, h) == (1, 2, 0) and compose(h, g) == (2, 0, 1)
    t = make_task("perm", perm_n=3, frac=0.5, n_distractors=1, seed=0)
    elems = list(__import__("itertools").permutations(range(3)))
    assert t.n_values == 6 and t.vocab_size == 7
    for row, label in zip(t.train_x.tolist(), t.train_y.tolist()):
        assert elems[label] == compose(elems[row[0]], elems[row[1]])
    assert torch.equal(t.oracle_for("test")[0], torch.tensor([0.5, 0.5, 0, 0]))


def test_routing_oracle_follows_the_operands():
    t = make_task("route", p=7, frac=0.5, n_distractors=3, seed=0)
    for split, x, y in (("train", t.train_x, t.train_y), ("test", t.test_x, t.test_y)):
        q = t.oracle_for(split)
        info = q > 0
        assert (info.sum(1) == 2).all() and (q[info] == 0.5).all()
        assert (x[info] < 7).all()          # operands: value tokens
        assert (x[:, :-1][~info[:, :-1]] > 7).all()                             # the rest: noise tokens
        assert torch.equal(x[info].view(-1, 2).sum(1) % 7, y)
    assert len({tuple(r) for r in (t.oracle_for("train") > 0).int().tolist()}) > 1   # positions vary
    before, q_before = t.train_x.clone(), t.oracle_for("train")
    t.refresh_distractors(1.0)
    assert torch.equal(t.oracle_for("train"), q_before)                          # operands stay put
    assert torch.equal(t.train_x[q_before > 0], before[q_before > 0])
    assert not torch.equal(t.train_x, before) and (t.train_x[:, :-1][q_before[:, :-1] == 0] > 7).all()
    adv = t.adversarial_for("train")
    assert (adv[q_before > 0] == 0).all() and torch.allclose(adv.sum(1), torch.ones(len(adv)))


def test_autoregressive_parity_rows():
    from tasks_appendix import parity_subsets
    t = make_task("arparity", n_bits=6, parity_k=2, n_outputs=3, frac=0.5, seed=1)
    S = parity_subsets(6, 2, 3, 1)
    assert t.subsets == S and t.seq_len == 9
    for split, x, y in (("train", t.train_x, t.train_y), ("test", t.test_x, t.test_y)):
        qpos, q = t.qpos[split], t.oracle_for(split)
        for row, label, p, qrow in zip(x.tolist(), y.tolist(), qpos.tolist(), q):
            j = p - 5                                         # query at n - 1 + j predicts c_j at n + j
            assert 0 <= j < 3 and label == row[S[j][0]] ^ row[S[j][1]] == row[6 + j]
            assert torch.equal(qrow > 0, torch.tensor([i in S[j] for i in range(9)]))
            assert (qrow[p + 1:] == 0).all()                # the oracle never looks ahead
    # a sequence's rows all sit in one split
    tr = {tuple(r[:6]) for r in t.train_x.tolist()}
    assert not tr & {tuple(r[:6]) for r in t.test_x.tolist()}
    with pytest.raises(ValueError, match="no distractors"):
        t.refresh_distractors(1.0)


SMALL = {"add": dict(p=11), "sub": dict(p=11), "mul": dict(p=11), "addk": dict(p=7, n_operands=3), "parity": dict(n_bits=8),
         "perm": dict(perm_n=3), "route": dict(p=11), "arparity": dict(n_bits=6),
         "add/separate": dict(p=11, distractor_vocab="separate"), "add/pad": dict(p=11, distractor_vocab="pad")}


@pytest.mark.parametrize("rho", [0.0, 0.3, 1.0])
@pytest.mark.parametrize("name", sorted(SMALL))
def test_train_and_test_inputs_stay_disjoint_at_every_epoch(name, rho):
    """No training input ever equals a test input, in any task and distractor regime (a
    redrawn parity row once became a test string: the leak this guards against)."""
    t = make_task(name.split("/")[0], frac=0.3, seed=0, **SMALL[name])
    rows = lambda x: {tuple(r) for r in x.tolist()}
    test = rows(t.test_x)
    test_x, test_y = t.test_x.clone(), t.test_y.clone()
    for epoch in range(30):
        assert not rows(t.train_x) & test, f"epoch {epoch}"
        if name == "arparity":           # nothing to redraw: one check of the fixed split suffices
            break
        t.refresh_distractors(rho)
    assert torch.equal(t.test_x, test_x) and torch.equal(t.test_y, test_y)


def test_parity_split_is_over_distractor_patterns():
    t = make_task("parity", n_bits=8, parity_k=3, frac=0.3, seed=2)
    pats = lambda x: {tuple(r) for r in x[:, 3:8].tolist()}
    assert not pats(t.train_x) & pats(t.test_x)
    assert len(pats(t.train_x)) == round(0.3 * 32) and len(t.train_x) == 8 * round(0.3 * 32)
    before = t.train_x.clone()
    t.refresh_distractors(1.0)
    assert torch.equal(t.train_x[:, :3], before[:, :3]) and pats(t.train_x) <= pats(before)
    assert not torch.equal(t.train_x, before)


def test_adversarial_target_of_routed_rows_is_uniform_on_their_distractors():
    """Dynamic routing: each row's operands sit at their own positions; the adversarial target
    spreads over that row's distractors only, never its operands or the query token itself."""
    t = make_task("route", p=11, frac=0.3, seed=0)
    adv, info = t.adversarial_for("train"), t.info_mask["train"]
    assert (adv[:, t.query_pos] == 0).all() and (adv[info] == 0).all()
    distractors = ~info
    distractors[:, t.query_pos] = False
    assert torch.allclose(adv, distractors.float() / distractors.sum(1, keepdim=True))


def test_adversarial_target_of_causal_rows_excludes_the_real_query():
    t = make_task("arparity", n_bits=6, parity_k=2, n_outputs=3, frac=0.5, seed=1)
    adv, qpos, info = t.adversarial_for("train"), t.qpos["train"], t.info_mask["train"]
    rows = torch.arange(len(adv))
    assert (adv[rows, qpos] == 0).all() and (adv[info] == 0).all()
    assert (adv * (torch.arange(t.seq_len)[None] > qpos[:, None])).sum() == 0     # no future key
    assert torch.allclose(adv.sum(1), torch.ones(len(adv)))


def test_uniform_target_spreads_over_every_key_the_query_attends():
    """The priors study's control: no information (the same weight on every attended key,
    informative or not), so KL toward it has a live gradient a - q and no direction."""
    t = make_task("add", p=11, n_distractors=2)
    u = t.uniform_for("train")
    assert u.shape == t.train_x.shape and torch.allclose(u, torch.full_like(u, 1 / 5))
    t = make_task("arparity", n_bits=6, parity_k=2, n_outputs=3, frac=0.5, seed=1)
    u, qpos = t.uniform_for("train"), t.qpos["train"]
    keys = torch.arange(t.seq_len)[None] <= qpos[:, None]            # causal: up to the query itself
    assert (u[~keys] == 0).all() and torch.allclose(u[keys], (1 / (qpos + 1).float())[:, None].expand_as(u)[keys])
    assert torch.allclose(u.sum(1), torch.ones(len(u)))


@pytest.mark.parametrize("rho", [0.0, 1.0])
def test_distractor_vocabularies(rho):
    """shared (the default) is the task as it always was, token for token; separate draws
    distractors from p+1..2p and pad holds the token p+1, at every epoch, and the vocabulary
    grows to hold them; operands, labels and the split never change."""
    p = 11
    tasks = {v: make_task("add", p=p, seed=3, distractor_vocab=v) for v in ("shared", "separate", "pad")}
    old = make_task("add", p=p, seed=3)
    assert torch.equal(tasks["shared"].train_x, old.train_x) and tasks["shared"].vocab_size == p + 1
    assert tasks["separate"].vocab_size == 2 * p + 1 and tasks["pad"].vocab_size == p + 2
    for epoch in range(3):
        for v, t in tasks.items():
            x = torch.cat([t.train_x, t.test_x])
            d = x[:, 2:-1]
            lo, hi = {"shared": (0, p), "separate": (p + 1, 2 * p + 1), "pad": (p + 1, p + 2)}[v]
            assert d.min() >= lo and d.max() < hi, (v, epoch)
            assert torch.equal(x[:, :2], torch.cat([old.train_x, old.test_x])[:, :2]) and (x[:, -1] == p).all()
            assert torch.equal(t.train_y, old.train_y)
            t.refresh_distractors(rho)
        old.refresh_distractors(rho)
        assert torch.equal(tasks["shared"].train_x, old.train_x)
    assert len(set(tasks["separate"].train_x[:, 2:].flatten().tolist())) > 2       # a noise vocabulary, not one token
    with pytest.raises(ValueError, match="distractor"):
        make_task("parity", distractor_vocab="pad")
    with pytest.raises(ValueError, match="distractor"):
        make_task("add", p=p, distractor_vocab="noise")
