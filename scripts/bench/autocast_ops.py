"""What autocast adds to a training step: two profiles trainer wrote
(train.profile) of the same steps, one in fp32 and one under autocast, and
the operators (and, from a GPU's trace, the device's kernels, copies and
fills) whose number a step differs between them. Counts, not times: what a
step launches does not depend on the machine, and on a GPU whose small
kernels each cost a few microseconds the count is what a small model pays.

Usage: /usr/bin/python3 autocast_ops.py FP32_PROFILE.json HALF_PROFILE.json [TOP]
"""
import collections
import json
import sys

DEVICE_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")


def counts(path):
    """Operators and device work a step, by name, and the steps profiled."""
    trace = json.load(open(path))
    events = [e for e in (trace["traceEvents"] if isinstance(trace, dict) else trace) if e.get("ph") == "X"]
    steps = sum(1 for e in events if e.get("name") == "trainer/step")
    if steps == 0:
        sys.exit(f"{path}: no trainer/step ranges; was it written by train.profile?")
    host = collections.Counter(e["name"] for e in events
                               if e.get("cat") not in DEVICE_CATEGORIES and not e.get("cat", "").startswith("gpu_")
                               and not e["name"].startswith("trainer/"))
    device = collections.Counter(e["name"] for e in events if e.get("cat") in DEVICE_CATEGORIES)
    return steps, host, device


def table(title, plain, half, plain_steps, half_steps, top):
    names = set(plain) | set(half)
    rows = [(name, plain[name] / plain_steps, half[name] / half_steps) for name in names]
    rows = [r for r in rows if abs(r[2] - r[1]) >= 0.5]
    rows.sort(key=lambda r: -abs(r[2] - r[1]))
    total_plain = sum(plain.values()) / plain_steps
    total_half = sum(half.values()) / half_steps
    print(f"{title}: {total_plain:.0f} a step in fp32, {total_half:.0f} under autocast "
          f"({total_half - total_plain:+.0f})")
    print()
    print("| name | fp32 a step | autocast a step | difference |")
    print("| --- | --- | --- | --- |")
    for name, a, b in rows[:top]:
        shown = name if len(name) <= 90 else name[:87] + "..."
        print(f"| {shown.replace('|', '/')} | {a:.1f} | {b:.1f} | {b - a:+.1f} |")
    print()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    top = int(sys.argv[3]) if len(sys.argv) > 3 else 12
    plain_steps, plain_host, plain_device = counts(sys.argv[1])
    half_steps, half_host, half_device = counts(sys.argv[2])
    table("operators on the host", plain_host, half_host, plain_steps, half_steps, top)
    if plain_device or half_device:
        table("kernels, copies and fills on the device", plain_device, half_device, plain_steps, half_steps, top)


if __name__ == "__main__":
    main()
