#!/usr/bin/env python3
"""The progress line (issue 27, point 4): on a terminal (stderr a pty),
before each benchmark, "[done/total] name" with the time left at the pace
of those done, kept to one line of the terminal and erased before the
report; on a pipe, nothing of it."""
import os
import re
import subprocess
import sys

import pmbtap  # noqa: E402
from pmbtap import done, ok, require_pmubench, skip  # noqa: E402

PMB = os.environ.get("PMUBENCH")
require_pmubench()
# Names of several lengths; the 40-column terminal cuts the longest.  The
# sweep's sizes are this machine's (its caches): the two smallest, as listed.
FILTER = "--filter=" + pmbtap.exact_filter(["calib/add_chain", "calib/add_chain4"] +
                                           pmbtap.instances("^mem/random_read/", 2))
ARGS = [FILTER, "--samples=5", "--min-sample-time=200us"]
COLS = 40
env = dict(os.environ)
env.pop("COLUMNS", None)
names = subprocess.run([PMB, "--list", FILTER], capture_output=True, text=True, env=env).stdout.split()
ok(len(names) == 4, "the filter names 4 benchmarks (%r)" % names)

try:
    import pty  # noqa: F401
    got, rc = pmbtap.on_pty([PMB, *ARGS], env=env, winsize=COLS)
except (ImportError, OSError) as err:
    got, rc = None, None
    skip("progress on a terminal", "no pseudo-terminal here (%s)" % err)

if got is not None:
    text = got.decode("utf-8", "replace")
    # Each draw: an erase, then the line up to the next erase or newline.
    draws = [d for d in re.findall(r"\r\x1b\[K([^\r\n]*)", text) if d]
    prog = [d for d in draws if d.startswith("[")]
    line = re.compile(r"^\[(\d+)/(\d+)\] (\S+?)(?:\.\.)?(?:, about (?:(\d+) min )?(\d+) s left)?$")
    m = [line.match(d) for d in prog]
    ok(rc == 0 and len(prog) == len(names) and all(m),
       "one line per benchmark, '[done/total] name, about T left' (%d: %r)" % (rc, prog))
    if all(m) and len(m) == len(names):
        ok([int(x.group(1)) for x in m] == list(range(len(names))) and
           all(int(x.group(2)) == len(names) for x in m),
           "done counts 0..%d of %d (%r)" % (len(names) - 1, len(names), [x.group(1) for x in m]))
        ok(all(n == x.group(3) or (prog[k].find("..") > 0 and n.startswith(x.group(3)))
               for k, (n, x) in enumerate(zip(names, m))),
           "each names the benchmark measured now, in the order --list gives (cut with '..' to fit)")
        ok(m[0].group(5) is None and all(x.group(5) is not None for x in m[1:]),
           "the time left from the second benchmark on, at the pace of those done (%r)" % prog)
        # The run took seconds: an estimate of hours would be no estimate.
        left = [int(x.group(4) or 0) * 60 + int(x.group(5)) for x in m[1:]]
        ok(all(0 <= s <= 120 for s in left), "the estimates are of seconds, as the run was (%r)" % left)
    ok(all(len(d) <= COLS - 1 for d in prog),
       "each line fits the %d-column terminal (widest %d: %r)" % (COLS, max(map(len, prog or [""])), prog))
    tail = text[text.rfind(prog[-1]) + len(prog[-1]):] if prog else ""
    ok(tail.startswith("\r\x1b[K") and not any(x.startswith("[") for x in tail.split("\r\n")),
       "the last line erased before anything else is written (%r)" % tail[:80])

r = subprocess.run([PMB, *ARGS], capture_output=True, text=True, env=env)
ok(r.returncode == 0 and "\r" not in r.stderr and not re.search(r"\[\d+/\d+\]", r.stderr),
   "no progress where stderr is a pipe (%r)" % r.stderr[-200:])
done()
