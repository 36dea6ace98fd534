#!/usr/bin/env python3
"""TorchScript modules for trainer's `torchscript` layer and loss.

    python3 scripts/examples/torchscript_modules.py se_block 16 se16.pt
    python3 scripts/examples/torchscript_modules.py focal_loss focal.pt

se_block CHANNELS: a squeeze-and-excitation block (Hu et al. 2018) for
(N, CHANNELS, H, W) inputs, as a layer: {type: torchscript, path: se16.pt}.
focal_loss: the focal loss (Lin et al. 2017) of class probabilities (a last
layer with activation: softmax), as a loss: {name: torchscript, path: focal.pt}.
cross_entropy: the mean negative log-likelihood of class probabilities
(the tests compare it with the built-in sparse_categorical_crossentropy).
The tests also write two modules trainer must refuse: per_sample_loss (a
loss that returns one value a sample) and pair (a layer that returns two
tensors).
"""
import sys

import torch
from torch import nn


class SqueezeExcitation(nn.Module):
    def __init__(self, channels: int, reduction: int = 4):
        super().__init__()
        self.fc1 = nn.Linear(channels, channels // reduction)
        self.fc2 = nn.Linear(channels // reduction, channels)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = x.mean(dim=(2, 3))              # squeeze: (N, C)
        scale = torch.relu(self.fc1(scale))
        scale = torch.sigmoid(self.fc2(scale))  # excitation: a weight a channel
        return x * scale[:, :, None, None]


class FocalLoss(nn.Module):
    def __init__(self, gamma: float = 2.0):
        super().__init__()
        self.gamma = gamma

    def forward(self, probabilities: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        p = probabilities.gather(1, labels[:, None]).squeeze(1).clamp(1e-7, 1.0)
        return (-((1 - p) ** self.gamma) * p.log()).mean()


class CrossEntropy(nn.Module):
    def forward(self, probabilities: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return -probabilities.clamp(1e-7, 1.0 - 1e-7).log().gather(1, labels[:, None]).mean()


class PerSampleLoss(nn.Module):
    def forward(self, probabilities: torch.Tensor, labels: torch.Tensor) -> torch.Tensor:
        return -probabilities.gather(1, labels[:, None]).log()


class Pair(nn.Module):
    def forward(self, x: torch.Tensor):
        return x, x


def main() -> None:
    kind, args = sys.argv[1], sys.argv[2:]
    torch.manual_seed(0)
    if kind == "se_block":
        module = SqueezeExcitation(int(args.pop(0)))
    else:
        module = {"focal_loss": FocalLoss, "cross_entropy": CrossEntropy, "per_sample_loss": PerSampleLoss,
                  "pair": Pair}[kind]()
    torch.jit.script(module).save(args[0])


if __name__ == "__main__":
    main()
