#!/usr/bin/env python3
"""bench_tlb.py - cache or TLB (issue 32): mem/chase (huge pages), mem/chase_4k
(4 KiB pages) and a pointer chase written the way lmbench's lat_mem_rd is
(tests/lat_mem_rd_bench.c: one stride back, stride 64 and 128, 16 loads
unrolled, 4 KiB pages), side by side in one pmubench run over the sweep's
sizes (--sweep=full: every point).  Prints per size the ns per load of
each, chase_4k - chase (the TLB's share, with the two intervals), and
lat_mem_rd against chase_4k: agreed within 5 %, or why not.  The TLB reach
--topology reads from the CPU is printed beside.

Not a test (no verdict under load); run by hand on a quiet machine:
  PMUBENCH_EVENTS_DIR=events python3 tests/bench_tlb.py [--sweep=short] [BUILD_DIR]"""
import json
import os
import re
import subprocess
import sys
import tempfile

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = next((a for a in sys.argv[1:] if not a.startswith("-")), os.path.join(SRC, "build"))
PMB = os.path.join(BUILD, "tests", "lat_mem_rd_bench")
SWEEP = next((a for a in sys.argv[1:] if a.startswith("--sweep=")), "--sweep=full")


def main():
    with tempfile.TemporaryDirectory() as d:
        topo = subprocess.run([PMB, "--topology"], capture_output=True, text=True).stdout
        print("\n".join(l for l in topo.splitlines() if l.startswith(("  L", "TLB"))))
        out = os.path.join(d, "run.json")
        r = subprocess.run([PMB, SWEEP, "--filter=^(mem/chase|mem/chase_4k|lmbench/lat_mem_rd_(64|128))/",
                            "--format=json", "--out=" + out], capture_output=True, text=True)
        if r.returncode:
            sys.exit("pmubench failed: " + r.stderr[-500:])
        j = json.load(open(out))
    fig = {}
    for b in j["benchmarks"]:
        fam, size = b["name"].rsplit("/", 1)
        fig.setdefault(size, {})[fam] = (b.get("real_time"), b.get("ns_per_item_ci_lo"),
                                         b.get("ns_per_item_ci_hi"))
    print("\nload %s; ns per load (95 %% interval)" % j["context"].get("load_avg"))
    print("%-8s %-22s %-22s %-22s %-24s %s" % ("size", "chase (huge pages)", "chase_4k", "lat_mem_rd 64",
                                               "chase_4k - chase (TLB)", "lat_mem_rd 64/128 vs chase_4k"))

    def cell(x):
        return "-" if not x or x[0] is None else "%.2f [%s, %s]" % (
            x[0], "%.2f" % x[1] if x[1] is not None else "?", "%.2f" % x[2] if x[2] is not None else "?")

    def ws(size):
        m = re.match(r"(\d+)(KiB|MiB|GiB)", size)
        return int(m.group(1)) << {"KiB": 10, "MiB": 20, "GiB": 30}[m.group(2)] if m else 0
    for size in sorted(fig, key=ws):
        f = fig[size]
        c, c4, l64, l128 = (f.get(k) for k in ("mem/chase", "mem/chase_4k", "lmbench/lat_mem_rd_64",
                                                 "lmbench/lat_mem_rd_128"))
        tlb = "-"
        if c and c4 and None not in c + c4:
            # chase_4k - chase, its interval crosswise from the two.
            tlb = "%+.1f [%+.1f, %+.1f]" % (c4[0] - c[0], c4[1] - c[2], c4[2] - c[1])
        notes = []
        for name, l in (("64", l64), ("128", l128)):
            if not (l and c4 and c4[0]) or None in l + c4:
                continue
            ratio = l[0] / c4[0]
            overlap = l[1] <= c4[2] and c4[1] <= l[2]
            if abs(ratio - 1) <= 0.05 or overlap:
                notes.append("%s: %.2fx, agrees (%s)" % (name, ratio, "within 5 %" if abs(ratio - 1) <= 0.05
                                                          else "intervals overlap"))
            elif ratio < 1:
                # What differs between the two, not a cause measured: the
                # next address of lat_mem_rd is a constant stride away,
                # which a stride prefetcher can follow; mem/chase's random
                # cycle gives it nothing to follow.
                notes.append("%s: %.2fx, lower: its next line is a constant stride away (a prefetcher "
                             "can follow it), mem/chase's is random" % (name, ratio))
            else:
                notes.append("%s: %.2fx, higher, intervals apart" % (name, ratio))
        print("%-8s %-22s %-22s %-22s %-24s %s" % (size, cell(c), cell(c4), cell(l64), tlb, "; ".join(notes)))


main()
