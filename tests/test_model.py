"""The query-only model equals a plain per-position transformer (SPEC §4)."""
import math

import torch
import torch.nn.functional as F

from model import Transformer


def reference_forward(m, x):
    """A straightforward transformer: q, k, v at every position, full attention rows,
    residual MLP at every position, logits read at the last one."""
    B, T = x.shape
    H, dh = m.n_heads, m.d_head
    h = m.embed[x] + m.pos[:T]                                  # (B, T, d)
    q = (h @ m.W_Q.T).view(B, T, H, dh).transpose(1, 2)         # (B, H, T, dh)
    k = (h @ m.W_K.T).view(B, T, H, dh).transpose(1, 2)
    v = (h @ m.W_V.T).view(B, T, H, dh).transpose(1, 2)
    att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(dh), dim=-1)  # (B, H, T, T)
    o = (att @ v).transpose(1, 2).reshape(B, T, H * dh)
    r = h + o @ m.W_O.T
    r2 = r + F.relu(r @ m.W_in.T + m.b_in) @ m.W_out.T + m.b_out
    return (r2 @ m.W_U.T)[:, -1], att[:, :, -1]


def _model_and_batch(n_heads, seed=0, vary_query=False):
    torch.manual_seed(seed)
    m = Transformer(vocab_size=12, n_classes=11, seq_len=6, d_model=16, n_heads=n_heads, d_mlp=32).double()
    x = torch.randint(0, 11, (40, 6))
    x[:, -1] = torch.randint(0, 12, (40,)) if vary_query else 11
    return m, x


def test_query_only_forward_equals_full_transformer():
    for n_heads in (1, 4):
        for vary in (False, True):
            m, x = _model_and_batch(n_heads, vary_query=vary)
            logits, attn = m(x)
            ref_logits, ref_attn = reference_forward(m, x)
            assert attn.shape == (40, n_heads, 6)
            torch.testing.assert_close(logits, ref_logits, rtol=1e-10, atol=1e-10)
            torch.testing.assert_close(attn, ref_attn, rtol=1e-10, atol=1e-10)


def test_query_only_gradients_equal_full_transformer():
    m, x = _model_and_batch(2, seed=1)
    y = torch.randint(0, 11, (40,))
    F.cross_entropy(m(x)[0], y).backward()
    fast = {n: p.grad.clone() for n, p in m.named_parameters()}
    m.zero_grad()
    F.cross_entropy(reference_forward(m, x)[0], y).backward()
    for n, p in m.named_parameters():
        torch.testing.assert_close(fast[n], p.grad, rtol=1e-9, atol=1e-12, msg=n)


def test_frozen_attention_is_used():
    m, x = _model_and_batch(1)
    fixed = torch.zeros(40, 6)
    fixed[:, 0] = 1.0
    logits, attn = m(x, attn=fixed)
    assert torch.equal(attn[:, 0], fixed)
    # with all mass on position 0 the output depends on x[:, 0] and the query only
    x2 = x.clone()
    x2[:, 1:-1] = (x2[:, 1:-1] + 1) % 11
    torch.testing.assert_close(m(x2, attn=fixed)[0], logits)


def test_values_table_matches_per_position_values():
    m, x = _model_and_batch(2)
    v = m.values(x)
    h = m.embed[x] + m.pos[:6]
    torch.testing.assert_close(v.reshape(40, 6, -1), h @ m.W_V.T)
