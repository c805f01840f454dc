#!/usr/bin/env python3
"""The cross-built C tests (/pmb/tests/test_* in the guest) run inside the
aarch64 guest, as one TAP stream: each sub-test's points renumbered and
prefixed with its name; a sub-test that skips whole, exits non-zero or runs
short of its plan gives a point of its own.  Run by run.sh ctests (a guest
of its own) and by run.sh all (tests/aarch64/all.py: run_all() in the guest
test_hw.py then uses, one boot for both)."""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import pmbguest  # noqa: E402

# PMB_TEST_SHORT: statistical trials cut (test_stats: 40, not 400); the
# coverage is arithmetic, asserted by the native run.
ENV = {"PMUBENCH": "/pmb/pmubench", "PMB_SOURCE_ROOT": "/pmb/src", "PMB_TEST_SHORT": "1"}
n = failed = 0


def point(good, what):
    global n, failed
    n += 1
    failed += not good
    print("%s %d - %s" % ("ok" if good else "not ok", n, what.replace("\n", "\\n")), flush=True)


def run_one(g, name):
    t0 = time.monotonic()
    try:
        r = g.run(["/pmb/tests/" + name], env=ENV)
    except subprocess.TimeoutExpired as e:
        point(False, "%s: timed out after %ds" % (name, e.timeout))
        return False
    print("# %s: %.1f s in the guest" % (name, time.monotonic() - t0))
    sys.stderr.write(r.stderr)
    plan, seen, bad = None, 0, 0
    for line in r.stdout.splitlines():
        m = re.match(r"(not ok|ok)\b\s*\d*\s*(?:-\s*)?(.*)", line)
        if m:
            seen += 1
            bad += m.group(1) == "not ok"
            point(m.group(1) == "ok", "%s: %s" % (name, m.group(2)))
        elif re.match(r"1\.\.\d+", line):
            plan = int(line[3:].split()[0])
            if plan == 0:
                point(True, "%s # SKIP %s" % (name, line.partition("# SKIP")[2].strip() or "no tests"))
        elif line.startswith("Bail out!"):
            bad += 1
            point(False, "%s: %s" % (name, line))
        elif line.startswith("#"):
            print(line)
        elif line.strip():
            print("# %s: %s" % (name, line))
    if plan is not None and plan != seen:
        point(False, "%s: planned %d points, ran %d" % (name, plan, seen))
    elif plan is None:
        point(False, "%s: no TAP plan (exit %d)" % (name, r.returncode))
    elif r.returncode != 0 and not bad:
        point(False, "%s: exit %d with no failed point" % (name, r.returncode))
    return True


def run_all(g, ok=None):
    """Every /pmb/tests/test_* in the guest g; ok(cond, what), where given,
    makes the points (pmbtap.ok: one TAP stream with another test's)."""
    global point
    if ok is not None:
        point = ok
    names = [t for t in g.sh("ls /pmb/tests").stdout.split() if t.startswith("test_")]
    for name in names:
        if not run_one(g, name):
            break  # the guest was killed on the timeout


def main():
    ok, why = pmbguest.available()
    if not ok:
        print("1..0 # SKIP " + why)
        return
    with pmbguest.Guest(cpu=os.environ.get("PMB_GUEST") or "cortex-a57") as g:
        run_all(g)
    print("1..%d" % n)


if __name__ == "__main__":
    main()
    sys.exit(1 if failed else 0)
