"""Reads a TensorBoard event file the way a reader that is not trainer would.

Checks the TFRecord framing itself (lengths, masked CRC-32C of length and
data, computed here from the definition), then decodes every record with
the Python code protoc generated from lib/tensorboard/event.proto, and prints
what it found as JSON:

  {"records": N, "file_version": "brain.Event:2", "restarts": [step, ...],
   "scalars": {tag: [[step, value], ...]}, "texts": {tag: text},
   "images": {tag: [[step, height, width, colorspace, png_bytes], ...]}}

Exits 1 naming the offset of the first bad record.

Usage: read_events.py EVENT_PB2_DIR EVENT_FILE
"""
import json
import struct
import sys


def crc32c(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def masked(crc):
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def records(data):
    offset = 0
    while offset < len(data):
        if offset + 12 > len(data):
            sys.exit(f"truncated header at offset {offset}")
        header = data[offset:offset + 8]
        (length,) = struct.unpack("<Q", header)
        (length_crc,) = struct.unpack("<I", data[offset + 8:offset + 12])
        if masked(crc32c(header)) != length_crc:
            sys.exit(f"bad length CRC at offset {offset}")
        body = data[offset + 12:offset + 12 + length]
        if len(body) != length or offset + 16 + length > len(data):
            sys.exit(f"truncated record at offset {offset}")
        (body_crc,) = struct.unpack("<I", data[offset + 12 + length:offset + 16 + length])
        if masked(crc32c(body)) != body_crc:
            sys.exit(f"bad data CRC at offset {offset}")
        yield body
        offset += 16 + length


def main():
    sys.path.insert(0, sys.argv[1])
    import event_pb2  # noqa: E402 (generated at build time)

    with open(sys.argv[2], "rb") as f:
        data = f.read()
    out = {"records": 0, "file_version": None, "restarts": [], "scalars": {}, "texts": {}, "images": {}}
    for body in records(data):
        event = event_pb2.Event()
        event.ParseFromString(body)
        out["records"] += 1
        what = event.WhichOneof("what")
        if what == "file_version":
            out["file_version"] = event.file_version
        elif what == "session_log" and event.session_log.status == event_pb2.SessionLog.START:
            out["restarts"].append(event.step)
        elif what == "summary":
            for value in event.summary.value:
                kind = value.WhichOneof("value")
                if kind == "simple_value":
                    out["scalars"].setdefault(value.tag, []).append([event.step, value.simple_value])
                elif kind == "tensor" and value.metadata.plugin_data.plugin_name == "text":
                    out["texts"][value.tag] = value.tensor.string_val[0].decode("utf-8")
                elif kind == "image":
                    image = value.image
                    is_png = image.encoded_image_string.startswith(b"\x89PNG\r\n\x1a\n")
                    out["images"].setdefault(value.tag, []).append(
                        [event.step, image.height, image.width, image.colorspace,
                         len(image.encoded_image_string) if is_png else 0])
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
