"""Reference trajectory of torch.optim.NAdam for tests/nadam_test.cpp.

Prints one line per step: the parameter values after that step (float64).
The C++ test drives trainer's NAdam through the same problem and compares.
Run with Debian's python3-torch: /usr/bin/python3 nadam_reference.py
"""
import torch

p = torch.tensor([0.5, -1.0, 2.0, 0.0, 3.0], dtype=torch.float64, requires_grad=True)
c = torch.tensor([1.0, 1.0, -1.0, 0.5, 0.0], dtype=torch.float64)
opt = torch.optim.NAdam([p], lr=0.01, betas=(0.9, 0.999), eps=1e-7, weight_decay=0.01, momentum_decay=0.004)
for t in range(1, 31):
    opt.zero_grad()
    # A fixed gradient rule both sides can compute: 2 (p - c) + 0.1 t.
    p.grad = 2 * (p.detach() - c) + 0.1 * t
    opt.step()
    print(" ".join("%.17g" % v for v in p.detach().tolist()))
