"""Writes .npz files with numpy itself, for tests/npz_test.cpp.

Usage: /usr/bin/python3 write_npz.py OUT_DIR

- edge.npz / edge_compressed.npz: x is an object array of integer lists as
  Keras's reuters.npz holds them (np.savez / np.savez_compressed), with edge
  values (empty list, negative, 2**40, a tuple); y is int64.
- matrix.npz: x a 2-D int32 array, y uint8.
- tiny_reuters.npz: 300 short newswires of 5 topics, for an end-to-end run.
- edge.txt: the lists of edge.npz, one per line, then the labels.
"""
import os
import sys

import numpy as np

out = sys.argv[1]
lists = [[1, 2, 3], [], [70000, -5, 2 ** 40], (7, 8), list(range(300))]
x = np.empty(len(lists), dtype=object)
for i, seq in enumerate(lists):
    x[i] = seq
y = np.array([3, 0, 45, 1, 2], dtype=np.int64)
np.savez(os.path.join(out, "edge.npz"), x=x, y=y)
np.savez_compressed(os.path.join(out, "edge_compressed.npz"), x=x, y=y)
np.savez(os.path.join(out, "matrix.npz"), x=np.arange(12, dtype=np.int32).reshape(3, 4), y=np.array([1, 2, 255], dtype=np.uint8))
with open(os.path.join(out, "edge.txt"), "w") as f:
    for seq in lists:
        f.write(" ".join(str(v) for v in seq) + "\n")
    f.write(" ".join(str(v) for v in y) + "\n")

rng = np.random.RandomState(0)
topics = rng.randint(0, 5, size=300)
x = np.empty(300, dtype=object)
for i, topic in enumerate(topics):
    # Each topic has its own words, so a model can learn it quickly.
    x[i] = [int(w) for w in rng.randint(1 + 40 * topic, 41 + 40 * topic, size=rng.randint(5, 30))]
np.savez(os.path.join(out, "tiny_reuters.npz"), x=x, y=topics.astype(np.int64))
