#!/usr/bin/env python3
"""lmbench's lat_mem_rd beside mem/chase under --backend=sim (issue 32):
valgrind's caches have no prefetcher, so every order of the walk (one
line back, two lines back, 4 KiB + 64 B back, a random cycle) and
mem/chase(_4k) count the same L1d misses per load: under 1 % of loads in
a working set a quarter of L1d, one per load (to 1 %) in one of four L1d
or more.  What
tests/bench_tlb.py times apart on hardware is then not a count of misses.
The loads and instructions per pass are the hand count of the code: the
chain's loads (one per item), plus at most two of the loop (its counter,
the walk's return) and at most five loop instructions per 16 loads.
Runs tests/lat_mem_rd_bench ($PMB_LAT_MEM_RD_BENCH).  Prints TAP."""
import json
import os
import re
import subprocess

from pmbtap import done, ok, sim_unavailable, skip

BENCH = os.environ.get("PMB_LAT_MEM_RD_BENCH")
FAMS = ("mem/chase", "mem/chase_4k", "lmbench/lat_mem_rd_64", "lmbench/lat_mem_rd_128",
        "lmbench/lat_mem_rd_far", "lmbench/lat_mem_rd_rand")
UNITS = {"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}


def size_of(text):
    m = re.match(r"(\d+)(KiB|MiB|GiB)$", text)
    return int(m.group(1)) * UNITS[m.group(2)] if m else None


def main():
    why = None if BENCH else "$PMB_LAT_MEM_RD_BENCH is not set to the built lat_mem_rd_bench"
    why = why or sim_unavailable()
    if why:
        skip("sim counts of lat_mem_rd and mem/chase", why)
        return
    topo = subprocess.run([BENCH, "--topology"], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"^\s+L1d\s+(\d+(?:KiB|MiB))\s", topo, re.M)
    ok(m, "--topology gives the L1d size (%s)" % topo[:200])
    if not m:
        return
    l1 = size_of(m.group(1))
    names = subprocess.run([BENCH, "--list", "--filter=^mem/chase/"], capture_output=True, text=True,
                           timeout=60).stdout.split()
    sizes = sorted({n.rsplit("/", 1)[1] for n in names}, key=size_of)
    small = [s for s in sizes if size_of(s) * 4 <= l1][:1]
    big = [s for s in sizes if size_of(s) >= 4 * l1][:1]
    if not small or not big:
        skip("sim counts of lat_mem_rd and mem/chase", "no sweep size a quarter of L1d (%s) and one of four "
             "L1d or more: %s" % (m.group(1), sizes))
        return
    r = subprocess.run([BENCH, "--backend=sim", "--format=json", "--filter=^(%s)/(%s|%s)$"
                        % ("|".join(FAMS), small[0], big[0])], capture_output=True, text=True, timeout=300)
    try:
        j = json.loads(r.stdout)
    except ValueError:
        j = None
    ok(r.returncode == 0 and j, "--backend=sim runs the six families at %s and %s (%d: %s)"
       % (small[0], big[0], r.returncode, r.stderr[-300:]))
    if not j:
        return
    h = j["context"].get("harness_overhead", {}).get("events", {})
    got = {b["name"]: b for b in j["benchmarks"]}
    for size, want in ((small[0], 0.0), (big[0], 1.0)):
        for fam in FAMS:
            b = got.get("%s/%s" % (fam, size))
            if not b:
                ok(False, "%s/%s ran" % (fam, size))
                continue
            ipp = b["items_per_pass"]
            miss = b.get("l1d_read_misses_per_item")
            # 1 %: what the harness touches between samples may evict a
            # few of a small set's lines; past L1 every load misses.
            ok(miss is not None and abs(miss - want) <= 0.01,
               "%s/%s: %.4f L1d misses per load, %s" % (fam, size, miss if miss is not None else float("nan"),
                                                         "one per load" if want else "under 1 %"))
            # Per pass as the code runs it: the harness's empty loop added back.
            loads = b["loads_per_item"] * ipp + h["loads"]["per_pass"]
            instr = b["instructions_per_item"] * ipp + h["instructions"]["per_pass"]
            ok(ipp - 1e-3 <= loads <= ipp + 2 + 1e-3,
               "%s/%s: %.2f loads per pass of %d items: the chain's, plus at most two of the loop"
               % (fam, size, loads, ipp))
            ok(ipp - 1e-3 <= instr <= ipp + 5 * ipp / 16 + 1e-3,
               "%s/%s: %.2f instructions per pass of %d loads: at most 5 of the loop per 16 loads"
               % (fam, size, instr, ipp))


main()
done()
