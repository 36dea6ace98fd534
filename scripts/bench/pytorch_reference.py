"""The idiomatic PyTorch-in-Python training loop trainer is compared against.

Same models, data, batch sizes, optimizers and thread count as
configs/fashion_mnist_cnn.yaml and configs/reuters_conv1d.yaml, on the same
data (Debian's Fashion-MNIST; the Reuters-21578 corpus rebuilt into Keras's
set the way trainer does it).

Usage: /usr/bin/python3 pytorch_reference.py fashion THREADS [EPOCHS]   (MAX_TRAIN_SAMPLES=N: the first N)
       /usr/bin/python3 pytorch_reference.py reuters THREADS EPOCHS CORPUS_DIR
       /usr/bin/python3 pytorch_reference.py dump fashion|reuters OUT_DIR [CORPUS_DIR]
Prints one line per epoch: epoch, train seconds, samples/s, loss. `dump`
writes the training set as raw x.bin, y.bin and shape.txt for
scripts/bench/minimal_loop.cpp, so that all three loops train on one data set.
REFERENCE_DEVICE=cuda trains on the first GPU: the model lives there and
each batch is copied to it, as the PyTorch tutorials do. Fashion-MNIST is
read from $TRAINER_DATA_DIR/fashion-mnist where that exists, as trainer does.
"""
import gzip
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


def fashion():
    root = os.path.join(os.environ.get("TRAINER_DATA_DIR", ""), "fashion-mnist")
    if not os.environ.get("TRAINER_DATA_DIR") or not os.path.isdir(root):
        root = "/usr/share/datasets/fashion-mnist"
    with gzip.open(os.path.join(root, "train-images-idx3-ubyte.gz")) as f:
        images = np.frombuffer(f.read(), np.uint8, offset=16).reshape(-1, 1, 28, 28)
    with gzip.open(os.path.join(root, "train-labels-idx1-ubyte.gz")) as f:
        labels = np.frombuffer(f.read(), np.uint8, offset=8)
    x = torch.from_numpy(images.astype(np.float32) / 255.0)
    y = torch.from_numpy(labels.astype(np.int64))
    model = nn.Sequential(
        nn.Conv2d(1, 20, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(20, 20, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(980, 10))
    return x, y, model, torch.optim.SGD(model.parameters(), lr=0.01), 100


class ReutersNet(nn.Module):
    def __init__(self, vocabulary):
        super().__init__()
        self.embedding = nn.Embedding(vocabulary, 7)
        self.conv1 = nn.Conv1d(7, 64, 5)
        self.conv2 = nn.Conv1d(64, 32, 3)
        self.dense = nn.Linear(73 * 32, 46)

    def forward(self, tokens):
        x = self.embedding(tokens).transpose(1, 2)
        x = F.max_pool1d(F.relu(self.conv1(x)), 2)
        x = F.max_pool1d(F.relu(self.conv2(x)), 2)
        return self.dense(x.flatten(1))


def reuters(corpus):
    # The same rebuild of Keras's set from Reuters-21578 that trainer does
    # (README "Data sets"), padded to 300 words, Keras's split.
    import glob
    import re
    filters = '!"#$%&()*+,-./:;<=>?@[\\]^_`{|}~\t\n'
    table = str.maketrans(filters, " " * len(filters))
    wires = []
    for path in sorted(glob.glob(os.path.join(corpus, "reut2-*.sgm"))):
        text = open(path, encoding="latin-1").read()
        for record in re.findall(r"<REUTERS.*?</REUTERS>", text, re.S):
            block = re.search(r"<TOPICS>(.*?)</TOPICS>", record, re.S)
            topics = re.findall(r"<D>(.*?)</D>", block.group(1)) if block else []
            if not topics:
                continue
            at = record.find("<BODY>")
            body = "" if at < 0 else record[at + 6:record.find("</", at + 6)]
            words = "".join(chr(ord(c) + 32) if "A" <= c <= "Z" else c for c in body.translate(table))
            wires.append((topics[0], [w for w in words.split(" ") if w]))
    counts = {}
    for topic, _ in wires:
        counts[topic] = counts.get(topic, 0) + 1
    wires = [(t, w) for t, w in wires if counts[t] >= 15]
    word_counts, topic_ids = {}, {}
    for topic, words in wires:
        topic_ids.setdefault(topic, len(topic_ids))
        for w in words:
            word_counts[w] = word_counts.get(w, 0) + 1
    ranked = sorted(word_counts, key=lambda w: -word_counts[w])  # stable: ties by first occurrence
    index = {w: i + 1 for i, w in enumerate(ranked)}
    order = np.arange(len(wires))
    np.random.RandomState(113).shuffle(order)
    x = np.zeros((len(wires), 300), dtype=np.int64)
    for row, i in enumerate(order):
        seq = ([1] + [index[w] + 3 for w in wires[i][1]])[-300:]
        x[row, 300 - len(seq):] = seq
    y = np.array([topic_ids[wires[i][0]] for i in order], dtype=np.int64)
    train = int(len(wires) * 0.8)
    x, y = torch.from_numpy(x[:train]), torch.from_numpy(y[:train])
    model = ReutersNet(int(x.max()) + 1)
    return x, y, model, torch.optim.NAdam(model.parameters(), lr=0.001, eps=1e-7), 32


def dump(which, out, corpus=None):
    x, y = (fashion() if which == "fashion" else reuters(corpus))[:2]
    os.makedirs(out, exist_ok=True)
    x.numpy().tofile(os.path.join(out, "x.bin"))
    y.numpy().tofile(os.path.join(out, "y.bin"))
    with open(os.path.join(out, "shape.txt"), "w") as f:
        f.write(" ".join(str(d) for d in x.shape) + "\n")


def main():
    if sys.argv[1] == "dump":
        dump(sys.argv[2], sys.argv[3], sys.argv[4] if len(sys.argv) > 4 else None)
        return
    which, threads = sys.argv[1], int(sys.argv[2])
    epochs = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    x, y, model, optimizer, batch = fashion() if which == "fashion" else reuters(sys.argv[4])
    limit = int(os.environ.get("MAX_TRAIN_SAMPLES", "0"))
    if limit:
        x, y = x[:limit], y[:limit]
    device = torch.device(os.environ.get("REFERENCE_DEVICE", "cpu"))
    model.to(device)
    # The optimizer was made before the move; Module.to moves parameters in
    # place, so its references stay valid.
    loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(x, y), batch_size=batch, shuffle=True)
    for epoch in range(1, epochs + 1):
        model.train()
        start, total, seen = time.perf_counter(), 0.0, 0
        for inputs, labels in loader:
            inputs, labels = inputs.to(device), labels.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(inputs), labels)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(labels)
            seen += len(labels)
        if device.type == "cuda":
            torch.cuda.synchronize()
        seconds = time.perf_counter() - start
        print(f"{epoch} {seconds:.3f} {seen / seconds:.1f} {total / seen:.6f}", flush=True)


if __name__ == "__main__":
    main()
