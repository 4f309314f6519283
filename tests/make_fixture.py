"""Write tests/fixtures/default_history.json: a short run of the default training path, the
reference that restructuring must reproduce (tests/test_train.py::test_default_path_matches_fixture).

    python tests/make_fixture.py            # only when a change is *meant* to move the numbers
    python tests/make_fixture.py --spread   # how far rounding alone moves the histories here

The reference is compared with a tolerance on every machine, never bitwise: two CPUs run
different kernels (AVX2, AVX-512, none), which sum in another order. TOLERANCE is 10x the
largest spread `--spread` measured on one 2-core AMD EPYC (AVX-512), torch 2.13.0, over every
kernel set torch can be forced to (ATEN_CPU_CAPABILITY = default, avx2, avx512) and 1 or 2
threads, in units of each quantity's own scale (max |reference| over the run):

    losses and norms              <= 1.9e-6     tolerance 2e-5
    attention masses, D(t)        <= 4.8e-5     tolerance 5e-4
    gradient to the logits, Lemma <= 1.7e-4     tolerance 2e-3
    gradient to W (grad_W_norm)   <= 2.5e-3     tolerance 3e-2   (small and cancelling: the
                                                                  least-conditioned quantity)
    accuracies, fractions, counts     0         tolerance 1e-3 absolute (a few examples of
                                                                  3,831 train / 8,938 test)

A 5% larger learning rate moves the losses by ~2e-4 of their scale, 10x their tolerance,
which tests/test_train.py checks, so the comparison can fail. A 1% change of weight decay or
beta2 is invisible in 12 epochs at any tolerance above rounding: this fixture guards the
training path's structure, not every hyperparameter's last digit.
"""
import json
import os
import platform
import subprocess
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import train  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "default_history.json")
# the paper config (p 113, d 64, fresh distractors) for a few epochs, plus the KL prior so
# that its path is covered too
CONFIGS = {"baseline": dict(epochs=12, eval_every=3, threads=1, quiet=True),
           "kl": dict(epochs=12, eval_every=3, threads=1, quiet=True, lam=0.3)}

GROUPS = {
    "losses and norms": (["train_loss", "test_loss", "prior_loss", "mlp_norm", "attn_norm", "total_norm"], 2e-5),
    "attention": (["train_struct_div", "struct_div", "info_mass", "attn_mass", "attn_mass_heads"], 5e-4),
    "logit gradient": (["grad_s_norm", "lemma_grad", "lemma_bound", "lemma_ratio_max"], 2e-3),
    "W gradient": (["grad_W_norm"], 3e-2),
}
TOLERANCE = {key: tol for keys, tol in GROUPS.values() for key in keys}        # relative to scale
ABSOLUTE = {"train_acc": 1e-3, "test_acc": 1e-3, "frac_struct": 1e-3,            # fractions of examples
            "epoch": 0, "prior_weight": 0, "lemma_violations": 0}                 # exact by construction


def environment():
    """Where the reference was written (information only: nothing is compared bitwise)."""
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "") \
        if os.path.exists("/proc/cpuinfo") else platform.processor()
    return {"cpu": cpu, "torch": torch.__version__, "threads": 1, "machine": platform.machine(),
            "kernels": torch.backends.cpu.get_cpu_capability()}


def histories(**change):
    threads = torch.get_num_threads()
    try:
        # the reference is a CPU run: compared on the CPU whatever else the machine has
        return {k: train.train(train.make_config(**{**kw, "device": "cpu", **change}))[1] for k, kw in CONFIGS.items()}
    finally:
        torch.set_num_threads(threads)


def flat(values):
    out = []
    for v in values:
        out.extend(flat(v) if isinstance(v, list) else [float(v)])
    return out


def deviations(got, ref):
    """{(run, key): (deviation, tolerance)}: the largest |got - ref| over the run, relative to
    max |ref| for the keys in TOLERANCE and absolute for those in ABSOLUTE."""
    out = {}
    for name, hist in ref.items():
        if got[name].keys() != hist.keys():
            raise AssertionError(f"{name}: logged keys differ: {sorted(set(got[name]) ^ set(hist))}")
        for key, values in hist.items():
            a, b = torch.tensor(flat(got[name][key]), dtype=torch.float64), torch.tensor(flat(values), dtype=torch.float64)
            if a.shape != b.shape:
                raise AssertionError(f"{name}/{key}: {len(a)} values, the reference has {len(b)}")
            dev = float((a - b).abs().max()) if len(a) else 0.0
            if key in TOLERANCE:
                out[(name, key)] = (dev / (float(b.abs().max()) + 1e-12), TOLERANCE[key])
            else:
                out[(name, key)] = (dev, ABSOLUTE[key])   # a new logged key must be given a tolerance
    return out


def mismatches(got, ref):
    """The (run, key, deviation, tolerance) beyond tolerance; [] when the histories agree."""
    return [(n, k, d, t) for (n, k), (d, t) in deviations(got, ref).items() if d > t]


def spread():
    """Rerun the fixture under every kernel set torch can be forced to and 1 or 2 threads, each
    in its own process (ATEN_CPU_CAPABILITY is read once, at import), and print the largest
    deviation from the reference per tolerance group."""
    ref = json.load(open(FIXTURE))["histories"]
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import make_fixture; "
            "print(json.dumps(make_fixture.histories(threads=int(sys.argv[2]))))")
    worst = {}
    for kernels in ("default", "avx2", "avx512"):
        for threads in (1, 2):
            out = subprocess.run([sys.executable, "-c", code, os.path.dirname(os.path.abspath(__file__)), str(threads)],
                                 env={**os.environ, "ATEN_CPU_CAPABILITY": kernels}, capture_output=True,
                                 text=True, check=True).stdout
            for (_, key), (dev, _) in deviations(json.loads(out), ref).items():
                worst[key] = max(worst.get(key, 0.0), dev)
            print(f"ran kernels {kernels}, {threads} thread(s)", flush=True)
    for group, (keys, tol) in GROUPS.items():
        print(f"{group:18s} largest {max(worst[k] for k in keys):.1e}  tolerance {tol:g}")
    print(f"{'absolute':18s} largest {max(worst[k] for k in ABSOLUTE):.1e}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--spread"]:
        spread()
    else:
        os.makedirs(os.path.dirname(FIXTURE), exist_ok=True)
        with open(FIXTURE, "w") as f:
            json.dump({"environment": environment(), "histories": histories()}, f)
        print(f"wrote {FIXTURE}")
