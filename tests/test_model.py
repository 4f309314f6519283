"""The query-only computation equals the model's definition (a plain per-position
transformer), forward and gradients; and the definition is the textbook one."""
import math

import torch
import torch.nn.functional as F

from model import Transformer


def reference_forward(m, x):
    """The model's own definition (model.Transformer.definition): every position, read at the query."""
    return m.definition(x)


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


def test_definition_is_the_textbook_transformer():
    """The definition against an independent line-by-line transformer (full attention rows,
    residual MLP at every position), so that `definition` itself cannot drift."""
    for n_heads in (1, 4):
        m, x = _model_and_batch(n_heads, vary_query=True)
        B, T = x.shape
        H, dh = m.n_heads, m.d_head
        h = m.embed[x] + m.pos[:T]
        heads = []
        for i in range(H):                                         # one head at a time, no reshapes
            sl = slice(i * dh, (i + 1) * dh)
            q, k, v = h @ m.W_Q[sl].T, h @ m.W_K[sl].T, h @ m.W_V[sl].T
            att = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(dh), -1)
            heads.append((att[:, -1], att @ v))
        r = h + torch.cat([o for _, o in heads], -1) @ m.W_O.T
        ref = (r + F.relu(r @ m.W_in.T + m.b_in) @ m.W_out.T + m.b_out) @ m.W_U.T
        logits, attn = m.definition(x)
        torch.testing.assert_close(logits, ref[:, -1], rtol=1e-10, atol=1e-10)
        torch.testing.assert_close(attn, torch.stack([a for a, _ in heads], 1), rtol=1e-10, atol=1e-10)


def test_frozen_attention_is_the_same_in_both_paths():
    m, x = _model_and_batch(2, vary_query=True)
    fixed = torch.softmax(torch.randn(40, 6, dtype=torch.float64), -1)
    torch.testing.assert_close(m.run(x, attn=fixed)["logits"], m.definition(x, attn=fixed)[0])
    qpos = torch.randint(0, 6, (40,))
    fixed_rows = fixed * (torch.arange(6)[None] <= qpos[:, None])
    torch.testing.assert_close(m.run(x, attn=fixed_rows, qpos=qpos)["logits"],
                               m.definition(x, attn=fixed_rows, qpos=qpos)[0])


def test_causal_rows_equal_the_definition():
    """run_rows (one row per (sequence, query position)) equals the definition with causal
    attention read at that position, forward and gradients; keys after the query get exactly
    zero and cannot matter."""
    for n_heads in (1, 4):
        m, x = _model_and_batch(n_heads, vary_query=True)
        B, T = x.shape
        qpos = torch.randint(0, T, (B,))
        out = m.run(x, qpos=qpos)
        ref_logits, ref_attn = m.definition(x, qpos=qpos)
        torch.testing.assert_close(out["logits"], ref_logits)
        torch.testing.assert_close(out["attn"], ref_attn)
        future = torch.arange(T)[None, None, :] > qpos[:, None, None]
        assert (out["attn"][future.expand_as(out["attn"])] == 0).all()
        # nothing after the query matters: scramble the future tokens
        x2 = torch.where(torch.arange(T)[None, :] > qpos[:, None], torch.randint(0, 11, x.shape), x)
        torch.testing.assert_close(m.run(x2, qpos=qpos)["logits"], out["logits"])
        y = torch.randint(0, 11, (B,))
        F.cross_entropy(out["logits"], y).backward()
        fast = {n: p.grad.clone() for n, p in m.named_parameters()}
        m.zero_grad()
        F.cross_entropy(ref_logits, y).backward()
        for n, p in m.named_parameters():
            torch.testing.assert_close(fast[n], p.grad, rtol=1e-9, atol=1e-12, msg=n)
    # with the query at the last position the causal path is the fast path
    out_last = m.run(x, qpos=torch.full((B,), T - 1))
    torch.testing.assert_close(out_last["logits"], m.run(x)["logits"])


def test_position_slots_keep_the_query_embedding():
    """Length generalization: with pos_ids from query_slot_ids the query's residual input is
    the same at every length, and the fast path equals the reference on the remapped table."""
    from exp_appendix import longer_inputs
    from tasks import make_task, query_slot_ids
    task = make_task("add", p=11, n_distractors=3)                # training length 6
    torch.manual_seed(0)
    m = Transformer(task.vocab_size, task.n_classes, 16, 16, 2, 32).double()
    x6 = task.test_x[:8]
    x12 = longer_inputs(task, x6, 12)
    assert torch.equal(x12[:, :2], x6[:, :2]) and torch.equal(x12[:, -1], x6[:, -1])    # operands, query kept
    h_q6 = m.inputs(x6, query_slot_ids(6, 16))[1]
    h_q12 = m.inputs(x12, query_slot_ids(12, 16))[1]
    torch.testing.assert_close(h_q6, h_q12)
    torch.testing.assert_close(h_q6, m.embed[x6[:, -1]] + m.pos[15])
    ids = query_slot_ids(12, 16)
    torch.testing.assert_close(m.run(x12, pos_ids=ids)["logits"], m.definition(x12, pos_ids=ids)[0])


def test_calling_the_model_is_the_definition():
    """model(x) runs the plain definition (what a reader extending the model relies on), and
    the table path training calls agrees with it."""
    import torch
    from model import Transformer
    torch.manual_seed(0)
    m = Transformer(12, 11, 5, d_model=16, n_heads=2, d_mlp=32).double()
    x = torch.randint(0, 12, (7, 5))
    logits, attn = m(x)
    ref = m.definition(x)
    assert torch.equal(logits, ref[0]) and torch.equal(attn, ref[1])
    fast = m.run(x)
    torch.testing.assert_close(fast["logits"], logits, rtol=1e-10, atol=1e-12)
