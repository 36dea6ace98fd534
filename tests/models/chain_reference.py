"""The chain of tests/models/chain_test.cpp written with torch.nn.functional.

Keras's padding rules spelled out on their own: "same" gives
ceil(in / stride) outputs and pads max((out - 1) * stride + window - in, 0),
the odd one at the end; a "same" max pool pads with -inf and an average pool
leaves the padding out of its count. Float64; the weights, input and output
gradient come from the C++ test (JSON), the output and every gradient go back.
"""
import math

import torch
import torch.nn.functional as F

import reference_io


def same_pads(sizes, window, stride):
    """F.pad's list (last dimension first) for Keras "same"."""
    pads = []
    for size in reversed(sizes):
        out = math.ceil(size / stride)
        total = max((out - 1) * stride + window - size, 0)
        pads += [total // 2, total - total // 2]
    return pads


def same_max_pool(x, window, stride):
    pool = F.max_pool2d if x.dim() == 4 else F.max_pool1d
    return pool(F.pad(x, same_pads(x.shape[2:], window, stride), value=-math.inf), window, stride)


def same_avg_pool(x, window, stride):
    pool = F.avg_pool2d if x.dim() == 4 else F.avg_pool1d
    pads = same_pads(x.shape[2:], window, stride)
    return pool(F.pad(x, pads), window, stride) / pool(F.pad(torch.ones_like(x), pads), window, stride)


def main():
    W, inp = reference_io.read()

    x = F.conv2d(F.pad(inp, same_pads(inp.shape[2:], 3, 2)), W["l0_0.weight"], W["l0_0.bias"], stride=2)
    x = same_max_pool(torch.relu(x), 3, 2)
    x = F.batch_norm(x, None, None, W["l2_0.weight"], W["l2_0.bias"], training=True, eps=1e-3)
    x = F.gelu(x)  # Keras's gelu: the exact one, not the tanh approximation
    x = torch.sigmoid(same_avg_pool(x, 2, 1))
    x = x.permute(0, 2, 3, 1).reshape(x.shape[0], -1, 4)
    # l8_0 is the uneven "same" padding, l8_1 the convolution.
    x = F.conv1d(F.pad(x, same_pads(x.shape[2:], 2, 1)), W["l8_1.weight"], W["l8_1.bias"])
    x = torch.softmax(x, 1)  # over the channels, Keras's last axis
    x = F.max_pool1d(x, 2)
    x = F.conv_transpose1d(x, W["l11_0.weight"], W["l11_0.bias"], stride=2)
    x = same_avg_pool(x, 2, 2)
    out = F.linear(x.flatten(1), W["l14_0.weight"], W["l14_0.bias"])

    reference_io.write(out, W, inp)


main()
