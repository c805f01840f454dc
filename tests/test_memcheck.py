#!/usr/bin/env python3
"""test_memcheck.py - the C tests and pmubench's every mode under valgrind
memcheck: no invalid read or write, no use of an uninitialised value, no
leak (definite, indirect or possible).  hwloc's own report is suppressed by
tests/valgrind-hwloc.supp, which names it.  Only memcheck's findings count
here: timing assertions of the C tests mean nothing at valgrind's speed (the
suite runs them natively)."""
import glob
import json
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pmbtap  # noqa: E402
from pmbtap import ok, diag  # noqa: E402

pmbtap.require_pmubench()
PMB = pmbtap.binary()
SRC = os.environ.get("PMB_SOURCE_ROOT", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("PMB_BUILD_ROOT", os.path.dirname(os.path.dirname(PMB)))
SUPP = os.path.join(SRC, "tests", "valgrind-hwloc.supp")
VG = shutil.which("valgrind")
ERR = 99  # valgrind's exit status when memcheck found something

if not VG:
    print("1..0 # SKIP valgrind is not installed (apt-get install valgrind)")
    sys.exit(0)
if pmbtap.emulator():
    print("1..0 # SKIP pmubench runs under %s here: valgrind cannot run it" % pmbtap.emulator())
    sys.exit(0)

work = tempfile.mkdtemp(prefix="pmb-memcheck-")
# hwloc's x86 backend refuses valgrind and says so on stderr; sysfs gives
# the same caches.
# PMB_TEST_SHORT: the C tests' statistical trials cut to what exercises
# the code (test_stats: 40 bootstrap trials, not 400); memory is checked.
# PMB_TEST_MEMCHECK: test_events checks the alias rows of one PMU of each
# vendor, not of 21, each a process that starts libpfm4 again (8.1 CPU s
# under memcheck here, 4.1 now; the native run checks every PMU's rows).
ENV = dict(os.environ, HWLOC_COMPONENTS="-x86", TMPDIR=work, PMB_TEST_SHORT="1", PMB_TEST_MEMCHECK="1")


def interrupted(cmd, done_re, limit=300):
    """Popen cmd with its stderr on a pseudo-terminal, where pmubench draws
    its progress line ("[N/M] name"), and SIGINT it once done_re matches
    what it wrote (or after limit seconds): (process, its stderr)."""
    master, slave = pty.openpty()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=slave, env=ENV)
    os.close(slave)
    buf, t0, sent = b"", time.monotonic(), False
    while True:
        if not sent and (re.search(done_re, buf) or time.monotonic() - t0 > limit):
            p.send_signal(signal.SIGINT)
            sent = True
        if select.select([master], [], [], 0.2)[0]:
            try:
                data = os.read(master, 4096)
            except OSError:   # EIO: the terminal's other side closed
                data = b""
            if not data:
                break
            buf += data
        elif p.poll() is not None:
            break
    p.wait(timeout=900)
    os.close(master)
    return p, buf


def memcheck(cmd, what, stdin=None, interrupt_at=None):
    """Run cmd under memcheck; a test point: no error and no leak.
    interrupt_at: SIGINT it once its stderr matches this (interrupted())."""
    log = os.path.join(work, "vg.log")
    # --read-inline-info=no: the build's objects carry no debug
    # information (release; -g only in test_disasm_loop), so the inlined
    # frames valgrind would read are mostly glibc's (libc6-dbg), read
    # again by each of 39 processes (0.09 of memcheck's 0.45 CPU s start
    # here: issue 29); a report still names every function of its stack.
    vg = [VG, "--tool=memcheck", "-q", "--read-inline-info=no", "--leak-check=full",
          "--show-leak-kinds=definite,indirect,possible",
          "--errors-for-leak-kinds=definite,indirect,possible",
          "--error-exitcode=%d" % ERR, "--num-callers=30", "--suppressions=" + SUPP,
          "--log-file=" + log]
    t0 = time.time()
    if interrupt_at:
        p, err = interrupted(vg + cmd, interrupt_at)
    else:
        p = subprocess.Popen(vg + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=ENV)
        err = p.communicate(timeout=900)[1]
    err = err.decode("utf-8", "replace")
    with open(log) as f:
        report = f.read()
    ok(p.returncode != ERR and not report.strip(),
       "memcheck: %s (exit status %d, %.0f s)" % (what, p.returncode, time.time() - t0))
    if report.strip():
        diag(report[:4000])
    return p.returncode, err


# The C tests, each whole.
tests = sorted(t for t in glob.glob(os.path.join(BUILD, "tests", "test_*"))
               if os.path.isfile(t) and os.access(t, os.X_OK))
for t in tests:
    memcheck([t], os.path.basename(t))

golden = os.path.join(SRC, "tests", "golden")
out = os.path.join(work, "r.json")
# The sweep's points follow this machine's caches: its first and a middle one.
CHASE = pmbtap.instances("^mem/chase/")
cli = [
    (["--list"], "--list"),
    (["--help"], "--help"),
    (["--list-events"], "--list-events"),
    (["--topology"], "--topology"),
    (["--self-check"], "--self-check"),
    (["--filter=^calib/", "--samples=3", "--format=json", "--out=" + out], "a run, JSON to --out"),
    (["--filter=^branch/sum_if/.*/p(0|50)$", "--samples=3", "--format=csv",
      "--plot=" + os.path.join(work, "b.svg")], "a branch study, CSV and --plot"),
    (["--filter=" + pmbtap.exact_filter(CHASE[:1] + CHASE[len(CHASE) // 2:][:1]), "--samples=3", "--repetitions=2",
      "--plot=" + os.path.join(work, "c.svg"), "--save=" + os.path.join(work, "c.json")],
     "a sweep, console, --repetitions, --plot and --save"),
    (["compare", os.path.join(golden, "plain.json"), os.path.join(golden, "refs.json")], "compare"),
    (["compare", out, out], "compare of pmubench's own file"),
    (["report", out, "--wide", "--verbose"], "report of a saved run"),
    (["merge", "--format=json", "--expect=4", out, out, os.path.join(golden, "plain.json"),
      os.path.join(work, "absent.json")], "merge of hosts' files, one missing"),
    (["merge", "--plot=" + os.path.join(work, "m.svg"), os.path.join(work, "c.json")], "merge --plot"),
    (["fleet", "--nodes=2", "--dir=" + os.path.join(work, "fleet"), "--", "--samples=3"], "fleet's scripts"),
    (["--bogus"], "an unknown option"),
    (["--counters=@branch,no-such-event"], "an unknown event"),
    (["--filter=("], "a bad --filter"),
]
for args, what in cli:
    memcheck([PMB, *args], what)
# Interrupted once its progress line says the first benchmark is done
# ("[2/32] ..."), not at a fixed 8 s: that had landed anywhere from the
# first benchmarks (three tests at a time) to after the last (alone, the
# run took 8 s under memcheck here), and cost up to 8 CPU s (issue 29).
rc, err = memcheck([PMB, "--filter=^mem/", "--samples=3", "--format=json", "--out=" + out],
                   "a run stopped by SIGINT", interrupt_at=rb"\[[2-9]/\d+\]")
try:
    with open(out) as f:
        doc = json.load(f)
    incomplete, measured = doc["context"].get("incomplete"), len(doc["benchmarks"])
except (OSError, ValueError, KeyError, TypeError):
    incomplete, measured = None, 0
ok(rc == 130 and incomplete is True and measured >= 1, "... which exited 130 after writing what it "
   "measured, marked incomplete (%d, %r, %d benchmarks; %s)" % (rc, incomplete, measured, err.strip()[-200:]))
# --backend=sim: the parent (re-exec, signals passed on, the dump folder)
# under memcheck; its child runs under callgrind, not traced.
if pmbtap.sim_unavailable():
    pmbtap.skip("memcheck: --backend=sim's parent", pmbtap.sim_unavailable())
else:
    memcheck([PMB, "--backend=sim", "--filter=^calib/add_chain$", "--format=json"], "--backend=sim's parent")
bench = os.environ.get("PMB_LOCALE_BENCH")
if bench:
    memcheck([bench, "--filter=^odd", "--samples=3", "--format=json"],
             "a user's program: escaped names, a skip reason")
shutil.rmtree(work, ignore_errors=True)
pmbtap.done()
