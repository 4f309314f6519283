"""Sequence tasks with a fixed query position and distractors (SPEC §3, paper App. A.1).

Every task is a `SeqTask`: token sequences `x` (B, T) whose last token is the query `=`,
labels `y` (B,), the set of informative positions, and the oracle attention q* (mass 1/k on
each informative position, 0 elsewhere). Value tokens are 0..n_values-1 and `=` is the token
n_values, so the vocabulary has n_values + 1 tokens.

Distractors are drawn uniformly from the same value tokens as the operands, so only the
position tells an operand from a distractor. How often they are redrawn is the experiment's
most consequential choice (README, "distractor regime"):
  refresh = 0    `fixed`: drawn once per example, the MLP can memorize through them;
  refresh = 1    `fresh`: every training example gets new distractors every epoch;
  0 < rho < 1    each training example redraws its distractors with probability rho per epoch.
Test distractors are always drawn once and kept.

One seed fixes everything: the train/test split, the distractors and the refresh stream.
"""
import itertools

import torch

TASKS = ("add", "mul", "addk")


class SeqTask:
    def __init__(self, name, x, y, n_values, n_classes, informative, n_train, seed):
        self.name = name
        self.n_values = n_values              # value tokens 0..n_values-1
        self.eq_token = n_values              # the query token `=`
        self.vocab_size = n_values + 1
        self.n_classes = n_classes
        self.seq_len = x.shape[1]
        self.query_pos = self.seq_len - 1
        self.informative = list(informative)  # S, the positions y depends on
        self.distractor_pos = [i for i in range(self.query_pos) if i not in self.informative]
        self.train_x, self.train_y = x[:n_train].clone(), y[:n_train].clone()
        self.test_x, self.test_y = x[n_train:].clone(), y[n_train:].clone()
        # its own stream, so that refreshing distractors never perturbs model init or the split
        self.refresh_gen = torch.Generator().manual_seed(seed + 7919)

    def oracle(self, n):
        """q* (n, T): 1/k on each informative position (SPEC §3)."""
        q = torch.zeros(self.seq_len)
        q[self.informative] = 1.0 / len(self.informative)
        return q.expand(n, -1)

    def adversarial(self, n):
        """Uniform on the distractor positions: attention 'forced onto distractors' (Fig. 2)."""
        if not self.distractor_pos:
            raise ValueError("the adversarial prior needs at least one distractor position")
        q = torch.zeros(self.seq_len)
        q[self.distractor_pos] = 1.0 / len(self.distractor_pos)
        return q.expand(n, -1)

    def refresh_distractors(self, rho):
        """Redraw each training example's distractors with probability rho (in place)."""
        if rho <= 0 or not self.distractor_pos:
            return
        n = self.train_x.shape[0]
        rows = torch.arange(n) if rho >= 1 else \
            torch.nonzero(torch.rand(n, generator=self.refresh_gen) < rho).flatten()
        if rows.numel():
            new = torch.randint(0, self.n_values, (rows.numel(), len(self.distractor_pos)),
                                generator=self.refresh_gen)
            self.train_x[rows[:, None], torch.tensor(self.distractor_pos)] = new


def make_task(name="add", p=113, frac=0.3, n_distractors=2, seed=0, n_operands=2):
    """Build a task; all operand tuples are split once (seeded) into train and test.

    add:  y = (a + b) mod p        mul:  y = (a * b) mod p
    addk: y = (a_1 + ... + a_k) mod p  with k = n_operands
    Sequence: (operands..., distractors..., =), informative positions 0..k-1.
    """
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}; choose from {', '.join(TASKS)}")
    if p < 3:
        raise ValueError(f"p must be at least 3, got {p}")
    if not 0 < frac < 1:
        raise ValueError(f"frac must lie in (0, 1), got {frac}")
    if n_distractors < 0:
        raise ValueError(f"n_distractors must be >= 0, got {n_distractors}")
    k = n_operands if name == "addk" else 2
    if k < 2:
        raise ValueError(f"n_operands must be >= 2, got {k}")
    if p ** k > 2_000_000:
        raise ValueError(f"{p}^{k} operand tuples is too many to enumerate; use a smaller p")

    gen = torch.Generator().manual_seed(seed)
    ops = torch.tensor(list(itertools.product(range(p), repeat=k)), dtype=torch.long)
    y = (ops[:, 0] * ops[:, 1]) % p if name == "mul" else ops.sum(1) % p
    perm = torch.randperm(len(ops), generator=gen)
    ops, y = ops[perm], y[perm]
    n_train = round(frac * len(ops))
    if not 0 < n_train < len(ops):
        raise ValueError(f"frac={frac} leaves an empty train or test set for p={p}")
    distractors = torch.randint(0, p, (len(ops), n_distractors), generator=gen)
    eq = torch.full((len(ops), 1), p, dtype=torch.long)
    x = torch.cat([ops, distractors, eq], dim=1)
    return SeqTask(name, x, y, n_values=p, n_classes=p, informative=range(k),
                   n_train=n_train, seed=seed)
