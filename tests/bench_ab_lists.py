#!/usr/bin/env python3
"""bench_ab_lists.py - time against input size for `pmubench ab`'s path from
the sides' lists to the first turn (issue 33, point 4): both sides list N
benchmarks (a tenth of NEW's renamed, so that the notes and the lookups of
names in one list only are exercised too), and the first turn fails at once,
on purpose, so that what is timed is the two --list runs, their reading and
the comparison of the lists.  Prints N, seconds, and the slope of log(time)
against log(N) between each size and the one before: 1 is linear, 2
quadratic (before the fix: 16 k / 32 k / 100 k took 3.4 / 10.2 / 79 s).

Not a test (no verdict); run by hand:
  PMUBENCH=build/src/pmubench python3 tests/bench_ab_lists.py [N...]"""
import math
import os
import subprocess
import sys
import tempfile
import time

PMB = os.environ.get("PMUBENCH", "build/src/pmubench")
SIZES = [int(a) for a in sys.argv[1:]] or [12500, 25000, 50000, 100000, 200000]
TMP = tempfile.mkdtemp(prefix="pmb-ab-lists-")


def side(name, n, renamed):
    names = os.path.join(TMP, name + ".names")
    with open(names, "w") as f:
        for i in range(n):
            f.write("grp/%s_%07d\n" % ("new" if renamed and i % 10 == 0 else "bench", i))
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write('#!/bin/sh\ncase "$*" in *--list*) cat "%s"; exit 0;; esac\n'
                'echo "error: no turn, on purpose" >&2; exit 3\n' % names)
    os.chmod(path, 0o755)
    return path


def timed(n):
    old, new = side("old%d" % n, n, False), side("new%d" % n, n, True)
    best = math.inf
    for _ in range(3):   # the least of three: the machine's noise is added, never removed
        t = time.monotonic()
        p = subprocess.run([PMB, "ab", old, new], capture_output=True, text=True)
        best = min(best, time.monotonic() - t)
        if "no turn, on purpose" not in p.stderr:
            sys.exit("unexpected: %d %s" % (p.returncode, p.stderr.strip()))
    return best


print("%10s %10s %8s" % ("benchmarks", "seconds", "slope"))
prev = None
for n in SIZES:
    t = timed(n)
    slope = "" if prev is None else "%8.2f" % (math.log(t / prev[1]) / math.log(n / prev[0]))
    print("%10d %10.3f %8s" % (n, t, slope))
    prev = (n, t)
