#!/usr/bin/env python3
"""What reading the counters costs per sample, from user space and by read(),
side by side (not a test: a benchmark of pmubench's own harness).

    tests/bench_readpath.py            this machine (a PMU that allows user
                                       reads: x86 rdpmc, or arm64 with
                                       kernel.perf_user_access=1)
    tests/bench_readpath.py --guest    the emulated aarch64 machine of
                                       tests/aarch64 (sets perf_user_access
                                       there; run tests/aarch64/setup.sh first)

For each path (--read=self, --read=syscall) it runs calib/add_chain with
the same counters and prints: the measured cost of one sample's reads
(group_read_ns), the harness overhead per sample in instructions and in ns
(the empty loop's fixed cost per sample, the same that is subtracted from
every benchmark), the instructions per item (the same on both paths), the
shortest --min-sample-time the path allows, and how many samples of that
length fit in a second with their reads."""
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ARGS = ["--counters=instructions,cycles", "--filter=^calib/add_chain$", "--samples=30",
        "--min-sample-time=1ns", "--format=json"]


def run_local(mode):
    pmb = os.environ.get("PMUBENCH") or os.path.join(HERE, "..", "build", "src", "pmubench")
    return subprocess.run([pmb, "--read=" + mode, *ARGS], capture_output=True, text=True, timeout=600)


def main():
    guest = "--guest" in sys.argv[1:]
    g = None
    if guest:
        sys.path.insert(0, HERE)
        import pmbguest
        g = pmbguest.Guest(smp=1)
        g.sh("echo 1 > /proc/sys/kernel/perf_user_access")
    rows = {}
    try:
        for mode in ("self", "syscall"):
            r = g.run(["pmubench", "--read=" + mode, *ARGS]) if g else run_local(mode)
            if r.returncode != 0:
                print("--read=%s: exit %d: %s" % (mode, r.returncode, r.stderr.strip()[-300:]))
                return 1
            d = json.loads(r.stdout)
            c = d["context"]
            b = [x for x in d["benchmarks"] if x["name"] == "calib/add_chain"][0]
            ho = c["harness_overhead"]
            ns = b.get("raw_samples", {}).get("ns", [])
            mean_ns = sum(ns) / len(ns) if ns else float("nan")
            rows[mode] = [
                c.get("read_path"),
                c.get("group_read_ns"),
                ho.get("events", {}).get("instructions", {}).get("per_sample"),
                ho.get("ns_per_sample"),
                b.get("instructions_per_item"),
                c.get("min_sample_time_ns", 0) / 1e3,
                1e9 / (mean_ns + (c.get("group_read_ns") or 0)),
            ]
    finally:
        if g:
            g.close()
    names = ["read path", "reads per sample (ns)", "harness overhead per sample (instructions)",
             "harness overhead per sample (ns)", "calib/add_chain instructions per item",
             "shortest sample allowed (us)", "samples per second at that length"]
    fmt = ["%s", "%.0f", "%.0f", "%.0f", "%.5f", "%.0f", "%.0f"]
    print("%-44s %12s %12s" % ("", "--read=self", "--read=syscall"))
    for i, name in enumerate(names):
        cells = [(fmt[i] % rows[m][i]) if rows[m][i] is not None else "n/a" for m in ("self", "syscall")]
        print("%-44s %12s %12s" % (name, cells[0], cells[1]))
    print("(%s)" % ("the emulated aarch64 machine: instructions exact, time is the emulator's" if guest
                    else "this machine"))
    return 0


sys.exit(main())
