"""Reference trajectory of NAdam for tests/nadam_test.cpp.

Prints one line per step: the parameter values after that step (float64).

trainer's NAdam follows torch.optim.NAdam of PyTorch >= 2.0, which is also
Keras's Nadam. PyTorch 1.13 (Debian's python3-torch) has a known bug in its
second-term bias correction: it multiplies the momentum product by mu twice
(`mu_product_next = mu_product * mu * mu_next`; fixed in 2.0 to
`mu_product * mu_next`). So this script:

1. transcribes torch's `_single_tensor_nadam` with that one line as a switch;
   It keeps torch's float32 momentum product;
2. checks the transcription against the installed torch.optim.NAdam, with the
   switch set to the installed version's behaviour (exit 1 if they differ);
3. prints the trajectory of the 2.x (fixed) behaviour.

On PyTorch >= 2.0 the printed values are torch.optim.NAdam's own (tested with
Debian 13's 2.6).
"""
import sys

import torch

STEPS = 30
START = [0.5, -1.0, 2.0, 0.0, 3.0]
TARGET = torch.tensor([1.0, 1.0, -1.0, 0.5, 0.0], dtype=torch.float64)
LR, BETA1, BETA2, EPS, WD, MOMENTUM_DECAY = 0.01, 0.9, 0.999, 1e-7, 0.01, 0.004


def gradient(p, t):
    # A fixed gradient rule both sides can compute: 2 (p - c) + 0.1 t.
    return 2 * (p - TARGET) + 0.1 * t


def torch_trajectory():
    p = torch.tensor(START, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.NAdam([p], lr=LR, betas=(BETA1, BETA2), eps=EPS, weight_decay=WD,
                            momentum_decay=MOMENTUM_DECAY)
    out = []
    for t in range(1, STEPS + 1):
        opt.zero_grad()
        p.grad = gradient(p.detach(), t)
        opt.step()
        out.append(p.detach().clone())
    return out


def transcribed_trajectory(pytorch_1x_bug):
    p = torch.tensor(START, dtype=torch.float64)
    # torch keeps the momentum product in a float32 scalar tensor.
    exp_avg, exp_avg_sq, mu_product = torch.zeros_like(p), torch.zeros_like(p), torch.tensor(1.0)
    out = []
    for step in range(1, STEPS + 1):
        grad = gradient(p, step).add(p, alpha=WD)
        bias_correction2 = 1 - BETA2 ** step
        mu = BETA1 * (1. - 0.5 * (0.96 ** (step * MOMENTUM_DECAY)))
        mu_next = BETA1 * (1. - 0.5 * (0.96 ** ((step + 1) * MOMENTUM_DECAY)))
        mu_product *= mu
        mu_product_next = mu_product * mu * mu_next if pytorch_1x_bug else mu_product * mu_next
        exp_avg.mul_(BETA1).add_(grad, alpha=1 - BETA1)
        exp_avg_sq.mul_(BETA2).addcmul_(grad, grad, value=1 - BETA2)
        denom = exp_avg_sq.div(bias_correction2).sqrt().add_(EPS)
        p.addcdiv_(grad, denom, value=-LR * (1. - mu) / (1. - mu_product.item()))
        p.addcdiv_(exp_avg, denom, value=-LR * mu_next / (1. - mu_product_next.item()))
        out.append(p.clone())
    return out


installed_has_bug = int(torch.__version__.split(".")[0]) < 2
if not installed_has_bug:
    # PyTorch 2.x: its NAdam is the reference itself (its scalar arithmetic
    # differs from the transcription in the last bits only).
    for values in torch_trajectory():
        print(" ".join("%.17g" % v for v in values.tolist()))
    sys.exit(0)
for ours, theirs in zip(transcribed_trajectory(installed_has_bug), torch_trajectory()):
    if not torch.allclose(ours, theirs, rtol=1e-13, atol=1e-15):
        sys.exit(f"transcription differs from torch {torch.__version__}'s NAdam: {ours} vs {theirs}")
for values in transcribed_trajectory(pytorch_1x_bug=False):
    print(" ".join("%.17g" % v for v in values.tolist()))
