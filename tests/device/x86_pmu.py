#!/usr/bin/env python3
"""x86_pmu.py - the known-answer checks of x86-pmu.sh (issue 30): runs a
built pmubench on this machine's x86 PMU and prints one table, a line per
check (PASS, FAIL or SKIP, the figure, the bound, the reason).  Every
figure is read from pmubench's JSON (--format=json), never from the
inputs; the one text report read is --self-check's table, which has no
JSON.  Where the PMU is missing or perf_event_open is refused, every check
is SKIP with the reason found.  Exit status 0 when no check FAILed, 1
otherwise, 2 for bad usage.

Run it through x86-pmu.sh, which builds pmubench, the imul benchmark and
the hog, and passes them here."""
import argparse
import json
import os
import platform
import re
import statistics
import subprocess
import sys
import tempfile

from x86_machine import (SYSFS, cpu_model, default_cpu, hybrid_pmus, no_pmu_reason, num,
                         pmu_type_of, read_text)

TIMEOUT = 180      # one pmubench run, at most (the slowest is the chase sweep)


# ---- the checks, in the table's order: (key, what, bound) ------------------
CHECKS = [
    ("add_ins", "add chain: instructions per add", "1.00 +-2 %"),
    ("add_cyc", "add chain: cycles per add", "1.00 +-2 %"),
    ("imul", "imul chain: cycles per imul", "3.00 +-5 %"),
    ("l1", "L1 pointer chase: cycles per load", "4 to 5"),
    ("l2", "L2 pointer chase: cycles per load", "11 to 17"),
    ("misp", "sum_if branchy p50: mispredictions per item", "0.45 to 0.55"),
    ("penalty", "sum_if p50: cycles per misprediction", "10 to 30"),
    ("read_agree", "rdpmc vs read(): instructions per sample", "+-1 count"),
    ("read_cost", "harness overhead per sample: rdpmc, read()", "rdpmc < read()"),
    ("split", "more events than counters: split groups", "exact, none scaled"),
    ("mux", "forced multiplexing: marked, median", "marked, +-2 %"),
    ("dis_rate", "--disasm: samples for count/period", ">= 50 %"),
    ("dis_hot", "--disasm: hottest of sum_if branchy p50", "branch, its load, skid"),
    ("dis_report", "--disasm: pmubench report of the saved run", "byte for byte"),
    ("selfcheck", "--self-check verdicts", "every one ok"),
    ("hybrid", "hybrid: core type and its PMU", "PMU of the core"),
]
WHAT = {k: w for k, w, _ in CHECKS}
BOUND = {k: b for k, _, b in CHECKS}


class Table:
    """The result lines, printed in CHECKS' order whatever order they come in."""

    def __init__(self):
        self.rows = {}

    def put(self, key, result, figure, reason, bound=None):
        self.rows[key] = (result, figure, bound or BOUND[key], reason)

    def passed(self, key, cond, figure, reason_ok, reason_bad, bound=None):
        self.put(key, "PASS" if cond else "FAIL", figure, reason_ok if cond else reason_bad, bound)

    def skip(self, key, reason, figure="-"):
        self.put(key, "SKIP", figure, reason)

    def skip_rest(self, reason):
        for key, _, _ in CHECKS:
            if key not in self.rows:
                self.skip(key, reason)

    def print(self):
        """The table, each column as wide as its widest cell (the reason
        last, whole): a line per check, the header naming the columns."""
        lines = [("check", "result", "figure", "bound", "reason")]
        for key, what, _ in CHECKS:
            result, figure, bound, reason = self.rows.get(key, ("SKIP", "-", BOUND[key], "not run"))
            lines.append((what, result, figure, bound, " ".join(str(reason).split())))
        width = [max(len(x[i]) for x in lines) for i in range(4)]
        for i, x in enumerate(lines):
            print("  ".join(c.ljust(w) for c, w in zip(x, width)) + "  " + x[4])
            if i == 0:
                print("-" * (sum(width) + 2 * len(width) + len(x[4])))
        n = {r: sum(1 for v in self.rows.values() if v[0] == r) for r in ("PASS", "FAIL", "SKIP")}
        print("%d PASS, %d FAIL, %d SKIP" % (n["PASS"], n["FAIL"], n["SKIP"]))
        return n["FAIL"]


# ---- small helpers ----------------------------------------------------------
def bench(d, name):
    for b in (d or {}).get("benchmarks", []):
        if b.get("name") == name:
            return b
    return {}


def fmt(v, digits=3):
    return ("%.*f" % (digits, v)) if num(v) else "n/a"


class Pmubench:
    """The pmubench under test, pinned to one core."""

    def __init__(self, path, cpu):
        self.path, self.cpu = path, cpu

    def argv(self, *args):
        pin = ["--cpu=%d" % self.cpu] if self.cpu is not None and not any(
            a.startswith("--cpu=") for a in args) else []
        return [self.path, *pin, *args]

    def run(self, *args, timeout=TIMEOUT, env=None):
        try:
            return subprocess.run(self.argv(*args), capture_output=True, text=True, timeout=timeout, env=env)
        except subprocess.TimeoutExpired as e:
            return subprocess.CompletedProcess(e.cmd, 124, e.stdout or "", "timed out after %d s" % timeout)

    def json(self, *args, timeout=TIMEOUT):
        """(CompletedProcess, parsed JSON or None)."""
        r = self.run(*args, "--format=json", timeout=timeout)
        try:
            return r, json.loads(r.stdout)
        except ValueError:
            return r, None


def tail(r, n=200):
    return " ".join((r.stderr or "").split())[-n:]


# ---- the checks ---------------------------------------------------------------
def check_add(t, pmb):
    """calib/add_chain with cycles and instructions: 1 of each per add."""
    r, d = pmb.json("--counters=cycles,instructions", "--filter=^calib/add_chain$")
    b = bench(d, "calib/add_chain")
    ins, cyc = b.get("instructions_per_item"), b.get("cycles_per_item")
    t.passed("add_ins", num(ins) and abs(ins - 1) <= 0.02, fmt(ins, 4),
             "instructions_per_item of calib/add_chain", "instructions_per_item of calib/add_chain (%s)" % tail(r))
    t.passed("add_cyc", num(cyc) and abs(cyc - 1) <= 0.02 and "est_cycles_per_item" not in b, fmt(cyc, 4),
             "cycles_per_item of calib/add_chain, counted",
             "cycles_per_item of calib/add_chain (est. %r)" % b.get("est_cycles_per_item"))
    return b


def check_imul(t, pmb, so):
    if not so:
        t.skip("imul", "no C compiler to build tests/device/imul_chain.c")
        return
    r, d = pmb.json("--load=" + so, "--counters=cycles,instructions", "--filter=^x86check/imul_chain$")
    b = bench(d, "x86check/imul_chain")
    cyc = b.get("cycles_per_item")
    t.passed("imul", num(cyc) and abs(cyc - 3) <= 0.15, fmt(cyc),
             "cycles_per_item of 64 dependent imuls a pass (%s instructions per imul)"
             % fmt(b.get("instructions_per_item")),
             "cycles_per_item of tests/device/imul_chain.c (%d: %s)" % (r.returncode, tail(r)))


def size_of(name):
    """Bytes of a sweep point's name (mem/chase/48KiB), or None."""
    m = re.search(r"/(\d+(?:\.\d+)?)(B|KiB|MiB|GiB)$", name)
    if not m:
        return None
    return float(m.group(1)) * {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m.group(2)]


def check_chase(t, pmb, ctx):
    """The mem/chase points pmubench assigns to L1 and L2 (its JSON tier):
    the median of their cycles per load.  The points come from --list; only
    those up to twice the topology's L2 are run (a DRAM point of a big L3
    takes long to set up); the tier of each is pmubench's."""
    r = pmb.run("--list", "--filter=^mem/chase/")
    names = r.stdout.split() if r.returncode == 0 else []
    l2 = [c.get("size") for c in (ctx.get("topology") or {}).get("caches", []) if c.get("level") == 2]
    if not names:
        for k in ("l1", "l2"):
            t.skip(k, "no mem/chase points in --list (%s)" % tail(r))
        return
    cut = 2 * l2[0] if l2 and num(l2[0]) else None
    pick = [n for n in names if cut is None or (size_of(n) or 0) <= cut]
    r, d = pmb.json("--counters=cycles,instructions", "--filter=^(%s)$" % "|".join(re.escape(n) for n in pick))
    for key, tier in (("l1", "L1"), ("l2", "L2")):
        pts = [(b["name"].rsplit("/", 1)[1], b.get("cycles_per_item")) for b in (d or {}).get("benchmarks", [])
               if b.get("tier") == tier and b.get("name", "").startswith("mem/chase/")]
        vals = [v for _, v in pts if num(v)]
        if not vals:
            t.put(key, "FAIL", "n/a", "no %s point of mem/chase with cycles (%d: %s)" % (tier, r.returncode, tail(r)))
            continue
        med = statistics.median(vals)
        lo, hi = (4, 5) if key == "l1" else (11, 17)
        t.passed(key, lo <= med <= hi, fmt(med, 2),
                 "median cycles_per_item of the %s points: %s" % (tier, ", ".join("%s %s" % (n, fmt(v, 2))
                                                                   for n, v in pts)),
                 "median cycles_per_item of the %s points: %s" % (tier, ", ".join("%s %s" % (n, fmt(v, 2))
                                                                   for n, v in pts)))


def check_branch(t, pmb):
    """branchy and branchless p50, counted: mispredictions per item, and the
    penalty as their difference in cycles over their difference in
    mispredictions."""
    r, d = pmb.json("--counters=cycles,instructions,branches,branch-misses",
                    "--filter=^branch/sum_if/(branchy|branchless)/p50$")
    y, l = bench(d, "branch/sum_if/branchy/p50"), bench(d, "branch/sum_if/branchless/p50")
    m = y.get("branch_misses_per_item")
    t.passed("misp", num(m) and 0.45 <= m <= 0.55, fmt(m),
             "branch_misses_per_item of branch/sum_if/branchy/p50, counted",
             "branch_misses_per_item of branch/sum_if/branchy/p50 (%d: %s)" % (r.returncode, tail(r)))
    cy, cl, ml = y.get("cycles_per_item"), l.get("cycles_per_item"), l.get("branch_misses_per_item")
    if not all(num(v) for v in (cy, cl, m, ml)) or m - ml <= 0.05:
        t.put("penalty", "FAIL", "n/a", "needs counted cycles and branch-misses of both forms, branchy "
              "mispredicting more (cycles %r/%r, misp %r/%r)" % (cy, cl, m, ml))
        return
    pen = (cy - cl) / (m - ml)
    why = "(branchy - branchless cycles) / (branchy - branchless misp): (%s - %s) / (%s - %s)" % (
        fmt(cy, 2), fmt(cl, 2), fmt(m), fmt(ml))
    t.passed("penalty", 10 <= pen <= 30, fmt(pen, 1), why, why)


def residuals(d):
    """calib/add_chain's instructions per sample left over once its path's
    harness overhead and the known 1 instruction per item are taken off."""
    b = bench(d, "calib/add_chain")
    ho = ((b.get("harness_overhead") or (d or {}).get("context", {}).get("harness_overhead") or {})
          .get("events", {}).get("instructions", {}))
    raw = (b.get("raw_samples") or {}).get("instructions") or []
    passes = (b.get("raw_samples") or {}).get("passes") or []
    ipp = b.get("items_per_pass")
    if not raw or not num(ho.get("per_sample")) or not num(ho.get("per_pass")) or not num(ipp):
        return None
    return [x - ho["per_sample"] - p * (ho["per_pass"] + ipp) for x, p in zip(raw, passes) if num(x)]


def check_read(t, pmb):
    """--read=self (rdpmc) against --read=syscall (read()): the same counts
    per sample once each path's own harness overhead is off, and that
    overhead per sample for each."""
    runs = {}
    for mode in ("self", "syscall"):
        runs[mode] = pmb.json("--read=" + mode, "--counters=instructions,cycles", "--filter=^calib/add_chain$")
    rs, ds = runs["self"]
    rr, dr = runs["syscall"]
    if rs.returncode == 2:
        why = "--read=self refused: %s (rdpmc: %s)" % (tail(rs), read_text(SYSFS + "/cpu/rdpmc"))
        t.skip("read_agree", why)
        t.skip("read_cost", why)
        return
    cs, cr = (ds or {}).get("context", {}), (dr or {}).get("context", {})
    es, er = residuals(ds), residuals(dr)
    paths = (cs.get("read_path"), cr.get("read_path"))
    if paths != ("self", "syscall") or not es or not er:
        t.put("read_agree", "FAIL", "n/a", "read paths %r, residuals %r/%r (%s %s)"
              % (paths, es and len(es), er and len(er), tail(rs, 100), tail(rr, 100)))
    else:
        ms, mr = statistics.median(es), statistics.median(er)
        why = ("median per-sample instructions beyond overhead + 1/item: rdpmc %+.1f (%d samples), "
               "read() %+.1f (%d)" % (ms, len(es), mr, len(er)))
        t.passed("read_agree", abs(ms - mr) <= 1, "%+.1f" % (ms - mr), why, why)
    hs = cs.get("harness_overhead", {}).get("events", {}).get("instructions", {}).get("per_sample")
    hr = cr.get("harness_overhead", {}).get("events", {}).get("instructions", {}).get("per_sample")
    fig = "%s / %s instr" % (fmt(hs, 0), fmt(hr, 0))
    why = ("context.harness_overhead instructions per_sample; reading a group: %s ns by rdpmc, %s ns by read()"
           % (fmt(cs.get("group_read_ns"), 0), fmt(cr.get("group_read_ns"), 0)))
    t.passed("read_cost", num(hs) and num(hr) and hs < hr, fig, why, why)


SPLIT_POOL = ["dtlb-misses", "l1d-loads", "llc-loads", "br-inst-retired", "br-misp-retired", "l1d-misses",
              "l2-misses", "llc-misses", "stalls", "cache-references", "cache-misses", "ref-cycles",
              "L1-dcache-loads", "L1-dcache-load-misses", "LLC-loads", "LLC-load-misses", "dTLB-loads",
              "dTLB-load-misses", "iTLB-load-misses", "L1-icache-load-misses", "branch-loads",
              "branch-load-misses", "stalled-cycles-frontend", "stalled-cycles-backend", "bus-cycles"]
QUICK = ["--samples=10", "--min-sample-time=200us"]


def hw_counted(d):
    return [e for e in (d or {}).get("context", {}).get("events", [])
            if e.get("kind") == "hardware" and e.get("group") is not None]


def split_list(pmb, need):
    """As tests/test_hw.py: grow a --counters list from the sets and a pool
    of generic names and aliases, dropping each this PMU refuses, until
    more hardware events count than the PMU has counters."""
    extra, pool = [], list(SPLIT_POOL)
    for _ in range(len(SPLIT_POOL) + 2):
        lst = ",".join(["@branch"] + extra)
        r, d = pmb.json("--counters=" + lst, "--filter=^calib/add_chain$", *QUICK)
        if r.returncode == 2:
            bad = [p for p in extra if "'%s'" % p in r.stderr] or extra[-1:]
            extra = [p for p in extra if p not in bad]
            pool = [p for p in pool if p not in bad]
            continue
        left = [p for p in pool if p not in extra]
        if len(hw_counted(d)) >= need or not left:
            return lst
        extra.append(left[0])
    return ",".join(["@branch"] + extra)


def check_split(t, pmb, pmu):
    need = (pmu.get("generic_counters") or 0) + (pmu.get("fixed_counters") or 0) + 1
    lst = split_list(pmb, need)
    r, d = pmb.json("--counters=" + lst, "--filter=^calib/add_chain$")
    c = (d or {}).get("context", {})
    b = bench(d, "calib/add_chain")
    evs = hw_counted(d)
    groups = c.get("groups")
    if r.returncode == 0 and num(groups) and groups < 2:
        t.skip("split", "%d hardware events fit one group here (of %d asked: %s)" % (len(evs), need, lst))
        return
    scaled = [e["name"] for e in evs if b.get(e["key"] + "_multiplexed") is True]
    lacking = [e["name"] for e in evs if not num(b.get(e["key"] + "_per_item"))]
    ins = b.get("instructions_per_item")
    fig = "%s groups, %s instr" % (groups, fmt(ins, 4))
    why = "%d hardware events (%s) for %d counters; scaled: %s; without a value: %s" % (
        len(evs), lst, need - 1, ", ".join(scaled) or "none", ", ".join(lacking) or "none")
    t.passed("split", r.returncode == 0 and not scaled and not lacking and num(ins) and abs(ins - 1) <= 0.001,
             fig, why, why + " (%s)" % tail(r, 120), bound="groups > 1, instr 1 +-0.1 %, none scaled")


def check_mux(t, pmb, hog, ref):
    """calib/add_chain while x86_hog holds the counters on pmubench's own
    task: the kernel multiplexes; pmubench must mark it, and its median
    stays within 2 % of the unforced run's (ref)."""
    if not hog:
        t.skip("mux", "no C compiler to build tests/device/x86_hog.c")
        return
    argv = pmb.argv("--counters=instructions,cycles", "--filter=^calib/add_chain$", "--format=json",
                    "--samples=30", "--min-sample-time=20ms")
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    extra = [pmu_type_of(pmb.cpu)] if pmu_type_of(pmb.cpu) else []
    h = subprocess.Popen([hog, "120", str(p.pid), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    try:
        hout, herr = h.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        h.kill()
        hout, herr = h.communicate()
    held = re.search(r"held (\d+) counters .*running (\d+) of (\d+) ns", hout or "")
    if h.returncode != 0 or not held:
        t.skip("mux", "could not hold the counters from another process: %s" % " ".join((herr or hout).split()))
        return
    run_ns, en_ns = int(held.group(2)), int(held.group(3))
    if not 0 < run_ns < en_ns:
        t.skip("mux", "the hog's %s counters never shared the PMU with pmubench (running %d of %d ns)"
               % (held.group(1), run_ns, en_ns))
        return
    try:
        d = json.loads(out)
    except ValueError:
        d = None
    b = bench(d, "calib/add_chain")
    warned = any("multiplex" in w for w in (d or {}).get("context", {}).get("warnings", []))
    marked = b.get("instructions_multiplexed") is True and b.get("cycles_multiplexed") is True
    dev = []
    for key in ("instructions", "cycles"):
        v, want = b.get(key + "_per_item"), ref.get(key + "_per_item")
        dev.append(abs(v / want - 1) if num(v) and num(want) and want else None)
    ok = marked and warned and all(x is not None and x <= 0.02 for x in dev)
    fig = "%s / %s %%" % tuple(fmt(100 * x, 2) if x is not None else "n/a" for x in dev)
    why = ("instr / cycles per item off the unforced run; marked %s, warned %s; the hog held %s counters, "
           "running %.0f %% of the time" % (marked, warned, held.group(1), 100.0 * run_ns / en_ns))
    t.passed("mux", ok, fig, why, why + " (%s)" % " ".join(err.split())[-120:])


def feeding_load(ins, i):
    """The index of the load nearest before ins[i] in its block (at most 4
    back): an instruction with a memory operand that is not lea/nop."""
    for j in range(i - 1, max(-1, i - 5), -1):
        txt = ins[j].get("text", "")
        if ins[j].get("conditional_branch") or ins[j].get("call"):
            break
        if "(" in txt and not txt.startswith(("lea", "nop", "prefetch")):
            return j
    return None


def check_disasm(t, pmb):
    """sum_if branchy p50 under --disasm, its mispredictions sampled: the
    samples landed for count / period, and the hottest instruction; then
    `pmubench report` of the results the run saved draws the console,
    the sampled listing with it, byte for byte (the one check of the
    sampled listing read back: no PMU where pmubench is built)."""
    with tempfile.TemporaryDirectory() as tmp:
        saved, env = os.path.join(tmp, "disasm.json"), dict(os.environ, COLUMNS="100")
        r = pmb.run("--disasm", "--counters=branch-misses", "--filter=^branch/sum_if/branchy/p50$",
                    "--save=" + saved, env=env)
        try:
            with open(saved) as f:
                d = json.load(f)
        except (OSError, ValueError):
            d = None
        judge_disasm(t, bench(d, "branch/sum_if/branchy/p50").get("disasm") or {}, r)
        if d is None:
            t.put("dis_report", "FAIL", "n/a", "the run saved no results (%d: %s)" % (r.returncode, tail(r)))
            return
        try:
            again = subprocess.run([pmb.path, "report", saved], capture_output=True, text=True, timeout=TIMEOUT,
                                   env=env)
        except subprocess.TimeoutExpired:
            again = subprocess.CompletedProcess([], 124, "", "timed out after %d s" % TIMEOUT)
    live, back = r.stdout, again.stdout
    diff = next(((k + 1, a, b) for k, (a, b) in enumerate(zip(live.splitlines(), back.splitlines())) if a != b),
                None)
    what = "%d bytes at 100 columns, %d --disasm section(s)" % (len(live), live.count("\n--disasm "))
    t.passed("dis_report", again.returncode == 0 and back == live and "\n--disasm " in live, what,
             "report of the saved run printed the live console: " + what,
             "report (%d: %s) differs from the live console: %s" % (
                 again.returncode, tail(again), "line %d: %r against %r" % diff if diff else "in length"))


def judge_disasm(t, x, r):
    """The two --disasm checks from the benchmark's disasm object x."""
    n, cnt, per = x.get("samples"), x.get("event_count"), x.get("sample_period")
    if not (num(n) and num(cnt) and num(per) and per > 0 and cnt > 0):
        why = "no sampling in the JSON (samples %r, event_count %r, sample_period %r; %d: %s)" % (
            n, cnt, per, r.returncode, tail(r))
        t.put("dis_rate", "FAIL", "n/a", why)
        t.put("dis_hot", "FAIL", "n/a", why)
        return
    share = n / (cnt / per)
    why = "%d samples of %s for %d counted / period %d; %s in the kernel, %s lost" % (
        n, x.get("sampled_event"), cnt, per, x.get("samples_in_kernel"), x.get("samples_lost"))
    t.passed("dis_rate", share >= 0.5, "%.0f %%" % (100 * share), why, why)
    parts = [p for p in x.get("parts", []) if p.get("measured")]
    best = None       # (share, part, index)
    branch = None     # (part, index) of the kernel's choice
    for p in parts:
        ins = p.get("instructions", [])
        for i, s in enumerate(ins):
            if num(s.get("share")) and (best is None or s["share"] > best[0]):
                best = (s["share"], p, i)
            if s.get("role") == "choice" and s.get("conditional_branch") and (
                    branch is None or (p.get("kind") == "called" and "branchy" in (p.get("function") or ""))):
                branch = (p, i)
    if not best or not branch:
        t.put("dis_hot", "FAIL", "n/a", "no shares or no choice branch in the measured code (%d parts)" % len(parts))
        return
    p, i = branch
    ins = p["instructions"]
    load = feeding_load(ins, i)
    succ = {ins[i].get("target")} | ({ins[i + 1]["address"]} if i + 1 < len(ins) else set())
    hot = best[1]["instructions"][best[2]]
    what = "%x %s (%.0f %% of the samples)" % (hot["address"], hot.get("text"), 100 * best[0])
    fig = hot.get("text", "?").split()[0]
    if best[1] is p and best[2] == i:
        t.put("dis_hot", "PASS", fig, "the conditional branch: " + what)
    elif best[1] is p and best[2] == load:
        t.put("dis_hot", "PASS", fig, "the load feeding the branch: " + what)
    elif best[1] is p and hot["address"] in succ:
        t.put("dis_hot", "PASS", fig, "the first instruction after the branch %x (skid, as pmubench "
              "states: a sample lands after its cause): %s" % (ins[i]["address"], what))
    else:
        t.put("dis_hot", "FAIL", fig, "not the branch %x %s nor its load: %s" % (
            ins[i]["address"], ins[i].get("text"), what))


def check_selfcheck(t, pmb):
    r = pmb.run("--self-check")
    rows = [re.split(r"\s{2,}", l.strip()) for l in r.stdout.splitlines() if l.startswith("selfcheck/")]
    rows = [x for x in rows if len(x) >= 4]
    if not rows:
        t.put("selfcheck", "FAIL", "n/a", "no verdicts (%d: %s)" % (r.returncode, tail(r)))
        return
    wrong = [x for x in rows if x[-1] == "WRONG"]
    unchecked = [x[0] for x in rows if x[-1] == "NOT CHECKED"]
    unsteady = [x[0] for x in rows if x[-1] == "UNSTEADY"]
    fig = "%d ok of %d" % (sum(1 for x in rows if x[-1] == "ok"), len(rows))
    why = "; ".join("%s %s (expected %s)" % (x[0].split("/", 1)[1], x[2], x[1]) for x in rows)
    if unchecked:
        why += "; not checked: " + ", ".join(unchecked)
    if unsteady and not wrong and not unchecked and r.returncode == 0:
        # Not judged by pmubench itself, with its evidence: a skip with
        # the measured reason, not a pass and not a failure.
        notes = [l for l in re.sub(r"\n    (?=\S)", " ", r.stdout).splitlines() if l.startswith("note: ")]
        t.skip("selfcheck", "%s UNSTEADY (%s): %s" % (", ".join(unsteady), why, " ".join(notes)))
        return
    t.passed("selfcheck", not wrong and not unchecked and not unsteady and r.returncode == 0, fig, why, why)


def check_hybrid(t, pmb):
    """On a hybrid CPU: add_chain pinned to one core of each kind; the PMU
    pmubench chose must be that core's (libpfm4's P-Core or E-Core PMU, or
    the sysfs one where libpfm4 does not know it), counting 1 instruction
    per add."""
    hy = hybrid_pmus()
    if not hy:
        t.skip("hybrid", "not a hybrid CPU (no cpu_core and cpu_atom PMUs in %s)" % SYSFS)
        return
    kind = {"cpu_core": "P-Core", "cpu_atom": "E-Core"}
    seen, ok = [], True
    for name, cpus in sorted(hy.items()):
        cpu = cpus[-1]
        r, d = pmb.json("--cpu=%d" % cpu, "--counters=cycles,instructions", "--filter=^calib/add_chain$", *QUICK)
        c = (d or {}).get("context", {})
        pmu = c.get("pmu") or {}
        ins = bench(d, "calib/add_chain").get("instructions_per_item")
        right = (kind.get(name, "?") in (pmu.get("description") or "") or pmu.get("name") == name)
        good = r.returncode == 0 and c.get("pinned_cpu") == cpu and right and num(ins) and abs(ins - 1) <= 0.02
        ok = ok and good
        seen.append("cpu %d (%s) -> %s (%s), %s instr/add%s" % (
            cpu, name, pmu.get("name"), pmu.get("description"), fmt(ins), "" if good else " WRONG"))
    t.passed("hybrid", ok, "%d core kinds" % len(seen), "; ".join(seen), "; ".join(seen))


# ---- the run --------------------------------------------------------------------
def header(ctx):
    """The machine: CPU model, kernel, perf_event_paranoid, the PMU
    pmubench chose (ctx: its JSON context; None where it did not run)."""
    pmu = (ctx or {}).get("pmu") or {}
    kind = [n for n, cpus in hybrid_pmus().items() if (ctx or {}).get("pinned_cpu") in cpus]
    print("x86 PMU check (tests/device/x86-pmu.sh), pmubench %s" % (ctx or {}).get("pmubench_version"))
    print("cpu model:            %s" % cpu_model())
    print("kernel:               %s %s" % (platform.release(), platform.machine()))
    print("perf_event_paranoid:  %s" % read_text("/proc/sys/kernel/perf_event_paranoid"))
    if ctx is None:
        print("pmu:                  unknown: pmubench did not run\n")
        return
    print("pmu:                  %s (%s), hardware counters work: %s" % (
        pmu.get("name"), pmu.get("description"), "yes" if pmu.get("hardware_counters_work") else "no"))
    rdpmc = read_text(SYSFS + "/cpu/rdpmc") or read_text(SYSFS + "/cpu_core/rdpmc")
    print("pinned core:          %s%s; sysfs rdpmc %s; nmi_watchdog %s" % (
        ctx.get("pinned_cpu"), " (%s)" % kind[0] if kind else "", rdpmc or "n/a",
        read_text("/proc/sys/kernel/nmi_watchdog") or "n/a"))
    print()


def measure(t, pmb, ctx, args):
    """Every check, in the table's order.  A check that raises (JSON of a
    shape this script did not foresee) FAILs its lines with the exception,
    and the others still run: the table is wanted whole."""
    ref = {}
    steps = [
        (("add_ins", "add_cyc"), lambda: ref.update(check_add(t, pmb))),
        (("imul",), lambda: check_imul(t, pmb, args.imul_so)),
        (("l1", "l2"), lambda: check_chase(t, pmb, ctx)),
        (("misp", "penalty"), lambda: check_branch(t, pmb)),
        (("read_agree", "read_cost"), lambda: check_read(t, pmb)),
        (("split",), lambda: check_split(t, pmb, ctx.get("pmu") or {})),
        (("mux",), lambda: check_mux(t, pmb, args.hog, ref)),
        (("dis_rate", "dis_hot", "dis_report"), lambda: check_disasm(t, pmb)),
        (("selfcheck",), lambda: check_selfcheck(t, pmb)),
        (("hybrid",), lambda: check_hybrid(t, pmb)),
    ]
    for keys, step in steps:
        try:
            step()
        except Exception as e:  # noqa: BLE001 - any fault of this script's, reported in its row
            for k in keys:
                if k not in t.rows:
                    t.put(k, "FAIL", "n/a", "x86_pmu.py raised %s: %s" % (type(e).__name__, e))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pmubench", required=True)
    ap.add_argument("--imul-so", default="")
    ap.add_argument("--hog", default="")
    ap.add_argument("--cpu", type=int, default=None)
    args = ap.parse_args()
    pmb = Pmubench(args.pmubench, args.cpu if args.cpu is not None else default_cpu())
    t = Table()
    r, d = pmb.json("--counters=cycles,instructions", "--filter=^calib/add_chain$", *QUICK)
    ctx = (d or {}).get("context")
    header(ctx)
    if ctx is None:
        t.put("add_ins", "FAIL", "n/a", "pmubench --format=json did not run (%d: %s)" % (r.returncode, tail(r)))
        t.skip_rest("pmubench did not run")
    elif platform.machine() != "x86_64":
        t.skip_rest("not an x86-64 machine (%s): this check is for x86 PMUs" % platform.machine())
    elif not (ctx.get("pmu") or {}).get("hardware_counters_work"):
        t.skip_rest(no_pmu_reason(ctx))
    else:
        measure(t, pmb, ctx, args)
    return 1 if t.print() else 0


if __name__ == "__main__":
    sys.exit(main())
