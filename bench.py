"""Speed of one training epoch: this repository's query-only model against a conventional
per-position transformer, with FLOP counts and the machine's measured matmul peak.

    python bench.py                 # paper config and the Nanda et al. config, 2 threads
    python bench.py --quick         # a few seconds
    python bench.py --threads 1
    python bench.py --bf16-grok 0 1 2 3 4   # --amp bf16's grokking epochs against float32's (trains)

The conventional model is written the way most grokking repositories write it: nn.Linear
q/k/v over every position, a causal mask, the MLP and unembedding at every position, the
logits read at the last position (with --n-layers 2 --layernorm: nanoGPT's pre-LN blocks and a
final LayerNorm, as model_deep.DeepTransformer). Both train with the same AdamW step and float64 loss.
"""
import argparse
import math
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

import train


class ConventionalBlock(nn.Module):
    """h + attention(LN h), then h + MLP(LN h); without LayerNorm the minimal model's layer."""

    def __init__(self, d_model, n_heads, d_mlp, layernorm):
        super().__init__()
        self.h, self.d = n_heads, d_model
        self.qkv = nn.Linear(d_model, 3 * d_model, bias=False)
        self.o = nn.Linear(d_model, d_model, bias=False)
        self.mlp = nn.Sequential(nn.Linear(d_model, d_mlp), nn.ReLU(), nn.Linear(d_mlp, d_model))
        self.ln_attn = nn.LayerNorm(d_model) if layernorm else nn.Identity()
        self.ln_mlp = nn.LayerNorm(d_model) if layernorm else nn.Identity()

    def forward(self, h, mask):
        B, T, _ = h.shape
        q, k, v = self.qkv(self.ln_attn(h)).view(B, T, 3, self.h, -1).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        att = torch.softmax(att.masked_fill(~mask, float("-inf")), -1)
        h = h + self.o((att @ v).transpose(1, 2).reshape(B, T, self.d))
        return h + self.mlp(self.ln_mlp(h))


class ConventionalTransformer(nn.Module):
    def __init__(self, vocab_size, n_classes, seq_len, d_model, n_heads, d_mlp, n_layers=1, layernorm=False):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model)
        self.pos = nn.Embedding(seq_len, d_model)
        self.blocks = nn.ModuleList(ConventionalBlock(d_model, n_heads, d_mlp, layernorm) for _ in range(n_layers))
        self.ln_final = nn.LayerNorm(d_model) if layernorm else nn.Identity()
        self.unembed = nn.Linear(d_model, n_classes, bias=False)
        self.register_buffer("mask", torch.tril(torch.ones(seq_len, seq_len, dtype=torch.bool)))

    def forward(self, x):
        B, T = x.shape
        h = self.embed(x) + self.pos(torch.arange(T, device=x.device))
        for block in self.blocks:
            h = block(h, self.mask[:T, :T])
        return self.unembed(self.ln_final(h))[:, -1]


def flops_per_epoch(kind, B, B_test, T, V, C, d, d_mlp, eval_every):
    """Multiply-adds x 2, forward x 3 for a training step (forward + backward), plus the test
    forward every eval_every epochs."""
    if kind == "query-only":
        per_example = d * d + 2 * d * d_mlp + d * C + V * d     # W_O, MLP, unembed, value mass
        fixed = (V + T) * 3 * d * d + V * V * d + V * T * d     # projected tables, score tables
    else:
        per_example = T * (3 * d * d + 2 * T * d + d * d + 2 * d * d_mlp + d * C)
        fixed = 0
    fwd = lambda n: 2 * (n * per_example + fixed)
    return 3 * fwd(B) + fwd(B_test) / eval_every


def sync(device):
    """Wait for the device's queued work (a GPU runs asynchronously; the CPU needs no wait)."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)


def matmul_peak(n=1024, reps=20, dtype=torch.float32, device=torch.device("cpu")):
    a, b = torch.randn(n, n, dtype=dtype, device=device), torch.randn(n, n, dtype=dtype, device=device)
    for _ in range(3):
        a @ b
    sync(device)
    t = time.perf_counter()
    for _ in range(reps):
        a @ b
    sync(device)
    return 2 * n ** 3 * reps / (time.perf_counter() - t)


def time_conventional(task, cfg, epochs, device=torch.device("cpu")):
    torch.manual_seed(0)
    m = ConventionalTransformer(task.vocab_size, task.n_classes, task.seq_len, cfg.d_model, cfg.n_heads,
                                cfg.d_mlp, cfg.n_layers, cfg.layernorm).to(device)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-3, weight_decay=1.0)
    x, y, xt = task.train_x.to(device), task.train_y.to(device), task.test_x.to(device)
    times = []
    for e in range(epochs):
        sync(device)
        t = time.perf_counter()
        loss = F.cross_entropy(m(x).double(), y)
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(m.parameters(), 1.0)
        opt.step()
        if e % cfg.eval_every == 0:
            with torch.no_grad():
                m(xt).argmax(-1)
        sync(device)
        times.append(time.perf_counter() - t)
    return times


def epoch_time(cfg, epochs, repeats=1):
    """Seconds per epoch of train.train: the difference of two run lengths
    removes set-up and first-call costs (compilation included); every eval's full
    diagnostics are included. The median over `repeats` such pairs: on a shared VM a
    single pair varies by tens of percent."""
    def wall(n):
        cfg.epochs = n
        t = time.perf_counter()
        train.train(cfg)                 # its history reads every eval's numbers on the host: synced
        return time.perf_counter() - t
    return statistics.median((wall(2 * epochs) - wall(epochs)) / epochs for _ in range(repeats))


def bench(name, cfg, epochs, peak, repeats):
    task = train.task_of(cfg)
    cfg.quiet = True
    ours = epoch_time(cfg, epochs, repeats=repeats)
    conv = statistics.median(time_conventional(task, cfg, epochs, train.pick_device(cfg.device)))
    shape = dict(B=len(task.train_x), B_test=len(task.test_x), T=task.seq_len, V=task.vocab_size,
                 C=task.n_classes, d=cfg.d_model, d_mlp=cfg.d_mlp, eval_every=cfg.eval_every)
    print(f"\n{name}: B={shape['B']} train, T={shape['T']}, d={cfg.d_model}, heads={cfg.n_heads}, "
          f"MLP={cfg.d_mlp}, eval every {cfg.eval_every}")
    if train.deep(cfg):      # no FLOP model of the deep fast path: times and the speed-up
        print(f"  {cfg.n_layers} blocks{', LayerNorm' if cfg.layernorm else ''}: train.py {1000 * ours:.2f} ms/epoch, "
              f"conventional {1000 * conv:.2f} ms/epoch, speed-up {conv / ours:.1f}x")
        return {"ours_ms": 1000 * ours, "conventional_ms": 1000 * conv}
    f_ours, f_conv = flops_per_epoch("query-only", **shape), flops_per_epoch("conventional", **shape)
    print(f"  {'':22s} {'ms/epoch':>9s} {'GFLOP/epoch':>12s} {'GFLOP/s':>8s} {'% of peak':>9s}")
    for label, sec, fl in (("query-only (train.py)", ours, f_ours), ("conventional", conv, f_conv)):
        print(f"  {label:22s} {1000 * sec:9.2f} {fl / 1e9:12.3f} {fl / sec / 1e9:8.1f} {100 * fl / sec / peak:8.1f}%")
    print(f"  speed-up {conv / ours:.1f}x (the FLOP ratio, {f_conv / f_ours:.1f}x, is the speed-up at equal "
          f"GFLOP/s); FLOP floor at peak {1000 * f_ours / peak:.2f} ms/epoch (train.py is {ours * peak / f_ours:.1f}x the floor)")
    return {"ours_ms": 1000 * ours, "conventional_ms": 1000 * conv}


def bench_variants(cfg, epochs, compile_too=False):
    """bf16 autocast (--amp bf16) and, with --compile, torch.compile (inductor) on this machine."""
    import copy
    cfg.quiet = True
    base = epoch_time(copy.copy(cfg), epochs)
    amp = epoch_time(train.make_config(**{**vars(cfg), "amp": "bf16"}), epochs)
    print(f"\nvariants of train.py at this config ({epochs} epochs timed):")
    print(f"  fp32 (default)                 {1000 * base:8.2f} ms/epoch")
    print(f"  --amp bf16                     {1000 * amp:8.2f} ms/epoch ({base / amp:.2f}x)")
    out = {"fp32_ms": 1000 * base, "bf16_ms": 1000 * amp}
    if compile_too:      # whole runs, compilation included: does it pay back on a long run?
        long = 10 * epochs
        walls = {}
        for label, c in (("eager", None), ("compiled", "inductor")):
            t = time.perf_counter()
            train.train(train.make_config(**{**vars(cfg), "epochs": long, "compile": c}))
            walls[label] = time.perf_counter() - t
        print(f"  --compile (inductor), whole {long}-epoch runs with set-up and compilation: "
              f"{walls['compiled']:.0f} s against {walls['eager']:.0f} s eager ({walls['eager'] / walls['compiled']:.2f}x)")
        out["compile_run_s"], out["eager_run_s"] = walls["compiled"], walls["eager"]
    return out


def bf16_grok(seeds, args):
    """--amp bf16 against float32 on whole runs: the paper config (fresh distractors, lambda 0,
    10,000 epochs, stopped 200 epochs after grokking) at each seed, both trained into the run
    store (float32's runs are the stored baselines every study shares), and each pair's grokking
    epoch (first epoch with test accuracy >= 0.99; None if never within the budget). --quick:
    p = 23 on the quick model, 100 epochs, under <results-dir>/quick (a smoke run, not a measurement)."""
    import os
    import sweep
    results = os.path.join(args.results_dir, "quick") if args.quick else args.results_dir
    sp = argparse.ArgumentParser()
    sweep.add_sweep_args(sp)
    sweep.add_scale_args(sp, "")
    sargs = sp.parse_args(["--threads", str(args.threads), "--device", args.device, "--runs-dir", args.runs_dir,
                           "--results-dir", results] + (["--p", "23", "--epochs", "100", "--quick"] * args.quick))
    sargs.regime = "fresh"
    runs = [(f"{amp}_seed{s}", sweep.study_config(sargs, s, amp=amp)) for s in seeds for amp in ("off", "bf16")]
    got = sweep.run_sweep(runs, sargs)
    lines = [f"--amp bf16 against float32: grokking epoch (test acc >= 0.99), p {sargs.p}, fresh distractors, "
             f"lambda 0, {sargs.epochs:,} epochs", f"{'seed':>4s} {'float32':>8s} {'bf16':>8s} {'bf16/fp32':>9s}"]
    ratios = []
    for s in seeds:
        t = [got[f"{amp}_seed{s}"][0]["grok_epoch"] if f"{amp}_seed{s}" in got else None for amp in ("off", "bf16")]
        r = t[1] / t[0] if None not in t else None
        ratios += [r] if r is not None else []
        lines.append(f"{s:4d} {str(t[0]):>8s} {str(t[1]):>8s} " + (f"{r:9.3f}" if r is not None else f"{'-':>9s}"))
    if ratios:
        lines.append(f"median ratio {statistics.median(ratios):.3f} over {len(ratios)} pair(s), "
                     f"range {min(ratios):.3f}-{max(ratios):.3f}, geometric mean {statistics.geometric_mean(ratios):.3f}; "
                     f"bf16 sooner in {sum(r < 1 for r in ratios)}")
    print("\n".join(lines))
    with open(os.path.join(results, "bench_bf16_grok.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    return got


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--device", default="auto", help="auto | cpu | cuda: both implementations and the peak on it")
    p.add_argument("--epochs", type=int, default=300, help="epochs timed per implementation")
    p.add_argument("--quick", action="store_true", help="p = 23 and 10 epochs: seconds")
    p.add_argument("--repeats", type=int, default=3, help="timed pairs per implementation (median)")
    p.add_argument("--compile", action="store_true",
                   help="also time whole runs of 10x --epochs with and without --compile (inductor)")
    p.add_argument("--bf16-grok", type=int, nargs="+", metavar="SEED",
                   help="instead of timing: train the paper config with --amp bf16 at these seeds and compare "
                        "grokking epochs with float32's (results/bench_bf16_grok.txt)")
    p.add_argument("--runs-dir", default="runs", help="run folders for --bf16-grok (it resumes from them)")
    p.add_argument("--results-dir", default="results", help="--bf16-grok's store and table (<results-dir>/store)")
    args = p.parse_args(argv)
    if args.bf16_grok:
        return bf16_grok(args.bf16_grok, args)
    torch.set_num_threads(args.threads)
    device = train.pick_device(args.device)
    peak = matmul_peak(512 if args.quick else 1024, device=device)
    peak16 = matmul_peak(512 if args.quick else 1024, dtype=torch.bfloat16, device=device)
    print(f"device: {train.device_name(device)} ({device})")
    print(f"torch {torch.__version__}, {args.threads} thread(s); measured matmul peak fp32 "
          f"{peak / 1e9:.0f} GFLOP/s, bf16 {peak16 / 1e9:.0f} GFLOP/s")
    epochs = 10 if args.quick else args.epochs
    p_ = 23 if args.quick else 113
    if args.quick:
        print("--quick: a smoke run of the benchmark on a tiny config; its timings are not measurements")
    repeats = 1 if args.quick else args.repeats
    bench("paper config (modular addition, 2 distractors)",
          train.make_config(p=p_, threads=args.threads, device=str(device)), epochs, peak, repeats)
    bench("Nanda et al. config (no distractors)",
          train.make_config(p=p_, d_model=128, n_heads=4, d_mlp=512, n_distractors=0, threads=args.threads,
                            device=str(device)), epochs, peak, repeats)
    bench("two pre-LN blocks with LayerNorm (docs/registered/deep.md)",
          train.make_config(p=p_, n_layers=2, layernorm=True, threads=args.threads, device=str(device)),
          epochs, peak, repeats)
    bench_variants(train.make_config(p=p_, threads=args.threads, device=str(device)), epochs // 3 if not args.quick else 5,
                   compile_too=args.compile)


if __name__ == "__main__":
    main()
