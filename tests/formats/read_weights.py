"""Reads a .safetensors file by its specification (no safetensors package)
and a .npz with NumPy; prints one line per tensor: name, dtype, shape and
the values, so that a test compares them with what was written."""
import json
import struct
import sys
import zipfile

import numpy as np

SAFETENSORS_DTYPES = {"F32": "<f4", "F64": "<f8", "F16": "<f2", "I64": "<i8", "I32": "<i4", "U8": "|u1", "BOOL": "|b1"}


def safetensors(path):
    data = open(path, "rb").read()
    (length,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8:8 + length])
    body = data[8 + length:]
    assert (8 + length) % 8 == 0, "data not 8-byte aligned"
    end = 0
    out = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        begin, stop = entry["data_offsets"]
        assert begin == end, "tensors not contiguous"
        end = stop
        array = np.frombuffer(body[begin:stop], dtype=SAFETENSORS_DTYPES[entry["dtype"]]).reshape(entry["shape"])
        out[name] = array
    assert end == len(body), "bytes after the last tensor"
    return out, header.get("__metadata__", {})


def npz(path):
    assert zipfile.ZipFile(path).testzip() is None, "a zip member's CRC is wrong"
    with np.load(path) as archive:
        return {name: archive[name] for name in archive.files}, {}


def main():
    kind, path = sys.argv[1], sys.argv[2]
    arrays, metadata = safetensors(path) if kind == "safetensors" else npz(path)
    for key in sorted(metadata):
        print("metadata", key, len(metadata[key]))
    for name, array in arrays.items():
        values = ",".join(repr(v) for v in array.ravel().tolist())
        print(name, array.dtype.str, list(array.shape), values)


main()
