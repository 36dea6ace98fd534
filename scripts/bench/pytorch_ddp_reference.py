"""PyTorch's own DDP over Gloo: the reference for trainer's data-parallel runs.

The Reuters Conv1D model of pytorch_reference.py (same data rebuild, NAdam,
lr 0.001), trained by WORLD processes on the CPU, each with THREADS intra-op
threads and BATCH samples per step, through torch.nn.parallel.
DistributedDataParallel (25 MB buckets, all-reduce overlapped with backward)
and a DistributedSampler: what a Python user would write.

Usage: /usr/bin/python3 pytorch_ddp_reference.py WORLD THREADS BATCH EPOCHS CORPUS_DIR
Prints one line per epoch from rank 0: epoch, train seconds, samples/s (all
ranks), loss (rank 0's mean).
"""
import os
import socket
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pytorch_reference import reuters  # noqa: E402


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def worker(rank, world, threads, batch, epochs, corpus, port):
    torch.set_num_threads(threads)
    os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = "127.0.0.1", str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    torch.manual_seed(0)
    x, y, model, _, _ = reuters(corpus)
    model = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=25)
    optimizer = torch.optim.NAdam(model.parameters(), lr=0.001, eps=1e-7)
    dataset = torch.utils.data.TensorDataset(x, y)
    sampler = torch.utils.data.distributed.DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True)
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch, sampler=sampler)
    for epoch in range(1, epochs + 1):
        sampler.set_epoch(epoch)
        dist.barrier()
        start, total, seen = time.perf_counter(), 0.0, 0
        for inputs, labels in loader:
            optimizer.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(inputs), labels)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(labels)
            seen += len(labels)
        dist.barrier()
        seconds = time.perf_counter() - start
        if rank == 0:
            print(f"{epoch} {seconds:.3f} {seen * world / seconds:.1f} {total / seen:.6f}", flush=True)
    dist.destroy_process_group()


def main():
    world, threads, batch, epochs = (int(a) for a in sys.argv[1:5])
    corpus = sys.argv[5]
    mp.spawn(worker, args=(world, threads, batch, epochs, corpus, free_port()), nprocs=world)


if __name__ == "__main__":
    main()
