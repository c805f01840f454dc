#!/usr/bin/env python3
"""The first run (issue 27): `pmubench` with no arguments, against today's
dense sweep and fixed schedule, side by side in one run.  Not a test: it is
run by hand, and its figures are this machine's at this moment.

    python3 tests/bench_firstrun.py [--old=BINARY] [--args='...'] [--keep=DIR]

NEW is $PMUBENCH (default build/src/pmubench) with no arguments.  OLD is
--old=BINARY with no arguments (an older build), or else NEW with
`--sweep=full --precision=0` (every sweep point, 30 samples or the
budget's: the schedule before adaptive sampling).  --args adds arguments to
both (e.g. --args='--cpu=1').  Each runs with --save=FILE.json, so the
console report is what a user sees (its lines are counted) and the figures
are read from the file.

Printed: wall time, CPU time (user + system), peak RSS (the child's
ru_maxrss) against the largest working set measured, console lines,
benchmarks and samples, and how many benchmarks each stop reason ended.
Then point 7: for every benchmark both ran, whether NEW's ns_per_item lies
within OLD's 95 % interval; those that do not are listed as ratios
NEW/OLD [OLD's interval / OLD's median].  Noise on a shared machine moves
OLD's own interval as much: rerun before calling a row a loss of accuracy.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run(cmd, save):
    """Run cmd with --save=save; returns (wall s, cpu s, peak RSS bytes,
    stdout lines, exit status, stderr)."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd + ["--save=" + save], stdout=out, stderr=err)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        lines = out.read().decode(errors="replace").count("\n")
        errtext = err.read().decode(errors="replace")
    rc = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024, lines, rc, errtext


def load(path):
    try:
        with open(path) as f:
            return {b["name"]: b for b in json.load(f)["benchmarks"]
                    if b.get("repetition_index", 0) == 0}
    except (OSError, ValueError, KeyError) as e:
        sys.exit("bench_firstrun: cannot read %s: %s" % (path, e))


def summary(b):
    ws = max((x.get("working_set_bytes", 0) for x in b.values()), default=0)
    stops = collections.Counter(x.get("stopped_by", "-") for x in b.values())
    samples = sum(x.get("samples", 0) for x in b.values())
    return ws, stops, samples


def mib(x):
    return "%.0f MiB" % (x / 2**20)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", help="an older pmubench, run with no arguments")
    ap.add_argument("--args", default="", help="arguments added to both runs")
    ap.add_argument("--keep", help="keep the two result files in this folder")
    a = ap.parse_args()
    new = os.environ.get("PMUBENCH", os.path.join(ROOT, "build", "src", "pmubench"))
    extra = a.args.split()
    sides = [("default", [new] + extra),
             ("old" if a.old else "--sweep=full --precision=0",
              ([a.old] if a.old else [new, "--sweep=full", "--precision=0"]) + extra)]
    os.environ.setdefault("PMUBENCH_EVENTS_DIR", os.path.join(ROOT, "events"))
    folder = a.keep or tempfile.mkdtemp(prefix="bench_firstrun-")
    os.makedirs(folder, exist_ok=True)
    got = []
    for label, cmd in sides:
        path = os.path.join(folder, ("new" if label == "default" else "old") + ".json")
        print("running %s ..." % " ".join(cmd), file=sys.stderr, flush=True)
        wall, cpu, rss, lines, rc, err = run(cmd, path)
        if rc not in (0, 1):
            sys.exit("bench_firstrun: %s exited %d: %s" % (" ".join(cmd), rc, err.strip()[-400:]))
        got.append((label, wall, cpu, rss, lines, load(path)))
    with open("/proc/loadavg") as f:
        loadavg = f.read().split()[0]
    print("the first run, side by side (load average %s after the runs; %d cores)"
          % (loadavg, os.cpu_count()))
    print("%-28s %8s %8s %10s %10s %9s %6s %6s %8s  %s" % (
        "run", "wall s", "CPU s", "peak RSS", "largest WS", "RSS/WS", "lines", "bench", "samples",
        "stopped by"))
    for label, wall, cpu, rss, lines, b in got:
        ws, stops, samples = summary(b)
        print("%-28s %8.1f %8.1f %10s %10s %9s %6d %6d %8d  %s" % (
            label, wall, cpu, mib(rss), mib(ws), "%.2f" % (rss / ws) if ws else "-", lines, len(b),
            samples, ", ".join("%s %d" % kv for kv in sorted(stops.items()))))
    (_, nw, _, _, _, nb), (_, ow, _, _, _, ob) = got
    print("wall time: default / old = %.2f" % (nw / ow))
    # Point 7: NEW's per-item time within OLD's interval, benchmark by benchmark.
    common = [k for k in nb if k in ob and "ns_per_item" in nb[k] and "ns_per_item" in ob[k]]
    out = []
    for k in common:
        n, o = nb[k], ob[k]
        lo, hi, m = o.get("ns_per_item_ci_lo"), o.get("ns_per_item_ci_hi"), o["ns_per_item"]
        if lo is None or hi is None or not m:
            continue
        if not lo <= n["ns_per_item"] <= hi:
            out.append((k, n["ns_per_item"] / m, lo / m, hi / m))
    print("ns_per_item of the default run within the old run's 95 %% interval: %d of %d"
          % (len(common) - len(out), len(common)))
    for k, r, lo, hi in sorted(out, key=lambda x: -abs(x[1] - 1)):
        print("  outside: %-40s default/old %.3f, old's interval [%.3f, %.3f]" % (k, r, lo, hi))
    if a.keep:
        print("results: %s" % folder)


if __name__ == "__main__":
    main()
