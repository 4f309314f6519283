"""The minimal transformer of the paper (§3.2, App. A.2; sizes from App. G): token + position
embedding -> one attention layer (H heads, W_Q W_K W_V W_O) -> residual -> two-layer ReLU MLP on
the residual -> unembedding, no LayerNorm, the logits read at the query position (the last one;
the autoregressive task reads one position per row). The file reads top to bottom and copies alone:
  1. __init__      the parameters, and their groups (attn, mlp, embed, unembed)
  2. definition    the model as defined: every position computes its query, key and value,
                   attends and runs the MLP; plain, slow, the reference for the fast paths
  3. run           what training uses: the same numbers at the query position only, from small
                   tables (exact; 3-3.5x faster than a conventional transformer, bench.py)
  4. run_rows      the same for causal attention with a query position per row
Both fast paths are tested equal to `definition`, forward and gradients, with 1 and 4 heads
(tests/test_model.py). `model(x)` is the definition; training calls `run` by name.
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Transformer(nn.Module):
    def __init__(self, vocab_size, n_classes, seq_len, d_model=64, n_heads=1, d_mlp=256):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        self.n_heads, self.d_head = n_heads, d_model // n_heads
        d = d_model

        def w(*shape, fan_in):  # N(0, 1/fan_in): unit-scale activations at init
            return nn.Parameter(torch.randn(*shape) / math.sqrt(fan_in))

        # fan_in = d for the embeddings makes each token vector have norm ~1 (Lemma 5.1
        # assumes normalized embeddings).
        self.embed = w(vocab_size, d, fan_in=d)
        self.pos = w(seq_len, d, fan_in=d)
        self.W_Q, self.W_K, self.W_V, self.W_O = (w(d, d, fan_in=d) for _ in range(4))
        self.W_in = w(d_mlp, d, fan_in=d)
        self.b_in = nn.Parameter(torch.zeros(d_mlp))
        self.W_out = w(d, d_mlp, fan_in=d_mlp)
        self.b_out = nn.Parameter(torch.zeros(d))
        self.W_U = w(n_classes, d, fan_in=d)

    GROUPS = {"attn": ("W_Q", "W_K", "W_V", "W_O"),
              "mlp": ("W_in", "b_in", "W_out", "b_out"),
              "embed": ("embed", "pos"),
              "unembed": ("W_U",)}

    def group(self, name):
        """Parameters of one group by name: attn, mlp, embed or unembed (paper Def. 4.2 uses mlp)."""
        return [getattr(self, n) for n in self.GROUPS[name]]

    # -----------------------------------------------------------------------------------
    # 1. The definition

    def definition(self, x, attn=None, pos_ids=None, qpos=None):
        """The model as the paper defines it, at every position: the query's logits (B, C) and attention
        row (B, H, T). x (B, T) tokens; attn: an attention row (B, H, T) or (B, T) in place of the model's
        at the query (App. F.4); pos_ids: position-table rows (App. F.3); qpos (B,): per-row causal queries."""
        B, T = x.shape
        H, dh = self.n_heads, self.d_head
        h, _ = self.inputs(x, pos_ids)                                     # (B, T, d) residual stream
        q = (h @ self.W_Q.T).view(B, T, H, dh).transpose(1, 2)             # (B, H, T, dh)
        k = (h @ self.W_K.T).view(B, T, H, dh).transpose(1, 2)
        v = (h @ self.W_V.T).view(B, T, H, dh).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(dh)                   # (B, H, T, T), Eq. 38
        if qpos is not None:                                               # causal: keys up to the row's own position
            scores = scores.masked_fill(torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1), -math.inf)
        rows = torch.arange(B, device=x.device)
        at = torch.full((B,), T - 1, device=x.device) if qpos is None else qpos   # the query position of each row
        a = torch.softmax(scores, dim=-1)                                  # (B, H, T, T)
        if attn is not None:                                               # only the query's row is ever read
            a = a.clone()
            a[rows, :, at] = override_attention(attn, B, H, T, a.dtype)
        o = (a @ v).transpose(1, 2).reshape(B, T, H * dh)                  # (B, T, d) pooled values
        r = h + o @ self.W_O.T                                             # attention + residual
        r2 = r + F.relu(r @ self.W_in.T + self.b_in) @ self.W_out.T + self.b_out   # MLP + residual
        logits = r2 @ self.W_U.T                                           # (B, T, C)
        return logits[rows, at], a[rows, :, at]

    # -----------------------------------------------------------------------------------
    # 2. The query-only computation (what training runs)

    def run(self, x, attn=None, pos_ids=None, qpos=None):
        """`definition`'s numbers at the query position only: logits (B, C), attn and scores (B, H, T),
        the pooled value o (B, H, dh). Only the query's output is read and there is one layer, so no
        other position's attention or MLP is needed; and a position's query, key and value depend only
        on its token and its index, so they come from small tables (vocab x d and T x d), and the scores
        from two tables of scalars indexed by (query token, key token) and (query token, key position)."""
        if qpos is not None:
            return self.run_rows(x, qpos, attn)
        B, T = x.shape
        H, dh = self.n_heads, self.d_head
        P = self.pos[:T] if pos_ids is None else self.pos[pos_ids]
        V = self.embed.shape[0]
        # the projections as tables: W e_t for each vocabulary token, W p_i for each position
        W_qkv = torch.cat([self.W_Q, self.W_K, self.W_V])
        QE, KE, VE = (self.embed @ W_qkv.T).view(V, 3, H, dh).unbind(1)     # (V, H, dh) each
        QP, KP, VP = (P @ W_qkv.T).view(T, 3, H, dh).unbind(1)              # (T, H, dh) each
        # Eq. 38: s_i = (q_e + q_p) . (k_e + k_p) / sqrt(dh) for query token e at position T-1
        # and key token x_i at position i, split into a token part and a position part
        q = QE + QP[-1]                                                      # (V, H, dh): every possible query
        tok_scores = torch.einsum("qhe,khe->hqk", q, KE) / math.sqrt(dh)    # (H, V, V)
        pos_scores = torch.einsum("qhe,the->hqt", q, KP) / math.sqrt(dh)    # (H, V, T)
        # each example reads its entries: row (query token), column (key token or position)
        xq = x[:, -1:]                                                       # (B, 1) query tokens
        scores = (tok_scores.reshape(H, V * V)[:, (xq * V + x).flatten()]
                  + pos_scores.reshape(H, V * T)[:, (xq * T + torch.arange(T, device=x.device)).flatten()])
        scores = scores.view(H, B, T).transpose(0, 1)                        # (B, H, T)
        wide = torch.promote_types(scores.dtype, torch.float32)          # the softmax never in bf16 (--amp)
        a = torch.softmax(scores.to(wide), dim=-1) if attn is None else override_attention(attn, B, H, T, wide)
        # pooled value o = sum_i a_i (v_e(x_i) + v_p(i)): the token part as (attention mass
        # on each vocabulary token) @ (value table), the position part directly
        if a.is_cuda and torch.are_deterministic_algorithms_enabled():    # --deterministic: no atomics,
            mass = torch.einsum("bht,btv->bhv", a, F.one_hot(x, V).to(a.dtype))   # the same sums in a fixed order
        else:
            idx = x[:, None, :].expand(B, H, T)
            mass = torch.zeros(B, H, V, dtype=a.dtype, device=a.device).scatter_add(2, idx, a)
        o = torch.einsum("bhv,vhe->bhe", mass, VE) + torch.einsum("bht,the->bhe", a, VP)  # (B, H, dh)
        h_q = F.embedding(x[:, -1], self.embed) + P[T - 1]                   # query residual
        return self._head(h_q, o, {"attn": a, "scores": scores, "o": o})

    def run_rows(self, x, qpos, attn=None):
        """Causal attention from a query position per row: row b reads x[b, :qpos[b] + 1].
        The autoregressive task gives one row per (sequence, predicted position), so a
        sequence's positions are separate rows; keys after the query get exactly zero
        attention (a large negative logit, finite so that 0 * log a stays 0 in the KL)."""
        B, T = x.shape
        H, dh = self.n_heads, self.d_head
        h, h_q = self.inputs(x, qpos=qpos)
        q = (h_q @ self.W_Q.T).view(B, H, dh)
        k = (h @ self.W_K.T).view(B, T, H, dh)
        scores = torch.einsum("bhe,bthe->bht", q, k) / math.sqrt(dh)
        future = torch.arange(T, device=x.device)[None, None, :] > qpos[:, None, None]
        scores = scores.masked_fill(future, -1e30)
        wide = torch.promote_types(scores.dtype, torch.float32)          # the softmax never in bf16 (--amp)
        a = torch.softmax(scores.to(wide), dim=-1) if attn is None else override_attention(attn, B, H, T, wide)
        o = torch.einsum("bht,bthe->bhe", a, (h @ self.W_V.T).view(B, T, H, dh))
        return self._head(h_q, o, {"attn": a, "scores": scores, "o": o})

    def _head(self, h_q, o, out):
        """Residual, MLP and unembedding at the query: the same for both fast paths. Under
        --amp the unembedding runs in float32 (as the attention softmax does): the logits that
        enter the loss are never rounded to bfloat16, on any device (Prieto et al.)."""
        B = h_q.shape[0]
        r = h_q + o.reshape(B, -1) @ self.W_O.T                              # attention + residual
        r2 = r + F.linear(F.relu(F.linear(r, self.W_in, self.b_in)), self.W_out, self.b_out)
        device = r2.device.type
        if device in ("cpu", "cuda") and torch.is_autocast_enabled(device):
            with torch.autocast(device, enabled=False):
                out["logits"] = r2.float() @ self.W_U.T
        else:
            out["logits"] = r2 @ self.W_U.T
        return out

    def inputs(self, x, pos_ids=None, qpos=None):
        """Residual-stream inputs h_i = e(x_i) + p_i (B, T, d) and the query's h_q (B, d)."""
        T = x.shape[1]
        h = self.embed[x] + (self.pos[:T] if pos_ids is None else self.pos[pos_ids])
        h_q = h[:, -1] if qpos is None else h[torch.arange(len(x), device=x.device), qpos]
        return h, h_q

    def values(self, x, pos_ids=None):
        """Value vectors v_i = W_V h_i of every position, (B, T, H, dh) (diagnostics only)."""
        B, T = x.shape
        h = self.inputs(x, pos_ids)[0]
        return (h @ self.W_V.T).view(B, T, self.n_heads, self.d_head)

    def forward(self, x, attn=None, pos_ids=None, qpos=None):
        """model(x): the definition. (`run` is exact only for this one-layer model: a copy that adds
        a layer keeps model(x) right and must drop or redo `run`.)"""
        return self.definition(x, attn, pos_ids, qpos)


def override_attention(attn, B, H, T, dtype):
    """A given attention row, (B, H, T) or (B, T) shared by the heads, as (B, H, T): what
    the frozen-oracle study puts in place of the model's own (App. F.4)."""
    return (attn if attn.dim() == 3 else attn[:, None, :].expand(B, H, T)).to(dtype)


# ---------------------------------------------------------------------------------------
# Beside the model: a trained model as a prior's teacher

def load_teacher(path, vocab_size, n_classes, seq_len, d_model, n_heads, d_mlp, device):
    """--prior teacher's frozen model (its state dict at `path`): its attention on the current inputs is
    the KL target (distillation of structure only: its logits are never used)."""
    teacher = Transformer(vocab_size, n_classes, seq_len, d_model, n_heads, d_mlp)
    teacher.load_state_dict(torch.load(path, map_location="cpu"))
    return teacher.to(device).requires_grad_(False)


@torch.no_grad()
def teacher_attention(teacher, x, pos_ids=None, qpos=None):
    """The teacher's attention at the query, (B, H, T): the KL target --prior teacher trains toward."""
    return teacher.run(x, None, pos_ids, qpos)["attn"]
