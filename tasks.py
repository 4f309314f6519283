"""Sequence tasks with a query position and distractors (paper App. A.1).

Every task is a `SeqTask`: token sequences `x` (B, T), labels `y` (B,), the informative
positions, and the oracle attention q* (mass 1/k on each informative position, 0 elsewhere).
The query is the last token, `=` (token n_values), and the informative positions are the same
in every row, except in `route` (operand positions drawn per row, a noise vocabulary: 2p + 1
tokens) and `arparity` (a query position per row, causal attention, the vocabulary {0, 1}).

Distractors are drawn from the operands' own tokens, so only the position tells an operand from
a distractor ("shared"; the arithmetic tasks can instead draw them from a separate noise
vocabulary, "separate", or hold one pad token, "pad": readings of §3, docs/registered/sensitivity.md).
How often they are redrawn is the experiment's most consequential choice (docs/registered/regime_map.md):
  refresh = 0    `fixed`: drawn once per example, the MLP can memorize through them;
  refresh = 1    `fresh`: every training example gets new distractors every epoch;
  0 < rho < 1    each training example redraws its distractors with probability rho per epoch.
Test distractors are drawn once. Train and test inputs stay disjoint at every epoch (tests/test_tasks.py
checks every task): the split is over the operands, so a redraw keeps a training row a training
row; sparse parity, with too few operand values, is split over the distractor patterns and redraws
among the training patterns (`distractor_pool`). One seed fixes the split, the distractors and the
refresh stream.

Tasks (App. A.1, F.3, F.4; defaults the paper does not give: docs/registered/sensitivity.md):
  add, mul, addk   modular arithmetic, operands at positions 0..k-1
  sub              (a - b) mod p: addition's layout, not commutative (beyond the paper:
                   docs/registered/plateau.md)
  route            dynamic routing: modular addition with operands at positions drawn per
                   sequence among noise tokens, recognisable by content; a per-row oracle
  parity, perm     sparse parity, and permutation composition in S_n
  arparity         autoregressive sparse parity: causal attention, a query position per row
The appendix's four (route, parity, perm, arparity) are laid out in tasks_appendix.py, which a run
loads only when it asks for one of them.
"""
import itertools

import torch

TASKS = ("add", "sub", "mul", "addk", "parity", "perm", "route", "arparity")
APPENDIX_TASKS = ("parity", "perm", "arparity")       # their builders (and route's rows): tasks_appendix.py
# the tasks modulo p whose distractors may come from another vocabulary (--distractor-vocab)
ARITHMETIC = ("add", "sub", "mul", "addk")


class SeqTask:
    def __init__(self, name, x, y, n_values, n_classes, informative, n_train, seed,
                 vocab_size=None, info_mask=None, qpos=None, distractor_range=None, distractor_pool=None, subsets=None):
        self.name = name
        self.n_values = n_values              # value tokens 0..n_values-1
        self.eq_token = n_values              # the query token `=`
        self.vocab_size = vocab_size or n_values + 1
        self.n_classes = n_classes
        self.seq_len = x.shape[1]
        self.query_pos = self.seq_len - 1
        self.informative = list(informative)  # S, the positions y depends on (fixed-position tasks)
        self.k = len(self.informative) if info_mask is None else int(info_mask[0].sum())
        self.distractor_pos = [i for i in range(self.query_pos) if i not in self.informative]
        self.train_x, self.train_y = x[:n_train].clone(), y[:n_train].clone()
        self.test_x, self.test_y = x[n_train:].clone(), y[n_train:].clone()
        # per-row informative positions (route, arparity); None: the same for every row
        self.info_mask = None if info_mask is None else {"train": info_mask[:n_train], "test": info_mask[n_train:]}
        # per-row query position with causal attention (arparity); None: the last position
        self.qpos = None if qpos is None else {"train": qpos[:n_train], "test": qpos[n_train:]}
        self.distractor_range = distractor_range or (0, n_values)   # tokens distractors are drawn from
        self.distractor_pool = distractor_pool    # (P, positions): parity redraws among the training patterns
        self.subsets = subsets                    # arparity: the k-subsets S_j its outputs are parities of
        self.refresh_gen = torch.Generator().manual_seed(seed + 7919)   # its own stream: never moves init or split

    def oracle_for(self, split):
        """q* per row of the train or test set (N, T): 1/k on the row's informative positions."""
        if self.info_mask is None:
            return self.oracle(len(self.train_x if split == "train" else self.test_x))
        m = self.info_mask[split].float()
        return m / m.sum(-1, keepdim=True)

    def adversarial_for(self, split):
        """Uniform on each row's distractor positions (N, T)."""
        if self.info_mask is None:
            return self.adversarial(len(self.train_x if split == "train" else self.test_x))
        m = ~self.info_mask[split]
        if self.qpos is None:
            m[:, self.query_pos] = False
        else:                                              # keys before the row's own query
            m &= torch.arange(self.seq_len)[None, :] < self.qpos[split][:, None]
        m = m.float()
        return m / m.sum(-1, keepdim=True)

    def uniform_for(self, split):
        """Uniform on every key the query attends to (N, T): a KL target with a live gradient
        and no information about which positions matter (the priors study's control)."""
        n = len(self.train_x if split == "train" else self.test_x)
        if self.qpos is None:
            return torch.full((n, self.seq_len), 1.0 / self.seq_len)
        m = (torch.arange(self.seq_len)[None, :] <= self.qpos[split][:, None]).float()   # causal: keys up to the query
        return m / m.sum(-1, keepdim=True)

    def oracle(self, n):
        """q* (n, T): 1/k on each informative position (the oracle of Def. 4.1)."""
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
        if self.qpos is not None:
            raise ValueError(f"task {self.name!r} has no distractors to redraw (use --distractors fixed)")
        if self.info_mask is not None:           # route: the noise tokens change, their positions stay
            n, T = self.train_x.shape
            redraw = ~self.info_mask["train"]
            redraw[:, self.query_pos] = False
            if rho < 1:
                redraw &= (torch.rand(n, generator=self.refresh_gen) < rho)[:, None]
            new = torch.randint(*self.distractor_range, (n, T), generator=self.refresh_gen)
            self.train_x = torch.where(redraw, new, self.train_x)
            return
        if rho <= 0 or not self.distractor_pos:
            return
        n = self.train_x.shape[0]
        rows = torch.arange(n) if rho >= 1 else \
            torch.nonzero(torch.rand(n, generator=self.refresh_gen) < rho).flatten()
        if rows.numel():
            if self.distractor_pool is not None:
                pick = torch.randint(0, len(self.distractor_pool), (rows.numel(),), generator=self.refresh_gen)
                new = self.distractor_pool[pick]
            else:
                new = torch.randint(*self.distractor_range, (rows.numel(), len(self.distractor_pos)),
                                    generator=self.refresh_gen)
            self.train_x[rows[:, None], torch.tensor(self.distractor_pos)] = new


DISTRACTOR_VOCABS = ("shared", "separate", "pad")


def distractor_tokens(p, vocab):
    """[lo, hi): the tokens an arithmetic task's distractors are drawn from. shared: the operands'
    own 0..p-1; separate: a noise vocabulary p+1..2p after `=` (as in `route`); pad: the one
    token p+1."""
    return {"shared": (0, p), "separate": (p + 1, 2 * p + 1), "pad": (p + 1, p + 2)}[vocab]


def make_task(name="add", *, p=113, frac=0.3, n_distractors=2, seed=0, n_operands=2,
              n_bits=10, parity_k=3, perm_n=5, n_outputs=3, distractor_vocab="shared"):
    """Build a task, its inputs split once (seeded) into train and test. The arithmetic tasks:
    (operands..., distractors..., =), y = a + b, a - b, a * b or a_1 + ... + a_k (n_operands) mod p;
    the others: the module docstrings (p unused by parity, perm and arparity)."""
    if name not in TASKS:
        raise ValueError(f"unknown task {name!r}; choose from {', '.join(TASKS)}")
    if distractor_vocab not in DISTRACTOR_VOCABS:
        raise ValueError(f"unknown distractor vocabulary {distractor_vocab!r}; choose from {', '.join(DISTRACTOR_VOCABS)}")
    if distractor_vocab != "shared" and name not in ARITHMETIC:
        raise ValueError(f"distractor_vocab {distractor_vocab!r} is for {', '.join(ARITHMETIC)}; {name!r} has its own tokens")
    if not 0 < frac < 1:
        raise ValueError(f"frac must lie in (0, 1), got {frac}")
    if n_distractors < 0:
        raise ValueError(f"n_distractors must be >= 0, got {n_distractors}")
    gen = torch.Generator().manual_seed(seed)
    if name in APPENDIX_TASKS:          # built in tasks_appendix.py, loaded only for them
        import tasks_appendix
        built = {"parity": lambda: tasks_appendix.parity(n_bits, parity_k, frac, gen),
                 "perm": lambda: tasks_appendix.perm(perm_n, frac, n_distractors, gen),
                 "arparity": lambda: tasks_appendix.arparity(n_bits, parity_k, n_outputs, frac, seed, gen)}[name]()
        return SeqTask(**built, seed=seed)
    if p < 3:
        raise ValueError(f"p must be at least 3, got {p}")
    k = n_operands if name == "addk" else 2
    if k < 2:
        raise ValueError(f"n_operands must be >= 2, got {k}")
    if p ** k > 2_000_000:
        raise ValueError(f"{p}^{k} operand tuples is too many to enumerate; use a smaller p")

    ops = torch.tensor(list(itertools.product(range(p), repeat=k)), dtype=torch.long)
    y = {"mul": lambda: ops[:, 0] * ops[:, 1], "sub": lambda: ops[:, 0] - ops[:, 1]}.get(name, lambda: ops.sum(1))() % p
    perm = torch.randperm(len(ops), generator=gen)
    ops, y = ops[perm], y[perm]
    n_train = _n_train(frac, len(ops))
    if name == "route":                 # App. F.4's dynamic routing: tasks_appendix.py
        import tasks_appendix
        return SeqTask(**tasks_appendix.route(ops, y, p, n_distractors, n_train, gen), seed=seed)
    lo, hi = distractor_tokens(p, distractor_vocab)
    distractors = torch.randint(lo, hi, (len(ops), n_distractors), generator=gen)
    eq = torch.full((len(ops), 1), p, dtype=torch.long)
    x = torch.cat([ops, distractors, eq], dim=1)
    return SeqTask(name, x, y, n_values=p, n_classes=p, informative=range(k),
                   n_train=n_train, seed=seed, vocab_size=max(hi, p + 1), distractor_range=(lo, hi))


def _n_train(frac, n):
    n_train = round(frac * n)
    if not 0 < n_train < n:
        raise ValueError(f"frac={frac} leaves an empty train or test set ({n} inputs)")
    return n_train


def query_slot_ids(length, n_slots):
    """Position-table rows for a sequence of `length`: 0..length-2, and the query always in
    the last slot n_slots - 1, so it keeps its training embedding at every length."""
    if length > n_slots:
        raise ValueError(f"length {length} needs more than {n_slots} position slots")
    return list(range(length - 1)) + [n_slots - 1]
