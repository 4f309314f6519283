"""One full-batch training loop with the paper's hooks and phase metrics (paper §5-6, App. D, App. G).

    python train.py --task add --p 113 --lam 0.1 --seed 0 --out runs/x

writes <out>/summary.json and <out>/history.json. From Python:

    import train
    summary, history = train.train(train.make_config(lam=0.1, seed=0))

The file reads top to bottom: 1. the configuration (every flag; paper App. G defaults),
2. the loss (`training_loss`: float64 cross-entropy + lambda(t) times the structural prior,
Eq. 6: KL to a target, or the undirected entropy / sparsity penalties; and the controls beyond
the paper, noise of the prior's size on the logits or on every weight matrix), 3. the capacity
and ticket hooks, 4. the loop (`start` builds what it carries; `train` runs each epoch:
`epoch_data`, `epoch_forward` (forward, loss and backward in `forward_backward`), measure,
`epoch_step`), 5. the command line (with --out, a run folder and a checkpoint every
--checkpoint-every epochs, from which a run cut short goes on: runfolder.py). What the loop logs every
--eval-every epochs (D(t), informative mass, the task gradient to the attention interaction
matrix, the Lemma 5.1 bound) is defined in diagnostics.py. Sweeps and the run store
(sweep.py, store.py) build on this file; it imports neither.
"""
import argparse
import contextlib
import json
import math
import os
import platform
import sys
import time
from types import SimpleNamespace

import torch
import torch.nn.functional as F

import runfolder
from diagnostics import evaluation, kl_to_target, update_stats
from model import Transformer
from model_deep import DeepTransformer
from optim import OPTIMIZERS, build_optimizer
from tasks import ARITHMETIC, TASKS, make_task, query_slot_ids

PRIORS = ("oracle", "adversarial", "uniform", "shuffled", "query", "teacher")   # the target q of the KL prior
# directed (KL) and undirected penalties, and a control with the KL's size and no direction
PRIOR_KINDS = ("kl", "entropy", "sparsity", "l1-logits", "logit-noise")
INITS = ("paper", "pytorch")
DISTRACTOR_DRAWS = ("fixed", "fresh", "refresh")        # --distractors: once, every epoch, with prob. rho
# Flags that change how a run is executed or reported, not the computation it asks for. (The
# thread count can change float rounding, and through it the grokking epoch: docs/registered/sensitivity.md,
# Determinism. It is recorded in each summary, not part of a run's identity.)
NON_SEMANTIC = ("out", "quiet", "print_every", "threads", "device", "checkpoint_every", "deterministic")
# Each random stream of a run is its own generator, seeded from --seed plus a fixed offset, so that
# drawing from one (a minibatch order) never moves another (the init, the data split, the
# distractor redraws: tasks.py uses +7919 for those). The offset is arbitrary (a prime: the
# 10,000th); it is part of what a stored run computes, so it never changes.
BATCH_SEED_OFFSET = 104729
NOISE_SEED_OFFSET = 1299709      # the noise controls' stream (--prior-kind logit-noise, --weight-noise): the 100,000th prime
AMP = ("off", "bf16")


# ---------------------------------------------------------------------------------------
# 1. The configuration: every flag, with the paper's values (App. G) as defaults

def get_parser():
    p = argparse.ArgumentParser(description="Train the minimal transformer (paper App. G defaults).",
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    a = p.add_argument
    # task (paper App. A.1)
    a("--task", default="add", help=f"one of {', '.join(TASKS)}")
    a("--p", type=int, default=113, help="modulus")
    a("--frac", type=float, default=0.3, help="train fraction of all operand tuples")
    a("--n-operands", type=int, default=2, help="operands for --task addk")
    a("--n-distractors", type=int, default=2, help="distractor positions (sequence length = operands + this + 1)")
    a("--distractors", default="fresh",
      help="fixed | fresh | refresh (redraw each training example with prob. --refresh per epoch); "
           "fresh is the figures' default, chosen by measurement (docs/registered/regime_map.md)")
    a("--refresh", type=float, default=0.0, help="per-epoch redraw probability for --distractors refresh")
    a("--distractor-vocab", default="shared",
      help="add / mul / addk: distractor tokens shared with the operands (0..p-1) | separate (a noise "
           "vocabulary p+1..2p) | pad (one pad token); readings of §3, docs/registered/sensitivity.md")
    a("--n-bits", type=int, default=10, help="parity / arparity: input bits n")
    a("--parity-k", type=int, default=3, help="parity / arparity: bits k in each parity")
    a("--n-outputs", type=int, default=3, help="arparity: parity bits predicted after the inputs")
    a("--perm-n", type=int, default=5, help="perm: the group S_n")
    a("--pos-slots", type=int, default=None,
      help="position-table rows; the query always uses the last (length generalization). Default: seq length")
    # model (paper §3.2, App. A.2)
    a("--d-model", type=int, default=64)
    a("--n-heads", type=int, default=1)
    a("--d-mlp", type=int, default=256)
    a("--n-layers", type=int, default=1,
      help="transformer blocks; above 1 (or with --layernorm) the deeper pre-LN model of model_deep.py, "
           "beyond the paper (docs/registered/deep.md)")
    a("--layernorm", action="store_true", help="LayerNorm before each attention and MLP and before the unembedding")
    a("--final-layernorm", action=argparse.BooleanOptionalAction, default=True,
      help="with --layernorm: the LayerNorm before the unembedding (--no-final-layernorm drops it, as "
           "the LayerNorm-and-grokking anchor does: docs/registered/deep_trained.md)")
    a("--prior-layer", default="first",
      help="deeper model: the attention the prior acts on and the diagnostics read: first | last | all "
           "(every block's, averaged with the heads)")
    a("--init", default="paper",
      help="paper: N(0, 1/fan_in) for every weight, biases 0 (model.py) | pytorch: PyTorch's defaults "
           "(embeddings N(0, 1), Linear U(+-1/sqrt(fan_in))); a reading of §3's 'standard initialization'")
    a("--init-scale", type=float, default=1.0, help="multiply every parameter at init (Omnigrok's knob)")
    # optimization (paper App. G)
    a("--optimizer", default="adamw", help="adamw | sgd | lion | muon (optim.py maps lr and wd between them)")
    a("--batch-size", type=int, default=None, help="minibatch size (default: full batch)")
    a("--lr", type=float, default=1e-3)
    a("--wd", type=float, default=1.0, help="AdamW (decoupled) weight decay on every parameter")
    a("--decay-norms", action=argparse.BooleanOptionalAction, default=True,
      help="decay every parameter (the paper); --no-decay-norms exempts LayerNorm gains and shifts and "
           "every bias (every parameter of one dimension), as nanoGPT's configure_optimizers does (AdamW)")
    a("--beta1", type=float, default=0.9)
    a("--beta2", type=float, default=0.999)
    a("--warmup", type=int, default=10, help="linear warm-up epochs")
    a("--clip", type=float, default=1.0, help="gradient-norm clip (0 = off)")
    a("--epochs", type=int, default=10000)
    # structural prior (Eq. 6): loss = CE + lam(t) * mean penalty(a), penalty = KL(q || a) by default
    a("--lam", type=float, default=0.0, help="prior strength lambda")
    a("--prior", default="oracle",
      help="KL target q: oracle | adversarial (uniform on distractors) | uniform (on every key: no "
           "information, a live gradient) | shuffled (1/k on k random keys per training example, never "
           "its informative ones, kept for the run: the oracle's form without its information) | "
           "query (all mass on the query position: no information, nothing on the distractors) | "
           "teacher (a trained model's attention)")
    a("--teacher", default=None, help="state dict (.pt) of the teacher for --prior teacher (same architecture)")
    a("--prior-kind", default="kl",
      help="kl: KL(q || a) | entropy: H(a) | sparsity: 1 - ||a||_2^2 | l1-logits: sum_i |s_i| of the "
           "attention logits (these three undirected: no target) | logit-noise: a random zero-sum gradient "
           "on the attention logits, fresh every step, of the norm KL(q || a)'s would have, example by "
           "example (a control: the prior's push without its direction; adds 0 to the loss)")
    a("--prior-start", type=int, default=0, help="late start: lambda(t) = 0 before this epoch")
    a("--prior-anneal", type=int, default=None,
      help="anneal: lambda(t) falls linearly from lambda to 0 over this many epochs after --prior-start")
    a("--prior-stop", type=int, default=None,
      help="turned off: lambda(t) = 0 from this epoch on (beyond the paper: when does a prior act? "
           "docs/registered/plateau.md)")
    a("--weight-noise", type=float, default=0.0,
      help="a control beyond the paper (the 2026 'Adam freeze' account): sum_W <W, detach(eps)> over every "
           "weight matrix, eps ~ N(0, RMS^2) fresh every step; this is the RMS (0 = off). Adds 0 to the loss")
    a("--frozen-attn", default=None, help="oracle: replace the model's attention by the oracle (App. F.4)")
    # capacity controls (Fig. 2)
    a("--norm-match", type=float, default=None,
      help="rescale the MLP parameters to this Frobenius norm after every step (Omnigrok-style, MLP only)")
    a("--global-norm-match", type=float, default=None,
      help="rescale *all* parameters to this total norm after every step (Omnigrok's own variant)")
    a("--qk-penalty", type=float, default=0.0, help="extra c * (||W_Q||^2 + ||W_K||^2) in the loss")
    # logging and phase marks (paper §5.1, Fig. 1)
    a("--eval-every", type=int, default=10)
    a("--log-updates", action="store_true",
      help="also log, every --eval-every epochs, the RMS of AdamW's last update to W_Q, W_K and the "
           "embeddings and the training set's attention mass (docs/registered/plateau.md)")
    a("--tau", type=float, default=None, help="structural-condition threshold (default 1/(2k))")
    a("--grok-acc", type=float, default=0.99, help="test accuracy that marks grokking")
    a("--stop-after", type=int, default=None, help="stop this many epochs after grokking (default: never)")
    a("--seed", type=int, default=0, help="fixes the data split, distractors and (unless --init-seed) the init")
    a("--init-seed", type=int, default=None, help="seed of the weight initialisation (default: --seed)")
    # tickets (Fig. 4)
    a("--init-from", default=None, help="a .pt state dict to start from (rewinding a lottery ticket)")
    a("--mask", default=None, help="a .pt dict {parameter name: 0/1 tensor}, applied at init and after every step")
    a("--out", default=None, help="run folder for summary.json and history.json")
    a("--checkpoint-every", type=int, default=1000,
      help="with --out: save the loop's state to <out>/checkpoint.pt every N epochs; a run cut "
           "short goes on from there when started again (0 = never)")
    a("--device", default="auto", help="auto | cpu | cuda | cuda:N")
    a("--deterministic", action="store_true",
      help="torch's deterministic algorithms and the cuBLAS workspace (for a GPU; the CPU already is)")
    a("--amp", default="off", help="off | bf16: autocast the matmuls to bfloat16 (CPU or CUDA); the loss "
                                   "stays float64. Changes the trajectory: docs/running.md, Speed")
    a("--compile", nargs="?", const="inductor", default=None,
      help="torch.compile the forward pass (backend, default inductor; 'eager' only traces)")
    a("--threads", type=int, default=0, help="torch CPU threads (0 = torch's default)")
    a("--print-every", type=int, default=1000, help="progress line every N epochs (0 = none)")
    a("--quiet", action="store_true")
    return p


def make_config(**overrides):
    """The parser's defaults with keyword overrides (underscored names): the Python entry point."""
    return override(get_parser().parse_args([]), overrides)


def override(cfg, overrides):
    """cfg with keyword overrides set; an unknown key is an error, never a silent new field."""
    for key, value in overrides.items():
        if not hasattr(cfg, key):
            raise ValueError(f"unknown config key {key!r}")
        setattr(cfg, key, value)
    return cfg


def validate(cfg):
    """Raise ValueError with a one-line message for a config that cannot run."""
    if cfg.task not in TASKS:
        raise ValueError(f"unknown task {cfg.task!r}; choose from {', '.join(TASKS)}")
    if cfg.p < 3:
        raise ValueError(f"--p must be at least 3, got {cfg.p}")
    if not 0 < cfg.frac < 1:
        raise ValueError(f"--frac must lie in (0, 1), got {cfg.frac}")
    if cfg.lam < 0:
        raise ValueError(f"--lam must be >= 0, got {cfg.lam}")
    if cfg.optimizer == "lion" and cfg.beta2 != get_parser().get_default("beta2"):
        raise ValueError("--beta2 does not apply to lion (it uses its own beta2 0.99, optim.py)")
    if cfg.prior not in PRIORS:
        raise ValueError(f"unknown prior {cfg.prior!r}; choose from {', '.join(PRIORS)}")
    if cfg.prior_kind not in PRIOR_KINDS:
        raise ValueError(f"unknown --prior-kind {cfg.prior_kind!r}; choose from {', '.join(PRIOR_KINDS)}")
    if (cfg.prior == "teacher") != (cfg.teacher is not None):
        raise ValueError("--prior teacher and --teacher PATH go together")
    if cfg.teacher is not None and not os.path.exists(cfg.teacher):
        raise ValueError(f"--teacher {cfg.teacher}: no such file")
    if (cfg.prior == "shuffled" or cfg.prior_kind == "logit-noise") and cfg.task == "arparity":
        raise ValueError("--prior shuffled and --prior-kind logit-noise are for tasks whose query sees every key")
    if cfg.prior_kind == "logit-noise" and cfg.prior == "teacher":
        raise ValueError("--prior-kind logit-noise matches the KL to a fixed target, not --prior teacher")
    if cfg.weight_noise < 0:
        raise ValueError(f"--weight-noise must be >= 0, got {cfg.weight_noise}")
    if cfg.prior_start < 0 or (cfg.prior_anneal is not None and cfg.prior_anneal < 1):
        raise ValueError("--prior-start must be >= 0 and --prior-anneal >= 1")
    if cfg.prior_stop is not None and cfg.prior_stop <= cfg.prior_start:
        raise ValueError(f"--prior-stop must come after --prior-start ({cfg.prior_start}), got {cfg.prior_stop}")
    if cfg.prior == "query" and cfg.task == "arparity":
        raise ValueError("--prior query is for tasks whose query is the last position")
    if cfg.log_updates and (cfg.optimizer != "adamw" or deep(cfg)):
        raise ValueError("--log-updates reads AdamW's state in the minimal model (--optimizer adamw, one block)")
    if cfg.init not in INITS:
        raise ValueError(f"unknown --init {cfg.init!r}; choose from {', '.join(INITS)}")
    if cfg.init_scale <= 0:
        raise ValueError(f"--init-scale must be > 0, got {cfg.init_scale}")
    if cfg.distractor_vocab != "shared" and cfg.task not in ARITHMETIC:
        raise ValueError(f"--distractor-vocab {cfg.distractor_vocab} is for {', '.join(ARITHMETIC)}")
    if cfg.distractors not in DISTRACTOR_DRAWS:
        raise ValueError(f"unknown distractor regime {cfg.distractors!r}; choose from {', '.join(DISTRACTOR_DRAWS)}")
    if cfg.distractors == "refresh" and not 0 < cfg.refresh < 1:
        raise ValueError(f"--distractors refresh needs 0 < --refresh < 1, got {cfg.refresh}")
    if cfg.task == "arparity" and cfg.distractors != "fixed":
        raise ValueError("--task arparity has no distractor tokens to redraw: use --distractors fixed")
    if cfg.pos_slots is not None and cfg.task not in ARITHMETIC + ("parity", "perm"):
        raise ValueError("--pos-slots is for the fixed-position tasks")
    if cfg.distractors != "refresh" and cfg.refresh:
        raise ValueError("--refresh is only used with --distractors refresh")
    for name in ("epochs", "eval_every", "d_model", "n_heads", "d_mlp"):
        if getattr(cfg, name) < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be >= 1, got {getattr(cfg, name)}")
    if cfg.d_model % cfg.n_heads:
        raise ValueError(f"--d-model {cfg.d_model} is not divisible by --n-heads {cfg.n_heads}")
    if cfg.n_layers < 1:
        raise ValueError(f"--n-layers must be >= 1, got {cfg.n_layers}")
    if cfg.prior_layer not in DeepTransformer.PRIOR_LAYERS:
        raise ValueError(f"unknown --prior-layer {cfg.prior_layer!r}; choose from {', '.join(DeepTransformer.PRIOR_LAYERS)}")
    if cfg.n_layers == 1 and cfg.prior_layer != "first":
        raise ValueError("--prior-layer is for --n-layers above 1 (one block has one attention)")
    if deep(cfg):
        for flag, used in (("--frozen-attn", cfg.frozen_attn), ("--qk-penalty", cfg.qk_penalty),
                           ("--prior teacher", cfg.prior == "teacher"), ("--init pytorch", cfg.init == "pytorch")):
            if used:
                raise ValueError(f"{flag} is for the minimal model, not --n-layers {cfg.n_layers}"
                                 + (" --layernorm" if cfg.layernorm else ""))
    if not cfg.final_layernorm and not cfg.layernorm:
        raise ValueError("--no-final-layernorm is for --layernorm (without it there is no LayerNorm to drop)")
    if not cfg.decay_norms and cfg.optimizer != "adamw":
        raise ValueError("--no-decay-norms is for --optimizer adamw")
    if cfg.lr <= 0 or cfg.wd < 0:
        raise ValueError("--lr must be > 0 and --wd >= 0")
    if cfg.optimizer not in OPTIMIZERS:
        raise ValueError(f"unknown optimizer {cfg.optimizer!r}; choose from {', '.join(OPTIMIZERS)}")
    if cfg.batch_size is not None and cfg.batch_size < 1:
        raise ValueError(f"--batch-size must be >= 1, got {cfg.batch_size}")
    if cfg.frozen_attn not in (None, "oracle"):
        raise ValueError(f"--frozen-attn takes only 'oracle', got {cfg.frozen_attn!r}")
    if cfg.frozen_attn and cfg.lam:
        raise ValueError("--frozen-attn replaces the attention, so a prior (--lam) has nothing to act on")
    for name in ("norm_match", "global_norm_match"):
        if getattr(cfg, name) is not None and getattr(cfg, name) <= 0:
            raise ValueError(f"--{name.replace('_', '-')} must be > 0")
    if cfg.qk_penalty < 0:
        raise ValueError(f"--qk-penalty must be >= 0, got {cfg.qk_penalty}")
    if cfg.amp not in AMP:
        raise ValueError(f"--amp must be one of {', '.join(AMP)}, got {cfg.amp!r}")
    if cfg.device not in ("auto", "cpu", "cuda") and not (cfg.device.startswith("cuda:") and cfg.device[5:].isdigit()):
        raise ValueError(f"--device must be auto, cpu, cuda or cuda:N, got {cfg.device!r}")


def deep(cfg):
    """Whether cfg asks for the deeper model (beyond the paper) rather than the paper's minimal one."""
    return cfg.n_layers > 1 or cfg.layernorm


def refresh_rate(cfg):
    return {"fixed": 0.0, "fresh": 1.0, "refresh": cfg.refresh}[cfg.distractors]


def semantic_config(cfg):
    """The part of a config that determines the result (used to match cached runs)."""
    return {k: v for k, v in sorted(vars(cfg).items()) if k not in NON_SEMANTIC}


# ---------------------------------------------------------------------------------------
# 2. The loss: CE + lambda(t) * penalty (Eq. 6), the structural prior and its schedules

def training_loss(model, out, y, target, cfg, lam, noise=None):
    """loss = CE (float64: docs/registered/sensitivity.md) + lam(t) * penalty (Eq. 6) [+ the QK penalty]
    [+ the weight-noise control]. Returns (loss, per-example CE, penalty or None). The penalty is
    computed whenever the run has a prior (cfg.lam > 0), so it is logged also while lam(t) = 0.
    noise: the generator the noise controls draw from (train.noise_generator)."""
    ce_each = F.cross_entropy(out["logits"].double(), y, reduction="none")
    penalty = prior_loss(out["scores"], target, cfg.prior_kind, noise) if cfg.lam else None
    loss = ce_each.mean() + lam * penalty if lam else ce_each.mean()
    if cfg.qk_penalty:
        loss = loss + qk_penalty(model, cfg.qk_penalty)
    if cfg.weight_noise:
        loss = loss + weight_noise(model, cfg.weight_noise, noise)
    return loss, ce_each, penalty


def prior_loss(scores, q, kind="kl", noise=None):
    """Mean over examples and heads of the structural penalty on a = softmax(scores), float64.
    kl:       KL(q || a), directed toward q (Eq. 6); d/ds = a - q (Eq. 45)
    entropy:  H(a) = -sum_i a_i log a_i; d/ds_j = -a_j (log a_j + H)
    sparsity: 1 - sum_i a_i^2 (Gini impurity); d/ds_j = -2 a_j (a_j - sum_i a_i^2)
    l1-logits: sum_i |s_i| over the keys the query sees (masked keys, -inf, left out); d/ds_j = sign(s_j)
    Entropy and sparsity are undirected: minimal at *any* one-hot a, blind to which position
    is informative. An L1 penalty on a itself would be no penalty at all (sum_i a_i = 1 for
    softmax), so "sparsity" read as L1 acts on the logits s (docs/registered/sensitivity.md, C6-L1).
    logit-noise: a control, not a penalty (docs/registered/information.md): value 0, gradient on s a
    random zero-sum direction times ||a - q||, the norm of KL(q || a)'s gradient (Eq. 45), per example
    and head, drawn afresh from the generator `noise` at every call."""
    if kind == "logit-noise":
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


def logit_noise(scores, q, gen):
    """sum_j (s_j - detach(s_j)) g_j, averaged over examples and heads like the KL: the value is 0
    and the gradient on the logits is g / (B H), where the KL's mean has (a - q) / (B H). g is
    Gaussian, centred over the keys (a softmax's logit gradient always sums to zero), scaled to
    ||g|| = ||a - q|| example by example and head by head: it moves attention as hard as the
    prior would, in no direction. (Every key the query sees: tasks with causal rows are refused.)"""
    s = scores.double()
    q = q[:, None, :] if q.dim() == 2 else q                          # (B, T): every head the same
    size = (torch.softmax(s.detach(), dim=-1) - q).norm(dim=-1, keepdim=True)
    eps = torch.randn(s.shape, generator=gen, device=s.device, dtype=s.dtype)
    eps = eps - eps.mean(-1, keepdim=True)
    g = eps * (size / eps.norm(dim=-1, keepdim=True))
    return ((s - s.detach()) * g).sum(-1).mean()


def weight_noise(model, rms, gen):
    """The 2026 'Adam freeze' account's control: sum over every weight matrix (every parameter
    of two or more dimensions) of <W, detach(eps)>, eps ~ N(0, rms^2) drawn afresh at every
    call. Written as <W - detach(W), eps>: the gradient is eps, the value 0 (the reported loss is
    the run's own)."""
    total = 0.0
    for p in model.parameters():
        if p.dim() >= 2:
            eps = torch.randn(p.shape, generator=gen, device=p.device, dtype=p.dtype) * rms
            total = total + ((p - p.detach()) * eps).sum()
    return total


def noise_generator(cfg, device):
    """The noise controls' own random stream (seed + NOISE_SEED_OFFSET, on the device), or None
    for a run without them: nothing else draws from it, so it moves no other stream."""
    if cfg.weight_noise or (cfg.lam and cfg.prior_kind == "logit-noise"):
        return generator_on(device).manual_seed(cfg.seed + NOISE_SEED_OFFSET)
    return None


def prior_weight(cfg, epoch):
    """lambda(t): constant, late start (0 before --prior-start), or annealed linearly to 0
    over --prior-anneal epochs from the start; 0 from --prior-stop on."""
    if epoch < cfg.prior_start or (cfg.prior_stop is not None and epoch >= cfg.prior_stop):
        return 0.0
    if cfg.prior_anneal is None:
        return cfg.lam
    return cfg.lam * max(0.0, 1 - (epoch - cfg.prior_start) / cfg.prior_anneal)


def load_teacher(cfg, task, device):
    """The teacher of --prior teacher: a trained model whose attention on the current inputs is
    the KL target (distillation of structure only: its logits are never used)."""
    teacher = Transformer(task.vocab_size, task.n_classes, cfg.pos_slots or task.seq_len,
                          cfg.d_model, cfg.n_heads, cfg.d_mlp)
    teacher.load_state_dict(torch.load(cfg.teacher, map_location="cpu"))
    return teacher.to(device).requires_grad_(False)


@torch.no_grad()
def teacher_attention(teacher, x, pos_ids=None, qpos=None):
    return teacher.run(x, None, pos_ids, qpos)["attn"]


# ---------------------------------------------------------------------------------------
# 3. Capacity and ticket hooks (Fig. 2, Fig. 4): applied around every optimizer step

def qk_penalty(model, c):
    """The norm-matched control of Fig. 2: c * (||W_Q||_F^2 + ||W_K||_F^2)."""
    return c * (model.W_Q.pow(2).sum() + model.W_K.pow(2).sum())


@torch.no_grad()
def match_norm_(params, radius):
    """Project onto the sphere ||theta||_F = radius by one common rescaling (Omnigrok). The
    scale stays on the device (no host read in the step): each tensor's sum of squares in its
    own precision, then their sum, the root and the ratio in float64, added in order."""
    total = 0.0
    for p in params:
        total = total + p.pow(2).sum().double()
    scale = radius / total.sqrt()
    for p in params:
        p.mul_(scale)


def apply_norm_matching(model, cfg):
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


# ---------------------------------------------------------------------------------------
# 4. The loop

def pick_device(name):
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(name)


def device_name(device):
    """The GPU's name, or the CPU's model (as /proc/cpuinfo gives it, else the platform's)."""
    if device.type == "cuda":
        return torch.cuda.get_device_name(device)
    try:
        with open("/proc/cpuinfo") as f:
            return next(l.split(":", 1)[1].strip() for l in f if l.startswith("model name"))
    except (OSError, StopIteration):
        return platform.processor() or platform.machine()


def set_deterministic(cfg):
    """--deterministic: PyTorch's deterministic algorithms (an op with none raises), and the
    cuBLAS workspace that makes CUDA matmuls repeatable. On the CPU a run is already
    bitwise-deterministic for a given thread count; this only makes that an error to break."""
    if cfg.deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True)


class HostToDevice:
    """A host tensor copied to the device once an epoch without the host waiting for it: into
    one of two pinned buffers, non-blocking, a buffer reused only once its last copy has landed
    (its event). The data are the host's, bit for bit. On the CPU: the tensor itself."""

    def __init__(self, device):
        self.device, self.buffers, self.events, self.turn = device, [None, None], [None, None], 0

    def __call__(self, x):
        if self.device.type != "cuda":
            return x.to(self.device)
        i, self.turn = self.turn, 1 - self.turn
        if self.events[i] is not None:
            self.events[i].synchronize()                 # its copy of two epochs ago has landed
        if self.buffers[i] is None or self.buffers[i].shape != x.shape:
            self.buffers[i] = torch.empty_like(x).pin_memory()
        self.buffers[i].copy_(x)
        out = self.buffers[i].to(self.device, non_blocking=True)
        self.events[i] = torch.cuda.Event()
        self.events[i].record(torch.cuda.current_stream(self.device))   # the copy's stream: its device's, not
        return out                                                        # the current device's (cuda:1 != cuda:0)


def task_of(cfg):
    """The task a config names, split and seeded as the run sees it."""
    return make_task(cfg.task, p=cfg.p, frac=cfg.frac, n_distractors=cfg.n_distractors, seed=cfg.seed,
                     n_operands=cfg.n_operands, n_bits=cfg.n_bits, parity_k=cfg.parity_k, perm_n=cfg.perm_n,
                     n_outputs=cfg.n_outputs, distractor_vocab=cfg.distractor_vocab)


@torch.no_grad()
def pytorch_init_(model):
    """PyTorch's default initialisation in place of the paper's (a reading of §3's "standard
    initialization", docs/registered/sensitivity.md): nn.Embedding's N(0, 1) for the token and position
    tables (token vectors of norm ~sqrt(d), not ~1: sharp attention at init), nn.Linear's
    U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for every other weight and bias."""
    for name, p in model.named_parameters():
        if name in ("embed", "pos"):
            p.normal_(0.0, 1.0)
        else:                        # a (out, in) weight, or a bias whose fan_in is its layer's
            fan_in = p.shape[1] if p.dim() == 2 else {"b_in": model.W_in, "b_out": model.W_out}[name].shape[1]
            p.uniform_(-1 / math.sqrt(fan_in), 1 / math.sqrt(fan_in))


def build_run(cfg, device):
    """A run's task and freshly initialised model, in this order: the seed fixes the data
    split and the distractors first, then the initialisation (unless --init-seed): the paper's
    (model.py), or PyTorch's (--init pytorch), times --init-scale."""
    task = task_of(cfg)
    torch.manual_seed(cfg.seed if cfg.init_seed is None else cfg.init_seed)
    sizes = (task.vocab_size, task.n_classes, cfg.pos_slots or task.seq_len, cfg.d_model, cfg.n_heads, cfg.d_mlp)
    model = DeepTransformer(*sizes, cfg.n_layers, cfg.layernorm, cfg.prior_layer, cfg.final_layernorm) if deep(cfg) \
        else Transformer(*sizes)
    if cfg.init == "pytorch":
        pytorch_init_(model)
    if cfg.init_scale != 1.0:
        with torch.no_grad():
            for p in model.parameters():
                p.mul_(cfg.init_scale)
    return task, model.to(device)


def batches(task, cfg, device):
    """The train and test sets as dicts of tensors, one row per example, as the model and the
    diagnostics read them:
      x, y      inputs and labels
      oracle    the oracle attention (uniform on the informative positions S, Def. 4.1)
      qpos      the query position of each row (autoregressive task), else None
      attn      the attention put in place of the model's own (--frozen-attn, App. F.4), else None
      target    the KL prior's target q (train only; the teacher's is set by the loop)
      pos_ids   the position-table rows (length generalization), shared by every row"""
    prior_target = {"oracle": task.oracle_for, "adversarial": task.adversarial_for, "uniform": task.uniform_for,
                    "shuffled": lambda split: task.shuffled_for(split, cfg.seed), "query": task.query_for}.get(cfg.prior)
    sets = {}
    for split in ("train", "test"):
        oracle = task.oracle_for(split).to(device)
        sets[split] = {
            "x": getattr(task, f"{split}_x").to(device), "y": getattr(task, f"{split}_y").to(device),
            "oracle": oracle, "qpos": None if task.qpos is None else task.qpos[split].to(device),
            "attn": oracle if cfg.frozen_attn else None,
            "pos_ids": None if cfg.pos_slots is None else torch.tensor(query_slot_ids(task.seq_len, cfg.pos_slots),
                                                                          device=device)}   # indexed on the device
    sets["train"]["target"] = prior_target("train").to(device) if prior_target else None
    return sets["train"], sets["test"]


def minibatch(batch, idx):
    """The rows idx of a batch (pos_ids is shared by every row)."""
    return {k: v if k == "pos_ids" or v is None else v[idx] for k, v in batch.items()}


def forward_fn(model, cfg, device):
    """model.run on a batch dict, optionally compiled and autocast (the loss is float64 either
    way). A compiled graph fuses the attention weights away, so no gradient reaches them: a
    forward whose attention gradient the diagnostics read asks for uncompiled=True."""
    compiled = model.run if cfg.compile is None else torch.compile(model.run, backend=cfg.compile)
    def forward(batch, uncompiled=False):
        with torch.autocast(device.type, dtype=torch.bfloat16) if cfg.amp == "bf16" else contextlib.nullcontext():
            return (model.run if uncompiled else compiled)(batch["x"], batch["attn"], batch["pos_ids"], batch["qpos"])
    return forward


def forward_backward(model, opt, forward, batch, cfg, lam, measure=False, noise=None):
    """Forward, loss (Eq. 6) and backward on one batch; the gradients wait in .grad for step.
    Returns the forward's outputs with the loss terms added (ce_each, penalty, prior_weight).
    measure=True keeps the gradient that reached the attention weights: it is what the
    diagnostics read as the task gradient (diagnostics.task_gradient_stats). noise: the noise
    controls' generator (noise_generator), drawn from at every call."""
    out = forward(batch, uncompiled=measure)
    loss, out["ce_each"], out["penalty"] = training_loss(model, out, batch["y"], batch["target"], cfg, lam, noise)
    out["prior_weight"] = lam
    if measure and batch["attn"] is None:
        for a in out.get("attn_full", [out["attn"]]):      # the deeper model: every block's
            a.retain_grad()
    opt.zero_grad(set_to_none=True)
    loss.backward()
    return out


def step(model, opt, cfg, masks):
    """Clip, step, then the hooks that hold after every step (norm matching, ticket masks)."""
    if cfg.clip:
        torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
    opt.step()
    apply_norm_matching(model, cfg)
    apply_masks(model, masks)


def warmup_factor(cfg, epoch):
    """The learning rate's linear warm-up, per epoch (App. G: 10 epochs)."""
    return min(1.0, (epoch + 1) / max(1, cfg.warmup))


def finished(cfg, epoch, grok):
    """The last epoch, or --stop-after epochs after grokking: measured, then no step."""
    return epoch == cfg.epochs or (cfg.stop_after is not None and grok is not None and epoch >= grok + cfg.stop_after)


def generator_on(device):
    """A random stream on the device. (PyTorch's `meta` device, which the device tests run the
    loop on, has none: the CPU's stands in there.)"""
    return torch.Generator(device if device.type != "meta" else "cpu")


def start(cfg, weights=None, device=None):
    """Everything the loop carries, built on the run's device: the task and the model
    (initialised, or loaded from --init-from, masked), the optimizer and its base learning rates,
    the forward, the train and test sets, the teacher, and the random streams that only the
    loop draws from (minibatch order, the noise controls). If `weights` is a dict, the initial
    state dict goes in it ("init")."""
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
    train_set, test_set = batches(task, cfg, device)
    return SimpleNamespace(
        cfg=cfg, device=device, task=task, model=model, masks=masks, opt=opt,
        base_lrs=[g["lr"] for g in opt.param_groups], forward=forward_fn(model, cfg, device),
        train_set=train_set, test_set=test_set,
        teacher=load_teacher(cfg, task, device) if cfg.prior == "teacher" else None,
        rho=refresh_rate(cfg), tau=cfg.tau if cfg.tau is not None else 1 / (2 * task.k),
        batch_gen=generator_on(device).manual_seed(cfg.seed + BATCH_SEED_OFFSET),   # minibatch order only
        noise=noise_generator(cfg, device),                       # the noise controls only, or None
        upload=HostToDevice(device))         # the redrawn distractors, copied without blocking the host


def epoch_data(run, epoch, first):
    """An epoch's data: its distractors (each training example redraws them with prob. rho),
    the warm-up learning rate, and the teacher's attention on these inputs (on the run's first
    epoch, and whenever the inputs move). Returns lambda(t)."""
    cfg, train_set = run.cfg, run.train_set
    if epoch and run.rho:
        run.task.refresh_distractors(run.rho)
        train_set["x"] = run.upload(run.task.train_x)
    for group, base in zip(run.opt.param_groups, run.base_lrs):
        group["lr"] = base * warmup_factor(cfg, epoch)
    lam = prior_weight(cfg, epoch)
    if run.teacher is not None and cfg.lam and (epoch == first or run.rho):
        train_set["target"] = teacher_attention(run.teacher, train_set["x"], train_set["pos_ids"], train_set["qpos"])
    return lam


def epoch_forward(run, lam, measure):
    """Forward, loss and backward on the whole training set: every full-batch epoch, and a
    minibatch run's measured ones (only to measure). Its outputs, or None."""
    if run.cfg.batch_size is None or measure:
        return forward_backward(run.model, run.opt, run.forward, run.train_set, run.cfg, lam, measure, run.noise)
    return None


def epoch_step(run, lam):
    """The step: once on the full batch (its gradients from epoch_forward), or once per
    minibatch after its own forward-backward, in an order drawn on the device."""
    cfg, model, opt = run.cfg, run.model, run.opt
    if cfg.batch_size is None:
        step(model, opt, cfg, run.masks)
        return
    order = torch.randperm(len(run.train_set["x"]), generator=run.batch_gen, device=run.device)
    for idx in order.split(cfg.batch_size):
        forward_backward(model, opt, run.forward, minibatch(run.train_set, idx), cfg, lam, noise=run.noise)
        step(model, opt, cfg, run.masks)


def train(cfg, log=print, weights=None, on_step=None):
    """Train one run; returns (summary, history). Deterministic on CPU for a given seed and
    thread count (a different thread count changes float rounding, hence the trajectory).
    If `weights` is a dict, the initial and final state dicts are put in it ("init", "final").
    on_step(epoch, run): called every epoch after the backward, before the step (the gradients in
    .grad, run: what `start` built), for a study that reads the loop as it goes; it must not
    change what the run computes."""
    run = start(cfg, weights)
    model, opt, task, device = run.model, run.opt, run.task, run.device
    loop = {"epoch": 0, "history": {"epoch": []}, "grok": None, "elapsed": 0.0, "resumed_at": []}
    checkpoint = runfolder.checkpoint_path(cfg.out) if cfg.out and cfg.checkpoint_every else None
    if checkpoint and os.path.exists(checkpoint):      # a run cut short: go on where it stopped
        loop = runfolder.load_checkpoint(checkpoint, lambda stored: config_differences(stored, cfg), model, opt,
                                         task, run.batch_gen, run.noise)
        run.train_set["x"] = task.train_x.to(device)
    history, grok, first, t0 = loop["history"], loop["grok"], loop["epoch"], time.time() - loop["elapsed"]

    for epoch in range(first, cfg.epochs + 1):
        # the loop's whole state before this epoch: resuming here gives the same run bitwise
        if checkpoint and epoch > first and epoch % cfg.checkpoint_every == 0:
            runfolder.save_checkpoint(checkpoint, semantic_config(cfg), model, opt, task, run.batch_gen, run.noise,
                                      {**loop, "epoch": epoch, "history": history, "grok": grok,
                                       "elapsed": time.time() - t0})

        lam = epoch_data(run, epoch, first)
        measure = epoch == cfg.epochs or epoch % cfg.eval_every == 0

        # forward, loss, backward. On a measured epoch this same backward is what the
        # diagnostics read, so every logged quantity is of the parameters before this epoch's step.
        out = epoch_forward(run, lam, measure)
        if on_step is not None:
            on_step(epoch, run)

        # measure: losses, accuracies, attention, norms, the task gradient (diagnostics.py)
        if measure:
            with torch.no_grad():
                test_out = run.forward(run.test_set)
            row = {"epoch": epoch, **evaluation(model, run.train_set, run.test_set, out, test_out, run.tau)}
            if cfg.log_updates:     # what moves on the plateau (docs/registered/plateau.md)
                row.update(update_stats(model, opt, out, [b * warmup_factor(cfg, epoch - 1) for b in run.base_lrs]))
            for key, value in row.items():
                history.setdefault(key, []).append(value)
            if grok is None and history["test_acc"][-1] >= cfg.grok_acc:
                grok = epoch
            if not cfg.quiet and cfg.print_every and (epoch % cfg.print_every == 0 or epoch == cfg.epochs):
                log(progress_line(history, cfg, epoch, time.time() - t0))
            if finished(cfg, epoch, grok):       # the last epoch is measured, not stepped
                break

        epoch_step(run, lam)

    wall = time.time() - t0
    if weights is not None:
        weights["final"] = {n: p.detach().cpu().clone() for n, p in model.state_dict().items()}
    return {**summarize(cfg, history, grok, epoch, wall, device), "resumed_at": loop["resumed_at"],
            # where and how it was computed (a run is exact per kind of device; store.derived copies these)
            "device_name": device_name(device), "precision": "bf16 autocast" if cfg.amp == "bf16" else "float32"}, history


def progress_line(history, cfg, epoch, elapsed):
    h = {k: v[-1] for k, v in history.items()}
    eta = elapsed / max(epoch, 1) * (cfg.epochs - epoch)
    return (f"epoch {epoch:6d}/{cfg.epochs} | train {h['train_loss']:.4f} {h['train_acc']:.3f} | "
            f"test {h['test_loss']:.3f} {h['test_acc']:.3f} | info mass {h['info_mass']:.3f} "
            f"D {h['struct_div']:.3f} | mlp {h['mlp_norm']:.1f} | "
            f"{1000 * elapsed / max(epoch, 1):.1f} ms/ep | ETA {eta:.0f}s")


def summarize(cfg, history, grok, epoch, wall, device):
    return {
        "config": semantic_config(cfg),
        "grok_epoch": grok,
        "mem_epoch": first_epoch(history, "train_acc", 0.99),
        "struct_epoch": first_epoch(history, "frac_struct", 0.99),
        "final_train_acc": history["train_acc"][-1],
        "final_test_acc": history["test_acc"][-1],
        "final_info_mass": history["info_mass"][-1],
        "final_mlp_norm": history["mlp_norm"][-1],
        "lemma_violations": sum(history.get("lemma_violations", [])),
        "epochs_run": epoch,
        "wall_s": wall,
        "ms_per_epoch": 1000 * wall / max(epoch, 1),
        "device": str(device),
        "threads": torch.get_num_threads(),   # a different count rounds differently (docs/registered/sensitivity.md)
    }


def first_epoch(history, key, threshold):
    """First logged epoch with history[key] >= threshold, None if never (analysis.first_epoch is
    the same rule, for code that reads stored runs without torch)."""
    return next((e for e, v in zip(history["epoch"], history[key]) if v >= threshold), None)


# ---------------------------------------------------------------------------------------
# 5. The command line (a run folder with --out, its checkpoint: runfolder.py)

def config_differences(stored, cfg, defaults=None):
    """Keys in which a stored config (a run folder's, a checkpoint's, the store's) differs from
    cfg ([] = the same run). A flag added after the config was stored matches if cfg leaves it at
    its default, which computes what the run computed before the flag existed: runs and their
    checkpoints outlive the flags (a run resumed in a later session included). defaults: the
    defaults' semantic config, when the caller has it at hand."""
    defaults = json.loads(json.dumps(semantic_config(make_config()))) if defaults is None else defaults
    want = json.loads(json.dumps(semantic_config(cfg)))      # as the file holds it: tuples are lists
    have = {**{k: v for k, v in want.items() if k not in stored and v == defaults.get(k)}, **stored}
    return sorted(k for k in set(have) | set(want) if have.get(k) != want.get(k))


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
    keys = ("grok_epoch", "mem_epoch", "struct_epoch", "final_train_acc", "final_test_acc",
            "epochs_run", "wall_s", "ms_per_epoch")
    print(json.dumps({k: summary[k] for k in keys}))


if __name__ == "__main__":
    main()
