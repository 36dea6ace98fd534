"""The sequence graph of tests/models/sequence_test.cpp, written step by step.

Keras's masking semantics spelled out independently of trainer's batched
implementation: each recurrent layer reads only a sample's real tokens, one
at a time; attention adds -1e9 where a query or a key is padding (and, in the
causal layer, where the key comes after the query); pooling
averages (or maximises) over the real positions. Float64; the weights,
tokens and output gradient come from the C++ test (JSON), the output and
every parameter gradient go back.
"""

import torch
import torch.nn.functional as F

import reference_io


def lstm_direction(steps, w_ih, w_hh, b):
    h = torch.zeros(w_hh.shape[1], dtype=torch.float64)
    c = torch.zeros_like(h)
    outputs = []
    for x in steps:
        i, f, g, o = (w_ih @ x + w_hh @ h + b).chunk(4)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        outputs.append(h)
    return outputs, h


def gru_direction(steps, w_ih, w_hh, b_ih, b_hh):
    h = torch.zeros(w_hh.shape[1], dtype=torch.float64)
    outputs = []
    for x in steps:
        ir, iz, inn = (w_ih @ x + b_ih).chunk(3)
        hr, hz, hn = (w_hh @ h + b_hh).chunk(3)
        r, z = torch.sigmoid(ir + hr), torch.sigmoid(iz + hz)
        h = (1 - z) * torch.tanh(inn + r * hn) + z * h
        outputs.append(h)
    return outputs, h


def bidirectional(direction, x, valid, weights, forward_args, backward_args):
    """Every step's output (zeros where padded) and the joined last states."""
    n, length, _ = x.shape
    units = weights[forward_args[1]].shape[1]
    sequences, lasts = [], []
    for row in range(n):
        real = [x[row, t] for t in range(length) if valid[row, t]]
        out_f, h_f = direction(real, *[weights[k] for k in forward_args])
        out_b, h_b = direction(real[::-1], *[weights[k] for k in backward_args])
        out_b = out_b[::-1]
        steps, k = [], 0
        for t in range(length):
            if valid[row, t]:
                steps.append(torch.cat([out_f[k], out_b[k]]))
                k += 1
            else:
                steps.append(torch.zeros(2 * units, dtype=torch.float64))
        sequences.append(torch.stack(steps))
        lasts.append(torch.cat([h_f, h_b]))
    return torch.stack(sequences), torch.stack(lasts)


def attention(x, valid, W, prefix, heads, key_dim, causal=False):
    n, length, _ = x.shape

    def project(name):
        return (x @ W[prefix + name + ".weight"].T + W[prefix + name + ".bias"]).reshape(n, length, heads, key_dim)

    q, k, v = project("query"), project("key"), project("value")
    scores = torch.einsum("nqhd,nkhd->nhqk", q, k) / key_dim ** 0.5
    allowed = valid[:, None, :, None] & valid[:, None, None, :]
    if causal:
        allowed = allowed & torch.ones(length, length, dtype=torch.bool).tril()
    scores = scores + (~allowed).double() * -1e9
    joined = torch.einsum("nhqk,nkhd->nqhd", torch.softmax(scores, -1), v).reshape(n, length, heads * key_dim)
    return joined @ W[prefix + "output.weight"].T + W[prefix + "output.bias"]


def main():
    W, tokens = reference_io.read()
    valid = tokens != 0

    x = W["l0_0.embedding.weight"][tokens]
    seq, _ = bidirectional(lstm_direction, x, valid, W,
                           ["l1_0.weight_ih", "l1_0.weight_hh", "l1_0.bias_ih"],
                           ["l1_0.weight_ih_reverse", "l1_0.weight_hh_reverse", "l1_0.bias_ih_reverse"])
    _, g = bidirectional(gru_direction, seq, valid, W,
                         ["l2_0.weight_ih", "l2_0.weight_hh", "l2_0.bias_ih", "l2_0.bias_hh"],
                         ["l2_0.weight_ih_reverse", "l2_0.weight_hh_reverse", "l2_0.bias_ih_reverse",
                          "l2_0.bias_hh_reverse"])
    h = seq + W["l3_0.weight"]
    h = attention(h, valid, W, "l4_0.", 2, 3, causal=True)
    a = attention(h, valid, W, "l5_0.attention.", 2, 5)
    h = F.layer_norm(a + h, (10,), W["l5_0.attention_norm.weight"], W["l5_0.attention_norm.bias"], 1e-5)
    f = torch.relu(h @ W["l5_0.intermediate.weight"].T + W["l5_0.intermediate.bias"])
    f = f @ W["l5_0.output.weight"].T + W["l5_0.output.bias"]
    h = F.layer_norm(f + h, (10,), W["l5_0.feedforward_norm.weight"], W["l5_0.feedforward_norm.bias"], 1e-5)
    real = valid.double()[:, :, None]
    avg = (h * real).sum(1) / real.sum(1).clamp(min=1)
    lowest = torch.finfo(torch.float32).min
    mx = torch.where(valid[:, :, None], seq, torch.tensor(lowest, dtype=torch.float64)).amax(1)
    mx = torch.where(valid.any(1)[:, None], mx, torch.zeros_like(mx))
    joined = torch.cat([avg, mx, g], 1)
    out = joined @ W["l9_0.weight"].T + W["l9_0.bias"]

    reference_io.write(out, W, tokens)


main()
