"""Seed-batched training: several runs of one config (different seeds and/or lambdas) trained
as one stacked model in one process (torch.func.vmap over weights stacked on a run axis).

    python batched.py --seeds 0 1 2 --lam 0.1 --out runs/batched    # one folder per seed
    python exp_fig3_kl.py --batch-seeds                              # from any sweep

Each run keeps everything of its own: data split, distractor stream, initialisation, KL
strength and schedule, gradient clipping (its own norm), early stop, history. AdamW is
elementwise, so one AdamW on the stacked tensors is S independent AdamWs. The result equals
separate `train.py` runs up to float rounding (batched matmuls round differently;
tests/test_batched.py compares the histories), not bitwise, so a batched sweep's trajectories
can differ from unbatched ones as much as a different thread count makes them differ.

On a GPU this is the path to use: S small runs fill the device that one run leaves idle.
Supported: full-batch AdamW with any structural prior (KL, entropy, sparsity; oracle or
adversarial target; any schedule), any distractor regime, the fixed-query tasks. Each run's
loss is train.training_loss on its slice of the stacked outputs. Anything else is refused
with the flag named.
"""
import argparse
import copy
import os
import sys
import time

import torch
from torch.func import functional_call, vmap

import diagnostics
import train

BATCHABLE = ("seed", "init_seed", "lam")          # what may differ between the batched runs


def check_batchable(cfgs):
    """ValueError unless the configs differ only in BATCHABLE and use the supported path."""
    for cfg in cfgs:
        train.validate(cfg)
    common = lambda c: {k: v for k, v in train.semantic_config(c).items() if k not in BATCHABLE}
    for cfg in cfgs[1:]:
        if common(cfg) != common(cfgs[0]):
            diff = sorted(k for k in common(cfg) if common(cfg)[k] != common(cfgs[0])[k])
            raise ValueError(f"batched runs may differ only in {', '.join(BATCHABLE)}; these differ: {diff}")
    c = cfgs[0]
    refused = [flag for flag, used in (
        ("--optimizer " + c.optimizer, c.optimizer != "adamw"), ("--batch-size", c.batch_size is not None),
        ("--mask", c.mask), ("--init-from", c.init_from), ("--norm-match", c.norm_match is not None),
        ("--global-norm-match", c.global_norm_match is not None), ("--qk-penalty", c.qk_penalty),
        ("--prior teacher", c.prior == "teacher"), ("--frozen-attn", c.frozen_attn),
        ("--pos-slots", c.pos_slots is not None), ("--compile", c.compile), ("--amp", c.amp != "off"),
        ("--task arparity", c.task == "arparity"))
        if used]
    if refused:
        raise ValueError(f"the batched path does not support {', '.join(refused)}; use train.py")


def train_batched(cfgs, log=print, weights=None):
    """Train the runs `cfgs` together; returns [(summary, history)] in their order. If
    `weights` is a list, one {"init", "final"} dict per run is appended to it.

    The epoch loop mirrors train.train's, stacked: every rule in it is train.py's own function
    (warmup_factor, redraw_distractors, prior_weight, training_loss, finished, summarize;
    diagnostics.evaluation), so only the stacking lives here, and tests/test_batched.py
    holds the two loops' histories equal."""
    check_batchable(cfgs)
    c0, S = cfgs[0], len(cfgs)
    if c0.threads:
        torch.set_num_threads(c0.threads)
    device = train.pick_device(c0.device)
    tasks, models = zip(*(train.build_run(cfg, device) for cfg in cfgs))
    if weights is not None:
        weights.extend({"init": {n: p.detach().cpu().clone() for n, p in m.state_dict().items()}} for m in models)
    # the stacked weights: one leaf tensor (S, ...) per parameter, and one AdamW over them
    names = [n for n, _ in models[0].named_parameters()]
    params = {n: torch.stack([m.get_parameter(n).detach() for m in models]).requires_grad_() for n in names}
    opt = torch.optim.AdamW(params.values(), lr=c0.lr, betas=(c0.beta1, c0.beta2), weight_decay=c0.wd)
    skeleton = copy.deepcopy(models[0])
    skeleton.forward = skeleton.run        # functional_call calls forward; we want run's dict
    run_all = vmap(lambda p, x: functional_call(skeleton, p, (x,)))      # (S, B, T) -> dicts of (S, B, ...)

    tau = c0.tau if c0.tau is not None else 1 / (2 * tasks[0].k)
    data = [train.task_data(t, c, device, tau) for t, c in zip(tasks, cfgs)]
    rho = train.refresh_rate(c0)
    histories = [{"epoch": []} for _ in cfgs]
    results = [None] * S
    grok = [None] * S
    t0 = time.time()
    for epoch in range(c0.epochs + 1):
        if epoch and rho:
            for t, d in zip(tasks, data):
                train.redraw_distractors(t, d, rho, device)
        for group in opt.param_groups:
            group["lr"] = c0.lr * train.warmup_factor(c0, epoch)
        lams = [train.prior_weight(c, epoch) for c in cfgs]
        is_last = epoch == c0.epochs

        # one forward and backward for all runs: each run's own loss (train.training_loss on
        # its slice of the outputs), summed, has for each run's slice of the stacked weights
        # exactly that run's gradient
        out = run_all(params, torch.stack([d.x_tr for d in data]))
        loss = sum(train.training_loss(models[s], {k: v[s] for k, v in out.items()}, data[s].y_tr,
                                       data[s].target, cfgs[s], lams[s])[0] for s in range(S))
        opt.zero_grad(set_to_none=True)
        loss.backward()

        if is_last or epoch % c0.eval_every == 0:
            for s in range(S):
                if results[s] is None:
                    histories[s]["epoch"].append(epoch)
                    for k, v in evaluate_one(models[s], params, s, cfgs[s], data[s], lams[s]).items():
                        histories[s].setdefault(k, []).append(v)
                    if grok[s] is None and histories[s]["test_acc"][-1] >= cfgs[s].grok_acc:
                        grok[s] = epoch
                    if train.finished(cfgs[s], epoch, grok[s]):
                        results[s] = (train.summarize(cfgs[s], histories[s], grok[s], epoch, time.time() - t0, device),
                                      histories[s])
                        results[s][0]["batched_runs"] = S
                        if weights is not None:
                            weights[len(weights) - S + s]["final"] = {n: params[n][s].detach().cpu().clone() for n in names}
            if not c0.quiet and c0.print_every and (epoch % c0.print_every == 0 or is_last):
                accs = " ".join(f"{h['test_acc'][-1]:.3f}" for h in histories)
                log(f"epoch {epoch:6d}/{c0.epochs} | {S} runs, test acc {accs} | "
                    f"{1000 * (time.time() - t0) / max(epoch, 1):.1f} ms/epoch for all")
            if all(r is not None for r in results):
                break

        if c0.clip:   # clip_grad_norm_ per run: each run's own total gradient norm
            grads = [params[n].grad for n in names]
            norms = torch.stack([g.flatten(1).norm(dim=1) for g in grads], 1).norm(dim=1)    # (S,)
            coef = (c0.clip / (norms + 1e-6)).clamp(max=1.0)
            for g in grads:
                g.mul_(coef.view(-1, *[1] * (g.dim() - 1)))
        opt.step()
    return results


def evaluate_one(model, params, s, cfg, d, lam):
    """The run's logged quantities (paper §5-6), computed exactly as train.train does, on a plain module
    holding run s's slice of the stacked weights."""
    with torch.no_grad():
        for n, p in model.named_parameters():
            p.copy_(params[n][s])
    out = model.run(d.x_tr)
    loss, ce_each, penalty = train.training_loss(model, out, d.y_tr, d.target, cfg, lam)
    out["attn"].retain_grad()
    model.zero_grad(set_to_none=True)
    loss.backward()
    return diagnostics.evaluation(model, cfg, model.run, d, out, ce_each, penalty, lam)


def run_group_to_folders(cfgs, log=print):
    """Train the runs whose cfg.out holds no summary yet, batched; write each run's folder."""
    todo = [c for c in cfgs if train.cached_summary(c.out, c) is None]
    if not todo:
        return
    weights = []
    for cfg, (summary, history), w in zip(todo, train_batched(todo, log, weights), weights):
        train.save_run(cfg.out, summary, history, w)


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    p.add_argument("--out", required=True, help="folder; run s goes to <out>/seed<s>")
    args, rest = p.parse_known_args(argv)
    try:
        cfgs = []
        for s in args.seeds:
            cfg = train.get_parser().parse_args(rest)
            cfg.seed, cfg.out = s, os.path.join(args.out, f"seed{s}")
            cfgs.append(cfg)
        run_group_to_folders(cfgs)
    except ValueError as e:
        sys.exit(f"error: {e}")
    for cfg in cfgs:
        s = train.read_json(os.path.join(cfg.out, "summary.json"))
        print(f"seed {cfg.seed}: grok {s['grok_epoch']}, final test acc {s['final_test_acc']:.3f}")


if __name__ == "__main__":
    main()
