"""A deeper transformer (beyond the paper): does the mechanism survive outside the minimal model?

nanoGPT's pre-LN block, L of them, H heads, an optional LayerNorm before each attention and MLP
and one before the unembedding (each its own flag), the logits at the query position. With
L = 1 and no LayerNorm it computes what model.Transformer computes (tests/test_deep.py), with
the same parameters initialised in the same order. It has the minimal model's call interface
(`run` for training, `definition` the plain reference, tested equal, forward and gradients)
and copies alone. Registered uses: docs/registered/deep.md, docs/registered/deep_trained.md.

The file reads top to bottom:
  1. Block            one pre-LN block: h + attention(LN h), then h + MLP(LN h)
  2. DeepTransformer  the blocks, the prior's layer, `definition`, then `run` (the first
                      block's projections from tables, the last block at the query only)
  3. layer_stats      what a run logs per block (diagnostics.evaluation calls it)
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    """One pre-LN transformer block, as nanoGPT's: h + attention(LN(h)), then h + MLP(LN(h)).
    Without LayerNorm the two norms are the identity and a block is the minimal model's layer:
    the same parameters, initialised in the same order from the same random stream."""

    def __init__(self, d, n_heads, d_mlp, layernorm, w):
        super().__init__()
        self.n_heads, self.d_head = n_heads, d // n_heads
        self.W_Q, self.W_K, self.W_V, self.W_O = (w(d, d, fan_in=d) for _ in range(4))
        self.W_in = w(d_mlp, d, fan_in=d)
        self.b_in = nn.Parameter(torch.zeros(d_mlp))
        self.W_out = w(d, d_mlp, fan_in=d_mlp)
        self.b_out = nn.Parameter(torch.zeros(d))
        self.ln_attn = nn.LayerNorm(d) if layernorm else nn.Identity()
        self.ln_mlp = nn.LayerNorm(d) if layernorm else nn.Identity()

    def forward(self, h, future=None, rows=None, u=None, qkv=None):
        """h (B, T, d) -> (h after the block, attention (B, H, Tq, T), scores, the attention's
        input LN(h) (B, T, d)). rows: compute only these query positions ((B,) one per row, the
        last block's fast path); future: (B or 1, 1, Tq, T) True where a key lies after its query;
        u, qkv: LN(h) and its projections [q k v] (B, T, 3d) when already known (the first
        block's fast path reads them from tables)."""
        B, T, d = h.shape
        H, dh = self.n_heads, self.d_head
        at = None if rows is None else (torch.arange(B, device=h.device), rows)
        if u is None:
            u = self.ln_attn(h)
        if qkv is None:
            u_q = u if at is None else u[at][:, None]                       # (B, Tq, d)
            q, k, v = u_q @ self.W_Q.T, u @ self.W_K.T, u @ self.W_V.T
        else:
            q, k, v = qkv[..., :d] if at is None else qkv[at][:, None, :d], qkv[..., d:2 * d], qkv[..., 2 * d:]
        q = q.view(B, -1, H, dh).transpose(1, 2)                            # (B, H, Tq, dh)
        k = k.reshape(B, T, H, dh).transpose(1, 2)                          # (B, H, T, dh)
        v = v.reshape(B, T, H, dh).transpose(1, 2)
        scores = q @ k.transpose(-1, -2) / math.sqrt(dh)                   # (B, H, Tq, T), Eq. 38
        if future is not None:          # finite, so that 0 * log a stays 0 in the KL (as run_rows)
            scores = scores.masked_fill(future, -1e30)
        wide = torch.promote_types(scores.dtype, torch.float32)          # the softmax never in bf16 (--amp)
        a = torch.softmax(scores.to(wide), dim=-1)
        o = (a.to(v.dtype) @ v).transpose(1, 2).reshape(B, -1, H * dh)    # (B, Tq, d)
        r = (h if at is None else h[at][:, None]) + o @ self.W_O.T
        r = r + F.linear(F.relu(F.linear(self.ln_mlp(r), self.W_in, self.b_in)), self.W_out, self.b_out)
        return r, a, scores, u


class DeepTransformer(nn.Module):
    """L pre-LN blocks, H heads, an optional LayerNorm (before each attention and MLP, and a
    final one before the unembedding), the logits at the query position: the minimal model
    of the paper made closer to the transformers people train (§3.2 argues the minimal one
    "preserves the essential optimization landscape"). The same initialisation as Transformer
    (N(0, 1/fan_in), biases 0; LayerNorm gains 1, shifts 0). With n_layers=1 and no LayerNorm
    it computes what Transformer computes (tests/test_deep.py).

    The structural prior needs one attention row per example; a deeper model has one per layer.
    `prior_layer` says which the run exposes as out["attn"] / out["scores"] (the prior's and
    the diagnostics' row): "first" (the first block's: its keys are the tokens and positions
    themselves, as in the paper's Eq. 38), "last", or "all" (every block's rows side by side
    as extra heads: the prior is then averaged over layers and heads). Every block's row is in
    out["attn_layers"] as well (registered in docs/registered/deep.md). final_layernorm=False drops
    the LayerNorm before the unembedding only (docs/registered/deep_trained.md)."""

    PRIOR_LAYERS = ("first", "last", "all")

    def __init__(self, vocab_size, n_classes, seq_len, d_model=64, n_heads=1, d_mlp=256, n_layers=2,
                 layernorm=True, prior_layer="first", final_layernorm=True):
        super().__init__()
        if d_model % n_heads:
            raise ValueError(f"d_model={d_model} is not divisible by n_heads={n_heads}")
        if prior_layer not in self.PRIOR_LAYERS:
            raise ValueError(f"prior_layer must be one of {', '.join(self.PRIOR_LAYERS)}, got {prior_layer!r}")
        self.n_heads, self.d_head, self.n_layers, self.prior_layer = n_heads, d_model // n_heads, n_layers, prior_layer
        d = d_model

        def w(*shape, fan_in):  # as Transformer's
            return nn.Parameter(torch.randn(*shape) / math.sqrt(fan_in))

        self.embed = w(vocab_size, d, fan_in=d)
        self.pos = w(seq_len, d, fan_in=d)
        self.blocks = nn.ModuleList(Block(d, n_heads, d_mlp, layernorm, w) for _ in range(n_layers))
        self.ln_final = nn.LayerNorm(d) if layernorm and final_layernorm else nn.Identity()
        self.W_U = w(n_classes, d, fan_in=d)

    GROUPS = {"attn": ("W_Q", "W_K", "W_V", "W_O"), "mlp": ("W_in", "b_in", "W_out", "b_out")}

    def group(self, name):
        """Parameters of one group, every block's: attn, mlp, embed, unembed or norm (LayerNorm)."""
        if name in self.GROUPS:
            return [getattr(b, n) for b in self.blocks for n in self.GROUPS[name]]
        if name == "norm":
            return [p for n, p in self.named_parameters() if "ln_" in n]
        return {"embed": [self.embed, self.pos], "unembed": [self.W_U]}[name]

    def _inputs(self, x, pos_ids, qpos):
        """The residual stream's input h_i = e(x_i) + p_i (B, T, d), each row's query position
        (B,), and with causal attention (qpos given) the mask of keys after each position (T, T)."""
        B, T = x.shape
        h = self.embed[x] + (self.pos[:T] if pos_ids is None else self.pos[pos_ids])
        at = torch.full((B,), T - 1, device=x.device) if qpos is None else qpos
        causal = None if qpos is None else torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        return h, at, causal

    def definition(self, x, pos_ids=None, qpos=None):
        """Every block at every position; returns the query's logits (B, C) and each block's
        attention row at the query [(B, H, T)]. Plain and slow: the reference for `run`."""
        h, at, causal = self._inputs(x, pos_ids, qpos)
        rows = torch.arange(len(x), device=x.device)
        attn = []
        for block in self.blocks:
            h, a, _, _ = block(h, causal)
            attn.append(a[rows, :, at])
        return (self.ln_final(h) @ self.W_U.T)[rows, at], attn

    def run(self, x, attn=None, pos_ids=None, qpos=None):
        """`definition`'s numbers with the last block at the query position only (nothing else
        of it is read), and what training and the diagnostics need: a dict with logits (B, C),
        attn_layers / scores_layers (each block's row at the query, (B, H, T)), inputs_layers
        (each attention's input LN(h), (B, T, d)), attn / scores of `prior_layer`, and attn_full
        (each block's whole attention, (B, H, T or 1, T): the tensors the task gradient flows
        through, whose .grad the diagnostics read at the query's row)."""
        if attn is not None:
            raise ValueError("the deeper model has no frozen-attention path (App. F.4 is a one-layer study)")
        h, at, causal = self._inputs(x, pos_ids, qpos)
        B, T = x.shape
        rows = torch.arange(B, device=x.device)
        # The first block's LN(h_i) and its projections depend on (token x_i, position i) only:
        # computed once per table entry (vocab x T) and looked up, not once per example and position
        first = self.blocks[0]
        P = self.pos[:T] if pos_ids is None else self.pos[pos_ids]
        u_table = first.ln_attn(self.embed[:, None, :] + P[None])                       # (V, T, d)
        qkv_table = u_table @ torch.cat([first.W_Q, first.W_K, first.W_V]).T             # (V, T, 3d)
        cell = x * T + torch.arange(T, device=x.device)                                   # (B, T) table rows
        u0, qkv0 = (F.embedding(cell, t.flatten(0, 1)) for t in (u_table, qkv_table))
        out = {"attn_layers": [], "scores_layers": [], "inputs_layers": [], "attn_full": []}
        for i, block in enumerate(self.blocks):
            known = dict(u=u0, qkv=qkv0) if i == 0 else {}
            if i < self.n_layers - 1:                      # every position: the next block reads them all
                h, a_full, s, u = block(h, causal, **known)
                a, s = a_full[rows, :, at], s[rows, :, at]
            else:                                          # the query's row only
                h, a_full, s, u = block(h, None if causal is None else causal[at][:, None, None, :], rows=at, **known)
                a, s = a_full[:, :, 0], s[:, :, 0]
            out["attn_full"].append(a_full)                # what the loss's gradient flows through
            out["attn_layers"].append(a)
            out["scores_layers"].append(s)
            out["inputs_layers"].append(u)
        out["logits"] = self.ln_final(h[:, 0]) @ self.W_U.T
        pick = {"first": 0, "last": -1}.get(self.prior_layer)
        for key in ("attn", "scores"):
            layers = out[f"{key}_layers"]
            out[key] = layers[pick] if pick is not None else torch.cat(layers, dim=1)
        return out

    def forward(self, x, pos_ids=None, qpos=None):
        return self.definition(x, pos_ids, qpos)

    # -----------------------------------------------------------------------------------
    # 3. What a run logs of it, per block

    def layer_stats(self, train, test, out, test_out, tau):
        """What diagnostics.evaluation logs of the deeper model: per block, the task gradient
        to its attention at the query (||dL/ds||, and ||dL/dW|| from the block's own attention
        input LN(h), as task_gradient_stats), and on the test set its D(t), informative mass and
        B_tau. grad_s_norm / grad_W_norm are the prior's layer's (every block's together with
        prior_layer "all"). Lemma 5.1 is proved for the one-layer model: it is not logged here.
        (diagnostics' formulas, imported here so that the model above still copies alone.)"""
        from diagnostics import interaction, softmax_backward, structural_stats
        B, T = train["x"].shape
        rows = torch.arange(B, device=train["x"].device)
        at = torch.full((B,), T - 1, device=rows.device) if train["qpos"] is None else train["qpos"]
        g_s, g_W = [], []
        with torch.no_grad():
            for a, full, u in zip(out["attn_layers"], out["attn_full"], out["inputs_layers"]):
                g_a = full.grad[rows, :, at] if full.shape[2] > 1 else full.grad[:, :, 0]    # the query's row
                g = softmax_backward(a.detach(), g_a).to(u.dtype)
                g_s.append(g.norm().item())
                g_W.append(interaction(u.detach(), u.detach()[rows, at], g, self.d_head).norm().item())
        layers = [structural_stats(a, test["oracle"], tau) for a in test_out["attn_layers"]]
        pick = {"first": 0, "last": -1}.get(self.prior_layer)
        both = lambda v: v[pick] if pick is not None else math.sqrt(sum(x * x for x in v))
        return {"grad_s_norm": both(g_s), "grad_W_norm": both(g_W), "grad_s_norm_layers": g_s,
                "grad_W_norm_layers": g_W, **{f"{k}_layers": [l[k] for l in layers] for k in layers[0]}}
