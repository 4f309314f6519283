"""Where a run computes: the device chosen, its name for the summary, deterministic mode, random
streams on the device, and the copy of each epoch's redrawn inputs to it without the host waiting.
train.py's loop is the same code on the CPU and on CUDA; tests/test_device.py runs it on PyTorch's
`meta` device, where a tensor left on the host or a value read back in the step is an error.
"""
import os
import platform

import torch


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
    """--deterministic: deterministic algorithms and repeatable cuBLAS matmuls (on the CPU a run
    already is bitwise-deterministic for a given thread count; this makes breaking it an error)."""
    if cfg.deterministic:
        os.environ.setdefault("CUBLAS_WORKSPACE_CONFIG", ":4096:8")
        torch.use_deterministic_algorithms(True)


class HostToDevice:
    """A host tensor copied to the device once an epoch without the host waiting: into one of two
    pinned buffers, non-blocking, each reused once its last copy has landed. On the CPU: the tensor."""

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


def generator_on(device):
    """A random stream on the device. (PyTorch's `meta` device, which the device tests run the
    loop on, has none: the CPU's stands in there.)"""
    return torch.Generator(device if device.type != "meta" else "cpu")
