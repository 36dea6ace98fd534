"""What the reference scripts of tests/models share: reading the C++ test's
weights, input and output gradient (JSON, float64), and writing back the
output and every gradient.

Usage in a script run as `python3 SCRIPT given.json expected.json`:
    W, inp = reference_io.read()   # inp: float64 (requires grad) or int64 tokens
    out = ...
    reference_io.write(out, W, inp)
"""
import json
import sys

import torch


def tensor(entry):
    return torch.tensor(entry["data"], dtype=torch.float64).reshape(entry["shape"])


def read():
    given = json.load(open(sys.argv[1]))
    read.grad_output = tensor(given["grad_output"])
    W = {name: tensor(value).requires_grad_(True) for name, value in given["params"].items()}
    if given["input_is_tokens"]:
        inp = torch.tensor(given["input"]["data"], dtype=torch.int64).reshape(given["input"]["shape"])
    else:
        inp = tensor(given["input"]).requires_grad_(True)
    return W, inp


def write(out, W, inp):
    (out * read.grad_output).sum().backward()
    result = {
        "output": out.detach().flatten().tolist(),
        "param_grads": {name: w.grad.flatten().tolist() for name, w in W.items()},
    }
    if inp.is_floating_point():
        result["input_grad"] = inp.grad.flatten().tolist()
    json.dump(result, open(sys.argv[2], "w"))
