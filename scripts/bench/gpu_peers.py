"""The eager PyTorch-in-Python loops trainer is measured against on a GPU.

For each of the three experiments trainer is built around, the loop a user
would write from the experiment file: the same layers, initialisation
family, optimizer, batch size and precision, the data set on the GPU
(shuffled there and indexed by batch), cuDNN auto-tuning on
(torch.backends.cudnn.benchmark), PyTorch's defaults otherwise (its
multi-tensor optimizers, TF32 convolutions). The loss is summed on the GPU
and read once an epoch, as a careful user would; no torch.compile, no CUDA
graphs.

Usage: python3 gpu_peers.py reuters  PRECISION EPOCHS CORPUS_DIR
       python3 gpu_peers.py fashion  PRECISION EPOCHS
       python3 gpu_peers.py deblur   PRECISION STEPS [compile|profile]
PRECISION: fp32 or bf16 (autocast, fp32 weights, as trainer's precision).
compile: the deblurring model through torch.compile (its default mode),
the figure the CUDA-graph goal is held to; compiling happens in the
warm-up steps, which are not timed. profile: after the timed steps, 10
more under torch.profiler, and the device's kernels by their time on it
(the table trainer's profile_top_ops.py prints for a trainer run).
reuters and fashion print one line per epoch: epoch, seconds of its training
steps, samples/s, mean loss. deblur prints: steps, seconds, images/s, after
five warm-up steps. Fashion-MNIST is read as pytorch_reference.py reads it
($TRAINER_DATA_DIR/fashion-mnist, else Debian's dataset-fashion-mnist), the
Reuters set rebuilt from the corpus the same way.

PEERS_DEVICE=cpu runs the loops on the CPU and PEERS_PATCH=N makes the
deblurring patches N pixels a side (default 256): only for rehearsing the
lease's scripts on a machine without a GPU (scripts/check-lease-scripts.sh),
where the figures mean nothing but every line is printed as on a GPU.
"""
import os
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pytorch_reference  # noqa: E402  the data sets and the two small models


def autocast(precision, device):
    if precision == "bf16":
        return torch.autocast(device.type, dtype=torch.bfloat16)
    return torch.autocast(device.type, enabled=False)


def synchronize(device):
    if device.type == "cuda":
        torch.cuda.synchronize()


def train_epochs(x, y, model, optimizer, batch, precision, epochs, device):
    x, y = x.to(device), y.to(device)
    model.to(device)
    n = len(y)
    for epoch in range(1, epochs + 1):
        model.train()
        synchronize(device)
        start = time.perf_counter()
        total = torch.zeros((), device=device)
        order = torch.randperm(n, device=device)
        for begin in range(0, n, batch):
            rows = order[begin:begin + batch]
            inputs, labels = x[rows], y[rows]
            optimizer.zero_grad(set_to_none=True)
            with autocast(precision, device):
                loss = F.cross_entropy(model(inputs), labels)
            loss.backward()
            optimizer.step()
            total += loss.detach() * len(rows)
        mean = total.item() / n
        synchronize(device)
        seconds = time.perf_counter() - start
        print(f"{epoch} {seconds:.3f} {n / seconds:.1f} {mean:.6f}", flush=True)


class ResidualBlock(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.body = nn.Sequential(
            nn.ReflectionPad2d(1), nn.Conv2d(channels, channels, 3), nn.InstanceNorm2d(channels, affine=True),
            nn.ReLU(True), nn.Dropout(0.5),
            nn.ReflectionPad2d(1), nn.Conv2d(channels, channels, 3), nn.InstanceNorm2d(channels, affine=True))

    def forward(self, x):
        return x + self.body(x)


class DeblurGenerator(nn.Module):
    """DeblurGAN's ResnetGenerator as configs/deblur_resnet.yaml spells it: U-Net's
    skips added between encoder and decoder, and a zero-initialised correction
    added to the input in place of tanh and (input + x) / 2."""

    def __init__(self):
        super().__init__()

        def norm(c):
            return nn.InstanceNorm2d(c, affine=True)
        self.full = nn.Sequential(nn.ReflectionPad2d(3), nn.Conv2d(3, 64, 7), norm(64), nn.ReLU(True))
        self.half_resolution = nn.Sequential(nn.Conv2d(64, 128, 3, stride=2, padding=1), norm(128), nn.ReLU(True))
        self.middle = nn.Sequential(
            nn.Conv2d(128, 256, 3, stride=2, padding=1), norm(256), nn.ReLU(True),
            *[ResidualBlock(256) for _ in range(9)],
            nn.ConvTranspose2d(256, 128, 3, stride=2, padding=1, output_padding=1), norm(128), nn.ReLU(True))
        self.up = nn.Sequential(
            nn.ConvTranspose2d(128, 64, 3, stride=2, padding=1, output_padding=1), norm(64), nn.ReLU(True))
        self.correction = nn.Sequential(nn.ReflectionPad2d(3), nn.Conv2d(64, 3, 7))
        nn.init.zeros_(self.correction[1].weight)

    def forward(self, x):
        full = self.full(x)
        half = self.half_resolution(full)
        up = self.up(half + self.middle(half))
        return x + self.correction(full + up)


def profile_steps(step, device, steps=10):
    """The device's kernels over `steps` more steps, by their total time."""
    from torch.profiler import ProfilerActivity, profile
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device.type == "cuda" else [])
    with profile(activities=activities) as recording:
        for i in range(steps):
            step(i)
        synchronize(device)
    averages = recording.key_averages()
    if device.type != "cuda":
        key = "self_cpu_time_total"
    elif hasattr(averages[0], "self_device_time_total"):
        key = "self_device_time_total"
    else:
        key = "self_cuda_time_total"
    print(averages.table(sort_by=key, row_limit=30, max_name_column_width=90), flush=True)


def deblur(precision, steps, device, compiled=False, profiled=False):
    model = DeblurGenerator().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    forward = torch.compile(model) if compiled else model
    # Patches in [-1, 1], a pool of them on the GPU so that batches differ.
    side = int(os.environ.get("PEERS_PATCH", "256"))
    pool = torch.rand(64, 3, side, side, device=device) * 2 - 1
    targets = (pool + 0.1 * torch.randn_like(pool)).clamp(-1, 1)

    def step(i):
        rows = torch.randint(0, len(pool), (8,), device=device)
        optimizer.zero_grad(set_to_none=True)
        with autocast(precision, device):
            loss = F.l1_loss(forward(pool[rows]), targets[rows])
        loss.backward()
        optimizer.step()
        return loss.detach()

    for i in range(5):
        step(i)
    synchronize(device)
    start = time.perf_counter()
    total = torch.zeros((), device=device)
    for i in range(steps):
        total += step(i)
    total.item()
    synchronize(device)
    seconds = time.perf_counter() - start
    print(f"{steps} {seconds:.3f} {steps * 8 / seconds:.1f}", flush=True)
    if profiled:
        profile_steps(step, device)


def main():
    which, precision, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    if precision not in ("fp32", "bf16"):
        sys.exit("precision: fp32 or bf16")
    torch.backends.cudnn.benchmark = True
    torch.manual_seed(0)
    device = torch.device(os.environ.get("PEERS_DEVICE", "cuda"))
    if which == "deblur":
        deblur(precision, count, device, compiled=sys.argv[4:5] == ["compile"], profiled=sys.argv[4:5] == ["profile"])
        return
    if which == "fashion":
        x, y, model, optimizer, batch = pytorch_reference.fashion()
    else:
        x, y, model, optimizer, batch = pytorch_reference.reuters(sys.argv[4])
    limit = int(os.environ.get("MAX_TRAIN_SAMPLES", "0"))
    if limit:
        x, y = x[:limit], y[:limit]
    train_epochs(x, y, model, optimizer, batch, precision, count, device)


if __name__ == "__main__":
    main()
