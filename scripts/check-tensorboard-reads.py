"""Loads a run directory with TensorBoard's own reader (EventAccumulator) and
checks that it finds the tags trainer writes: the per-step and per-epoch
scalars and the config text. Prints the tags it read. For machines that have
TensorBoard (the GPU machine's image does; Debian 12 does not package it).

Usage: check-tensorboard-reads.py RUN_DIR      (exit 0: every tag read)
"""
import sys

from tensorboard.backend.event_processing.event_accumulator import EventAccumulator


def main():
    run = sys.argv[1]
    accumulator = EventAccumulator(run, size_guidance={"scalars": 0, "tensors": 0, "images": 0})
    accumulator.Reload()
    tags = accumulator.Tags()
    scalars, tensors = set(tags.get("scalars", [])), set(tags.get("tensors", []))
    print("scalars:", " ".join(sorted(scalars)))
    print("tensors:", " ".join(sorted(tensors)))
    print("images:", " ".join(sorted(tags.get("images", []))))
    wanted = {"step/loss", "step/lr", "step/samples_per_second", "epoch/loss", "epoch/val_loss", "epoch/lr",
              "step_time/forward", "memory/peak_mib"}
    missing = sorted(wanted - scalars) + ([] if "config" in tensors else ["config (text)"])
    for tag in sorted(scalars):
        events = accumulator.Scalars(tag)
        print(f"{tag}: {len(events)} points, last step {events[-1].step} value {events[-1].value:.6g}")
    if missing:
        print("missing:", " ".join(missing))
        sys.exit(1)
    print(f"TensorBoard read all {len(scalars)} scalar tags and the config")


if __name__ == "__main__":
    main()
