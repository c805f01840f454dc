#!/usr/bin/env python3
"""The tier table names a tier by what was measured (issue 32 point 2): a
simulated mem/chase sweep (exact miss counts) on a made-up topology whose
last level valgrind simulates at 1 MiB steps from 512 KiB to 2 MiB; its
saved run re-rendered by `pmubench report` with the topology's L3 said to
be 16 MiB (the level holds under half of that: "past L3 from 2MiB") and
128 KiB (over twice: "L3's cost up to 512KiB"), each with its causes said
once; the run as measured claims neither.  Prints TAP."""
import json
import os
import tempfile

from pmbtap import done, ok, require_pmubench, run, sim_unavailable, skip

require_pmubench()
TOPO = "pack:1 l3:1(size=1MiB) l2:1(size=256KiB) l1d:1(size=32KiB) core:1 pu:1"
LESS = ("  a level holding under half of what hwloc says: the usual causes, not told apart here: a VM's share "
        "of a shared cache, cache partitioning (Intel CAT, AMD QoS), other tenants' use")
MORE = ("  a level holding over twice what hwloc says: the usual causes, not told apart here: a victim "
        "(exclusive) or non-inclusive level after it whose cost is too close to this one's to step, or a "
        "wrong size from hwloc (a VM's made-up topology)")


def report(data, l2, l3, tag):
    """The console report of the saved run with hwloc's L2 and L3 sizes
    replaced: its lines."""
    for caches in (data["context"]["caches"], data["context"]["topology"]["caches"]):
        for c in caches:
            c["size"] = {2: l2, 3: l3}.get(c["level"], c["size"])
    path = os.path.join(tmp, tag + ".json")
    with open(path, "w") as f:
        json.dump(data, f)
    r = run("report", path, env=dict(os.environ, COLUMNS="200"))
    ok(r.returncode == 0, "%s: report exits 0 (%d: %s)" % (tag, r.returncode, r.stderr[-200:]))
    return r.stdout.splitlines()


why = sim_unavailable()
if why:
    skip("sweep capacity under sim", why)
else:
    tmp = tempfile.mkdtemp(prefix="pmb-capacity-")
    out = os.path.join(tmp, "run.json")
    r = run("--backend=sim", "--cpu=0", "--topology-source=" + TOPO, "--filter=^mem/chase/(16KiB|128KiB|512KiB|2MiB)$",
            "--format=json", "--out=" + out)
    ok(r.returncode == 0, "sim sweep exits 0 (%d: %s)" % (r.returncode, r.stderr[-300:]))
    with open(out) as f:
        saved = f.read()
    data = json.loads(saved)
    llc = {b["name"]: b.get("llc_read_misses_per_item") for b in data["benchmarks"]}
    ok(llc.get("mem/chase/512KiB") == 0 and llc.get("mem/chase/2MiB", 0) > 0.99,
       "simulated last level: no misses at 512 KiB, one per item at 2 MiB %r" % llc)
    lines = report(json.loads(saved), 256 << 10, 1 << 20, "as-measured")
    ok(not any("by measurement" in l or "a level holding" in l for l in lines),
       "hwloc's sizes as simulated: no tier named by measurement")

    lines = report(json.loads(saved), 256 << 10, 16 << 20, "less")
    want = "        by measurement: past L3 from 2MiB (the step from ~0, 512KiB to 2MiB); hwloc says L3 16MiB"
    at = lines.index(want) if want in lines else -1
    ok(at > 0 and lines[at - 1].startswith("  L3    median "),
       "hwloc's L3 said to be 16 MiB: the L3 tier named by measurement under its row: %r" % want)
    flat = " ".join(l.strip() for l in lines)   # the console wraps at its width
    ok(flat.count(LESS.strip()) == 1 and MORE.strip() not in flat, "the causes of 'less' said once, none of 'more'")

    lines = report(json.loads(saved), 64 << 10, 128 << 10, "more")
    want = "        by measurement: L3's cost up to 512KiB (the step from ~0, 512KiB to 2MiB); hwloc says L3 128KiB"
    at = lines.index(want) if want in lines else -1
    ok(at > 0 and lines[at - 1].startswith("  L3    median "),
       "hwloc's L3 said to be 128 KiB: L3's cost measured to 512 KiB, under its row: %r" % want)
    flat = " ".join(l.strip() for l in lines)
    ok(flat.count(MORE.strip()) == 1 and LESS.strip() not in flat, "the causes of 'more' said once, none of 'less'")
done()
