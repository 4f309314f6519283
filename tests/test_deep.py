"""The deeper model (model_deep.DeepTransformer, beyond the paper, docs/registered/deep.md): its
definition against a line-by-line pre-LN transformer, its fast path against its definition
(forward and gradients), the minimal model as its one-layer case, the prior's layer, and the
loop's per-layer diagnostics."""
import math
import os

import pytest
import torch
import torch.nn.functional as F

import diagnostics
import train
from model import Transformer
from model_deep import DeepTransformer
from tasks import make_task


def _deep(n_layers=2, layernorm=True, n_heads=2, prior_layer="first", seed=0, final_layernorm=True):
    torch.manual_seed(seed)
    m = DeepTransformer(12, 11, 6, d_model=16, n_heads=n_heads, d_mlp=32, n_layers=n_layers,
                        layernorm=layernorm, prior_layer=prior_layer, final_layernorm=final_layernorm).double()
    with torch.no_grad():            # LayerNorm's gains and shifts away from 1 and 0, so that they count
        for name, p in m.named_parameters():
            if "ln_" in name:
                p.add_(0.3 * torch.randn_like(p))
    x = torch.randint(0, 12, (30, 6))
    return m, x


def _textbook(m, x):
    """A pre-LN transformer written out, one head at a time: h + attn(LN h), h + MLP(LN h),
    LN before the unembedding, every position; the query's logits and each block's query row."""
    B, T = x.shape
    dh = m.d_head
    h = m.embed[x] + m.pos[:T]
    rows = []
    for b in m.blocks:
        u = b.ln_attn(h)
        heads = []
        for i in range(m.n_heads):
            sl = slice(i * dh, (i + 1) * dh)
            q, k, v = u @ b.W_Q[sl].T, u @ b.W_K[sl].T, u @ b.W_V[sl].T
            att = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(dh), -1)
            heads.append((att[:, -1], att @ v))
        rows.append(torch.stack([a for a, _ in heads], 1))
        h = h + torch.cat([o for _, o in heads], -1) @ b.W_O.T
        h = h + F.relu(b.ln_mlp(h) @ b.W_in.T + b.b_in) @ b.W_out.T + b.b_out
    return (m.ln_final(h) @ m.W_U.T)[:, -1], rows


@pytest.mark.parametrize("n_layers,layernorm", [(1, True), (2, True), (3, False)])
def test_definition_is_the_textbook_pre_ln_transformer(n_layers, layernorm):
    m, x = _deep(n_layers, layernorm)
    logits, attn = m.definition(x)
    ref_logits, ref_attn = _textbook(m, x)
    torch.testing.assert_close(logits, ref_logits, rtol=1e-10, atol=1e-10)
    for a, r in zip(attn, ref_attn):
        torch.testing.assert_close(a, r, rtol=1e-10, atol=1e-10)


def test_layernorm_is_there_or_not():
    """LayerNorm's parameters are there or not, and it acts: the first block reads LN(h), so its
    attention ignores a common scale and shift of the token and position vectors; the minimal
    model's does not."""
    assert sum("ln_" in n for n, _ in _deep(2, True)[0].named_parameters()) == 2 * (2 * 2) + 2
    assert not any("ln_" in n for n, _ in _deep(2, False)[0].named_parameters())
    for layernorm in (True, False):
        m, x = _deep(1, layernorm)
        m2, _ = _deep(1, layernorm)
        with torch.no_grad():                           # h = 3 (e + p) + 1
            m2.embed.mul_(3).add_(1)
            m2.pos.mul_(3)
        same = torch.allclose(m2.definition(x)[1][0], m.definition(x)[1][0], rtol=0, atol=1e-3)   # eps 1e-5: 6e-5
        assert same == layernorm


@pytest.mark.parametrize("causal,final_layernorm", [(False, True), (True, True), (False, False)])
def test_fast_path_equals_the_definition_forward_and_gradients(causal, final_layernorm):
    m, x = _deep(3, True, final_layernorm=final_layernorm)
    assert isinstance(m.ln_final, torch.nn.LayerNorm) == final_layernorm
    qpos = torch.randint(0, 6, (30,)) if causal else None
    y = torch.randint(0, 11, (30,))
    out = m.run(x, qpos=qpos)
    logits, attn = m.definition(x, qpos=qpos)
    torch.testing.assert_close(out["logits"], logits, rtol=1e-10, atol=1e-10)
    for a, r in zip(out["attn_layers"], attn):
        torch.testing.assert_close(a, r, rtol=1e-10, atol=1e-10)
    if causal:                                          # no key after the query gets attention
        after = torch.arange(6)[None, :] > qpos[:, None]
        assert all(float(a.detach()[after[:, None, :].expand_as(a)].abs().max()) < 1e-300 for a in out["attn_layers"])
    F.cross_entropy(out["logits"], y).backward()
    fast = {n: p.grad.clone() for n, p in m.named_parameters()}
    m.zero_grad()
    F.cross_entropy(m.definition(x, qpos=qpos)[0], y).backward()
    for n, p in m.named_parameters():
        torch.testing.assert_close(fast[n], p.grad, rtol=1e-9, atol=1e-12, msg=n)


def test_one_block_without_layernorm_is_the_minimal_model():
    """Same seed, same parameters in the same order: the same numbers as Transformer, both paths."""
    torch.manual_seed(5)
    small = Transformer(12, 11, 6, 16, 2, 32).double()
    m, x = _deep(1, False, seed=5)
    deep = dict(m.named_parameters())
    for name, p in small.named_parameters():
        assert torch.equal(p, deep[name] if name in deep else deep[f"blocks.0.{name}"]), name
    torch.testing.assert_close(m.run(x)["logits"], small.run(x)["logits"], rtol=1e-10, atol=1e-10)
    torch.testing.assert_close(m.definition(x)[0], small.definition(x)[0], rtol=1e-10, atol=1e-10)


def test_the_prior_acts_on_the_registered_layer():
    """prior_layer first: the KL prior's gradient never reaches the last block (it reads the first
    block's scores, upstream of it); last and all: it does. all is the mean of the layers' KLs."""
    q = torch.zeros(30, 6)
    q[:, :2] = 0.5                                      # an oracle on positions 0 and 1
    for layer, reaches_last in (("first", False), ("last", True), ("all", True)):
        m, x = _deep(2, True, prior_layer=layer)
        out = m.run(x)
        assert out["scores"].shape == (30, 2 * (2 if layer == "all" else 1), 6)
        train.prior_loss(out["scores"], q).backward()
        assert m.blocks[0].W_Q.grad.abs().max() > 0       # upstream of every layer's scores
        g = m.blocks[1].W_Q.grad
        assert (g is not None and g.abs().max() > 0) == reaches_last, layer
    m, x = _deep(2, True, prior_layer="all")
    out = m.run(x)
    per_layer = [train.prior_loss(s, q) for s in out["scores_layers"]]
    torch.testing.assert_close(train.prior_loss(out["scores"], q), sum(per_layer) / 2)


def test_per_layer_task_gradient_is_autograds():
    """layer_stats' ||dL/ds|| per block against autograd's gradient of the task loss with respect to
    each block's scores (the blocks called one by one here), the prior excluded; and ||dL/dW||
    by the chain rule dL/dW_Q = W_K G^T."""
    task = make_task("add", p=11, frac=0.5, n_distractors=2, seed=0)
    torch.manual_seed(0)
    m = DeepTransformer(task.vocab_size, task.n_classes, task.seq_len, 16, 2, 32, 2, True).double()
    x, y = task.train_x, task.train_y
    h = m.embed[x] + m.pos[:x.shape[1]]
    h, _, s0, _ = m.blocks[0](h)
    h, _, s1, u1 = m.blocks[1](h)
    g0, g1 = torch.autograd.grad(F.cross_entropy(m.ln_final(h[:, -1]) @ m.W_U.T, y), (s0, s1))
    want = [g0[:, :, -1].norm().item(), g1[:, :, -1].norm().item()]

    out = m.run(x)
    for a in out["attn_full"]:
        a.retain_grad()
    out["ce_each"] = F.cross_entropy(out["logits"], y, reduction="none")
    (out["ce_each"].mean() + 0.5 * train.prior_loss(out["scores"], task.oracle_for("train"))).backward()
    stats = m.layer_stats({"x": x, "qpos": None}, {"oracle": task.oracle_for("test")}, out,
                                    m.run(task.test_x), 0.25)
    assert stats["grad_s_norm_layers"] == pytest.approx(want, rel=1e-9)
    assert stats["grad_s_norm"] == stats["grad_s_norm_layers"][0]          # prior_layer first
    assert len(stats["info_mass_layers"]) == 2
    G = diagnostics.interaction(u1, u1[:, -1], g1[:, :, -1], m.d_head)       # the last block's W_Q^T W_K
    assert stats["grad_W_norm_layers"][1] == pytest.approx(G.norm().item(), rel=1e-9)
    m.zero_grad()
    F.cross_entropy(m.run(x)["logits"], y).backward()
    dh = m.d_head
    for i in range(2):
        sl = slice(i * dh, (i + 1) * dh)
        torch.testing.assert_close(m.blocks[1].W_Q.grad[sl], m.blocks[1].W_K[sl].detach() @ G[i].T,
                                   rtol=1e-9, atol=1e-12)


def test_the_loop_trains_the_deeper_model_and_logs_every_layer():
    cfg = train.make_config(p=11, frac=0.5, n_layers=2, layernorm=True, lam=0.3, epochs=20, eval_every=10,
                            d_model=16, d_mlp=32, quiet=True)
    summary, history = train.train(cfg)
    assert summary["config"]["n_layers"] == 2 and summary["config"]["layernorm"]
    for key in ("info_mass_layers", "frac_struct_layers", "grad_s_norm_layers", "grad_W_norm_layers"):
        assert len(history[key]) == 3 and len(history[key][0]) == 2
    assert "lemma_bound" not in history
    assert history["info_mass"] == [v[0] for v in history["info_mass_layers"]]


def test_the_defaults_are_the_minimal_model():
    cfg = train.make_config(p=11)
    assert not train.deep(cfg) and type(train.build_run(cfg, torch.device("cpu"))[1]) is Transformer
    assert type(train.build_run(train.make_config(p=11, layernorm=True), torch.device("cpu"))[1]) is DeepTransformer


@pytest.mark.parametrize("changes,message", [
    (dict(n_layers=0), "--n-layers must be >= 1"),
    (dict(prior_layer="middle"), "unknown prior layer"),
    (dict(prior_layer="all"), "--prior-layer is for --n-layers above 1"),
    (dict(n_layers=2, frozen_attn="oracle"), "--frozen-attn is for the minimal model"),
    (dict(layernorm=True, qk_penalty=0.1), "--qk-penalty is for the minimal model"),
    (dict(n_layers=2, init="pytorch"), "--init pytorch is for the minimal model")])
def test_bad_deep_flags_are_one_line_errors(changes, message):
    with pytest.raises(ValueError, match=message):
        train.validate(train.make_config(**changes))


# ---------------------------------------------------------------------------------------
# The registered study (audit/deep.py, docs/registered/deep.md): its runs and its rules

def test_the_study_runs_are_the_registered_ones():
    from audit import deep as D
    import store
    pilot = D.pilot_runs(D.parse(["--part", "pilot"]))
    assert [(c.seed, c.epochs, c.distractors, c.lam, c.n_layers, c.layernorm) for _, c in pilot] == \
        [(100, 20000, "fresh", 0.0, 2, True), (100, 20000, "fixed", 0.3, 2, True)]
    grid = D.grid_runs(D.parse([]), 10000, 0)
    runs = [c for rs in grid.values() for _, c in rs]
    assert len(runs) == 3 * 3 * 6 and len({store.run_key(c) for c in runs}) == len(runs)
    assert {c.seed for c in runs} == set(range(6)) and {c.epochs for c in runs} == {10000}
    assert {(c.distractors, c.refresh) for c in runs} == {("fixed", 0.0), ("refresh", 0.003), ("fresh", 0.0)}
    assert all(c.n_layers == 2 and c.layernorm and c.wd == 1.0 and c.stop_after == 200 and c.n_heads == 1 for c in runs)
    assert {(c.lam, c.prior_layer) for c in runs} == {(0.0, "first"), (0.3, "first"), (0.3, "all")}
    shrunk = D.grid_runs(D.parse([]), 20000, 4)            # amendment 1, step 4: seeds 0-4, no alternative, no fresh
    assert {c.epochs for rs in shrunk.values() for _, c in rs} == {20000}
    assert {c.seed for rs in shrunk.values() for _, c in rs} == set(range(5))
    assert {cell for cell, _ in shrunk} == {"fixed", "rho 0.003"}
    assert not any(arm == "all" for _, arm in shrunk) and any(arm == "all" for _, arm in D.grid_runs(D.parse([]), 1, 1))


def test_the_budget_and_cost_rules():
    from audit import deep as D
    assert D.budget_rule(4000, 5000) == 10000 and D.budget_rule(4000, 5010) == 20000 and D.budget_rule(None, 10) == 20000
    # the whole grid at 100 ms an epoch, both pilot runs at 3,000: 6 seeds x (2 x 10k + 4,700 + 6 x 4,700)
    assert D.grid_cost(10000, 0, 100, 3000, 3000) == pytest.approx(6 * (20000 + 7 * 4700) * 0.1 / 3600)
    assert D.grid_cost(10000, 2, 100, 3000, 3000) == pytest.approx(6 * (20000 + 4 * 4700) * 0.1 / 3600)
    assert D.grid_cost(20000, 4, 100, None, None) == pytest.approx(5 * (2 * 20000 + 2 * 20000) * 0.1 / 3600)
    assert D.shrink_step(10000, 100, 3000, 3000) == 0 and D.shrink_step(10000, 150, 3000, 3000) == 1
    assert D.shrink_step(20000, 150, None, None) is None          # no step fits: the grid is not run


def test_the_predictions_rules():
    from audit import deep as D
    v = lambda verdict, ci=(0.0, 1.0): {"verdict": verdict, "ci": list(ci)}
    assert D.judge_d1({"fixed": v("reproduced"), "rho 0.003": v("reproduced")}) == "holds"
    assert D.judge_d1({"fixed": v("reproduced"), "rho 0.003": v("not reproduced")}) == "fails"
    assert D.judge_d1({"fixed": v("reproduced"), "rho 0.003": v("inconclusive")}) == "inconclusive"
    assert D.judge_d1({"fixed": v("reproduced")}) == "not decided"
    cells = lambda fresh: {"fixed": v("", (0.5, 1.5)), "rho 0.003": v("", (0.4, 1.0)), "fresh": v("", fresh)}
    assert D.judge_d2(cells((-0.2, 0.3))) == "holds"
    assert D.judge_d2(cells((-0.2, 0.45))) == "inconclusive"
    assert D.judge_d2(cells((1.1, 1.3))) == "fails"


def test_the_committed_pilot_plan_is_the_rule_applied_to_the_stored_pilot():
    """results/deep_pilot.json is what the registered rules make of the two stored pilot runs."""
    from audit import deep as D
    import store
    runs = D.pilot_runs(D.parse(["--part", "pilot"]))
    summaries = {label: store.read(store.STORE, cfg)[0] for label, cfg in runs}
    plan = D.pilot_plan(summaries)
    committed = store.read_json(os.path.join(store.STORE, "..", "deep_pilot.json"))
    assert plan["budget"] == committed["budget"] and plan["step"] == committed["step"]
    assert plan["core_hours_by_step"] == pytest.approx(committed["core_hours_by_step"], rel=1e-5)
    assert D.BUDGET is None and D.SHRINK_STEP is None          # no grid under this registration


def test_the_model_people_train_drops_only_the_final_layernorm_and_exempts_only_norms_and_biases():
    """docs/registered/deep_trained.md: --no-final-layernorm removes the LayerNorm before the
    unembedding and no other; --no-decay-norms puts LayerNorm gains, shifts and every bias in a
    group without weight decay, and nothing else; the minimal model's defaults are unchanged."""
    cfg = train.make_config(p=11, frac=0.5, n_layers=2, layernorm=True, final_layernorm=False, decay_norms=False)
    _, model = train.build_run(cfg, torch.device("cpu"))
    assert isinstance(model.ln_final, torch.nn.Identity)
    assert all(isinstance(b.ln_attn, torch.nn.LayerNorm) and isinstance(b.ln_mlp, torch.nn.LayerNorm) for b in model.blocks)
    opt = train.build_optimizer(model, "adamw", 1e-3, 1.0, (0.9, 0.999), cfg.decay_norms)
    names = {id(p): n for n, p in model.named_parameters()}
    decayed, exempt = ({names[id(p)] for p in g["params"]} for g in opt.param_groups)
    assert [g["weight_decay"] for g in opt.param_groups] == [1.0, 0.0]
    expected_exempt = {n for n, _ in model.named_parameters() if "ln_" in n or n.endswith(("b_in", "b_out"))}
    assert exempt == expected_exempt and decayed == set(names.values()) - expected_exempt
    assert {"embed", "pos", "W_U", "blocks.0.W_Q", "blocks.1.W_out"} <= decayed
    # an exempt gain keeps its value under pure decay (zero gradient), a decayed matrix shrinks
    for p in model.parameters():
        p.grad = torch.zeros_like(p)
    gain, matrix = model.blocks[0].ln_attn.weight.detach().clone(), model.W_U.detach().clone()
    opt.step()
    assert torch.equal(model.blocks[0].ln_attn.weight, gain) and not torch.equal(model.W_U, matrix)
    # the defaults: one group decaying everything, the final LayerNorm kept
    base = train.make_config()
    assert base.decay_norms and base.final_layernorm
    _, minimal = train.build_run(base, torch.device("cpu"))
    default_opt = train.build_optimizer(minimal, "adamw", 1e-3, 1.0, (0.9, 0.999))
    assert len(default_opt.param_groups) == 1 and default_opt.param_groups[0]["weight_decay"] == 1.0
    with pytest.raises(ValueError):
        train.validate(train.make_config(final_layernorm=False))
    with pytest.raises(ValueError):
        train.validate(train.make_config(decay_norms=False, optimizer="sgd"))