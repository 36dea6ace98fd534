"""Writes a PyTorch model's state_dict as PyTorch users save it, and its
outputs, for tests/train/initial_weights_test.cpp: a .safetensors file
(written by the format's specification, as safetensors.torch.save_file
writes it: that package is not in Debian 12) and an .npz (numpy.savez).
Prints the model's outputs (3 x 3) for inputs 0..11 as a 3 x 4 batch, one value a
line.

Usage: pytorch_weights.py OUT_STEM
"""
import json
import struct
import sys

import numpy
import torch

torch.manual_seed(3)
model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.ReLU(), torch.nn.Linear(8, 3))
state = {name: tensor.detach().contiguous() for name, tensor in model.state_dict().items()}

header, offset, blobs = {}, 0, []
for name, tensor in state.items():
    data = tensor.numpy().astype("<f4").tobytes()
    header[name] = {"dtype": "F32", "shape": list(tensor.shape), "data_offsets": [offset, offset + len(data)]}
    offset += len(data)
    blobs.append(data)
header["__metadata__"] = {"format": "pt"}
text = json.dumps(header).encode()
with open(sys.argv[1] + ".safetensors", "wb") as out:
    out.write(struct.pack("<Q", len(text)) + text + b"".join(blobs))
numpy.savez(sys.argv[1] + ".npz", **{name: tensor.numpy() for name, tensor in state.items()})

with torch.no_grad():
    outputs = model(torch.arange(12, dtype=torch.float32).reshape(3, 4))
for value in outputs.flatten().tolist():
    print(repr(value))
