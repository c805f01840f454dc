#!/usr/bin/env python3
"""--self-check: one line per calibration kernel with the expected value,
the measured value and a verdict; checks that need a counter the machine
lacks say NOT CHECKED with a reason, estimated cycles are labelled, and the
exit status is 0 exactly when no check is WRONG."""
import os
import re
import subprocess
import sys

from pmbtap import Load, binary_arch, diag, done, emulated_timing, idlest_cpu, ok, skip  # noqa: E402

PMB = os.environ.get("PMUBENCH")
CHECKS = ["add_chain", "imul_chain", "l1_chase", "coin_flip", "nop_loop"]
CYCLE_CHECKS = ["add_chain", "imul_chain", "l1_chase"]
COUNTER_CHECKS = ["coin_flip", "nop_loop"]   # branch-misses, instructions
X86_CHECKS = ["imul_chain"]   # its 3-cycle latency is an x86-64 answer
# The documented answers (man page): the verdict must say ok well inside
# them and WRONG far outside them, whatever the exact bounds are.
ANSWER = {"add_chain": (1, 1), "imul_chain": (3, 3), "l1_chase": (4, 5),
          "coin_flip": (0.5, 0.5), "nop_loop": (1, 1)}
VERDICT = re.compile(r"\s(ok|WRONG|NOT CHECKED|UNSTEADY)\s*$")
# Measured here: about 4 runs in 10 have a WRONG on a loaded 2-core VM (a
# disturbed frequency estimate moves add_chain and imul_chain together).
# So the run is judged once, and only where the machine was idle enough
# (pmbtap.Load); it was retried up to 5 times.  On an idle guest the host
# still moved it unseen (stop 41's CI: add_chain WRONG; here 5 runs in 80
# had l1_chase at 5.9-8.4 est. cycles, samples from 4.4 to 13, and one
# add_chain at 1.54 with the frequency 3.23 GHz before, 2.48 after): a
# cycles check out of range on a core that did not keep steady is UNSTEADY,
# not judged, its evidence printed and checked below.
UNSTEADY_WHY = re.compile(r"^selfcheck/(\S+) UNSTEADY, not judged: (.*)$", re.M)
SAMPLES = re.compile(r"its samples ran from ([0-9.]+) to ([0-9.]+) (?:est\. )?cycles/item, the known .* among them")
MOVED = re.compile(r"the add chain ran at ([0-9.]+) GHz before them and ([0-9.]+) GHz after")




def parse(out):
    """{check: (rest of the line without the verdict, verdict)}"""
    rows = {}
    for line in out.splitlines():
        m = re.match(r"selfcheck/(\S+)\s+(.*)$", line)
        if not m:
            continue
        v = VERDICT.search(line)
        body = m.group(2)
        rest = body[:len(body) - len(v.group(0))].strip() if v else body.strip()
        rows[m.group(1)] = (rest, v.group(1) if v else None)
    return rows



if not PMB or not os.access(PMB, os.X_OK):
    print("1..0 # SKIP $PMUBENCH is not set to the built pmubench")
    sys.exit(0)

# Under an emulator the timing checks mean nothing; elsewhere a WRONG on a
# timing check is judged only where nothing else ran beside the run.
TIMING_WHY = emulated_timing()
cpu = idlest_cpu()
with Load() as load:
    r = subprocess.run([PMB, "--self-check", "--samples=10"] +
                       (["--cpu=%d" % cpu] if cpu is not None else []),
                       capture_output=True, text=True, timeout=300)
rows = parse(r.stdout)
runs = [(r, rows)]
out = r.stdout
diag(load.said)

ok(all(r.returncode in (0, 1) for r, _ in runs),
   "--self-check exits 0 or 1 (%r)" % [x.returncode for x, _ in runs])
ok(sorted(rows) == sorted(CHECKS), "one line per check: %r" % sorted(rows))
ok(sum(1 for l in out.splitlines() if l.startswith("selfcheck/")) == len(CHECKS),
   "no check is printed twice")
ok(all(v in ("ok", "WRONG", "NOT CHECKED", "UNSTEADY") for _, v in rows.values()),
   "every line ends in a verdict: %r" % {k: v for k, (_, v) in rows.items()})
hdr = [l for l in out.splitlines() if l.split()[:1] == ["check"]]
ok(hdr and all(w in hdr[0] for w in ("expected", "measured", "verdict")),
   "a header names the expected, measured and verdict columns")
ok(all((x.returncode == 0) == all(v != "WRONG" for _, v in rw.values()) for x, rw in runs),
   "it exits 0 exactly when no check is WRONG")

num = r"([0-9]+(?:\.[0-9]+)?)"
for name in CHECKS:
    if name not in rows:
        ok(False, "%s: line present" % name)
        continue
    rest, verdict = rows[name]
    lo, hi = ANSWER[name]
    exp = re.match(r"%s(?:-%s)?\s+\S+/item\b" % (num, num), rest)
    ok(exp is not None and float(exp.group(1)) == lo and float(exp.group(2) or exp.group(1)) == hi,
       "%s: the expected value is stated (%r)" % (name, rest))
    meas = rest[exp.end():].strip() if exp else ""
    if verdict == "NOT CHECKED":
        ok(len(meas) > 0 and not re.match(num + r"\s", meas),
           "%s: NOT CHECKED gives a reason instead of a number (%r)" % (name, meas))
        continue
    m = re.match(num + r"\s+\S+/item", meas)
    ok(m is not None, "%s: the measured value is printed per item (%r)" % (name, meas))
    if m:
        v = float(m.group(1))
        if lo * 0.97 <= v <= hi * 1.03:
            ok(verdict == "ok", "%s: %g is the known answer, verdict %s" % (name, v, verdict))
        elif v < lo * 0.5 or v > hi * 2:
            ok(verdict == "WRONG" or (verdict == "UNSTEADY" and name in CYCLE_CHECKS),
               "%s: %g is far from the known answer, verdict %s" % (name, v, verdict))

# Each UNSTEADY check says why, and the why holds: its samples' range
# reaches the known answer, or the frequency moved more than 5 %.
why = dict(UNSTEADY_WHY.findall(out))
for name, (rest, verdict) in rows.items():
    if verdict != "UNSTEADY":
        continue
    w = why.get(name, "")
    s, mv = SAMPLES.search(w), MOVED.search(w)
    lo, hi = ANSWER[name]
    ok(name in CYCLE_CHECKS and (s or mv),
       "%s: UNSTEADY only for a cycles check, with its evidence: %r" % (name, w))
    if s:
        ok(float(s.group(1)) <= hi * 1.1 and float(s.group(2)) >= lo * 0.875,
           "%s: its samples (%s to %s) reach the known answer" % (name, s.group(1), s.group(2)))
    if mv:
        ok(abs(float(mv.group(2)) / float(mv.group(1)) - 1) > 0.045,
           "%s: the frequency moved over 5 %% (%s -> %s GHz)" % (name, mv.group(1), mv.group(2)))

# Built for another CPU than x86-64, the x86-only checks say NOT CHECKED.
arch = binary_arch()
not_here = X86_CHECKS if arch not in ("x86-64", None) else []
if not_here:
    ok(all(rows.get(c, ("", ""))[1] == "NOT CHECKED" and "x86-64" in rows[c][0] for c in not_here),
       "on %s the x86-64 checks (%s) say NOT CHECKED, naming x86-64: %r"
       % (arch, ", ".join(not_here), [rows.get(c) for c in not_here]))
hw = "no hardware counters" not in out
if hw:
    ok(all(rows.get(c, ("", ""))[1] in ("ok", "WRONG") for c in CHECKS if c not in not_here),
       "with hardware counters every check is measured")
    ok(all("(est.)" not in rows.get(c, ("", ""))[0] for c in CHECKS),
       "with hardware counters no cycle figure is estimated")
else:
    ok(all(rows.get(c, ("", ""))[1] == "NOT CHECKED" for c in COUNTER_CHECKS),
       "without a PMU the counter-only checks (coin_flip, nop_loop) say NOT CHECKED")
    ok(all("counter" in rows.get(c, ("", ""))[0] for c in COUNTER_CHECKS),
       "their reason names the missing counter: %r" % [rows.get(c, ("",))[0] for c in COUNTER_CHECKS])
    ok(all("(est.)" in rows.get(c, ("", ""))[0] for c in CYCLE_CHECKS
           if rows.get(c, ("", ""))[1] != "NOT CHECKED"),
       "without a PMU the cycle checks are marked estimated")
    ok("ESTIMATED" in out.splitlines()[0] if out else False,
       "the first line says cycles are estimated")
    nc = len(COUNTER_CHECKS) + len(not_here)
    ok(re.search(r"^%d checks? could not run here" % nc, out, re.M) is not None,
       "the summary counts the %d checks that could not run" % nc)

wrong = [c for c, (_, v) in rows.items() if v == "WRONG"]
if TIMING_WHY:
    # The counter checks do not depend on time.
    ok(not [c for c in wrong if c not in CYCLE_CHECKS],
       "no counter check is WRONG (wrong: %r)" % wrong)
    skip("nothing is WRONG and --self-check exits 0",
         TIMING_WHY + ": the cycle checks' verdicts mean nothing")
elif load.busy:
    ok(not [c for c in wrong if c not in CYCLE_CHECKS],
       "no counter check is WRONG (wrong: %r)" % wrong)
    skip("nothing is WRONG and --self-check exits 0 (wrong: %r)" % wrong, load.why)
else:
    if not ok(r.returncode == 0 and not wrong, "nothing is WRONG and --self-check exits 0 (wrong: %r)" % wrong):
        diag(out)

done()
