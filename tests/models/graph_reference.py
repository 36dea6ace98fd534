"""The graph of tests/models/graph_test.cpp written with torch.nn.functional.

Reads the C++ model's weights, input and output gradient (JSON), computes the
same graph in float64, and writes the output and every gradient back. The
node numbers in the weight names (l5_0 = node 5, first module) follow the
order of the layers in the test's YAML, a residual block's body before its
addition.
"""

import torch
import torch.nn.functional as F

import reference_io


def main():
    W, inp = reference_io.read()

    x = F.pad(inp, (1, 1, 1, 1), mode="reflect")
    a = F.leaky_relu(F.conv2d(x, W["l1_0.weight"], W["l1_0.bias"], stride=2), 0.2)
    x = F.elu(F.conv2d(a, W["l2_0.weight"], W["l2_0.bias"], padding=2, dilation=2, groups=2))
    x = F.conv2d(x, W["l3_0.weight"], W["l3_0.bias"], padding=1, groups=8)
    b = F.group_norm(x, 4, W["l4_0.weight"], W["l4_0.bias"], eps=1e-3)
    # Keras "same" transposed convolution, 4 -> 8: the full 9 rows cut to the first 8.
    x = F.conv_transpose2d(a, W["l5_0.weight"], W["l5_0.bias"], stride=2)[:, :, 0:8, 0:8]
    x = F.silu(x)
    t = F.instance_norm(x, weight=W["l6_0.weight"], bias=W["l6_0.bias"], eps=1e-3)
    u = F.interpolate(b, scale_factor=2, mode="bilinear", align_corners=False)
    x = torch.cat([u, t], 1)
    x = F.layer_norm(x.movedim(1, -1), (20,), W["l9_0.weight"], W["l9_0.bias"], 1e-3).movedim(-1, 1)
    x = F.pad(x, (2, 2, 1, 1), mode="replicate")
    x = x[:, :, 1:-1, 2:-2]
    p = F.softplus(F.conv2d(x, W["l12_0.weight"], W["l12_0.bias"]))
    x = F.interpolate(a, scale_factor=2, mode="nearest")
    q = F.conv2d(x, W["l14_0.weight"], W["l14_0.bias"])
    m = p * q
    x = (m + p) / 2
    r = F.conv2d(F.pad(x, (1, 1, 1, 1)), W["l18_0.weight"], W["l18_0.bias"])
    x = torch.tanh(r + x)
    x = x * 0.5 + 0.1
    x = x.amax((2, 3))
    out = F.linear(x, W["l22_0.weight"], W["l22_0.bias"])

    reference_io.write(out, W, inp)


main()
