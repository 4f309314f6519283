"""What a run logs every --eval-every epochs (paper §5-6, App. D): the quantities the
figures read. train.py calls `evaluation` once per logged epoch; everything else here is the
formula behind one logged number, each tested in tests/test_train.py.

  kl_to_target         KL(q || a) per example and head (Cor. 4.5's D(t); the prior of Eq. 6)
  structural_stats     D(t), informative mass min_{i in S} a_i, the fraction meeting B_tau (Def. 4.1)
  head_stats           the same per head (Conjecture E.2)
  param_norm           ||theta||_F of a parameter group (Def. 4.2: the MLP's is the Goldilocks norm)
  task_logit_grad      dL_task/ds from the gradient that reached the attention weights
  interaction_grad     dL/dW for W = W_Q^T W_K (App. D.2)
  lipschitz_bound      L_f of (attention output) -> logits, for Lemma 5.1
  task_gradient_stats  ||dL/ds||, ||dL/dW||, and Lemma 5.1 checked per example and position
  evaluation           all of the above plus losses and accuracies, for one epoch (the deeper model's
                       per-block quantities: model_deep.DeepTransformer.layer_stats)
"""
import math

import torch
import torch.nn.functional as F


def kl_to_target(q, log_a):
    """KL(q || a) per example and head, sum over positions with q_i > 0 (0 log 0 = 0).
    q: (B, T) or (B, H, T); log_a: (B, H, T). Its gradient w.r.t. the logits is a - q (Eq. 45)."""
    if q.dim() == 2:
        q = q[:, None, :]
    q = q.to(log_a.dtype)
    log_q = torch.where(q > 0, q, torch.ones_like(q)).log()
    return (q * (log_q - log_a)).sum(-1)


def structural_stats(attn, oracle, tau):
    """D(t), informative mass and the fraction satisfying B_tau (Def. 4.1), on the
    head-averaged attention (B, T) against the oracle (B, T)."""
    a = attn.double().mean(1)
    info = oracle > 0
    div = kl_to_target(oracle, a.clamp_min(1e-300).log()[:, None, :]).squeeze(1)
    min_mass = a.masked_fill(~info, math.inf).min(-1).values
    return {"struct_div": div.mean().item(), "info_mass": min_mass.mean().item(),
            "frac_struct": (min_mass >= tau).double().mean().item()}


def head_stats(attn, oracle, tau):
    """Per head: informative mass min_{i in S} a_h,i and the fraction of examples meeting
    B_tau with that head alone (Conjecture E.2 compares them with the head average)."""
    min_mass = attn.double().masked_fill(~(oracle > 0)[:, None, :], math.inf).min(-1).values   # (B, H)
    return {"info_mass_heads": min_mass.mean(0).tolist(),
            "frac_struct_heads": (min_mass >= tau).double().mean(0).tolist()}


def param_norm(params):
    return math.sqrt(sum(float(p.detach().double().pow(2).sum()) for p in params))


def softmax_backward(a, g_a):
    """dL/ds from dL/da for a = softmax(s): dL/ds_i = a_i (dL/da_i - sum_j a_j dL/da_j)."""
    return a * (g_a - (a * g_a).sum(-1, keepdim=True))


def task_logit_grad(out):
    """dL_task/ds from the gradient that reached the attention weights."""
    return softmax_backward(out["attn"].detach(), out["attn"].grad)


def interaction_grad(model, x, g, pos_ids=None, qpos=None):
    """dL/dW_h for W_h = W_Q,h^T W_K,h (H, d, d), given g = dL/ds (B, H, T) (App. D.2)."""
    h, h_q = model.inputs(x, pos_ids, qpos)                                 # (B, T, d), (B, d)
    return interaction(h, h_q, g, model.d_head)


def interaction(h, h_q, g, d_head):
    """dL/dW_h from g = dL/ds (B, H, T), the keys' inputs h (B, T, d) and the query's h_q (B, d):
    s_bhi = h_q,b^T W_h h_bi / sqrt(dh), so dL/dW_h = sum_bi g_bhi h_q,b h_bi^T / sqrt(dh)."""
    G = torch.einsum("bht,btd->hbd", g, h)                                  # sum_i g_bhi h_bi
    return torch.einsum("bc,hbd->hcd", h_q, G) / math.sqrt(d_head)


def lipschitz_bound(model):
    """L_f >= Lipschitz constant of (attention output) -> logits: r -> W_U (r + MLP(r))."""
    spec = lambda W: torch.linalg.matrix_norm(W.detach().double(), ord=2)
    return (spec(model.W_U) * (1 + spec(model.W_out) * spec(model.W_in))).item()


def task_gradient_stats(model, x, out, ce_each, pos_ids=None, qpos=None):
    """The task (cross-entropy) gradient reaching attention, on the training batch, after
    loss.backward() with out["attn"].retain_grad(): the prior acts on the logits directly
    (prior_loss), so the gradient that reached the attention weights is the task's alone.
    grad_s_norm ||dL/ds||; grad_W_norm ||dL/dW||_F for W_h = W_Q,h^T W_K,h (App. D.2, `interaction`);
    Lemma 5.1 per example and position: |dl/ds_i| <= L_f sqrt(2 l) a_i ||u_i||, u_i = W_O,h (v_i - sum_j a_j v_j)."""
    B, T = x.shape
    H, dh = model.n_heads, model.d_head
    with torch.no_grad():
        eps = torch.finfo(out["attn"].dtype).eps        # the forward's precision (bf16 under --amp)
        dtype = model.W_O.dtype                          # diagnostics in the weights' precision
        a = out["attn"].detach().to(dtype)
        g = task_logit_grad(out).to(dtype)
        grad_W = interaction_grad(model, x, g, pos_ids, qpos)
        W_O = model.W_O.view(-1, H, dh)
        u = torch.einsum("che,bthe->bhtc", W_O, model.values(x, pos_ids) - out["o"].to(dtype)[:, None])  # (B, H, T, d)
        bound = lipschitz_bound(model) * torch.sqrt(2 * ce_each.detach())[:, None, None] \
            * a.double() * u.norm(dim=-1).double()
        measured = (B * g).abs().double()                                   # per-example dl/ds
        ratio = measured / bound.clamp_min(1e-300)
    return {"grad_s_norm": g.norm().item(), "grad_W_norm": grad_W.norm().item(),
            "lemma_grad": measured.mean().item(), "lemma_bound": bound.mean().item(),
            "lemma_ratio_max": ratio.max().item(),
            # allow the forward's rounding, nothing more (the bound is usually loose by 10^2+):
            # 1e-4 relative in float32, 4 ulps in bfloat16 (--amp bf16)
            "lemma_violations": int((measured > bound * (1 + max(1e-4, 4 * eps)) + 1e-12).sum())}


def evaluation(model, train, test, out, test_out, tau):
    """Every logged quantity at one epoch (docs/registered/sensitivity.md, Logging), from the training
    forward-backward `out` (train.forward_backward with measure=True: the loss terms added,
    the attention's gradient kept) and the test forward `test_out`. train and test are the
    batch dicts of train.batches."""
    frozen = train["attn"] is not None           # then the attention has no gradient to measure
    if "attn_layers" in out:                      # the deeper model: per block, no Lemma 5.1
        metrics = model.layer_stats(train, test, out, test_out, tau)     # model_deep.DeepTransformer's
    else:
        metrics = {} if frozen else task_gradient_stats(model, train["x"], out, out["ce_each"], train["pos_ids"],
                                                        train["qpos"])
    with torch.no_grad():
        te_loss = F.cross_entropy(test_out["logits"].double(), test["y"]).item()
        te_acc = (test_out["logits"].argmax(-1) == test["y"]).double().mean().item()
        tr_acc = (out["logits"].argmax(-1) == train["y"]).double().mean().item()
        test_struct = structural_stats(test_out["attn"], test["oracle"], tau)
        train_div = structural_stats(out["attn"].detach(), train["oracle"], tau)["struct_div"]
        mass = test_out["attn"].double().mean(0)                    # (H, T)
        if model.n_heads > 1:
            metrics.update(head_stats(test_out["attn"], test["oracle"], tau))
    penalty = out["penalty"]
    return dict(train_loss=out["ce_each"].mean().item(), train_acc=tr_acc, test_loss=te_loss,
                test_acc=te_acc, prior_loss=penalty.item() if penalty is not None else 0.0,
                prior_weight=out["prior_weight"], train_struct_div=train_div, **test_struct,
                attn_mass=mass.sum(0).div(model.n_heads).tolist(), attn_mass_heads=mass.tolist(),
                mlp_norm=param_norm(model.group("mlp")), attn_norm=param_norm(model.group("attn")),
                total_norm=param_norm(model.parameters()), **metrics)
