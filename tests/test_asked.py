#!/usr/bin/env python3
"""Every counter asked for is in every output (issue 26, point 3): a named
counter that cannot be opened reads n/a with its reason in the console and
is in JSON and CSV; names of one event are merged with a note naming them;
different events of one meaning get headers that tell them apart, one
legend line each; task-clock is shown where it differs from ns/item, and
JSON cpu_time is CPU time, not real_time again."""
import csv
import io
import os
import re
import subprocess
import sys

from pmbtap import done, ok, require_pmubench, run, run_json, skip  # noqa: E402

require_pmubench()
FAST = ["--filter=^calib/add_chain$", "--samples=5", "--min-sample-time=300us"]


def flat(text):
    return " ".join(text.split())


def event(d, name):
    return next((e for e in (d or {}).get("context", {}).get("events", []) if e["name"] == name), None)


# ---- a named counter that cannot be opened: n/a with its reason --------------
r, d = run_json("--counters=BR_MISP_RETIRED", *FAST)
ev = event(d, "BR_MISP_RETIRED")
ok(r.returncode == 0 and ev, "--counters=BR_MISP_RETIRED runs and the plan lists it (%d)" % r.returncode)
b = (d or {}).get("benchmarks", [{}])[0]
if ev and ev.get("not_counted"):
    why = ev["not_counted"]
    ok("BR_MISP_RETIRED_per_item" in b and b["BR_MISP_RETIRED_per_item"] is None and
       b.get("BR_MISP_RETIRED_not_counted") == why,
       "JSON: the benchmark carries it as null with its reason: %r" % {k: v for k, v in b.items() if "BR_MISP" in k})
    c = run("--counters=BR_MISP_RETIRED", *FAST)
    lines = c.stdout.splitlines()
    hdr = next((i for i, l in enumerate(lines) if l.startswith("benchmark") and "br-miss/item" in l), None)
    cell = lines[hdr + 2].split() if hdr is not None else []
    col = lines[hdr].split().index("br-miss/item") if hdr is not None else -1
    mark = cell[col][3:] if 0 <= col < len(cell) and cell[col].startswith("n/a") else None
    ok(mark is not None, "console: a br-miss/item column that reads n/a (%r)" % (cell,))
    ok(mark and any(l.startswith(mark + " BR_MISP_RETIRED not counted: " + why[:20]) for l in lines),
       "console: its footnote gives the reason: %r" % [l for l in lines if "not counted" in l])
    c = run("--counters=BR_MISP_RETIRED", *FAST, "--format=csv")
    rows = list(csv.DictReader(io.StringIO(c.stdout)))
    ok(rows and "BR_MISP_RETIRED_per_item" in rows[0] and rows[0]["BR_MISP_RETIRED_per_item"] == "" and
       "BR_MISP_RETIRED:not_counted" in rows[0].get("labels", ""),
       "CSV: its column, empty, labelled not_counted: %r" % (rows[0].get("labels") if rows else None))
else:
    skip("n/a with reason for a counter that cannot be opened", "the PMU counts BR_MISP_RETIRED here")

# ---- names of one event: merged, with one note naming them ------------------
r, d = run_json("--counters=cycles,cpu-cycles,instructions", *FAST)
ev = event(d, "cycles")
ok(ev and ev.get("also_named") == ["cpu-cycles"] and not event(d, "cpu-cycles"),
   "JSON: cpu-cycles is merged into cycles and named there: %r" % (ev and ev.get("also_named")))
c = run("--counters=cycles,cpu-cycles,instructions", *FAST)
ok("cpu-cycles is the same event as cycles, counted once" in flat(c.stdout),
   "console: one note names the merged name")

# ---- different events of one meaning: told apart ----------------------------
c = run("--counters=instructions,instructions:k", *FAST)
heads = " ".join(l for l in c.stdout.splitlines() if l.startswith("benchmark"))
ok(c.returncode == 0 and "instr/item" in heads.split() and "instr:k/item" in heads.split(),
   "headers instr/item and instr:k/item: %r" % heads)
leg = flat(c.stdout)
ok(leg.count("instr: instructions retired") == 1 and leg.count("instr:k: instructions retired") == 1,
   "one legend line each")

# ---- task-clock and cpu_time --------------------------------------------------
r, d = run_json(*FAST)
b = (d or {}).get("benchmarks", [{}])[0]
if "task_clock_per_item" in b:
    ok(b.get("cpu_time") == b["task_clock_per_item"] and b.get("cpu_time_source") == "task-clock",
       "JSON cpu_time is task-clock per item (%r), not real_time (%r)" % (b.get("cpu_time"), b.get("real_time")))
else:
    ok(b.get("cpu_time_source") == "thread CPU time", "without task-clock, cpu_time is the thread's CPU time")
BENCH = os.environ.get("PMB_PAXIS_BENCH")
if not BENCH or not os.access(BENCH, os.X_OK):
    skip("a benchmark off the CPU", "$PMB_PAXIS_BENCH is not set to the built paxis_bench")
else:
    args = ["--filter=^offcpu/", "--samples=5", "--min-sample-time=2ms"]
    c = subprocess.run([BENCH, *args], capture_output=True, text=True, timeout=120)
    j = subprocess.run([BENCH, *args, "--format=json"], capture_output=True, text=True, timeout=120)
    import json
    try:
        b = json.loads(j.stdout)["benchmarks"][0]
    except (ValueError, KeyError, IndexError):
        b = {}
    ok(b.get("cpu_time") is not None and b.get("real_time") and b["cpu_time"] < 0.5 * b["real_time"],
       "asleep in its loop: JSON cpu_time %r well below real_time %r (%s)" %
       (b.get("cpu_time"), b.get("real_time"), b.get("cpu_time_source")))
    heads = " ".join(l for l in c.stdout.splitlines() if l.startswith("benchmark"))
    ok("task_clock_per_item" not in b or "task-clock/item" in heads,
       "console: task-clock shown where it differs from ns/item: %r" % heads)
done()
