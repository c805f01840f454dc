#!/usr/bin/env python3
"""Findings first (issue 27, point 3): the console opens, after the machine
line, with what was found, one line each (wrapped lines indented): per
sweep its median cost per tier and, per cache boundary, whether it steps
there; per branch study its verdict and penalty; how many warnings.  Each
finding is checked against the section after the tables that prints the
same figures at length (the same run, so exact), and the warnings against
stderr.  The second table lists only rows with something in them."""
import os
import re
import subprocess

from pmbtap import done, ok, require_pmubench

PMB = os.environ.get("PMUBENCH")
require_pmubench()
FAST = ["--samples=5", "--min-sample-time=200us"]
WIDTH = 100


def run(*args, cols=WIDTH):
    env = dict(os.environ, COLUMNS=str(cols))
    return subprocess.run([PMB, *args], capture_output=True, text=True, env=env, timeout=300)


def logical(lines):
    """Wrapped lines joined: a line indented more than the one it follows
    by two continues it."""
    out = []
    for ln in lines:
        lead = len(ln) - len(ln.lstrip(" "))
        if out and ln.strip() and lead == out[-1][0] + 2:
            out[-1][1] += " " + ln.strip()
        else:
            out.append([lead, ln.rstrip()])
    return [t for _, t in out]


def findings_block(out):
    """The lines between the header (up to its blank line) and the next
    blank line, joined where wrapped."""
    paras = out.split("\n\n")
    return logical(paras[1].splitlines()) if len(paras) > 1 else []


# A sweep of the smallest points (fast), one branch study, the calibration
# kernels (no .reference: a ratio of "-").
pts = [n for n in run("--list", "--filter=^mem/chase/").stdout.split()]
sweep = "|".join(re.escape(n) for n in pts[:5])
FILT = "--filter=^(%s|branch/sum_if/.*/p(0|5|50)|calib/.*)$" % sweep
r = run(FILT, *FAST)
ok(r.returncode == 0, "the run exits 0 (%d: %s)" % (r.returncode, r.stderr[-300:]))
out = r.stdout
block = findings_block(out)
first_table = out.find("\nbenchmark ")
ok(block and out.find(block[0].split(":")[0]) < first_table,
   "the findings come after the machine line, before the first table (%r)" % block[:2])
ok(all(len(x) <= WIDTH for x in out.split("\n\n")[1].splitlines()),
   "each line of the findings fits %d columns" % WIDTH)

# Warnings: as many as stderr printed.
nwarn = len(re.findall(r"^pmubench: warning: ", r.stderr, re.M))
want = "no warnings" if not nwarn else "%d warning%s, on standard error" % (nwarn, "" if nwarn == 1 else "s")
ok(block and block[-1] == want, "the last finding counts the warnings on stderr (%r, want %r)"
   % (block[-1] if block else None, want))

# The sweep: the finding's tier medians are the tier summary's, and per
# boundary the same verdict as the comparison with hwloc's boundaries.
sw = [x for x in block if x.startswith("mem/chase:")]
at = out.find("\nmem/chase across the cache tiers")
detail = out[at + 1:].split("\n\n")[0].splitlines() if at >= 0 else []
tiers = dict(re.findall(r"^\s*(L\d|DRAM)\s+median (\S+ \S+) per item", "\n".join(detail), re.M))
ok(len(sw) == 1 and tiers, "one finding for the sweep, and its section (%r)" % sw)
if sw and tiers:
    got = dict(re.findall(r"(L\d|DRAM) ([0-9.]+ [nmu]?s)\b", sw[0].split(" per item")[0]))
    ok(got == tiers, "sweep: the finding's median per tier is the section's (%r, %r)" % (got, tiers))
    verdicts = re.findall(r"^\s*L(\d) (\S+): (the data step here too \((\S+),|no step here \((\S+),"
                          r"|no sweep points on both sides)", "\n".join(detail), re.M)
    for lvl, size, text, up, flat in verdicts:
        if up:
            want = "steps %s at L%s %s" % (up, lvl, size)
        elif flat:
            want = "no step at L%s %s (%s" % (lvl, size, flat)
        else:
            want = "no points around L%s %s" % (lvl, size)
        ok(want in sw[0], "sweep: at L%s %s the finding says what the section says (%r in %r)"
           % (lvl, size, want, sw[0]))

# The branch study: the finding is the section's first line, then its penalty.
st = [x for x in block if x.startswith("branch/sum_if: ")]
sec = re.compile(r"^branch study branch/sum_if: .*?(?=\n  branchless / branchy)", re.M | re.S).search(out, first_table)
ok(len(st) == 1 and sec, "one finding for the branch study, and its section (%r)" % st)
if st and sec:
    verdict = " ".join(sec.group(0).split())[len("branch study "):]
    ok(st[0].startswith(verdict), "study: the finding opens with the section's verdict (%r, %r)" % (st[0], verdict))
    pen = re.search(r"misprediction penalty: ([0-9.]+) ns", out)
    nopen = "no misprediction penalty:" in out
    tail = st[0][len(verdict):]
    ok((pen and tail.startswith("; misprediction penalty %s ns" % pen.group(1))) or
       (nopen and tail.startswith("; no misprediction penalty")) or (not pen and not nopen and not tail),
       "study: then the section's penalty (%r)" % tail)

# The second table: no row of "-" alone, and the count of those left out.
r2 = run(FILT, *FAST, cols=70)
tables = [t for t in r2.stdout.split("\n\n") if t.startswith("benchmark ")]
second = tables[1].splitlines() if len(tables) > 1 else []
rows = [ln for ln in second[2:] if not ln.startswith(("not ", "more ", "legend", "¹", "²", "³", " "))]
empty = [ln for ln in rows if all(re.fullmatch(r"-[¹²³⁴⁵⁶⁷⁸⁹⁰]*", c) for c in ln.split()[1:])]
names = [ln.split()[0] for ln in rows]
m = re.search(r"^not listed: (\d+) benchmarks? with nothing in these columns", r2.stdout, re.M)
ok(second and not empty, "the second table has no row of '-' alone (%r)" % empty[:3])
ok(m and int(m.group(1)) + len(rows) == len(tables[0].splitlines()) - 2 and
   not any(n.startswith("calib/") for n in names),
   "the rows left out (calib/*: no .reference) are counted under it (%r, %d rows)"
   % (m.group(0) if m else None, len(rows)))
done()
