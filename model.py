"""The minimal transformer of the paper (SPEC §4, paper §3.2 and App. A.2).

token + position embedding -> one attention layer (H heads, W_Q W_K W_V W_O) -> residual
-> two-layer ReLU MLP on the residual -> unembedding. No LayerNorm.

Only the query (last) position's output is ever read, so only its attention row and its
MLP are computed; this is exact, not an approximation (tests/test_model.py checks it
against a plain per-position transformer). The keys, values and queries of a position
depend only on its token and its index, so they are read from small projected tables
(vocab x d and T x d) instead of multiplying every token by W_Q, W_K, W_V.
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
        """Parameters of one group by name: attn, mlp, embed or unembed (SPEC §4)."""
        return [getattr(self, n) for n in self.GROUPS[name]]

    def run(self, x, attn=None):
        """Forward pass at the query position, returning every intermediate the
        diagnostics need. x: (B, T) tokens; attn: optional fixed attention (B, H, T) or
        (B, T) used instead of the model's own (frozen-oracle study)."""
        B, T = x.shape
        H, dh = self.n_heads, self.d_head
        # Every key, value and query depends only on a token and a position, so the
        # projections are tables: W e_t for each vocabulary token, W p_i for each position.
        V = self.embed.shape[0]
        W_qkv = torch.cat([self.W_Q, self.W_K, self.W_V])
        QE, KE, VE = (self.embed @ W_qkv.T).view(V, 3, H, dh).unbind(1)     # (V, H, dh) each
        QP, KP, VP = (self.pos[:T] @ W_qkv.T).view(T, 3, H, dh).unbind(1)   # (T, H, dh) each
        # Eq. 38: s_i = (q_e + q_p) . (k_e + k_p) / sqrt(dh) for query token e at position T-1
        # and key token x_i at position i. Both parts are tables of scalars indexed by
        # (query token, key token) and (query token, key position): no per-token vectors.
        q = QE + QP[-1]                                                      # (V, H, dh): every possible query
        tok_scores = torch.einsum("qhe,khe->hqk", q, KE) / math.sqrt(dh)    # (H, V, V)
        pos_scores = torch.einsum("qhe,the->hqt", q, KP) / math.sqrt(dh)    # (H, V, T)
        xq = x[:, -1:]                                                       # (B, 1) query tokens
        scores = (tok_scores.reshape(H, V * V)[:, (xq * V + x).flatten()]
                  + pos_scores.reshape(H, V * T)[:, (xq * T + torch.arange(T, device=x.device)).flatten()])
        scores = scores.view(H, B, T).transpose(0, 1)                        # (B, H, T)
        if attn is None:
            a = torch.softmax(scores, dim=-1)
        else:
            a = (attn if attn.dim() == 3 else attn[:, None, :].expand(B, H, T)).to(scores.dtype)
        # Pooled value o = sum_i a_i (v_e(x_i) + v_p(i)): the token part as (attention mass on
        # each vocabulary token) @ (value table), the position part directly.
        idx = x[:, None, :].expand(B, H, T)
        mass = torch.zeros(B, H, V, dtype=a.dtype, device=a.device).scatter_add(2, idx, a)
        o = torch.einsum("bhv,vhe->bhe", mass, VE) + torch.einsum("bht,the->bhe", a, VP)  # (B, H, dh)
        h_q = F.embedding(x[:, -1], self.embed) + self.pos[T - 1]            # query residual
        r = h_q + o.reshape(B, H * dh) @ self.W_O.T                          # attention + residual
        r2 = r + F.linear(F.relu(F.linear(r, self.W_in, self.b_in)), self.W_out, self.b_out)
        logits = r2 @ self.W_U.T
        return {"logits": logits, "attn": a, "scores": scores, "o": o}

    def values(self, x):
        """Value vectors v_i = W_V h_i of every position, (B, T, H, dh) (diagnostics only)."""
        B, T = x.shape
        h = self.embed[x] + self.pos[:T]
        return (h @ self.W_V.T).view(B, T, self.n_heads, self.d_head)

    def forward(self, x, attn=None):
        """Logits (B, C) and attention weights at the query position (B, H, T)."""
        out = self.run(x, attn)
        return out["logits"], out["attn"]
