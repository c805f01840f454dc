#!/usr/bin/env python3
"""Working-set sweeps driven by the hwloc topology: the mem/ instances,
their tiers and sizes against the caches hwloc reports, huge pages on and
off, the console tier column and per-tier summary, --topology, and the
latency step from every cache tier to DRAM (within one run's intervals)."""
import json
import os
import re
import shutil
import subprocess
import sys

from pmbtap import Load, diag, done, emulated_timing, emulator, idlest_cpu, ok, run, run_json, skip  # noqa: E402

PMB = os.environ.get("PMUBENCH")
FAST = ["--samples=10", "--min-sample-time=200us"]
TIER_RANK = {"L1": 1, "L2": 2, "L3": 3, "L4": 4, "DRAM": 5}
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}






def parse_size(label):
    """'48KiB' -> (49152, exact); '1.5MiB' -> (1572864, False)."""
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(B|KiB|MiB|GiB|TiB)", label)
    if not m:
        return None, False
    exact = "." not in m.group(1)
    return float(m.group(1)) * UNITS[m.group(2)], exact


def size_matches(ws, label):
    want, exact = parse_size(label)
    if want is None:
        return False
    if exact:
        return ws == int(want)
    # %.4g: four significant digits.
    return abs(ws - want) <= want * 5e-4


def esc(s):
    return re.escape(s)


if not PMB or not os.access(PMB, os.X_OK):
    print("1..0 # SKIP $PMUBENCH is not set to the built pmubench")
    sys.exit(0)

# ---- the instances -------------------------------------------------------
r = run("--list", "--filter=^mem/")
names = r.stdout.split()
ok(r.returncode == 0, "--list --filter='^mem/' exits 0 (%d)" % r.returncode)
fams = {}
bad = []
for nm in names:
    m = re.fullmatch(r"mem/(chase|chase_4k|read|random_read)/(\S+)", nm)
    if not m or parse_size(m.group(2))[0] is None:
        bad.append(nm)
        continue
    fams.setdefault(m.group(1), []).append(m.group(2))
ok(not bad, "every mem/ instance is mem/{chase,chase_4k,read,random_read}/SIZE: %r" % bad[:5])
ok(sorted(fams) == ["chase", "chase_4k", "random_read", "read"],
   "mem/chase, mem/chase_4k, mem/read and mem/random_read all have instances: %r" % sorted(fams))
sizes = {f: [parse_size(s)[0] for s in v] for f, v in fams.items()}
ok(all(len(v) >= 3 and v == sorted(set(v)) for v in sizes.values()),
   "each sweep has several sizes, distinct and listed smallest first")
ok(len({tuple(v) for v in sizes.values()}) == 1,
   "the four sweeps share the same working-set points")
if "chase" not in fams:
    done()
chase = sorted(fams["chase"], key=lambda s: parse_size(s)[0])

# ---- --topology ----------------------------------------------------------
r = run("--topology")
ok(r.returncode == 0, "--topology exits 0 (%d)" % r.returncode)
topo_caches = []
for line in r.stdout.splitlines():
    m = re.match(r"\s+L([0-9])[di]?\s+(\S+)\s+line\s+([0-9]+) B", line)
    if m:
        topo_caches.append((int(m.group(1)), m.group(2), int(m.group(3))))
ok(len(topo_caches) >= 1 and all(parse_size(c[1])[0] for c in topo_caches),
   "--topology prints the data caches with sizes and lines: %r" % topo_caches)
ok([c[0] for c in topo_caches] == sorted({c[0] for c in topo_caches}),
   "--topology lists each cache level once, innermost first")
ok(re.search(r"^PMU .*hardware counters (work|do NOT work)", r.stdout, re.M) is not None,
   "--topology says whether hardware counters work")

# ---- which sweep points to run -------------------------------------------
# The smallest point, the largest point inside each outer cache level, and a
# DRAM point: the smallest at least twice the last-level cache (the largest
# points cost a minute each on a small machine; twice the LLC is enough to
# miss it).
pick = [chase[0]]
cache_bytes = [parse_size(c[1])[0] for c in topo_caches]
for i in range(1, len(cache_bytes)):
    inside = [s for s in chase if cache_bytes[i - 1] < parse_size(s)[0] <= cache_bytes[i]]
    if inside and inside[-1] not in pick:
        pick.append(inside[-1])
dram = chase[-1]
if cache_bytes:
    past = [s for s in chase if parse_size(s)[0] >= 2 * cache_bytes[-1]]
    if past:
        dram = past[0]
if dram not in pick:
    pick.append(dram)
filt = "--filter=^mem/chase/(%s)$" % "|".join(esc(s) for s in pick)

# ---- a JSON sweep --------------------------------------------------------
with Load() as load:
    r, d = run_json(filt, *FAST)
ok(r.returncode == 0 and d is not None,
   "JSON run of mem/chase %s exits 0 with JSON (%d)" % (pick, r.returncode))
if d is None:
    done()
ctx = d.get("context", {})
bench = {b.get("name"): b for b in d.get("benchmarks", [])}
ok(sorted(bench) == sorted("mem/chase/" + s for s in pick),
   "one result per selected point: %r" % sorted(bench))
topo = ctx.get("topology") or {}
caches = topo.get("caches") or []
ok(len(caches) >= 1 and all(c.get("size", 0) > 0 and c.get("line_size", 0) > 0 for c in caches),
   "context topology has the caches with sizes and lines: %r" % [(c.get("level"), c.get("size")) for c in caches])
levels = [c.get("level") for c in caches]
ok(levels == sorted(set(levels)) and [c["size"] for c in caches] == sorted(c["size"] for c in caches),
   "context caches: one per level, growing outwards")
ok([(c.get("level"), c.get("size")) for c in caches] ==
   [(c[0], int(parse_size(c[1])[0])) for c in topo_caches],
   "--topology and the JSON context report the same caches")
gb = ctx.get("caches") or []
ok([(c.get("level"), c.get("size")) for c in gb] == [(c.get("level"), c.get("size")) for c in caches],
   "the Google Benchmark context caches agree with the topology caches")
ok(ctx.get("hugepages") is True, "context records huge pages on by default")
by_level = {c.get("level"): c.get("size") for c in caches}
llc = caches[-1]["size"] if caches else 0

order = []
for s in pick:
    b = bench.get("mem/chase/" + s)
    if not b:
        continue
    nm = b["name"]
    ok(b.get("status") == "ok", "%s: status ok (%s)" % (nm, b.get("status")))
    tier = b.get("tier")
    ws = b.get("working_set_bytes")
    ok(tier in TIER_RANK, "%s: tier %r is one of L1..L4, DRAM" % (nm, tier))
    ok(isinstance(ws, int) and size_matches(ws, s),
       "%s: working_set_bytes %r matches the name" % (nm, ws))
    if tier in TIER_RANK and isinstance(ws, int):
        if tier == "DRAM":
            fits = ws > llc
        else:
            lv = TIER_RANK[tier]
            fits = lv in by_level and ws <= by_level[lv] and \
                (lv == 1 or ws > by_level.get(lv - 1, 0))
        ok(fits, "%s: tier %s agrees with the caches hwloc reports (%r)" % (nm, tier, by_level))
        order.append((ws, TIER_RANK[tier]))
    hp = b.get("huge_page_fraction")
    ok(isinstance(hp, (int, float)) and 0 <= hp <= 1,
       "%s: huge_page_fraction %r in [0, 1]" % (nm, hp))
order.sort()
ok(len(order) >= 2 and all(a[1] <= b[1] for a, b in zip(order, order[1:])),
   "tiers are ordered by working-set size: %r" % order)
ok(len({t for _, t in order}) >= 2, "the points span more than one tier")

lo = bench.get("mem/chase/" + pick[0], {})
hi = bench.get("mem/chase/" + dram, {})
ok(lo.get("tier") == "L1", "the smallest point is in L1 (%r)" % lo.get("tier"))
ok(hi.get("tier") == "DRAM", "mem/chase/%s is a DRAM point (%r)" % (dram, hi.get("tier")))
# A chase's item is one dependent load: from memory at the DRAM point, a
# hit in its tier at the cache points, and a hit in a cache costs less than
# a trip to memory past all of them.  So the DRAM point's 95 % interval
# must lie wholly above that of every cache point of the same run whose
# misses go to another cache: L1's and the largest point inside each outer
# level but the last.  The last level's point is left out: at that level's
# edge (and in a cache that other cores and, on a VM, other guests share)
# part of its loads go to memory too, so it may come near DRAM's without
# pmubench being wrong.  Judged where the run had the machine to itself.
# Was "DRAM at least 5x L1", a factor chosen, not derived, and blind to the
# tiers between.


def interval(b):
    lo, hi = b.get("ns_per_item_ci_lo"), b.get("ns_per_item_ci_hi")
    return (lo, hi) if all(isinstance(v, (int, float)) and v > 0 for v in (lo, hi)) else None


dram_iv = interval(hi)
last = "L%d" % topo_caches[-1][0] if topo_caches else None
below = [(s, bench.get("mem/chase/" + s, {})) for s in pick if s != dram]
over = [(s, b.get("tier"), interval(b)) for s, b in below if b.get("tier") != last or s == pick[0]]
diag("DRAM %s %r; %s; %s" % (dram, dram_iv, ", ".join("%s (%s) %r" % x for x in over), load.said))
what = "the DRAM chase (%s) costs more per item than the cache points %s of the run, " \
    "beyond both 95 %% intervals" % (dram, [s for s, _, _ in over])
if emulated_timing():
    skip(what, emulated_timing())
elif load.busy:
    skip(what, load.why)
else:
    bad = [(s, t, iv) for s, t, iv in over if not (dram_iv and iv and dram_iv[0] > iv[1])]
    ok(dram_iv and over and not bad, what + " (DRAM %r; not beyond: %r)" % (dram_iv, bad))

# ---- huge pages off and on -----------------------------------------------
big = [s for s in chase if parse_size(s)[0] >= 4 << 20]
if not big:
    skip("--hugepages=off gives no huge pages", "no sweep point of 4 MiB or more")
else:
    p = big[0]
    try:
        thp = open("/sys/kernel/mm/transparent_hugepage/enabled").read()
    except OSError:
        thp = "[never]"
    # qemu-user returns 0 from madvise() without passing it to the kernel
    # (measured: qemu 7.2), so the buffer gets what THP does unasked.
    emu = emulator() and "under emulation (%s) madvise() does not reach the kernel, and THP here is %s" \
        % (os.path.basename(emulator()), thp.strip())
    for mode in ("off", "on"):
        r, d = run_json("--filter=^mem/chase/%s$" % esc(p), "--hugepages=" + mode, *FAST)
        bl = (d or {}).get("benchmarks") or [{}]
        hp = bl[0].get("huge_page_fraction")
        ok(r.returncode == 0 and d is not None and d["context"].get("hugepages") is (mode == "on"),
           "--hugepages=%s runs and is recorded (%d)" % (mode, r.returncode))
        if mode == "off" and emu and "[always]" in thp:
            skip("mem/chase/%s --hugepages=off: huge_page_fraction is 0" % p, emu)
        elif mode == "off":
            ok(hp == 0, "mem/chase/%s --hugepages=off: huge_page_fraction %r is 0" % (p, hp))
        elif "[never]" in thp:
            ok(hp == 0, "mem/chase/%s --hugepages=on with THP [never]: fraction %r is 0" % (p, hp))
        elif emu and "[madvise]" in thp:
            skip("mem/chase/%s --hugepages=on: huge_page_fraction > 0" % p, emu)
        else:
            ok(isinstance(hp, (int, float)) and 0 < hp <= 1,
               "mem/chase/%s --hugepages=on (THP %s): huge_page_fraction %r > 0"
               % (p, thp.strip(), hp))

# ---- the console tier column and summary ---------------------------------
# The cached points only (the DRAM point was measured above).
small = [s for s in pick if s != dram] or pick[:1]
r = run("--filter=^mem/chase/(%s)$" % "|".join(esc(s) for s in small), *FAST)
out = r.stdout
ok(r.returncode == 0, "console run exits 0 (%d)" % r.returncode)
head = [l for l in out.splitlines() if l.startswith("benchmark")]
ok(head and re.search(r"\btier\b", head[0]) is not None, "the table has a tier column: %r" % head[:1])
for s in small:
    nm = "mem/chase/" + s
    row = [l for l in out.splitlines() if l.split()[:1] == [nm]]
    want = bench.get(nm, {}).get("tier")
    ok(row and len(row[0].split()) > 1 and row[0].split()[1] == want,
       "console row %s shows tier %s: %r" % (nm, want, row[:1]))
ok("mem/chase across the cache tiers" in out, "the per-tier summary follows the table")
# Where hwloc has no caches (some VMs) the sizes are assumed, and the line
# says so (tested with a cache-less topology at the end).
BOUND = ("boundaries ASSUMED (hwloc reports no data caches):" if topo.get("caches_assumed")
         else "boundaries hwloc reports:")
bound = [l for l in out.splitlines() if BOUND in l]
ok(len(bound) == 1, "the summary has one line %r" % BOUND)
if bound:
    missing = ["L%d %s" % (lv, sz) for lv, sz, _ in topo_caches
               if not re.search(r"\bL%d %s\b" % (lv, esc(sz)), bound[0])]
    ok(not missing, "the boundaries line names every cache with its size: %r" % bound[0].strip())
tiers_seen = {bench.get("mem/chase/" + s, {}).get("tier") for s in small}
summ = out.split("mem/chase across the cache tiers", 1)[-1]
ok(all(re.search(r"^\s+%s\s+median" % t, summ, re.M) for t in tiers_seen if t),
   "the summary has a median line per tier run: %r" % sorted(t for t in tiers_seen if t))
# Each reported boundary is compared with the data: a step there, none, or
# no points around it, one line per cache level.
verdicts = [re.search(r"^\s+L%d %s: (the data step here too|no step here|no sweep points)" % (lv, esc(sz)),
                      summ, re.M) for lv, sz, _ in topo_caches]
ok(topo_caches and all(verdicts), "one line per cache compares hwloc's boundary with the data")

# ---- a topology without caches: the boundaries are assumed ---------------
# A synthetic topology with no cache objects: pmubench falls back to assumed
# sizes (sysconf's, else its defaults), and the sweep summary must not
# credit them to hwloc.  Simulated, so it needs no PMU and is quick.
NOCACHE = ["--backend=sim", "--cpu=0", "--topology-source=pack:1 core:2 pu:1", "--samples=3",
           "--hugepages=off", "--seed=7"]
if not shutil.which("valgrind"):
    skip("cache-less topology: the boundaries are said to be assumed", "valgrind is not in PATH")
else:
    # Its sweep points follow the assumed sizes; the two smallest are quick.
    pts = run("--list", "--filter=^mem/chase/", *NOCACHE).stdout.split()
    r = run("--filter=^(%s)$" % "|".join(esc(p) for p in pts[:2]), *NOCACHE)
    out = r.stdout
    ok(r.returncode == 0,
       "cache-less topology: a mem/chase run exits 0 (%d) %s" % (r.returncode, r.stderr[-300:] if r.returncode else ""))
    lines = [l.strip() for l in out.splitlines() if l.strip().startswith("boundaries")]
    ok(len(lines) == 1 and lines[0].startswith("boundaries ASSUMED (hwloc reports no data caches): L1 "),
       "cache-less topology: the boundaries are said to be assumed: %r" % lines)
    ok("boundaries hwloc reports" not in out, "cache-less topology: no sizes credited to hwloc")

done()
