#!/usr/bin/env python3
"""test_merge.py - `pmubench merge` and `pmubench fleet` without Slurm
(issue 31, points 1, 2 and 4): one short run's file made into hosts by
hand (a counted PMU, none, a forbidden one, another CPU model, another
version, a benchmark short), and the faults a fleet leaves: a truncated
file, a node whose job failed (its .exit note), a run a signal stopped, a
task that left nothing; a fleet's folder merged with --fleet, each missing
task named by its node; one run given twice; the baseline's own ratio;
the plot's series, error bars, tier boundaries and legend.  Exact figures are checked against the files they
come from; the fleet's scripts against what sbatch is to be given."""
import copy
import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
from xml.etree import ElementTree

from pmbtap import done, exact_filter, instances, ok, require_pmubench, run

require_pmubench()
T = tempfile.mkdtemp(prefix="pmb-merge-")


def path(name):
    return os.path.join(T, name)


def save(name, doc):
    with open(path(name), "w") as f:
        json.dump(doc, f)
    return path(name)


def host(base, name, counted=True, cpu=None, scale=1.0, version=None, drop=None, paranoid=None):
    """base made into host name's file: its PMU counting cycles
    (est_cycles_* become cycles_*) or not, another CPU model, every
    per-item figure times scale."""
    d = copy.deepcopy(base)
    cx = d["context"]
    cx["host_name"] = name
    cx["pmu"]["hardware_counters_work"] = counted
    if paranoid is not None:
        cx["pmu"]["not_permitted_paranoid"] = paranoid
    if cpu:
        cx["reanalysis"]["cpu_model"] = cpu
    if version:
        cx["pmubench_version"] = version
    d["benchmarks"] = [b for b in d["benchmarks"] if b["name"] != drop]
    for b in d["benchmarks"]:
        for k in list(b):
            if counted and k.startswith("est_cycles"):
                b[k.replace("est_cycles", "cycles")] = b.pop(k)
        for k, v in list(b.items()):
            if re.search(r"_per_item(_ci_lo|_ci_hi)?$", k) and isinstance(v, (int, float)) and \
               not isinstance(v, bool):
                b[k] = v * scale
    return d


def merge(*args):
    return run("merge", *args)


def merge_json(*args):
    r = merge("--format=json", *args)
    try:
        return r, json.loads(r.stdout)
    except ValueError:
        return r, None


def figure(doc, bench, key, label):
    for b in doc["benchmarks"]:
        if b["name"] == bench:
            return b["figures"].get(key, {}).get(label)
    return None


# ---- one real run, made into hosts ----------------------------------------
sweep = instances("^mem/chase/", 3)
names = ["calib/add_chain"] + sweep
r = run("--filter=" + exact_filter(names), "--samples=10", "--format=json", "--out=" + path("base.json"))
ok(r.returncode == 0, "a short run saved as JSON (%s): exit %d %s" % (names, r.returncode, r.stderr[-300:]))
base = json.load(open(path("base.json")))
first = base["benchmarks"][0]
c1 = save("c1.json", host(base, "c1"))
c2 = save("c2.json", host(base, "c2", scale=1.5))
x1 = save("x1.json", host(base, "x1", cpu="Another CPU 9000", scale=2.0))
e1 = save("e1.json", host(base, "e1", counted=False, version="0.0.9", drop=sweep[-1]))
f1 = save("f1.json", host(base, "f1", counted=False, paranoid=3))

# ---- groups, spread, ratios -----------------------------------------------
r, m = merge_json("--baseline=c2", c1, c2, x1, e1, f1)
ok(r.returncode == 0 and m is not None, "merge of five hosts: exit %d %s" % (r.returncode, r.stderr.strip()))
groups = {g["label"]: g for g in m["groups"]}
ok([(g["label"], g["counting"], [h["host"] for h in g["hosts"]]) for g in m["groups"]] ==
   [("A", "counted", ["c1", "c2"]), ("B", "counted", ["x1"]), ("C", "estimated", ["e1"]),
    ("D", "estimated", ["f1"])],
   "hosts grouped by CPU model and counting, never counted with estimated: %s"
   % [(g["label"], g["counting"], [h["host"] for h in g["hosts"]]) for g in m["groups"]])
ok(groups["C"]["counting_note"] == "no PMU" and
   groups["D"]["counting_note"] == "PMU forbidden: perf_event_paranoid=3",
   "the estimated columns say why: %s, %s" % (groups["C"]["counting_note"], groups["D"]["counting_note"]))
ok(m["baseline"] == "A", "--baseline=c2 (a host) picks its group A")
v = first["ns_per_item"]
a = figure(m, first["name"], "ns_per_item", "A")
ok(a and a["hosts"] == 2 and a["spread_lo"] == v and a["spread_hi"] == v * 1.5 and
   abs(a["value"] - v * 1.25) <= 1e-12 * v and a["ratio"] == 1,
   "group A's ns per item: the median of its two hosts (%s and x1.5), their spread: %s" % (v, a))
ok(a and a["ci_lo"] == first["ns_per_item_ci_lo"] and a["ci_hi"] == first["ns_per_item_ci_hi"] * 1.5,
   "group A's interval: the envelope of its hosts' intervals")
b = figure(m, first["name"], "ns_per_item", "B")
ok(b and b["value"] == 2 * v and abs(b["ratio"] - 2 / 1.25) < 1e-12 and
   abs(b["ratio_ci_lo"] - b["ci_lo"] / a["ci_hi"]) < 1e-12 and
   abs(b["ratio_ci_hi"] - b["ci_hi"] / a["ci_lo"]) < 1e-12,
   "group B's ratio to A: value over value, its interval the bounds crosswise: %s" % b)
cyc_a = figure(m, first["name"], "cycles_per_item", "A")
cyc_c = figure(m, first["name"], "cycles_per_item", "C")
est_c = figure(m, first["name"], "est_cycles_per_item", "C")
ok(cyc_a and cyc_a["counting"] == "counted" and cyc_c and cyc_c["value"] is None and
   est_c and est_c["counting"] == "estimated" and figure(m, first["name"], "est_cycles_per_item", "A")["value"] is None,
   "counted cycles and estimated ones are different rows, never one cell: %s / %s / %s" % (cyc_a, cyc_c, est_c))
gaps = m["gaps"]
ok(any("0.0.9" in g and "C" in g for g in gaps), "the other pmubench version is a gap: %s" % gaps)
ok(any(g.startswith("group C did not run 1 benchmark") and sweep[-1] in g for g in gaps),
   "the benchmark one host did not run is a gap: %s" % gaps)
ok(any(g.startswith("group A has no figure") and "est_cycles_per_item" in g for g in gaps) and
   any(g.startswith("group C has no figure") and "cycles_per_item" in g for g in gaps),
   "figures other counters gave are gaps both ways")
nr = figure(m, sweep[-1], "ns_per_item", "C")
ok(nr == {"value": None, "missing": "not run on this group"}, "the cell of a benchmark not run says so: %s" % nr)
ok(m["missing"] == [], "nothing missing")

# A benchmark that failed on the one host of its group: the cell says so,
# with the host's reason.
bad = host(base, "x1", cpu="Another CPU 9000")
bad["benchmarks"][0] = {"name": first["name"], "run_name": first["name"], "run_type": "iteration",
                        "status": "failed", "error_message": "check failed: sum 3 != 4"}
r, m3 = merge_json(c1, save("bad.json", bad))
cell = figure(m3, first["name"], "ns_per_item", "B") if m3 else None
ok(cell == {"value": None, "missing": "failed or skipped on every host of this group",
            "reason": "check failed: sum 3 != 4"} and
   any(g.startswith("group B: 1 benchmark failed or skipped on every host") for g in m3["gaps"]),
   "a benchmark failed on every host of a group: its cell and a gap say so, with the reason: %s" % cell)

# ---- faults ---------------------------------------------------------------
text = open(c1).read()
trunc = path("trunc.json")
open(trunc, "w").write(text[:len(text) // 3])
failed = path("failed.json")
open(failed + ".exit", "w").write("pmubench exit status 1\n")
stopped = host(base, "s1")
stopped["context"]["incomplete"] = True
stopped["context"]["incomplete_reason"] = "SIGTERM"
stopped = save("stopped.json", stopped)
r, m2 = merge_json("--expect=6", c1, trunc, failed, stopped, x1)
ok(r.returncode == 1 and m2 is not None, "missing files: exit 1, the report still written (exit %d)" % r.returncode)
miss = {x["file"]: x["reason"] for x in (m2 or {}).get("missing", [])}
ok(len(miss) == 4, "four missing: %s" % miss)
ok(re.match(r"line \d+, column \d+: ", miss.get(trunc, "")),
   "a truncated file named with where its JSON ends: %s" % miss.get(trunc))
ok(miss.get(failed) == "No such file or directory (the node's job: pmubench exit status 1)",
   "a failed node's file named missing with its job's note: %s" % miss.get(failed))
ok(miss.get(stopped) == "incomplete: a signal stopped this run (SIGTERM)",
   "a run a signal stopped (a time limit) is missing with its reason: %s" % miss.get(stopped))
ok(miss.get("(1 of 6)", "").startswith("1 of the 6 tasks expected"), "--expect names the task that left nothing")
ok(m2 and [[h["host"] for h in g["hosts"]] for g in m2["groups"]] == [["c1"], ["x1"]],
   "the other nodes' results stand")

# ---- console, CSV ---------------------------------------------------------
r = merge(c1, e1)
ok(r.returncode == 0 and "cycles estimated: no PMU" in r.stdout and
   re.search(r"^  A +AMD|^  A +\S", r.stdout, re.M) and "- (not counted)" in r.stdout,
   "the console marks the estimated column and the figures it lacks")
r = merge("--format=csv", c1, c2, trunc)
rows = list(csv.reader(io.StringIO(r.stdout)))
ok(r.returncode == 1 and rows[0][:3] == ["benchmark", "figure", "group"] and
   all(len(x) == len(rows[0]) for x in rows) and rows[-1][15] == "missing" and
   rows[-1][16].startswith(trunc + ": line "),
   "CSV: one header, equal rows, the truncated file as a missing line")

# ---- errors: one line, exit 2, nothing written -----------------------------
out = path("never.json")
for args, want in [
        (["--baseline=nope", "--out=" + out, c1, x1],
         "pmubench: merge: --baseline=nope: no group has that label, CPU model or host (expected one of the "
         "groups: A (AMD"),
        (["--out=" + out, trunc], "pmubench: merge: none of the 1 result file could be read (the first, %s: line "
         % trunc),
        ([], "pmubench: merge: expected result files"),
        (["--plot=x.png", c1], "pmubench: merge: --plot=x.png: expected a file name ending in .svg"),
        (["--out=" + c1, c1], "pmubench: --out="),
]:
    r = merge(*args)
    err = r.stderr.strip().splitlines()
    ok(r.returncode == 2 and err and err[-1].startswith(want.split(" (AMD")[0]) and not os.path.exists(out),
       "merge %s: exit 2, %r" % (" ".join(a.replace(T, "T") for a in args), err[-1:] if err else ""))

# Every file unreadable: one error line with the count and the first
# file's reason, exit 2, nothing written.
r = merge("--expect=4", "--out=" + out, "--plot=" + path("never.svg"), failed, trunc, stopped)
err = r.stderr.strip().splitlines()
ok(r.returncode == 2 and err == ["pmubench: merge: none of the 3 result files could be read (the first, %s: "
                                 "No such file or directory (the node's job: pmubench exit status 1)): "
                                 "nothing to merge, nothing written" % failed] and
   not os.path.exists(out) and not os.path.exists(path("never.svg")),
   "every file unreadable: one error line, exit 2, nothing written: %r" % err)

# ---- the baseline's ratio to itself: exactly 1, no interval ----------------
r, mb = merge_json(c1, c2, x1)
base_cells = [b["figures"][k]["A"] for b in mb["benchmarks"] for k in b["figures"]
              if b["figures"][k]["A"]["value"] is not None]
ok(base_cells and all(c["ratio"] == 1 and c["ratio_ci_lo"] is None and c["ratio_ci_hi"] is None and
                      c.get("baseline") is True for c in base_cells) and
   all("baseline" not in b["figures"][k]["B"] for b in mb["benchmarks"] for k in b["figures"]),
   "JSON: the baseline group's ratio is 1 without an interval, marked baseline: %s" % base_cells[:1])
r = merge("--format=csv", c1, c2, x1)
rows = [x for x in csv.reader(io.StringIO(r.stdout))][1:]
ok(rows and all(x[12] == "1" and x[13] == "" and x[14] == "" for x in rows if x[2] == "A" and x[15] == "value")
   and any(x[2] == "B" and x[13] != "" for x in rows),
   "CSV: the baseline group's ratio is 1, its interval empty")
r = merge(c1, c2, x1)
lines = [x for x in r.stdout.splitlines() if x.startswith("  ") and "x1 (baseline)" in x]
ok(lines and all(re.search(r" x1 \(baseline\)  +\S", x) for x in lines),
   "console: the baseline column reads x1 (baseline), no interval after it: %r" % lines[:1])

# ---- one run given twice counts once ---------------------------------------
c1copy = path("c1-copy.json")
shutil.copy(c1, c1copy)
r, md = merge_json(c1, c2, c1, c1copy)
ok(r.returncode == 0 and md and [[h["host"] for h in g["hosts"]] for g in md["groups"]] == [["c1", "c2"]] and
   figure(md, first["name"], "ns_per_item", "A")["hosts"] == 2,
   "a file given twice and its copy count as one host: %s" % ([[h["file"] for h in g["hosts"]] for g in md["groups"]]
                                                              if md else r.stderr))
ok(md and md["notes"] == ["%s and %s are one file: counted once" % (c1, c1),
                          "%s and %s are one run (host c1, begun %s, pmubench %s): counted once"
                          % (c1, c1copy, base["context"]["date"], base["context"]["pmubench_version"])],
   "one note per file counted once, naming both paths: %s" % (md or {}).get("notes"))
r = merge(c1, c1copy)
ok(r.returncode == 0 and re.search(r"^  note: .*c1\.json and .*c1-copy\.json are one run", r.stdout, re.M) and
   "1 file read" in r.stdout, "console: the copy counted once, with its note")

# ---- plot: each group's sweep with its tier boundaries ----------------------
# x2: another CPU model whose topology has other L2 and L3 sizes.
x2doc = host(base, "x2", cpu="Another CPU 9000", scale=2.0)
x2caches = x2doc["context"]["topology"]["caches"]
for c in x2caches:
    c["size"] = c["size"] * 2 if c["level"] >= 2 else c["size"]
x2 = save("x2.json", x2doc)
svg = path("merged.svg")
r, mp = merge_json("--plot=" + svg, c1, c2, x2, e1)
doc = open(svg).read() if os.path.exists(svg) else ""
try:
    root = ElementTree.fromstring(doc)
except ElementTree.ParseError as e:
    root = None
    ok(False, "the plot is XML: %s" % e)
elems = list(root.iter()) if root is not None else []
panels = [g for g in elems if g.get("class") == "panel"]
family = base["benchmarks"][1]["instance"]["family"]
ns = [p for p in panels if p.get("data-family") == family and p.get("data-figure") == "ns_per_item"]
ok(r.returncode == 0 and len(ns) == 1, "--plot: a panel of %s's ns per item (exit %d %s): %s"
   % (family, r.returncode, r.stderr.strip(), [(p.get("data-family"), p.get("data-figure")) for p in panels]))
ns = ns[0] if ns else ElementTree.Element("g")
series = {g.get("data-group"): g for g in ns.iter() if g.get("class") == "series"}
ok(sorted(series) == ["A", "B", "C"], "one series per host group: %s" % sorted(series))
for label, g in sorted(series.items()):
    pts = [(int(c.get("data-ws")), c.get("data-bench"), float(c.get("data-value")), float(c.get("data-lo")),
            float(c.get("data-hi")), float(c.get("data-spread-lo")), float(c.get("data-spread-hi")),
            int(c.get("data-hosts"))) for c in g.iter() if c.get("class") == "point"]
    want = []
    for name in sweep:
        cell = figure(mp, name, "ns_per_item", label)
        if cell and cell["value"] is not None:
            ws = [b for b in base["benchmarks"] if b["name"] == name][0]["instance"]["working_set"]
            want.append((ws, name, cell["value"], cell["ci_lo"], cell["ci_hi"], cell["spread_lo"],
                         cell["spread_hi"], cell["hosts"]))
    ok(pts == sorted(want) and pts, "group %s: a point per working set at the group's median, with its interval "
       "and spread, as the merged JSON has them: %s" % (label, pts[:1]))
    bars = [x.get("class") for x in g.iter() if x.get("class") in ("ci", "spread")]
    ok(bars.count("ci") == len(pts) and bars.count("spread") == (len(pts) if label == "A" else 0),
       "group %s: an interval bar per point, a spread bar where it has several hosts: %s" % (label, bars))
tiers = {}
for t in ns.iter():
    if t.get("class") == "tier":
        tiers.setdefault(t.get("data-group"), []).append((int(t.get("data-level")), int(t.get("data-size"))))
        ok(t.get("stroke") == series[t.get("data-group")].get("data-colour"),
           "tier line %s L%s in its group's colour" % (t.get("data-group"), t.get("data-level")))
mine = sorted((c["level"], c["size"]) for c in base["context"]["topology"]["caches"])
ok(sorted(tiers.get("A", [])) == mine and sorted(tiers.get("C", [])) == mine and
   sorted(tiers.get("B", [])) == sorted((c["level"], c["size"]) for c in x2caches) and
   sorted(tiers.get("B", [])) != mine,
   "each group's tier boundaries are its files' cache sizes: %s" % tiers)
legend = {t.get("data-group"): "".join(t.itertext()) for t in ns.iter() if t.get("class") == "legend"}
ok(legend.get("A", "").startswith("group A: ") and "2 hosts" in legend["A"] and "1 host " in legend.get("B", ""),
   "the legend names each group and its host count: %s" % legend)
r = merge("--plot=" + path("calib.svg"), save("calib-only.json", host(base, "k1", drop=None) | {
    "benchmarks": [first]}))
ok(r.returncode == 0 and "nothing to plot" in r.stderr and not os.path.exists(path("calib.svg")),
   "--plot without a sweep: said, no file written: %s" % r.stderr.strip())

# ---- fleet: each task that left no result named by its node ----------------
# A fleet's folder as its tasks would leave it, then its own merge.sbatch
# run by sh (no Slurm: the tasks' records are written here as the merge
# job's scontrol would save them).
qdir = path("fleetq")
r = run("fleet", "--nodelist=n1,n2,n3,n4,n5,n6", "--dir=" + qdir, "--", "--filter=^calib/")
ok(r.returncode == 0 and open(qdir + "/fleet.tasks").read().splitlines()[2:] ==
   ["0 n1", "1 n2", "2 n3", "3 n4", "4 n5", "5 n6"], "fleet.tasks: task i on node i of --nodelist")


def task(i, node, state, started=True, text=None, note=None):
    out = os.path.join(qdir, node + ".json")
    if started:
        open(os.path.join(qdir, "task-%d.started" % i), "w").write("%s\n%s\n" % (node, out))
    if state:
        open(os.path.join(qdir, "task-%d.slurm" % i), "w").write(
            "JobId=%d ArrayJobId=40 ArrayTaskId=%d JobName=pmubench-fleet JobState=%s Reason=None "
            "NodeList=%s BatchHost=%s ReqNodeList=%s ExcNodeList=(null)\n"
            % (41 + i, i, state, node if started else "(null)", node, node))
    if text is not None:
        open(out, "w").write(text)
    if note:
        open(out + ".exit", "w").write(note + "\n")
    return out


task(0, "n1", "COMPLETED", text=open(c1).read())
n2 = task(1, "n2", "FAILED", note="pmubench exit status 1")
n3 = task(2, "n3", "TIMEOUT", text=open(stopped).read(),
          note="stopped by SIGTERM from Slurm (time limit or scancel), exit status 130")
n4 = task(3, "n4", "COMPLETED", text=text[:len(text) // 2])
n5 = task(4, "n5", "NODE_FAIL")
task(5, "n6", "CANCELLED", started=False)
s = subprocess.run(["sh", os.path.join(qdir, "merge.sbatch")], capture_output=True, text=True,
                   env={k: v for k, v in os.environ.items() if k != "PMB_FLEET_ARRAY"})
try:
    mq = json.load(open(qdir + "/merged.json"))
except (OSError, ValueError):
    mq = None
ok(s.returncode == 1 and mq is not None, "the fleet's merge step: exit 1 (tasks missing), merged.json written (%s)"
   % s.stderr.strip()[-300:])
miss = {x.get("task"): x for x in (mq or {}).get("missing", [])}
ok([x.get("task") for x in mq["missing"]] == [1, 2, 3, 4, 5] and [h["host"] for g in mq["groups"] for h in g["hosts"]] == ["c1"],
   "five tasks missing, in task order; the one that ran stands: %s" % sorted(miss))
ok([miss.get(i, {}).get("node") for i in range(1, 6)] == ["n2", "n3", "n4", "n5", "n6"],
   "each missing task named by its node: %s" % [miss.get(i, {}).get("node") for i in range(1, 6)])
want = {
    1: (n2, r"No such file or directory \(the node's job: pmubench exit status 1\); Slurm: FAILED, failed"),
    2: (n3, r"incomplete: a signal stopped this run \(SIGTERM\) \(the node's job: stopped by SIGTERM.*\); "
            r"Slurm: TIMEOUT, timed out"),
    3: (n4, r"line \d+, column \d+: .*; Slurm: COMPLETED"),
    4: (n5, r"no file: the task started on n5 but left no result file and no note of its exit .*; "
            r"Slurm: NODE_FAIL, its node failed"),
    5: (None, r"no file: the task never ran pmubench; Slurm: CANCELLED, cancelled"),
}
for i, (f, reason) in sorted(want.items()):
    x = miss.get(i, {})
    ok(x.get("file") == f and re.match(reason, x.get("reason", "")),
       "task %d (failed, timed out, truncated, no file, never started): %s" % (i, x))
txt = open(qdir + "/merged.txt").read() if os.path.exists(qdir + "/merged.txt") else ""
ok("  missing: node n6 (task 5): no file: the task never ran pmubench; Slurm: CANCELLED, cancelled\n" in txt and
   "  missing: node n3 (task 2): %s: incomplete" % n3 in txt, "merged.txt names the missing nodes")
# A task without a marker or a record: what is known, said.
os.remove(os.path.join(qdir, "task-5.slurm"))
r, mq = merge_json("--fleet=" + qdir, os.path.join(qdir, "n1.json"))
x = [y for y in (mq or {}).get("missing", []) if y.get("task") == 5]
ok(x and x[0]["node"] == "n6" and x[0]["reason"].startswith("no file: the task left nothing, and Slurm keeps no "
                                                           "record of it"),
   "a task with no trace: its node from fleet.tasks, its reason the possibilities: %s" % x)
# No task left a file: one error line naming the first node.
edir = path("fleete")
run("fleet", "--nodelist=a1,a2", "--dir=" + edir, "--", "--filter=^calib/")
r = merge("--fleet=" + edir, "--out=" + out)
err = r.stderr.strip().splitlines()
ok(r.returncode == 2 and len(err) == 1 and err[0].startswith(
    "pmubench: merge: no result file: none of the fleet's 2 tasks left one (the first, node a1 (task 0): no file: ")
   and not os.path.exists(out), "no task left a file: one error line, exit 2: %r" % err)
r = merge("--fleet=" + path("nowhere"), c1)
err = r.stderr.strip().splitlines()
ok(r.returncode == 2 and len(err) == 1 and err[0].startswith("pmubench: merge: --fleet=%s: " % path("nowhere")) and
   err[0].endswith("(expected the folder pmubench fleet wrote)"), "--fleet of another folder: %r" % err)

# ---- fleet: the scripts ---------------------------------------------------
fdir = path("fleet")
r = run("fleet", "--nodes=3", "--constraint=avx512", "--partition=bench", "--time=10", "--dir=" + fdir,
        "--", "--filter=^calib/", "--samples=20")
script = open(fdir + "/fleet.sbatch").read() if os.path.exists(fdir + "/fleet.sbatch") else ""
mscript = open(fdir + "/merge.sbatch").read() if os.path.exists(fdir + "/merge.sbatch") else ""
ok(r.returncode == 0 and "afterany" in r.stdout, "fleet writes its scripts and says how to submit them")
for line in ["#SBATCH --array=0-2", "#SBATCH --exclusive", "#SBATCH --nodes=1", "#SBATCH --constraint=avx512",
             "#SBATCH --partition=bench", "#SBATCH --time=10",
             "'--filter=^calib/' '--samples=20' --format=json --out=\"$out\""]:
    ok(line in script, "fleet.sbatch holds %s" % line)
ok("merge --fleet=\"$dir\" --format=json" in mscript and "#SBATCH --partition=bench" in mscript and
   open(fdir + "/fleet.tasks").read().splitlines()[2:] == ["0 -", "1 -", "2 -"],
   "merge.sbatch merges the three tasks' files, fleet.tasks lists them (nodes Slurm's choice)")
for f in ("fleet.sbatch", "merge.sbatch"):
    s = subprocess.run(["sh", "-n", os.path.join(fdir, f)], capture_output=True, text=True)
    ok(s.returncode == 0, "%s is valid sh %s" % (f, s.stderr))
ldir = path("listed")
r = run("fleet", "--nodelist=a1,b-2.x", "--dir=" + ldir, "--", "--filter=^calib/")
script = open(ldir + "/fleet.sbatch").read() if os.path.exists(ldir + "/fleet.sbatch") else ""
ok(r.returncode == 0 and "#SBATCH --array=0-1\n" in script and "#SBATCH --hold\n" in script,
   "--nodelist: one task per node named, the array held to be placed")
ok(r.stdout.splitlines()[2:5] == ["  scontrol update JobId=${id}_0 ReqNodeList=a1",
                                  "  scontrol update JobId=${id}_1 ReqNodeList=b-2.x",
                                  "  scontrol release $id"],
   "--nodelist: task i given node i, then released: %r" % r.stdout.splitlines()[2:5])
for args, want in [
        (["--dir=" + fdir], "pmubench: fleet: --dir=%s: holds an earlier fleet's files" % fdir),
        (["--nodelist=a1,n[1-4]", "--dir=" + path("f6")],
         "pmubench: fleet: --nodelist=a1,n[1-4]: \"n[1-4]\" is not a node name"),
        (["--nodelist=a1,;rm", "--dir=" + path("f6")], "pmubench: fleet: --nodelist=a1,;rm: \";rm\" is not"),
        (["--nodes=3", "--nodelist=a1,a2", "--dir=" + path("f6")],
         "pmubench: fleet: --nodes=3, but --nodelist names 2 nodes"),
        (["--dir=" + path("f2"), "--", "--samples=x"], "pmubench: fleet: --samples"),
        (["--dir=" + path("f3"), "--", "--out=x.json"], "pmubench: fleet: --format, --out, --save and --plot"),
        (["--nodes=0", "--dir=" + path("f4")], "pmubench: fleet: --nodes"),
        (["--dir=" + path("f5"), "--", "--list"], "pmubench: fleet: the options after -- must be those of a run"),
]:
    r = run("fleet", *args)
    err = r.stderr.strip().splitlines()
    ok(r.returncode == 2 and err and err[-1].startswith(want) and
       not any(os.path.exists(path(d)) for d in ("f2", "f3", "f4", "f5", "f6")),
       "fleet %s: exit 2, %r, nothing written" % (" ".join(a.replace(T, "T") for a in args), err[-1:]))

shutil.rmtree(T, ignore_errors=True)
done()
