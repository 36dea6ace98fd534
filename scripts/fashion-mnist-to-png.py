#!/usr/bin/python3
"""Writes Debian's Fashion-MNIST (dataset-fashion-mnist) as folders of PNG
files, one subfolder per class, the layout `dataset: image_folder` reads:

    OUT/train/<class>/<n>.png   60,000 images
    OUT/test/<class>/<n>.png    10,000 images

configs/fashion_mnist_folder.yaml trains on them. Class folders are named
NN_name (00_t-shirt_top ... 09_ankle_boot), so that sorted by name they keep
the IDX files' label numbers. OUT appears whole or not at all: the files are
written into OUT.partial, renamed at the end.

Usage: scripts/fashion-mnist-to-png.py OUT [--limit N] [--source DIR]
  --limit N   the first N images of each split only (tests)
  --source    the folder of the four IDX files (default
              /usr/share/datasets/fashion-mnist)
Needs python3-numpy and python3-pil (scripts/install-deps.sh installs them).
"""
import argparse
import gzip
import os
import shutil
import struct
import sys

import numpy as np
from PIL import Image

CLASSES = ["t-shirt_top", "trouser", "pullover", "dress", "coat", "sandal", "shirt", "sneaker", "bag", "ankle_boot"]


def read_idx(path):
    with gzip.open(path, "rb") if path.endswith(".gz") else open(path, "rb") as f:
        data = f.read()
    rank = data[3]
    dims = struct.unpack(">" + "I" * rank, data[4:4 + 4 * rank])
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * rank).reshape(dims)


def find(source, stem):
    for name in (stem + ".gz", stem):
        if os.path.exists(os.path.join(source, name)):
            return os.path.join(source, name)
    sys.exit(f"fashion-mnist-to-png: no {stem}[.gz] in {source} (sudo apt-get install dataset-fashion-mnist)")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out")
    parser.add_argument("--limit", type=int, default=0)
    parser.add_argument("--source", default="/usr/share/datasets/fashion-mnist")
    args = parser.parse_args()
    out = args.out.rstrip("/")
    partial = out + ".partial"
    if os.path.exists(out):
        sys.exit(f"fashion-mnist-to-png: {out} exists; remove it first")
    shutil.rmtree(partial, ignore_errors=True)
    for split, prefix in (("train", "train"), ("test", "t10k")):
        images = read_idx(find(args.source, prefix + "-images-idx3-ubyte"))
        labels = read_idx(find(args.source, prefix + "-labels-idx1-ubyte"))
        count = min(args.limit, len(labels)) if args.limit else len(labels)
        for number, name in enumerate(CLASSES):
            os.makedirs(os.path.join(partial, split, f"{number:02d}_{name}"))
        for i in range(count):
            folder = f"{labels[i]:02d}_{CLASSES[labels[i]]}"
            Image.fromarray(images[i], mode="L").save(os.path.join(partial, split, folder, f"{i:05d}.png"))
        print(f"fashion-mnist-to-png: {count} {split} images")
    os.rename(partial, out)
    print(f"fashion-mnist-to-png: {out}")


main()
