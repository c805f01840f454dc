#!/usr/bin/env python3
"""tests/device/x86-pmu.sh, the x86 PMU check (issue 30), run where it can
measure nothing, so that it cannot rot before the first x86 PMU comes:
against the pmubench under test it must exit 0 and print the machine's
header and one line per check, every check SKIP with the reason naming
the missing PMU, no FAIL.  Where hardware counters work the script
measures for minutes and its verdicts are the hardware's: run it itself."""
import os
import platform
import re
import subprocess
import sys

import pmbtap
from pmbtap import done, ok, run_json

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, "device", "x86-pmu.sh")
sys.path.insert(0, os.path.join(HERE, "device"))
import x86_pmu  # noqa: E402  (its CHECKS: the lines the table must have)

pmbtap.require_pmubench()
if pmbtap.emulator() or pmbtap.binary_arch() != "x86-64" or platform.machine() != "x86_64":
    print("1..0 # SKIP the x86 PMU check runs an x86-64 pmubench natively (%s under %s)"
          % (pmbtap.binary_arch(), pmbtap.emulator() or platform.machine()))
    sys.exit(0)
r, d = run_json("--counters=cycles,instructions", "--filter=^calib/empty$", "--samples=10")
ctx = (d or {}).get("context", {})
if (ctx.get("pmu") or {}).get("hardware_counters_work"):
    print("1..0 # SKIP hardware counters work here: run tests/device/x86-pmu.sh itself for its verdicts")
    sys.exit(0)

p = subprocess.run([SCRIPT, "--pmubench=" + pmbtap.PMB], capture_output=True, text=True, timeout=240)
out = p.stdout.splitlines()
ok(p.returncode == 0, "exits 0 where nothing can be measured (%d: %s)" % (p.returncode, p.stderr.strip()[-300:]))


def field(name):
    """The value of a header line 'name: value', or None."""
    got = [l.split(":", 1)[1].strip() for l in out if l.startswith(name + ":")]
    return got[0] if len(got) == 1 else None


model = [l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")]
with open("/proc/sys/kernel/perf_event_paranoid") as f:
    paranoid = f.read().strip()
pmu = (ctx.get("pmu") or {}).get("name")
ok(model and field("cpu model") == model[0], "header: the CPU model of /proc/cpuinfo (%r)" % field("cpu model"))
ok((field("kernel") or "").startswith(platform.release()), "header: the kernel, uname -r (%r)" % field("kernel"))
ok(field("perf_event_paranoid") == paranoid, "header: perf_event_paranoid %s (%r)" % (paranoid, field("perf_event_paranoid")))
ok(pmu and (field("pmu") or "").startswith(pmu + " ") and "hardware counters work: no" in field("pmu"),
   "header: the PMU pmubench detected, context.pmu.name %r (%r)" % (pmu, field("pmu")))

# The table's columns start where the header's names do.
head = [l for l in out if l.startswith("check ") and l.rstrip().endswith("reason")]
cols = [head[0].index(c) for c in ("result", "figure", "bound", "reason")] if len(head) == 1 else []
rows = []
for l in out[out.index(head[0]) + 2:] if cols else []:
    if len(l) > cols[3] and l[cols[0]:cols[1]].strip() in ("PASS", "FAIL", "SKIP"):
        rows.append({"what": l[:cols[0]].strip(), "result": l[cols[0]:cols[1]].strip(),
                     "figure": l[cols[1]:cols[2]].strip(), "reason": l[cols[3]:].strip()})
ok(len(head) == 1, "a header line names the columns check, result, figure, bound, reason (%r)" % head)
names = [w for _, w, _ in x86_pmu.CHECKS]
got = [x["what"] for x in rows]
ok(sorted(got) == sorted(names) and len(got) == len(set(got)),
   "one line per check, %d of them (missing %r, extra %r)"
   % (len(names), sorted(set(names) - set(got)), sorted(set(got) - set(names))))
fail = [l for l in out if re.search(r"\bFAIL\b", l) and not re.fullmatch(r"\d+ PASS, 0 FAIL, \d+ SKIP", l)]
ok(not fail, "no FAIL line (%r)" % fail)
unskipped = [x["what"] for x in rows if x["result"] != "SKIP"]
ok(rows and not unskipped, "every check is SKIP (not: %r)" % unskipped)
reasons = {x["reason"] for x in rows}
ok(rows and all(re.search(r"\b(no PMU|PMU refused|no working PMU)\b", x) for x in reasons),
   "every SKIP's reason names the missing PMU (%r)" % sorted(reasons))
ok(out and out[-1] == "0 PASS, 0 FAIL, %d SKIP" % len(names), "the count of results ends the table (%r)"
   % (out[-1] if out else None))

r = subprocess.run([SCRIPT, "--no-such-option"], capture_output=True, text=True, timeout=60)
ok(r.returncode == 2 and "--no-such-option" in r.stderr and r.stdout == "",
   "an unknown argument: exit 2, named (%d: %s)" % (r.returncode, r.stderr.strip()))
done()
