"""Write tests/fixtures/default_history.json: a short run of the default training path, the
reference that restructuring must reproduce (tests/test_train.py::test_default_path_matches_fixture).

    python tests/make_fixture.py      # only when a change is *meant* to move the numbers
"""
import json
import os
import platform
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import train  # noqa: E402

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures", "default_history.json")
# the paper config (p 113, d 64, fresh distractors) for a few epochs, plus the KL prior so
# that its path is covered too
CONFIGS = {"baseline": dict(epochs=12, eval_every=3, threads=1, quiet=True),
           "kl": dict(epochs=12, eval_every=3, threads=1, quiet=True, lam=0.3)}


def environment():
    """What bitwise equality depends on: CPU, torch build, thread count."""
    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "") \
        if os.path.exists("/proc/cpuinfo") else platform.processor()
    return {"cpu": cpu, "torch": torch.__version__, "threads": 1, "machine": platform.machine()}


def histories():
    threads = torch.get_num_threads()
    try:
        return {k: train.train(train.make_config(**kw))[1] for k, kw in CONFIGS.items()}
    finally:
        torch.set_num_threads(threads)


if __name__ == "__main__":
    os.makedirs(os.path.dirname(FIXTURE), exist_ok=True)
    with open(FIXTURE, "w") as f:
        json.dump({"environment": environment(), "histories": histories()}, f)
    print(f"wrote {FIXTURE}")
