"""torch.mm in Python, timed exactly as `trainer bench` times its product.

The same inputs (seed 1234, uniform floats made on the CPU in float32 and
then moved and cast), one warm-up into a preallocated output, then REPEATS
timed products each ended by a device synchronisation; the median is
reported. scripts/bench/gpu_rows.sh puts this beside `trainer bench` on the
same GPU and the same LibTorch.

Usage: python3 torch_matmul.py DEVICE MxKxN DTYPE REPEATS
Prints: median_seconds best_seconds gflops
"""
import sys
import time

import torch


def main():
    device = torch.device(sys.argv[1])
    m, k, n = (int(v) for v in sys.argv[2].split("x"))
    dtype = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[sys.argv[3]]
    repeats = int(sys.argv[4])
    sync = torch.cuda.synchronize if device.type == "cuda" else (lambda: None)
    torch.manual_seed(1234)
    a = torch.rand(m, k).to(device, dtype)
    b = torch.rand(k, n).to(device, dtype)
    product = torch.empty(m, n, device=device, dtype=dtype)
    with torch.no_grad():
        torch.mm(a, b, out=product)
        sync()
        seconds = []
        for _ in range(repeats):
            start = time.perf_counter()
            torch.mm(a, b, out=product)
            sync()
            seconds.append(time.perf_counter() - start)
    seconds.sort()
    median = seconds[len(seconds) // 2]
    print(f"{median:.6f} {seconds[0]:.6f} {2.0 * m * k * n / median / 1e9:.1f}")


if __name__ == "__main__":
    main()
