"""How long a clean build takes on P cores under Ninja's order and under
CMake's Makefiles' order, from the step times a real Ninja build measured.

A Ninja build directory holds every step's command (build.ninja) and the
time each took (.ninja_log). Replaying those times on P workers, each step
started as soon as it may and a worker is free, gives the build's length
under two orders over the same steps:
  ninja  a step waits for its own inputs only: a library's objects compile
         while the libraries it links against are still compiling;
  make   as CMake's Makefiles run: no step of a target starts before every
         target it depends on is complete, so each layer of the libraries
         (util, spec, config, models, runs, watch, train, ...) waits for
         the slowest file of the layer below.
Checked against a real build: the replayed Ninja order on as many workers
as the build had jobs should come out near its measured length (printed).

Usage: python3 build_makespan.py NINJA_BUILD_DIR [WORKERS ...]   (default 2 16)
"""
import collections
import heapq
import re
import sys


def read_statements(build_ninja):
    """{output: (rule, inputs)} from build.ninja; inputs take in the implicit
    and order-only ones, and the files a `phony` names."""
    text = open(build_ninja).read().replace("$\n", " ")
    statements = {}
    for line in text.splitlines():
        if not line.startswith("build "):
            continue
        head, _, tail = line[len("build "):].partition(": ")
        tail = tail.replace("||", "|")
        words = [w for w in tail.split() if w != "|"]
        rule, inputs = words[0], words[1:]
        for output in head.split():
            if output != "|":
                statements[output.replace("$:", ":")] = (rule, [i.replace("$:", ":") for i in inputs])
    return statements


def measured_steps(ninja_log):
    """{output: (start, end)} in seconds from the build's start, each
    output's newest line in .ninja_log (a build appends to it)."""
    steps = {}
    for line in open(ninja_log):
        if line.startswith("#"):
            continue
        start, end, _, output, _ = line.rstrip("\n").split("\t")
        steps[output] = (int(start) / 1000.0, int(end) / 1000.0)
    return steps


def short(step):
    """lib/models/CMakeFiles/trainer_models.dir/Unity/unity_0_cxx.cxx.o -> models/unity_0_cxx.cxx.o"""
    parts = step.split("/")
    return f"{parts[1]}/{parts[-1]}" if "Unity" in parts and len(parts) > 2 else parts[-1]


def target_of(rule):
    """CMake names its rules after the target: CXX_COMPILER__trainer_data_unscanned_Release."""
    match = re.match(r"[A-Z_]+?__(.+?)(_unscanned)?_[A-Za-z]+$", rule)
    return match.group(1) if match else None


def replay(times, waits_for, workers):
    """The build's length with `workers` at once, steps in name order when several may start."""
    done, running, clock = set(), [], 0.0
    pending = sorted(times)
    free = workers
    while pending or running:
        ready = [s for s in pending if waits_for[s] <= done]
        for step in ready[:free]:
            pending.remove(step)
            heapq.heappush(running, (clock + times[step], step))
            free -= 1
        clock, step = heapq.heappop(running)
        done.add(step)
        free += 1
    return clock


def main():
    build = sys.argv[1]
    counts = [int(w) for w in sys.argv[2:]] or [2, 16]
    statements = read_statements(f"{build}/build.ninja")
    measured = {s: span for s, span in measured_steps(f"{build}/.ninja_log").items() if s in statements}
    times = {s: end - start for s, (start, end) in measured.items()}

    # Each step's inputs, through phony edges, down to other measured steps.
    resolved = {}

    def steps_behind(node):
        if node in times:
            return {node}
        if node not in resolved:
            resolved[node] = set()
            rule, inputs = statements.get(node, ("", []))
            behind = set()
            if rule == "phony":
                for i in inputs:
                    behind |= steps_behind(i)
            resolved[node] = behind
        return resolved[node]

    own = {}
    for step in times:
        own[step] = set()
        for i in statements[step][1]:
            own[step] |= steps_behind(i)

    # Targets, and the targets each depends on (CMake's object-order phonies).
    target = {s: target_of(statements[s][0]) for s in times}
    by_target = collections.defaultdict(set)
    for step, name in target.items():
        by_target[name].add(step)
    depends = collections.defaultdict(set)
    for output, (rule, inputs) in statements.items():
        match = re.match(r"cmake_object_order_depends_target_(.+)$", output)
        if match and rule == "phony":
            for i in inputs:
                dep = re.match(r"cmake_object_order_depends_target_(.+)$", i)
                if dep:
                    depends[match.group(1)].add(dep.group(1))
    make_order = {}
    for step in times:
        make_order[step] = set(own[step])
        for dep in depends.get(target[step], ()):
            make_order[step] |= by_target.get(dep, set())

    longest = sorted(times.items(), key=lambda kv: -kv[1])[:3]
    print(f"{len(times)} steps, {sum(times.values()):.0f} s of work; the longest: "
          + ", ".join(f"{short(s)} {t:.0f} s" for s, t in longest))
    print(f"the build itself: {max(end for _, end in measured.values()):.0f} s to its last step's end")
    print(f"{'workers':>8} {'ninja order':>12} {'make order':>11} {'make / ninja':>13}")
    for workers in counts:
        ninja, make = replay(times, own, workers), replay(times, make_order, workers)
        print(f"{workers:>8} {ninja:>10.0f} s {make:>9.0f} s {make / ninja:>12.2f}x")


if __name__ == "__main__":
    main()
