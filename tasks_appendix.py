"""The appendix's other tasks (paper App. A.1, F.4), loaded only by a run that asks for one:
  parity     n bits, y = XOR of bits 0..k-1; the other bits are the distractors
  perm       permutation composition in S_n: (g, h, distractors, =) -> g o h
  arparity   autoregressive: n random bits, then m parity bits c_j = XOR of a fixed k-subset S_j;
             one row per (sequence, c_j), the query just before c_j (model.run_rows)
  route      dynamic routing's layout of modular addition (tasks.make_task draws its operands)
Each builder returns the arguments of tasks.SeqTask (tasks.make_task builds it), so that this file
imports nothing of the repository and tasks.py copies without it.
"""
import itertools

import torch


def train_size(frac, n):
    """tasks.py's split of n inputs, as there (its own four lines, so that neither file imports the other)."""
    n_train = round(frac * n)
    if not 0 < n_train < n:
        raise ValueError(f"frac={frac} leaves an empty train or test set ({n} inputs)")
    return n_train


def parity(n_bits, k, frac, gen):
    """y = XOR of bits 0..k-1; bits k..n-1 are the distractors, and the split is over their 2^(n-k)
    patterns (split over whole strings, a redraw would turn training rows into test strings)."""
    if not 1 <= k < n_bits <= 20:
        raise ValueError(f"parity needs 1 <= k < n_bits <= 20, got k={k}, n_bits={n_bits}")
    ops = torch.tensor(list(itertools.product((0, 1), repeat=k)), dtype=torch.long)          # (2^k, k)
    patterns = torch.tensor(list(itertools.product((0, 1), repeat=n_bits - k)), dtype=torch.long)
    patterns = patterns[torch.randperm(len(patterns), generator=gen)]
    n_pat = train_size(frac, len(patterns))

    def strings(pats):   # every (operands, pattern) pair, shuffled
        rows = torch.cat([ops.repeat_interleave(len(pats), 0), pats.repeat(len(ops), 1)], 1)
        return rows[torch.randperm(len(rows), generator=gen)]

    bits = torch.cat([strings(patterns[:n_pat]), strings(patterns[n_pat:])])
    y = bits[:, :k].sum(1) % 2
    x = torch.cat([bits, torch.full((len(bits), 1), 2, dtype=torch.long)], dim=1)
    return dict(name="parity", x=x, y=y, n_values=2, n_classes=2, informative=range(k), n_train=n_pat * len(ops),
                distractor_pool=patterns[:n_pat].clone())


def compose(g, h):
    """(g o h)(i) = g(h(i)) for permutations as tuples of images."""
    return tuple(g[h[i]] for i in range(len(h)))


def perm(n, frac, n_distractors, gen):
    """(g, h, distractors, =) -> g o h in S_n, each element a token (lexicographic order)."""
    if not 2 <= n <= 6:
        raise ValueError(f"perm needs 2 <= perm_n <= 6 (S_6 has 720 elements), got {n}")
    elems = list(itertools.permutations(range(n)))               # lexicographic: index = token
    index = {g: i for i, g in enumerate(elems)}
    N = len(elems)
    pairs = torch.tensor(list(itertools.product(range(N), repeat=2)), dtype=torch.long)
    pairs = pairs[torch.randperm(len(pairs), generator=gen)]
    y = torch.tensor([index[compose(elems[g], elems[h])] for g, h in pairs.tolist()])
    distractors = torch.randint(0, N, (len(pairs), n_distractors), generator=gen)
    x = torch.cat([pairs, distractors, torch.full((len(pairs), 1), N, dtype=torch.long)], dim=1)
    return dict(name="perm", x=x, y=y, n_values=N, n_classes=N, informative=range(2),
                n_train=train_size(frac, len(pairs)))


def parity_subsets(n_bits, k, n_outputs, seed):
    """The fixed k-subsets S_j of the input bits that the outputs c_j are parities of."""
    gen = torch.Generator().manual_seed(seed + 31337)
    return [sorted(torch.randperm(n_bits, generator=gen)[:k].tolist()) for _ in range(n_outputs)]


def arparity(n_bits, k, m, frac, seed, gen):
    """Autoregressive sparse parity: rows (sequence, c_j), causal, the query at n - 1 + j (per-row qpos)."""
    if not 1 <= k <= n_bits <= 16 or m < 1:
        raise ValueError("arparity needs 1 <= k <= n_bits <= 16 and n_outputs >= 1")
    subsets = parity_subsets(n_bits, k, m, seed)
    bits = torch.tensor(list(itertools.product((0, 1), repeat=n_bits)), dtype=torch.long)
    bits = bits[torch.randperm(len(bits), generator=gen)]
    outs = torch.stack([bits[:, S].sum(1) % 2 for S in subsets], 1)            # (N, m)
    seqs = torch.cat([bits, outs], 1)                                           # (N, n + m)
    N, T = seqs.shape
    n_train = train_size(frac, N)
    # rows: sequence-major within each split, so a split never shares a sequence
    x = seqs.repeat_interleave(m, 0)
    y = outs.flatten()
    qpos = torch.arange(n_bits - 1, n_bits - 1 + m).repeat(N)                  # predicts c_j at n + j
    info = torch.zeros(m, T, dtype=torch.bool)
    for j, S in enumerate(subsets):
        info[j, S] = True
    return dict(name="arparity", x=x, y=y, n_values=2, n_classes=2, informative=[], n_train=n_train * m,
                vocab_size=2, info_mask=info.repeat(N, 1), qpos=qpos, subsets=subsets)


def route(ops, y, p, n_distractors, n_train, gen):
    """Dynamic routing's rows from tasks.make_task's operands (split and shuffled there): operands at two
    positions drawn per sequence; noise tokens p+1..2p elsewhere."""
    n, L = len(ops), 2 + n_distractors
    slots = torch.rand(n, L, generator=gen).argsort(1)[:, :2].sort(1).values   # operand positions, in order
    x = torch.randint(p + 1, 2 * p + 1, (n, L + 1), generator=gen)
    x[:, L] = p                                                                  # the query `=`
    rows = torch.arange(n)[:, None]
    x[rows, slots] = ops
    info = torch.zeros(n, L + 1, dtype=torch.bool)
    info[rows, slots] = True
    return dict(name="route", x=x, y=y, n_values=p, n_classes=p, informative=[], n_train=n_train,
                vocab_size=2 * p + 1, info_mask=info, distractor_range=(p + 1, 2 * p + 1))
