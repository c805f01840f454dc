#!/usr/bin/env python3
"""Hardware counters.  Where they work: known per-item counts (add chain:
1 instruction, about 1 cycle; a coin-flip branch: 0.5 mispredictions),
events split over several groups, no estimated cycles.  Where they do not
(a VM without a virtual PMU): the honest fallback, i.e. said once, cycles
labelled estimated, software counters kept, and an event that could not be
counted shown without a value, never as a 0."""
import json
import os
import re
import shutil
import subprocess
import sys

from pmbtap import done, idlest_cpu, ok, run, run_json, skip  # noqa: E402

PMB = os.environ.get("PMUBENCH")
FAST = ["--samples=10", "--min-sample-time=200us"]
NOPMU = "hardware counters are not available"






def num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def bench(d, name):
    for b in (d or {}).get("benchmarks", []):
        if b.get("name") == name:
            return b
    return {}


def perf_counts_instructions():
    """True/False where perf(1) can tell whether instructions count here,
    None where it cannot (no perf, or a perf that does not run)."""
    if not shutil.which("perf"):
        return None
    try:
        p = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u", "true"],
                           capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    for line in p.stderr.splitlines():
        f = line.split(",")
        if len(f) >= 3 and f[2].startswith("instructions"):
            if re.fullmatch(r"[0-9.]+", f[0]):
                return True
            if f[0] in ("<not supported>", "<not counted>"):
                return False
    return None


if not PMB or not os.access(PMB, os.X_OK):
    print("1..0 # SKIP $PMUBENCH is not set to the built pmubench")
    sys.exit(0)

env = {k: v for k, v in os.environ.items() if k != "LIBPFM_FORCE_PMU"}

# ---- does this machine count? --------------------------------------------
r0, d = run_json("--filter=^calib/add_chain$", *FAST, env=env)
r, d0 = r0, d
if d is None:
    ok(False, "calib/add_chain JSON run (%d: %s)" % (r.returncode, r.stderr.strip()[-300:]))
    done()
ok(r.returncode == 0, "calib/add_chain with the default counters exits 0")
ctx = d["context"]
pmu = ctx.get("pmu") or {}
hw = pmu.get("hardware_counters_work")
ok(isinstance(hw, bool), "context pmu.hardware_counters_work is a boolean (%r)" % hw)
perf_says = perf_counts_instructions()
if perf_says is None:
    skip("pmubench agrees with perf stat on whether counters work", "perf(1) cannot tell here")
else:
    ok(perf_says == hw, "pmubench (%r) agrees with perf stat -e instructions:u (%r) on whether "
       "hardware counters work" % (hw, perf_says))
hw = hw is True
NOHW = "hardware counters do not work here (%s): %s" % (pmu.get("name"), ctx.get("fallback"))
HAVEHW = "hardware counters work here: no fallback to check"
hw_events = [e for e in ctx.get("events", []) if e.get("kind") == "hardware"]

# ---- where hardware counters work ----------------------------------------
HW_CHECKS = [
    "calib/add_chain: 1.0 +/- 0.05 instructions per item",
    "calib/add_chain: 0.8..1.5 cycles per item",
    "no estimated cycles where cycles are counted",
    "branch/sum_if/branchy/p50: 0.4..0.6 branch misses per item",
    "branch/sum_if/branchy/p0: under 0.05 branch misses per item",
    "events that do not fit one group are split into several",
    "every event has a value or a never-ran flag",
    "no estimated cycles in a split-group run",
]
if not hw:
    for what in HW_CHECKS:
        skip(what, NOHW)
else:
    r, d = run_json("--counters=instructions,cycles", "--filter=^calib/add_chain$", *FAST, env=env)
    b = bench(d, "calib/add_chain")
    ins, cyc = b.get("instructions_per_item"), b.get("cycles_per_item")
    ok(num(ins) and abs(ins - 1.0) <= 0.05, HW_CHECKS[0] + " (%r)" % ins)
    ok(num(cyc) and 0.8 <= cyc <= 1.5, HW_CHECKS[1] + " (%r)" % cyc)
    ok(b and "est_cycles_per_item" not in b and "est_cycles_estimated" not in b,
       HW_CHECKS[2] + " (est_cycles_per_item=%r)" % b.get("est_cycles_per_item"))

    r, d = run_json("--counters=branch-misses", "--filter=^branch/sum_if/branchy/p(0|50)$",
                    "--samples=10", "--min-sample-time=500us", env=env)
    m50 = bench(d, "branch/sum_if/branchy/p50").get("branch_misses_per_item")
    m0 = bench(d, "branch/sum_if/branchy/p0").get("branch_misses_per_item")
    ok(num(m50) and 0.4 <= m50 <= 0.6, HW_CHECKS[3] + " (%r)" % m50)
    ok(num(m0) and m0 < 0.05, HW_CHECKS[4] + " (%r)" % m0)

    # More events than the PMU has counters (at least 10): grow the list
    # from the sets, dropping any alias this PMU does not map.
    need = max(10, (pmu.get("generic_counters") or 0) + (pmu.get("fixed_counters") or 0) + 1)
    pool = ["dtlb-misses", "l1d-loads", "llc-loads", "br-inst-retired", "cache-references",
            "cache-misses", "stalls", "ref-cycles", "L1-dcache-loads", "dTLB-load-misses",
            "LLC-loads", "iTLB-load-misses", "L1-icache-load-misses", "branch-load-misses"]
    extra, d = [], None
    for _ in range(len(pool) + 2):
        lst = ",".join(["@branch", "@cache"] + extra)
        r, d = run_json("--counters=" + lst, "--filter=^calib/add_chain$", *FAST, env=env)
        if r.returncode == 2:
            bad = [p for p in extra if "'%s'" % p in r.stderr]
            if not bad:
                break
            extra = [p for p in extra if p not in bad]
            pool = [p for p in pool if p not in bad]
            d = None
            continue
        have = [e for e in (d or {}).get("context", {}).get("events", [])
                if e.get("kind") == "hardware"]
        left = [p for p in pool if p not in extra]
        if len(have) >= need or not left:
            break
        extra.append(left[0])
    c = (d or {}).get("context", {})
    evs = [e for e in c.get("events", []) if e.get("kind") == "hardware"]
    ok(len(evs) >= need and num(c.get("groups")) and c["groups"] > 1,
       HW_CHECKS[5] + " (%d hardware events, %r groups, --counters=%s)"
       % (len(evs), c.get("groups"), lst))
    b = bench(d, "calib/add_chain")
    lacking = [e.get("name") for e in c.get("events", [])
               if not num(b.get(e.get("key", "") + "_per_item"))
               and b.get(e.get("key", "") + "_never_ran") is not True]
    ok(b and not lacking, HW_CHECKS[6] + " (lacking: %r)" % lacking)
    ok(b and "est_cycles_per_item" not in b, HW_CHECKS[7])

# ---- the headline name resolves on any PMU; a typo fails with matches ----
r, dj = run_json("--counters=BR_MISP_RETIRED", "--filter=^calib/empty$", "--samples=10", env=env)
host = pmu.get("name") or ""
ok(r.returncode == 0 and dj is not None, "BR_MISP_RETIRED resolves on %s and runs (%d: %s)"
   % (host, r.returncode, r.stderr.strip()[-200:]))
evs = (dj or {}).get("context", {}).get("events", [])
enc = evs[0].get("encoding", "") if evs else ""
if "BR_MISP_RETIRED" in enc:
    ok(True, "on %s it is the PMU's own event (%s)" % (host, enc))
else:
    ok(enc.endswith("(as alias br-misp-retired)"),
       "on %s it is the portable alias br-misp-retired, said so in its encoding (%r)" % (host, enc))
r = run("--counters=BR_MISP_RETIRD", "--filter=^calib/empty$", "--samples=10", env=env)
lines = [l for l in r.stderr.splitlines() if l.strip()]
ok(r.returncode == 2, "a misspelt event exits 2 (%d)" % r.returncode)
ok(len(lines) == 1 and "BR_MISP_RETIRD" in lines[0] and "did you mean" in lines[0],
   "an unknown event gives one line naming it, with close matches: %r" % lines[:2])
ok(r.stdout == "", "nothing measured for an unknown event")

# ---- where hardware counters do not work: the honest fallback ------------
FB_CHECKS = [
    "context: hardware_counters_work false and a fallback named",
    "calib/add_chain: est. cycles labelled estimated, 0.6..1.6 per item",
    "software counters kept: task_clock_per_item, page_faults_per_item",
    "hardware events have no value and no group (never a 0 as a count)",
    "the no-PMU warning comes once on stderr and points to --backend=sim",
    "the no-PMU warning is recorded once in the context warnings",
    "skx BR_MISP_RETIRED:ALL_BRANCHES: runs (exit 0)",
    "skx: the context shows the skx encoding",
    "skx: the event is reported as not counted (no value)",
    "skx: the no-PMU warning comes once, naming the event",
    "skx: the CSV leaves the uncounted figure empty, not 0",
]
if hw:
    for what in FB_CHECKS:
        skip(what, HAVEHW)
else:
    b = bench(d0, "calib/add_chain")
    fb = ctx.get("fallback")
    ok(pmu.get("hardware_counters_work") is False and isinstance(fb, str) and fb.strip(),
       FB_CHECKS[0] + " (%r)" % fb)
    est = b.get("est_cycles_per_item")
    ok(b.get("status") == "ok" and b.get("est_cycles_estimated") is True and num(est)
       and 0.6 <= est <= 1.6, FB_CHECKS[1] + " (%r, estimated=%r)" % (est, b.get("est_cycles_estimated")))
    ok(num(b.get("task_clock_per_item")) and num(b.get("page_faults_per_item")),
       FB_CHECKS[2] + " (%r, %r)" % (b.get("task_clock_per_item"), b.get("page_faults_per_item")))
    shown = [e["key"] for e in hw_events
             if e.get("key", "") + "_per_item" in b or e.get("group") is not None]
    ok(hw_events and not shown, FB_CHECKS[3] + " (%d events; shown: %r)" % (len(hw_events), shown))
    w = [l for l in r0.stderr.splitlines() if NOPMU in l]
    ok(len(w) == 1 and "--backend=sim" in w[0], FB_CHECKS[4] + " (%d)" % len(w))
    cw = [x for x in ctx.get("warnings", []) if NOPMU in x]
    ok(len(cw) == 1, FB_CHECKS[5] + " (%d)" % len(cw))

    senv = dict(env, LIBPFM_FORCE_PMU="skx")
    ev = "BR_MISP_RETIRED:ALL_BRANCHES"
    key = "BR_MISP_RETIRED_ALL_BRANCHES"
    r, d = run_json("--counters=" + ev, "--filter=^calib/empty$", "--samples=10", env=senv)
    ok(r.returncode == 0 and d is not None, FB_CHECKS[6] + " (%d)" % r.returncode)
    c = (d or {}).get("context", {})
    e = [x for x in c.get("events", []) if x.get("name") == ev]
    ok(len(e) == 1 and e[0].get("pmu") == "skx" and e[0].get("kind") == "hardware"
       and e[0].get("encoding", "").startswith("skx::" + ev),
       FB_CHECKS[7] + " (%r)" % (e[0].get("encoding") if e else None))
    b = bench(d, "calib/empty")
    col = b.get("raw_samples", {}).get(key)
    ok(b.get("status") == "ok" and key + "_per_item" not in b
       and (e and e[0].get("group") is None or b.get(key + "_never_ran") is True)
       and (col is None or all(v is None for v in col)),
       FB_CHECKS[8] + " (%r, group %r)" % (b.get(key + "_per_item"), e[0].get("group") if e else None))
    w = [l for l in r.stderr.splitlines() if NOPMU in l]
    ok(len(w) == 1 and ev in w[0] and "--backend=sim" in w[0], FB_CHECKS[9] + " (%d)" % len(w))
    r = run("--counters=" + ev, "--filter=^calib/empty$", "--samples=10", "--format=csv", env=senv)
    rows = [l.split(",") for l in r.stdout.splitlines() if l.strip()]
    col = rows[0].index(key + "_per_item") if rows and key + "_per_item" in rows[0] else -1
    vals = [x[col] for x in rows[1:] if col >= 0 and len(x) == len(rows[0])]
    ok(r.returncode == 0 and col >= 0 and vals == [""], FB_CHECKS[10] + " (%r)" % vals)

done()
