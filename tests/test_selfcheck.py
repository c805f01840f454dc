#!/usr/bin/env python3
"""--self-check: one line per calibration kernel with the expected value,
the measured value and a verdict; checks that need a counter the machine
lacks say NOT CHECKED with a reason, estimated cycles are labelled, and the
exit status is 0 exactly when no check is WRONG."""
import os
import re
import subprocess
import sys

from pmbtap import Load, binary_arch, diag, done, emulated_timing, idlest_cpu, ok, skip, unwrapped  # noqa: E402

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
# had l1_chase at 5.9-8.4 est. cycles, its fastest samples 4.4-5.0, and one
# add_chain read 1.54 with the frequency estimated at 3.23 GHz before the
# checks and 2.48 after): a cycles check out of range that the run's own
# evidence accounts for is UNSTEADY, not judged, its evidence printed and
# checked below; where the frequency moved and a cycles check is WRONG all
# the same, the machine was not steady enough to judge (skipped, saying so).
UNSTEADY_WHY = re.compile(r"^note: selfcheck/(\S+) UNSTEADY, not judged: (.*)$", re.M)
NUM = r"([0-9]+(?:\.[0-9]+)?)"
FASTEST = re.compile(r"a quarter of its samples or more read within the known %s-%s cycles/item \(fastest %s, "
                     r"first quartile %s (?:est\. )?cycles/item\), its median %s, slowest %s; a fixed cost per "
                     r"sample would add up to %s (?:est\. )?cycles/item at its median sample's length \(its 95 %% "
                     r"interval's upper end\)" % ((NUM,) * 7))
AT_AFTER = re.compile(r"at the frequency estimated after the checks it would read %s est\. cycles/item, "
                      r"against %s at the first; the known %s-%s reaches into that span" % ((NUM,) * 4))
MOVED = re.compile(r"^note: the frequency estimated from an add chain was ([0-9.]+) GHz before the checks and "
                   r"([0-9.]+) GHz after them; est\. cycles use the first$", re.M)




def parse(out):
    """{check: (rest of the line without the verdict, verdict)}"""
    rows = {}
    for line in out.splitlines():
        m = re.match(r"selfcheck/(\S+)\s{2,}(.*)$", line)   # table rows only
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


def self_check():
    """One --self-check on the idlest core, and what else the machine did
    meanwhile: (completed process, its rows, pmbtap.Load)."""
    with Load() as busy:
        p = subprocess.run([PMB, "--self-check", "--samples=10"] + (["--cpu=%d" % cpu] if cpu is not None else []),
                           capture_output=True, text=True, timeout=300)
    return p, parse(p.stdout), busy


r, rows, load = self_check()
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



def unsteady_evidence(out, rows):
    """Each UNSTEADY check's why, and whether it holds: its fastest sample
    gave the known answer while its median read high, or at the frequency
    estimated after the checks (moved over 5 %) it reads the known answer.
    [(name, why, good, what was checked)]"""
    out = unwrapped(out)
    why = dict(UNSTEADY_WHY.findall(out))
    moved = MOVED.search(out)
    seen = []
    for name, (rest, verdict) in rows.items():
        if verdict != "UNSTEADY":
            continue
        w = why.get(name, "")
        f, a = FASTEST.search(w), AT_AFTER.search(w)
        lo, hi = ANSWER[name]
        good = name in CYCLE_CHECKS and bool(f or a)
        said = "a cycles check, with its evidence"
        if f:
            plo, phi, fast, q1, med, slow, fixed = (float(x) for x in f.groups())
            good = good and plo <= lo and hi <= phi and plo <= fast <= q1 <= phi < med <= slow and med - fixed > phi
            said += ("; the known %s-%s holds the documented answer, its fastest %s and first quartile %s in it, "
                     "its median %s over it by more than a fixed cost's %s" % (plo, phi, fast, q1, med, fixed))
        if a:
            g0, g1 = (float(moved.group(1)), float(moved.group(2))) if moved else (0, 0)
            at, first, plo, phi = (float(x) for x in a.groups())
            good = good and plo <= lo and hi <= phi and g0 > 0 and abs(g1 / g0 - 1) > 0.045 and \
                abs(at / first / (g1 / g0) - 1) < 0.01 and min(at, first) <= phi and max(at, first) >= plo
            said += "; the frequency %s -> %s GHz, moved over 5 %%, and at it %s, the span to %s reaching " \
                    "into %s-%s" % (g0, g1, at, first, plo, phi)
        seen.append((name, w, good, said))
    return seen


# The parser on a constructed report (a host that is unsteady on cue does
# not exist): an UNSTEADY row and its note, each read as what it is.
FAKE = """self-check on core 1 (perf backend): no hardware counters, cycles ESTIMATED from time
check                 expected              measured                       verdict
--------------------------------------------------------------------------------------
selfcheck/add_chain   1 cycle/item          1.300 cycles/item (est.)       UNSTEADY
selfcheck/imul_chain  3 cycles/item         3.007 cycles/item (est.)       ok
selfcheck/l1_chase    4-5 cycles/item       5.924 cycles/item (est.)       UNSTEADY
note: the frequency estimated from an add chain was 3.23 GHz before the checks and 2.48 GHz after
    them; est. cycles use the first
note: selfcheck/add_chain UNSTEADY, not judged: at the frequency estimated after the checks it
    would read 0.998 est. cycles/item, against 1.300 at the first; the known 0.9-1.1 reaches into
    that span
note: selfcheck/l1_chase UNSTEADY, not judged: a quarter of its samples or more read within the
    known 3.5-5.5 cycles/item (fastest 4.437, first quartile 5.102 est. cycles/item), its median
    5.924, slowest 9.978; a fixed cost per sample would add up to 0.005 est. cycles/item at its
    median sample's length (its 95 % interval's upper end)
"""
fake = parse(FAKE)
fake_seen = unsteady_evidence(FAKE, fake)
ok(fake.get("add_chain") == ("1 cycle/item          1.300 cycles/item (est.)", "UNSTEADY") and
   fake.get("l1_chase", ("", ""))[1] == "UNSTEADY" and len(fake) == 3 and
   [(n, g) for n, _, g, _ in fake_seen] == [("add_chain", True), ("l1_chase", True)],
   "the parser reads a constructed report's UNSTEADY rows as rows and their wrapped notes as evidence: %r %r"
   % (fake, fake_seen))

# Each UNSTEADY check of the real run says why, and the why holds.
for name, w, good, said in unsteady_evidence(out, rows):
    ok(good, "%s UNSTEADY: %s (%r)" % (name, said, w))

# Built for another CPU than x86-64, the x86-only checks say NOT CHECKED.
arch = binary_arch()
not_here = X86_CHECKS if arch not in ("x86-64", None) else []
if not_here:
    ok(all(rows.get(c, ("", ""))[1] == "NOT CHECKED" and "x86-64" in rows[c][0] for c in not_here),
       "on %s the x86-64 checks (%s) say NOT CHECKED, naming x86-64: %r"
       % (arch, ", ".join(not_here), [rows.get(c) for c in not_here]))
hw = "no hardware counters" not in out
if hw:
    ok(all(rows.get(c, ("", ""))[1] in ("ok", "WRONG") or
           (rows.get(c, ("", ""))[1] == "UNSTEADY" and c in CYCLE_CHECKS) for c in CHECKS if c not in not_here),
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
    moved = MOVED.search(unwrapped(out))
    unsteady = [c for c, (_, v) in rows.items() if v == "UNSTEADY"]
    flagged = [c for c in CYCLE_CHECKS if rows.get(c, ("", ""))[1] in ("WRONG", "UNSTEADY")]
    clean = busy2 = None
    if flagged and not [c for c in wrong if c not in CYCLE_CHECKS]:
        # A cycles check WRONG or UNSTEADY on a machine idle by its own
        # measure: the once seen here (l1_chase at 12.000 est. cycles,
        # every sample at L2's latency, add_chain and imul_chain right
        # beside it; 1 run in about 160) did not recur in the next.  So the
        # run is measured once more, at once: a figure the harness gets
        # wrong (a bias near the edge too, which can read UNSTEADY) is so
        # again; a run after it that is idle, exits 0 and gives those checks
        # ok shows the first was the machine's moment, and the points skip
        # saying both runs' figures (and the frequency note where given).
        r2, rows2, load2 = self_check()
        busy2 = load2.why if load2.busy else None
        clean = (r2.returncode == 0 and sorted(rows2) == sorted(CHECKS) and not load2.busy and
                 all(rows2[c][1] == "ok" for c in flagged) and
                 not [c for c, (_, v) in rows2.items() if v == "WRONG"])
        diag("measured again: exit %d, %r; %s" % (r2.returncode, {c: rows2.get(c) for c in flagged}, load2.said))
        said = "%s%s; measured again at once (exit %d, %s): %s" % (
            "; ".join("%s %s %s" % (c, rows[c][0], rows[c][1]) for c in flagged),
            " (%s)" % moved.group(0) if moved else "", r2.returncode, load2.said,
            "; ".join("%s %s %s" % (c, rows2.get(c, ("", ""))[0], rows2.get(c, ("", ""))[1]) for c in flagged))
    if flagged and busy2:
        # The second run, the one that would tell the machine's moment from
        # the harness's fault, had other work beside it: no judging.
        skip("nothing is WRONG and --self-check exits 0 (wrong: %r)" % wrong,
             "measured again to judge %s, but %s" % (", ".join(flagged), busy2))
        diag(out)
    elif wrong and clean:
        skip("nothing is WRONG and --self-check exits 0 (wrong: %r)" % wrong, "not reproduced: " + said)
        diag(out)
    elif not ok(r.returncode == 0 and not wrong, "nothing is WRONG and --self-check exits 0 (wrong: %r)" % wrong):
        diag(out)
    if unsteady and busy2:
        skip("every cycles check judged ok", "measured again to judge %s, but %s" % (", ".join(flagged), busy2))
    elif unsteady and clean:
        skip("every cycles check judged ok", "%s UNSTEADY: %s; not reproduced: %s" % (", ".join(unsteady), " ".join(
            l for l in unwrapped(out).splitlines() if l.startswith("note: selfcheck/") and "UNSTEADY" in l), said))
    elif unsteady:
        ok(False, "an UNSTEADY check gives the known answer when measured again at once (%s)" % said)

done()
