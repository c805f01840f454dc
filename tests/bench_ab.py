#!/usr/bin/env python3
"""How often `pmubench ab` and two separate runs + `pmubench compare` are
wrong on this machine (not a test: an experiment, minutes long).

    tests/bench_ab.py [--runs=N] [--dir=DIR]   measure, then analyse
    tests/bench_ab.py --analyse --dir=DIR      analyse what DIR holds again
    ... --before=PMUBENCH                      also judge the pairs with another
                                               pmubench's compare (one built
                                               before a change, for instance)

Sides: build/tests/ab_target, whose kernel (abt/chain) PMB_TEST_SLOWDOWN=k
makes k % slower.  N times each (default 20):
  ab A/A    pmubench ab --filter=^abt/chain$ OLD OLD' (k = 0 both; the
            default threshold, precision and 60 s limit): exit 1 is a false
            positive;
  ab 5 %    the same against k = 5: exit 1 is a detection, with its time;
  separate  one run of OLD then one of NEW (k = 0 and k = 5), default
            options, each written to JSON, as a user comparing two builds
            would; and the same with --repetitions=5; compare then judges
            each pair (by default, and with --drift=0, which is compare's
            old behaviour on single runs);
  sum_if    10 pairs of single runs of the built-in suite
            (pmubench --filter=^branch/sum_if/), identical code: the share
            of figures compare calls changed, and how many pairs exit 1.
Every file is kept in DIR (default /tmp/pmb-bench-ab), so the analysis can
be redone, e.g. after changing compare.  The load average is recorded
beside each run: on a shared machine it is part of the result."""
import glob
import json
import os
import re
import stat
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BUILD = os.path.join(HERE, "..", "build")
PMB = os.environ.get("PMUBENCH") or os.path.join(BUILD, "src", "pmubench")
TARGET = os.environ.get("PMB_AB_TARGET") or os.path.join(BUILD, "tests", "ab_target")


def arg(name, default):
    for a in sys.argv[1:]:
        if a.startswith(name + "="):
            return a.split("=", 1)[1]
    return default


def load():
    return float(open("/proc/loadavg").read().split()[0])


def side(d, name, k):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write('#!/bin/sh\nPMB_TEST_SLOWDOWN=%s exec "%s" "$@"\n' % (k, TARGET))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def record(d, name, cmd):
    """Run cmd; keep its output, exit status, time and the load around it."""
    l0, t0 = load(), time.monotonic()
    p = subprocess.run(cmd, capture_output=True, text=True)
    meta = {"cmd": cmd, "rc": p.returncode, "s": time.monotonic() - t0, "load": [l0, load()]}
    with open(os.path.join(d, name + ".txt"), "w") as f:
        f.write(p.stdout)
    with open(os.path.join(d, name + ".meta"), "w") as f:
        json.dump(meta, f)
    if p.returncode not in (0, 1):
        print("%s: exit %d: %s" % (name, p.returncode, p.stderr.strip()[-300:]), file=sys.stderr)
    return meta


def measure(d, runs):
    os.makedirs(d, exist_ok=True)
    a, a2, b5 = side(d, "old", 0), side(d, "old2", 0), side(d, "new5", 5)
    for i in range(10):
        for s in "ab":
            record(d, "sumif-%s-%02d" % (s, i), [PMB, "--filter=^branch/sum_if/", "--format=json",
                                                  "--out=" + os.path.join(d, "sumif-%s-%02d.json" % (s, i))])
    for i in range(runs):
        for name, prog, extra in (("sep-old", a, []), ("sep-aa", a2, []), ("sep-new5", b5, []),
                                  ("rep-old", a, ["--repetitions=5"]), ("rep-aa", a2, ["--repetitions=5"]),
                                  ("rep-new5", b5, ["--repetitions=5"])):
            out = os.path.join(d, "%s-%02d.json" % (name, i))
            record(d, "%s-%02d" % (name, i), [prog, "--filter=^abt/chain$", "--format=json",
                                              "--out=" + out, *extra])
    for i in range(runs):
        for name, new in (("ab-aa", a2), ("ab-5", b5)):
            record(d, "%s-%02d" % (name, i), [PMB, "ab", "--filter=^abt/chain$", a, new])
            print("%s-%02d done" % (name, i), file=sys.stderr)


def compare(old, new, *opts, exe=None):
    p = subprocess.run([exe or PMB, "compare", *opts, old, new], capture_output=True, text=True)
    m = re.search(r"^(\d+) regressed, (\d+) improved, (\d+) within noise", p.stdout, re.M)
    changed, total = (int(m.group(1)) + int(m.group(2)),
                      sum(int(x) for x in m.groups())) if m else (0, 0)
    return p.returncode, changed, total


def metas(d, prefix):
    out = []
    for path in sorted(glob.glob(os.path.join(d, prefix + "-[0-9][0-9].meta"))):
        m = json.load(open(path))
        m["text"] = open(path[:-5] + ".txt").read()
        out.append(m)
    return out


def pct(k, n):
    return "%d/%d (%.0f %%)" % (k, n, 100.0 * k / n) if n else "none"


def analyse_ab(d):
    for name, what in (("ab-aa", "A/A: exit 1 (false positive)"),
                       ("ab-5", "5 % slower: exit 1 (detected)")):
        m = metas(d, name)
        hits = [x for x in m if x["rc"] == 1]
        fast = [x for x in hits if x["s"] <= 60.5]
        rounds = [int(r.group(1)) for x in m for r in [re.search(r"(\d+) rounds", x["text"])] if r]
        print("ab %-34s %s; within 60 s: %s; %s s per run (median), %s rounds; load %.1f-%.1f" % (
            what, pct(len(hits), len(m)), pct(len(fast), len(m)),
            "%.0f" % sorted(x["s"] for x in m)[len(m) // 2] if m else "-",
            "%d-%d" % (min(rounds), max(rounds)) if rounds else "-",
            min((x["load"][0] for x in m), default=0), max((x["load"][1] for x in m), default=0)))


def pair_time(d, prefix, new):
    """The median time of measuring one pair (both runs), in s."""
    t = []
    for path in sorted(glob.glob(os.path.join(d, "%s-old-[0-9][0-9].meta" % prefix))):
        other = path.replace("-old-", "-%s-" % new)
        if os.path.exists(other):
            t.append(json.load(open(path))["s"] + json.load(open(other))["s"])
    return "%.0f s a pair" % sorted(t)[len(t) // 2] if t else "-"


def variants():
    """compare as run: (label, options, executable)."""
    v = [("default", [], None), ("--drift=0", ["--drift=0"], None)]
    if arg("--before", None):
        v.append(("before", [], arg("--before", None)))
    return v


def analyse_sep(d):
    for prefix, label in (("sep", "separate single runs"), ("rep", "separate runs, --repetitions=5")):
        for name, opts, exe in variants():
            for new, what in (("aa", "A/A: exit 1 (false positive)"), ("new5", "5 % slower: exit 1 (detected)")):
                res = []
                for path in sorted(glob.glob(os.path.join(d, "%s-old-[0-9][0-9].json" % prefix))):
                    other = path.replace("-old-", "-%s-" % new)
                    if os.path.exists(other):
                        res.append(compare(path, other, *opts, exe=exe)[0])
                print("compare, %-31s %-9s %-30s %s; %s" % (label, name, what, pct(res.count(1), len(res)),
                                                              pair_time(d, prefix, new)))


def analyse_sumif(d):
    for name, opts, exe in variants():
        ch = tot = ex = n = 0
        for i in range(10):
            a = os.path.join(d, "sumif-a-%02d.json" % i)
            b = os.path.join(d, "sumif-b-%02d.json" % i)
            if os.path.exists(a) and os.path.exists(b):
                rc, c, t = compare(a, b, *opts, exe=exe)
                ch, tot, ex, n = ch + c, tot + t, ex + (rc == 1), n + 1
        print("compare, sum_if suite, identical code, %-9s changed figures %s; exit 1 in %s pairs" % (
            name, pct(ch, tot), pct(ex, n)))


def main():
    d = arg("--dir", "/tmp/pmb-bench-ab")
    if "--analyse" not in sys.argv[1:]:
        measure(d, int(arg("--runs", "20")))
    print("pmubench ab against separate runs + compare, %s" % d)
    analyse_ab(d)
    analyse_sep(d)
    analyse_sumif(d)


if __name__ == "__main__":
    main()
