#!/usr/bin/env python3
"""Figures of a run's last epoch, from its metrics.jsonl, for the bench scripts.

Usage: last_epoch.py METRICS_JSONL KEY [KEY ...]
Prints the last line's values of the KEYs, space-separated. A KEY of the
form A/B prints the ratio of two values (optimizer_seconds/train_seconds).
A key the line lacks (gpu_idle_for_data_fraction of a CPU run) prints nan.
"""
import json
import sys


def value(metrics, key):
    if "/" in key:
        numerator, denominator = key.split("/", 1)
        return value(metrics, numerator) / value(metrics, denominator)
    return metrics.get(key, float("nan"))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip())
    with open(sys.argv[1]) as lines:
        metrics = json.loads(lines.readlines()[-1])
    print(" ".join(str(value(metrics, key)) for key in sys.argv[2:]))


if __name__ == "__main__":
    main()
