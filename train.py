"""One full-batch training loop with the paper's hooks and phase metrics (paper §5-6, App. D, App. G).

    python train.py --task add --p 113 --lam 0.1 --seed 0 --out runs/x
    summary, history = train.train(train.make_config(lam=0.1, seed=0))      # from Python

Where each hook is: `training_loss` is Eq. 6, cross-entropy (float64) + lambda(t) (`prior_weight`) times
`prior_loss` (KL to a target q, or the entropy / sparsity penalties); `qk_penalty`, `match_norm_` and
`apply_masks` are Fig. 2's and Fig. 4's capacity and ticket hooks around each `step`; `train` is the loop,
one epoch per pass of its body: data, forward and backward, measure every --eval-every epochs, step.
Flags: config.py; run folders: runfolder.py; devices: device.py; beyond the paper, imported only by a run
that asks for them: the studies' controls (controls.py) and the deeper model (model_deep.py).
"""
import contextlib
import json
import os
import sys
import time
from types import SimpleNamespace

import torch
import torch.nn.functional as F

import runfolder
from summary import summarize
from config import (config_differences, deep, get_parser, make_config, override, refresh_rate,  # noqa: F401
                    semantic_config, validate)             # make_config, override: train.make_config(...) works too
from device import HostToDevice, device_name, generator_on, pick_device, set_deterministic
from diagnostics import evaluation, kl_to_target
from model import Transformer, load_teacher, teacher_attention
from optim import build_optimizer
from tasks import make_task, query_slot_ids

BATCH_SEED_OFFSET = 104729    # the minibatch order's own stream (--seed + the 10,000th prime): it moves no other


# ---------------------------------------------------------------------------------------
# 1. The loss: CE + lambda(t) * penalty (Eq. 6), the structural prior and its schedules

def training_loss(model, out, y, target, cfg, lam, noise=None, qk=None):
    """loss = CE (float64: docs/registered/sensitivity.md) + lam(t) * penalty (Eq. 6) [+ the QK penalty]
    [+ the weight-noise control]. Returns (loss, per-example CE, penalty or None); the penalty is computed
    whenever cfg.lam > 0, so it is logged while lam(t) = 0 too. noise: the controls' generator; qk: c now."""
    ce_each = F.cross_entropy(out["logits"].double(), y, reduction="none")
    penalty = prior_loss(out["scores"], target, cfg.prior_kind, noise) if cfg.lam else None
    loss = ce_each.mean() + lam * penalty if lam else ce_each.mean()
    if (qk := cfg.qk_penalty if qk is None else qk):        # 0 from --qk-stop on (the loop passes it)
        loss = loss + qk_penalty(model, qk)
    if cfg.weight_noise:
        from controls import weight_noise       # beyond the paper: imported only for a run that asks for it
        loss = loss + weight_noise(model, cfg.weight_noise, noise)
    return loss, ce_each, penalty


def prior_loss(scores, q, kind="kl", noise=None):
    """Mean over examples and heads of the structural penalty on a = softmax(scores), float64.
    kl:       KL(q || a), directed toward q (Eq. 6); d/ds = a - q (Eq. 45)
    entropy:  H(a) = -sum_i a_i log a_i; d/ds_j = -a_j (log a_j + H)
    sparsity: 1 - sum_i a_i^2 (Gini impurity); d/ds_j = -2 a_j (a_j - sum_i a_i^2)
    l1-logits: sum_i |s_i| over the keys the query sees (masked keys, -inf, left out); d/ds_j = sign(s_j)
    Entropy and sparsity are undirected: minimal at *any* one-hot a, blind to which position is
    informative. L1 on a would be no penalty (sum_i a_i = 1), so L1 acts on the logits (C6-L1).
    logit-noise: a control beyond the paper, not a penalty (controls.logit_noise)."""
    if kind == "logit-noise":
        from controls import logit_noise
        return logit_noise(scores, q, noise)
    if kind == "l1-logits":
        s = scores.double()
        return torch.where(torch.isfinite(s), s.abs(), torch.zeros_like(s)).sum(-1).mean()
    log_a = torch.log_softmax(scores.double(), dim=-1)
    if kind == "kl":
        return kl_to_target(q, log_a).mean()
    a = log_a.exp()
    if kind == "entropy":
        return -(a * log_a).sum(-1).mean()
    if kind == "sparsity":
        return (1 - a.pow(2).sum(-1)).mean()
    raise ValueError(f"unknown prior kind {kind!r}")


def prior_weight(cfg, epoch):
    """lambda(t) (App. F.2): constant, late start (0 before --prior-start), or annealed linearly to
    0 over --prior-anneal epochs from the start; 0 from --prior-stop on."""
    if epoch < cfg.prior_start or (cfg.prior_stop is not None and epoch >= cfg.prior_stop):
        return 0.0
    if cfg.prior_anneal is None:
        return cfg.lam
    return cfg.lam * max(0.0, 1 - (epoch - cfg.prior_start) / cfg.prior_anneal)


# ---------------------------------------------------------------------------------------
# 2. Capacity and ticket hooks (Fig. 2, Fig. 4): applied around every optimizer step

def qk_penalty(model, c):
    """The norm-matched control of Fig. 2: c * (||W_Q||_F^2 + ||W_K||_F^2)."""
    return c * (model.W_Q.pow(2).sum() + model.W_K.pow(2).sum())


@torch.no_grad()
def match_norm_(params, radius):
    """Project onto ||theta||_F = radius by one common rescaling (Omnigrok), the scale kept on the device
    (no host read in the step): each tensor's sum of squares, then their sum, root and ratio in float64."""
    total = 0.0
    for p in params:
        total = total + p.pow(2).sum().double()
    scale = radius / total.sqrt()
    for p in params:
        p.mul_(scale)


def apply_norm_matching(model, cfg):                # --norm-match: the MLP's; --global-norm-match: all parameters
    if cfg.norm_match is not None:
        match_norm_(model.group("mlp"), cfg.norm_match)
    if cfg.global_norm_match is not None:
        match_norm_(list(model.parameters()), cfg.global_norm_match)


@torch.no_grad()
def apply_masks(model, masks):
    """Ticket hook: pruned entries (mask 0) are set to exactly zero."""
    for name, p in model.named_parameters():
        if name in masks:
            p.mul_(masks[name])


def step(model, opt, cfg, masks):
    """Clip, step, then the hooks that hold after every step (norm matching, ticket masks)."""
    if cfg.clip:
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
    opt.step()
    apply_norm_matching(model, cfg)
    apply_masks(model, masks)


# ---------------------------------------------------------------------------------------
# 3. A run's task, model and data

def task_of(cfg):
    """The task a config names, split and seeded as the run sees it."""
    return make_task(cfg.task, p=cfg.p, frac=cfg.frac, n_distractors=cfg.n_distractors, seed=cfg.seed,
                     n_operands=cfg.n_operands, n_bits=cfg.n_bits, parity_k=cfg.parity_k, perm_n=cfg.perm_n,
                     n_outputs=cfg.n_outputs, distractor_vocab=cfg.distractor_vocab)


def build_run(cfg, device):
    """A run's task, then its model: the seed fixes the split and distractors, then (or --init-seed) the init."""
    task = task_of(cfg)
    torch.manual_seed(cfg.seed if cfg.init_seed is None else cfg.init_seed)
    sizes = (task.vocab_size, task.n_classes, cfg.pos_slots or task.seq_len, cfg.d_model, cfg.n_heads, cfg.d_mlp)
    if deep(cfg):
        from model_deep import DeepTransformer
        model = DeepTransformer(*sizes, cfg.n_layers, cfg.layernorm, cfg.prior_layer, cfg.final_layernorm)
    else:
        model = Transformer(*sizes)
    if cfg.init == "pytorch":                  # a reading beyond the paper's (controls.py)
        from controls import pytorch_init_
        pytorch_init_(model)
    with torch.no_grad():
        for p in model.parameters() if cfg.init_scale != 1.0 else ():          # --init-scale
            p.mul_(cfg.init_scale)
    return task, model.to(device)


def batches(task, cfg, device):
    """The train and test sets, one row per example: x, y; oracle (q*, Def. 4.1); qpos (the query per row,
    or None); attn (--frozen-attn's, App. F.4, or None); target (the prior's q, train only); pos_ids."""
    prior_target = {"oracle": task.oracle_for, "adversarial": task.adversarial_for, "uniform": task.uniform_for}.get(cfg.prior)
    if cfg.prior in ("shuffled", "query"):         # targets beyond the paper, without the information (controls.py)
        from controls import uninformed_target
        prior_target = lambda split: uninformed_target(cfg.prior, task, split, cfg.seed)     # noqa: E731
    pos_ids = None if cfg.pos_slots is None else torch.tensor(query_slot_ids(task.seq_len, cfg.pos_slots), device=device)
    sets = {}
    for split in ("train", "test"):
        oracle = task.oracle_for(split).to(device)
        sets[split] = {
            "x": getattr(task, f"{split}_x").to(device), "y": getattr(task, f"{split}_y").to(device),
            "oracle": oracle, "qpos": None if task.qpos is None else task.qpos[split].to(device),
            "attn": oracle if cfg.frozen_attn else None, "pos_ids": pos_ids}
    sets["train"]["target"] = prior_target("train").to(device) if prior_target else None
    return sets["train"], sets["test"]


def minibatch(batch, idx):          # the rows idx of a batch (pos_ids is shared by every row)
    return {k: v if k == "pos_ids" or v is None else v[idx] for k, v in batch.items()}


def forward_fn(model, cfg, device):
    """model.run on a batch dict, optionally compiled and autocast (the loss is float64 either way). A compiled
    graph fuses the attention weights away: a forward whose attention gradient is read asks uncompiled=True."""
    compiled = model.run if cfg.compile is None else torch.compile(model.run, backend=cfg.compile)
    def forward(batch, uncompiled=False):
        with torch.autocast(device.type, dtype=torch.bfloat16) if cfg.amp == "bf16" else contextlib.nullcontext():
            return (model.run if uncompiled else compiled)(batch["x"], batch["attn"], batch["pos_ids"], batch["qpos"])
    return forward


def forward_backward(model, opt, forward, batch, cfg, lam, measure=False, noise=None, qk=None):
    """Forward, loss (Eq. 6) and backward on one batch; the gradients wait in .grad for step. Returns the
    forward's outputs and the loss terms (ce_each, penalty, prior_weight). measure=True keeps the gradient
    at the attention weights, which the diagnostics read as the task gradient."""
    out = forward(batch, uncompiled=measure)
    loss, out["ce_each"], out["penalty"] = training_loss(model, out, batch["y"], batch["target"], cfg, lam, noise, qk)
    out["prior_weight"] = lam
    if measure and batch["attn"] is None:
        for a in out.get("attn_full", [out["attn"]]):      # the deeper model: every block's
            a.retain_grad()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    return out


# ---------------------------------------------------------------------------------------
# 4. The loop

def warmup_factor(cfg, epoch):
    """The learning rate's linear warm-up, per epoch (App. G: 10 epochs)."""
    return min(1.0, (epoch + 1) / max(1, cfg.warmup))


def train(cfg, log=print, weights=None, on_step=None, device=None, measure=True):
    """Train one run; returns (summary, history), bitwise the same on the CPU for a seed and thread count.
    weights: a dict for the initial and final state dicts. on_step(epoch, run): after each backward, before
    its step, for a study that reads the loop (changing nothing). device: in place of cfg.device's.
    measure=False: the steps alone ((None, None)), as tests/test_device.py runs them on the meta device."""
    validate(cfg)
    if cfg.threads:
        torch.set_num_threads(cfg.threads)
    set_deterministic(cfg)
    device = pick_device(cfg.device) if device is None else device
    task, model = build_run(cfg, device)
    if cfg.init_from:
        model.load_state_dict(torch.load(cfg.init_from, map_location=device))
    masks = {n: m.to(device) for n, m in torch.load(cfg.mask).items()} if cfg.mask else {}
    apply_masks(model, masks)
    if weights is not None:
        weights["init"] = {n: p.detach().cpu().clone() for n, p in model.state_dict().items()}
    opt = build_optimizer(model, cfg.optimizer, cfg.lr, cfg.wd, (cfg.beta1, cfg.beta2), cfg.decay_norms)
    apply_norm_matching(model, cfg)      # the constraint holds from the start
    base_lrs, forward = [g["lr"] for g in opt.param_groups], forward_fn(model, cfg, device)
    train_set, test_set = batches(task, cfg, device)
    teacher = None if cfg.prior != "teacher" else load_teacher(cfg.teacher, task.vocab_size, task.n_classes, cfg.pos_slots
                                                               or task.seq_len, cfg.d_model, cfg.n_heads, cfg.d_mlp, device)
    rho, tau = refresh_rate(cfg), cfg.tau if cfg.tau is not None else 1 / (2 * task.k)
    batch_gen = generator_on(device).manual_seed(cfg.seed + BATCH_SEED_OFFSET)    # minibatch order only
    noise = None                            # the noise controls' own stream (controls.py), for a run with one
    if cfg.weight_noise or (cfg.lam and cfg.prior_kind == "logit-noise"):
        from controls import noise_generator
        noise = noise_generator(cfg, device)
    upload = HostToDevice(device)           # the redrawn distractors, copied without blocking the host
    run = SimpleNamespace(cfg=cfg, device=device, task=task, model=model, opt=opt, train_set=train_set,
                          test_set=test_set, forward=forward, noise=noise, masks=masks)     # what on_step sees
    loop = {"epoch": 0, "history": {"epoch": []}, "grok": None, "elapsed": 0.0, "resumed_at": []}
    checkpoint = runfolder.checkpoint_path(cfg.out) if cfg.out and cfg.checkpoint_every else None
    if checkpoint and os.path.exists(checkpoint):      # a run cut short: go on where it stopped
        loop = runfolder.load_checkpoint(checkpoint, lambda stored: config_differences(stored, cfg), model, opt,
                                         task, batch_gen, noise)
        train_set["x"] = task.train_x.to(device)
    history, grok, first, t0 = loop["history"], loop["grok"], loop["epoch"], time.time() - loop["elapsed"]

    def save(epoch):             # the loop's whole state before this epoch: resuming here is the same run, bitwise
        if checkpoint and epoch > first and epoch % cfg.checkpoint_every == 0:
            runfolder.save_checkpoint(checkpoint, semantic_config(cfg), model, opt, task, batch_gen, noise,
                                      {**loop, "epoch": epoch, "history": history, "grok": grok, "elapsed": time.time() - t0})

    for epoch in range(first, cfg.epochs + 1):
        save(epoch)                                         # every --checkpoint-every epochs, with --out

        # the data: each training example redraws its distractors with prob. rho; warm-up; lambda(t); the teacher
        if epoch and rho:
            task.refresh_distractors(rho)
            train_set["x"] = upload(task.train_x)
        for group, base in zip(opt.param_groups, base_lrs):
            group["lr"] = base * warmup_factor(cfg, epoch)
        lam, qk = prior_weight(cfg, epoch), 0.0 if cfg.qk_stop is not None and epoch >= cfg.qk_stop else cfg.qk_penalty
        if teacher is not None and cfg.lam and (epoch == first or rho):
            train_set["target"] = teacher_attention(teacher, train_set["x"], train_set["pos_ids"], train_set["qpos"])
        measured = measure and (epoch == cfg.epochs or epoch % cfg.eval_every == 0)

        # forward, loss, backward on the whole training set (a minibatch run: on measured epochs only). This
        # backward is what the diagnostics read: every logged quantity is of the weights before the step.
        out = (forward_backward(model, opt, forward, train_set, cfg, lam, measured, noise, qk)
               if cfg.batch_size is None or measured else None)
        if on_step is not None:
            on_step(epoch, run)

        # measure: losses, accuracies, attention, norms, the task gradient (diagnostics.py)
        if measured:
            with torch.no_grad():
                test_out = forward(test_set)
            row = {"epoch": epoch, **evaluation(model, train_set, test_set, out, test_out, tau)}
            if cfg.log_updates:     # what moves on the plateau (docs/registered/plateau.md)
                from controls import update_stats
                row.update(update_stats(model, opt, out, [b * warmup_factor(cfg, epoch - 1) for b in base_lrs]))
            for key, value in row.items():
                history.setdefault(key, []).append(value)
            if grok is None and history["test_acc"][-1] >= cfg.grok_acc:
                grok = epoch
            if not cfg.quiet and cfg.print_every and (epoch % cfg.print_every == 0 or epoch == cfg.epochs):
                log(progress_line(history, cfg, epoch, time.time() - t0))
            if epoch == cfg.epochs or (cfg.stop_after is not None and grok is not None
                                       and epoch >= grok + cfg.stop_after):
                break                                       # the last epoch is measured, not stepped

        # the step: once on the full batch, or once per minibatch in an order drawn on the device
        if cfg.batch_size is None:
            step(model, opt, cfg, masks)
        else:
            order = torch.randperm(len(train_set["x"]), generator=batch_gen, device=device)
            for idx in order.split(cfg.batch_size):
                forward_backward(model, opt, forward, minibatch(train_set, idx), cfg, lam, noise=noise, qk=qk)
                step(model, opt, cfg, masks)

    if not measure:
        return None, None                                   # the steps alone (tests/test_device.py)
    wall = time.time() - t0
    if weights is not None:
        weights["final"] = {n: p.detach().cpu().clone() for n, p in model.state_dict().items()}
    return {**summarize(semantic_config(cfg), history, grok, epoch, wall, device, torch.get_num_threads()),
            "resumed_at": loop["resumed_at"], "device_name": device_name(device),       # a run is exact per kind
            "precision": "bf16 autocast" if cfg.amp == "bf16" else "float32"}, history  # of device (store.derived)


def progress_line(history, cfg, epoch, elapsed):
    h, per_epoch = {k: v[-1] for k, v in history.items()}, elapsed / max(epoch, 1)
    return (f"epoch {epoch:6d}/{cfg.epochs} | train {h['train_loss']:.4f} {h['train_acc']:.3f} | test {h['test_loss']:.3f} "
            f"{h['test_acc']:.3f} | info mass {h['info_mass']:.3f} D {h['struct_div']:.3f} | mlp {h['mlp_norm']:.1f} | "
            f"{1000 * per_epoch:.1f} ms/ep | ETA {per_epoch * (cfg.epochs - epoch):.0f}s")


# ---------------------------------------------------------------------------------------
# 5. The command line (a run folder with --out, its checkpoint: runfolder.py)

def main(argv=None):
    cfg = get_parser().parse_args(argv)
    try:
        validate(cfg)
        if cfg.out and runfolder.folder_summary(cfg.out, lambda stored: config_differences(stored, cfg)) is not None:
            print(f"{cfg.out} already holds this run; summary.json left as it is")
            return
        weights = {}
        summary, history = train(cfg, weights=weights)
        if cfg.out:
            runfolder.save_run(cfg.out, summary, history, weights)
    except ValueError as e:
        sys.exit(f"error: {e}")
    keys = ("grok_epoch", "mem_epoch", "struct_epoch", "final_train_acc", "final_test_acc", "epochs_run", "wall_s", "ms_per_epoch")
    print(json.dumps({k: summary[k] for k in keys}))


if __name__ == "__main__":
    main()
