"""The configuration of one run: every flag of train.py with the paper's values (App. G) as defaults,
their validation, and what of a config determines its result: store.py keys its runs by
`semantic_config` and matches a stored run by `config_differences`.

    cfg = config.make_config(lam=0.1, seed=0)      # the parser's defaults with keyword overrides
"""
import argparse
import functools
import json
import os

from optim import OPTIMIZERS
from tasks import ARITHMETIC, DISTRACTOR_VOCABS, TASKS

PRIORS = ("oracle", "adversarial", "uniform", "shuffled", "query", "teacher")   # the target q of the KL prior
# directed (KL) and undirected penalties, and a control with the KL's size and no direction
PRIOR_KINDS = ("kl", "entropy", "sparsity", "l1-logits", "logit-noise")
INITS = ("paper", "pytorch")
DISTRACTOR_DRAWS = ("fixed", "fresh", "refresh")        # --distractors: once, every epoch, with prob. rho
PRIOR_LAYERS = ("first", "last", "all")                 # the deeper model's (model_deep.DeepTransformer.PRIOR_LAYERS)
AMP = ("off", "bf16")
# Flags that change how a run is executed or reported, not the computation it asks for. (The
# thread count can change float rounding, and through it the grokking epoch: docs/registered/sensitivity.md,
# Determinism. It is recorded in each summary, not part of a run's identity.)
NON_SEMANTIC = ("out", "quiet", "print_every", "threads", "device", "checkpoint_every", "deterministic")


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
    a("--distractors", default="fresh", help="fixed | fresh | refresh (redraw each training example with prob. "
      "--refresh per epoch); fresh, the figures' default, was chosen by measurement (docs/registered/regime_map.md)")
    a("--refresh", type=float, default=0.0, help="per-epoch redraw probability for --distractors refresh")
    a("--distractor-vocab", default="shared", help="arithmetic tasks: distractor tokens shared with the operands "
      "| separate (a noise vocabulary p+1..2p) | pad (one pad token); readings of §3, docs/registered/sensitivity.md")
    a("--n-bits", type=int, default=10, help="parity / arparity: input bits n")
    a("--parity-k", type=int, default=3, help="parity / arparity: bits k in each parity")
    a("--n-outputs", type=int, default=3, help="arparity: parity bits predicted after the inputs")
    a("--perm-n", type=int, default=5, help="perm: the group S_n")
    a("--pos-slots", type=int, default=None, help="position-table rows, the query's the last (App. F.3; default: length)")
    # model (paper §3.2, App. A.2)
    a("--d-model", type=int, default=64)
    a("--n-heads", type=int, default=1)
    a("--d-mlp", type=int, default=256)
    a("--n-layers", type=int, default=1, help="blocks; above 1 (or with --layernorm) the deeper pre-LN model of "
      "model_deep.py, beyond the paper (docs/registered/deep.md)")
    a("--layernorm", action="store_true", help="LayerNorm before each attention and MLP and before the unembedding")
    a("--final-layernorm", action=argparse.BooleanOptionalAction, default=True, help="with --layernorm: the "
      "LayerNorm before the unembedding (--no-final-layernorm drops it: docs/registered/deep_trained.md)")
    a("--prior-layer", default="first", help="deeper model: the attention the prior acts on and the diagnostics "
      "read: first | last | all (every block's, averaged with the heads)")
    a("--init", default="paper", help="paper: N(0, 1/fan_in) for every weight, biases 0 | pytorch: PyTorch's "
      "defaults (controls.pytorch_init_); readings of §3's 'standard initialization'")
    a("--init-scale", type=float, default=1.0, help="multiply every parameter at init (Omnigrok's knob)")
    # optimization (paper App. G)
    a("--optimizer", default="adamw", help="adamw | sgd | lion | muon (optim.py maps lr and wd between them)")
    a("--batch-size", type=int, default=None, help="minibatch size (default: full batch)")
    a("--lr", type=float, default=1e-3)
    a("--wd", type=float, default=1.0, help="AdamW (decoupled) weight decay on every parameter")
    a("--decay-norms", action=argparse.BooleanOptionalAction, default=True, help="decay every parameter (the "
      "paper); --no-decay-norms exempts gains, shifts and biases, as nanoGPT does (AdamW)")
    a("--beta1", type=float, default=0.9)
    a("--beta2", type=float, default=0.999)
    a("--warmup", type=int, default=10, help="linear warm-up epochs")
    a("--clip", type=float, default=1.0, help="gradient-norm clip (0 = off)")
    a("--epochs", type=int, default=10000)
    # structural prior (Eq. 6): loss = CE + lam(t) * mean penalty(a), penalty = KL(q || a) by default
    a("--lam", type=float, default=0.0, help="prior strength lambda")
    a("--prior", default="oracle", help="KL target q: oracle | adversarial (uniform on distractors) | uniform "
      "(every key) | shuffled (1/k on k random keys per example, never its informative ones) | query (all "
      "mass on the query) | teacher (a trained model's attention); the middle three carry no information")
    a("--teacher", default=None, help="state dict (.pt) of the teacher for --prior teacher (same architecture)")
    a("--prior-kind", default="kl", help="kl: KL(q || a) | entropy: H(a) | sparsity: 1 - ||a||_2^2 | l1-logits: "
      "sum_i |s_i| (these three undirected) | logit-noise: a random zero-sum gradient on the logits of the KL's "
      "norm, example by example (a control beyond the paper: controls.logit_noise)")
    a("--prior-start", type=int, default=0, help="late start: lambda(t) = 0 before this epoch")
    a("--prior-anneal", type=int, default=None,
      help="anneal: lambda(t) falls linearly from lambda to 0 over this many epochs after --prior-start")
    a("--prior-stop", type=int, default=None, help="lambda(t) = 0 from this epoch on (beyond the paper: "
      "docs/registered/plateau.md)")
    a("--weight-noise", type=float, default=0.0, help="RMS of a detached Gaussian gradient on every weight "
      "matrix, fresh every step (a control beyond the paper: controls.weight_noise; 0 = off)")
    a("--frozen-attn", default=None, help="oracle: replace the model's attention by the oracle (App. F.4)")
    # capacity controls (Fig. 2)
    a("--norm-match", type=float, default=None, help="rescale the MLP's parameters to this norm after every step")
    a("--global-norm-match", type=float, default=None, help="rescale all parameters to this norm (Omnigrok's)")
    a("--qk-penalty", type=float, default=0.0, help="extra c * (||W_Q||^2 + ||W_K||^2) in the loss")
    a("--qk-stop", type=int, default=None, help="the QK penalty off from this epoch on, as --prior-stop (beyond the paper)")
    a("--transplant", default=None, help="resume a checkpoint audit.imprint composed (named so the store keys it)")
    # logging and phase marks (paper §5.1, Fig. 1)
    a("--eval-every", type=int, default=10)
    a("--log-updates", action="store_true", help="also log the RMS of AdamW's last update to W_Q, W_K and the "
      "embeddings, and the training set's attention mass (controls.update_stats)")
    a("--tau", type=float, default=None, help="structural-condition threshold (default 1/(2k))")
    a("--grok-acc", type=float, default=0.99, help="test accuracy that marks grokking")
    a("--stop-after", type=int, default=None, help="stop this many epochs after grokking (default: never)")
    a("--seed", type=int, default=0, help="fixes the data split, distractors and (unless --init-seed) the init")
    a("--init-seed", type=int, default=None, help="seed of the weight initialisation (default: --seed)")
    # tickets (Fig. 4)
    a("--init-from", default=None, help="a .pt state dict to start from (rewinding a lottery ticket)")
    a("--mask", default=None, help="a .pt dict {parameter name: 0/1 tensor}, applied at init and after every step")
    a("--out", default=None, help="run folder for summary.json and history.json")
    a("--checkpoint-every", type=int, default=1000, help="with --out: <out>/checkpoint.pt every N epochs (0 = never)")
    a("--device", default="auto", help="auto | cpu | cuda | cuda:N")
    a("--deterministic", action="store_true", help="deterministic algorithms (for a GPU; the CPU already is)")
    a("--amp", default="off", help="off | bf16: autocast the matmuls (the loss stays float64; docs/running.md)")
    a("--compile", nargs="?", const="inductor", default=None, help="torch.compile the forward (backend)")
    a("--threads", type=int, default=0, help="torch CPU threads (0 = torch's default)")
    a("--print-every", type=int, default=1000, help="progress line every N epochs (0 = none)")
    a("--quiet", action="store_true")
    return p


@functools.lru_cache(maxsize=None)
def _defaults():
    """The parser's defaults, parsed once (a parse takes ~3 ms; a dry run makes thousands of configs).
    Every default is an immutable scalar (tested), so no two configs share state."""
    return tuple(vars(get_parser().parse_args([])).items())


def make_config(**overrides):
    """The parser's defaults with keyword overrides (underscored names): the Python entry point."""
    return override(argparse.Namespace(**dict(_defaults())), overrides)


def default_semantic():
    """The semantic config of the defaults (a fresh dict)."""
    return semantic_config(make_config())


def override(cfg, overrides):
    """cfg with keyword overrides set; an unknown key is an error, never a silent new field."""
    for key, value in overrides.items():
        if not hasattr(cfg, key):
            raise ValueError(f"unknown config key {key!r}")
        setattr(cfg, key, value)
    return cfg


# The flags that take one of a few names: flag -> the names it takes
CHOICES = {"task": TASKS, "prior": PRIORS, "prior_kind": PRIOR_KINDS, "init": INITS, "distractors": DISTRACTOR_DRAWS,
           "distractor_vocab": DISTRACTOR_VOCABS, "prior_layer": PRIOR_LAYERS, "optimizer": OPTIMIZERS, "amp": AMP}
# (flag, the test its value must pass, what it must be); a flag whose default is None may stay None
BOUNDS = ([("p", lambda v: v >= 3, "at least 3"), ("frac", lambda v: 0 < v < 1, "in (0, 1)")]
          + [(f, lambda v: v >= 1, ">= 1") for f in ("epochs", "eval_every", "d_model", "n_heads", "d_mlp", "n_layers")]
          + [(f, lambda v: v is None or v >= 1, ">= 1") for f in ("prior_anneal", "batch_size", "qk_stop")]
          + [(f, lambda v: v >= 0, ">= 0") for f in ("lam", "weight_noise", "prior_start", "wd", "qk_penalty")]
          + [(f, lambda v: v > 0, "> 0") for f in ("init_scale", "lr")]
          + [(f, lambda v: v is None or v > 0, "> 0") for f in ("norm_match", "global_norm_match")])
# (what is wrong, the message) for the flags that must agree with each other
def _conflicts(cfg):
    big = deep(cfg)
    yield (cfg.optimizer == "lion" and cfg.beta2 != get_parser().get_default("beta2"),
           "--beta2 does not apply to lion (it uses its own beta2 0.99, optim.py)")
    yield (cfg.prior == "teacher") != (cfg.teacher is not None), "--prior teacher and --teacher PATH go together"
    yield cfg.teacher is not None and not os.path.exists(cfg.teacher), f"--teacher {cfg.teacher}: no such file"
    yield ((cfg.prior == "shuffled" or cfg.prior_kind == "logit-noise") and cfg.task == "arparity",
           "--prior shuffled and --prior-kind logit-noise are for tasks whose query sees every key")
    yield (cfg.prior_kind == "logit-noise" and cfg.prior == "teacher",
           "--prior-kind logit-noise matches the KL to a fixed target, not --prior teacher")
    yield cfg.transplant and not os.path.exists(os.path.join(cfg.out or "", "checkpoint.pt")), "--transplant: no checkpoint in --out"
    yield (cfg.prior_stop is not None and cfg.prior_stop <= cfg.prior_start,
           f"--prior-stop must come after --prior-start ({cfg.prior_start}), got {cfg.prior_stop}")
    yield cfg.prior == "query" and cfg.task == "arparity", "--prior query is for tasks whose query is the last position"
    yield (cfg.log_updates and (cfg.optimizer != "adamw" or big),
           "--log-updates reads AdamW's state in the minimal model (--optimizer adamw, one block)")
    yield (cfg.distractor_vocab != "shared" and cfg.task not in ARITHMETIC,
           f"--distractor-vocab {cfg.distractor_vocab} is for {', '.join(ARITHMETIC)}")
    yield (cfg.distractors == "refresh" and not 0 < cfg.refresh < 1,
           f"--distractors refresh needs 0 < --refresh < 1, got {cfg.refresh}")
    yield (cfg.task == "arparity" and cfg.distractors != "fixed",
           "--task arparity has no distractor tokens to redraw: use --distractors fixed")
    yield cfg.pos_slots is not None and cfg.task not in ARITHMETIC + ("parity", "perm"), "--pos-slots is for the fixed-position tasks"
    yield cfg.distractors != "refresh" and cfg.refresh, "--refresh is only used with --distractors refresh"
    yield cfg.d_model % cfg.n_heads, f"--d-model {cfg.d_model} is not divisible by --n-heads {cfg.n_heads}"
    yield cfg.n_layers == 1 and cfg.prior_layer != "first", "--prior-layer is for --n-layers above 1 (one block has one attention)"
    for flag, used in (("--frozen-attn", cfg.frozen_attn), ("--qk-penalty", cfg.qk_penalty),
                       ("--prior teacher", cfg.prior == "teacher"), ("--init pytorch", cfg.init == "pytorch")):
        yield (big and used, f"{flag} is for the minimal model, not --n-layers {cfg.n_layers}"
               + (" --layernorm" if cfg.layernorm else ""))
    yield (not cfg.final_layernorm and not cfg.layernorm,
           "--no-final-layernorm is for --layernorm (without it there is no LayerNorm to drop)")
    yield not cfg.decay_norms and cfg.optimizer != "adamw", "--no-decay-norms is for --optimizer adamw"
    yield cfg.frozen_attn not in (None, "oracle"), f"--frozen-attn takes only 'oracle', got {cfg.frozen_attn!r}"
    yield (cfg.frozen_attn and cfg.lam, "--frozen-attn replaces the attention, so a prior (--lam) has nothing to act on")
    yield (cfg.device not in ("auto", "cpu", "cuda") and not (cfg.device.startswith("cuda:") and cfg.device[5:].isdigit()),
           f"--device must be auto, cpu, cuda or cuda:N, got {cfg.device!r}")


def validate(cfg):
    """Raise ValueError with a one-line message for a config that cannot run: a name no flag takes, a
    value out of its range, or flags that do not go together."""
    for name, choices in CHOICES.items():
        if getattr(cfg, name) not in choices:
            raise ValueError(f"unknown {name.replace('_', ' ')} {getattr(cfg, name)!r} (--{name.replace('_', '-')}); "
                             f"choose from {', '.join(choices)}")
    for name, ok, what in BOUNDS:
        if not ok(getattr(cfg, name)):
            raise ValueError(f"--{name.replace('_', '-')} must be {what}, got {getattr(cfg, name)}")
    for wrong, message in _conflicts(cfg):
        if wrong:
            raise ValueError(message)


def deep(cfg):
    """Whether cfg asks for the deeper model (beyond the paper) rather than the paper's minimal one."""
    return cfg.n_layers > 1 or cfg.layernorm


def refresh_rate(cfg):
    return {"fixed": 0.0, "fresh": 1.0, "refresh": cfg.refresh}[cfg.distractors]


def semantic_config(cfg):
    """The part of a config that determines the result (used to match cached runs)."""
    return {k: v for k, v in sorted(vars(cfg).items()) if k not in NON_SEMANTIC}


def config_differences(stored, cfg, defaults=None):
    """Keys in which a stored config (a run folder's, a checkpoint's, the store's) differs from cfg
    ([] = the same run). A flag added after the run was stored matches if cfg leaves it at its default,
    which computes what the run computed before the flag existed. defaults: default_semantic(), if at hand."""
    defaults = json.loads(json.dumps(default_semantic())) if defaults is None else defaults
    want = json.loads(json.dumps(semantic_config(cfg)))      # as the file holds it: tuples are lists
    have = {**{k: v for k, v in want.items() if k not in stored and v == defaults.get(k)}, **stored}
    return sorted(k for k in set(have) | set(want) if have.get(k) != want.get(k))

