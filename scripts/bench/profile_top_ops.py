"""The operators a training step spends its time in, from a profile trainer
wrote (train.profile: RUN_DIR/profile-E.json, Chrome trace JSON).

Each event's self time is its duration less that of the events nested in it
on the same thread; operators are grouped by name and shown with their share
of the profiled steps' time (the trainer/step ranges). Printed as a Markdown
table, the first rows the phases trainer names (trainer/forward, ...).
A GPU run's profile (Kineto's trace) also holds the device's kernels, copies
and fills: a second table gives their time on the device a step, and how
busy that kept the GPU over the steps' wall time.

Usage: /usr/bin/python3 profile_top_ops.py PROFILE.json [TOP]
"""
import collections
import json
import sys


def self_times(events):
    """Self time of every complete event, nested events subtracted."""
    by_thread = collections.defaultdict(list)
    for event in events:
        if event.get("ph") == "X":
            by_thread[(event.get("pid"), event.get("tid"))].append(event)
    totals = collections.Counter()
    for thread_events in by_thread.values():
        thread_events.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []  # [event, time of its children]
        for event in thread_events:
            while stack and event["ts"] >= stack[-1][0]["ts"] + stack[-1][0]["dur"]:
                done, children = stack.pop()
                totals[done["name"]] += done["dur"] - children
            if stack:
                stack[-1][1] += event["dur"]
            stack.append([event, 0.0])
        while stack:
            done, children = stack.pop()
            totals[done["name"]] += done["dur"] - children
    return totals


DEVICE_CATEGORIES = ("kernel", "gpu_memcpy", "gpu_memset")


def device_table(device_events, steps, step_time, top):
    """The device's work a step: kernels, copies and fills by name."""
    totals = collections.Counter()
    for event in device_events:
        totals[event["name"]] += event["dur"]
    busy = sum(totals.values())
    print()
    print(f"GPU: {busy / steps / 1000:.2f} ms of kernels, copies and fills a step, "
          f"{100 * busy / step_time:.0f} % of the steps' wall time")
    print()
    print("| on the device | share of its time | ms a step |")
    print("| --- | --- | --- |")
    for name, total in totals.most_common(top):
        shown = name if len(name) <= 100 else name[:97] + "..."
        print(f"| {shown.replace('|', '/')} | {100 * total / busy:.1f} % | {total / steps / 1000:.3f} |")


def main():
    trace = json.load(open(sys.argv[1]))
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 12
    events = trace["traceEvents"] if isinstance(trace, dict) else trace
    # Kineto repeats each range on the GPU's timeline (gpu_user_annotation):
    # the host's events alone below, the device's in their own table.
    device_events = [e for e in events if e.get("ph") == "X" and e.get("cat") in DEVICE_CATEGORIES]
    events = [e for e in events if e.get("cat") not in DEVICE_CATEGORIES and not e.get("cat", "").startswith("gpu_")]
    step_time = sum(e["dur"] for e in events if e.get("name") == "trainer/step")
    if step_time <= 0:
        sys.exit(f"{sys.argv[1]}: no trainer/step ranges; was it written by train.profile?")
    steps = sum(1 for e in events if e.get("name") == "trainer/step")
    phases = collections.Counter()
    for event in events:
        if event.get("name", "").startswith("trainer/") and event["name"] != "trainer/step":
            phases[event["name"]] += event["dur"]
    print(f"{steps} steps, {step_time / steps / 1000:.2f} ms a step")
    print()
    print("| phase | share of step |")
    print("| --- | --- |")
    for name, total in phases.most_common():
        print(f"| {name} | {100 * total / step_time:.1f} % |")
    print()
    print("| operator (self time) | share of step | ms a step |")
    print("| --- | --- | --- |")
    ops = [(n, t) for n, t in self_times(events).most_common() if not n.startswith("trainer/")]
    for name, total in ops[:top]:
        print(f"| {name} | {100 * total / step_time:.1f} % | {total / steps / 1000:.3f} |")
    if device_events:
        device_table(device_events, steps, step_time, max(top, 25))


if __name__ == "__main__":
    main()
