#!/usr/bin/env python3
"""test_ab_faults.py - `pmubench ab` when things go wrong (issue 33): its
--out files through the safe writer, checked before anything runs; SIGINT,
SIGTERM and SIGHUP honoured within a second, the sides (and a sim side's
valgrind) stopped and reaped, what was measured written marked incomplete;
a side that hangs stopped after its stated time; the reason a side failed,
never a warning; a full TMPDIR said as such; many benchmarks in linear time.

After every fault no process of the sides is left (ps) and nothing of
ab's in its TMPDIR (a folder of the test's own, listed).  The sides are
tests/ab_target behind shell scripts (as in test_ab.py); no figure is
judged, so it is a cli test: a run is 2 rounds of 200 us samples."""
import json
import os
import signal
import stat
import subprocess
import tempfile
import time

from pmbtap import PMB, ab_target, diag, done, ok, require_pmubench, sim_unavailable, skip

require_pmubench()
TARGET = ab_target()

TMP = tempfile.mkdtemp(prefix="pmb-abf-")
# ab's own TMPDIR: after each run it must hold nothing of ab's.
ABTMP = os.path.join(TMP, "abtmp")
os.mkdir(ABTMP)
LOG = os.path.join(TMP, "turns.log")
FAST = ["--max-rounds=2", "--min-sample-time=200us", "--filter=chain"]


def script(name, body):
    path = os.path.join(TMP, name)
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + body)
    os.chmod(path, 0o755)
    return path


def side(name, turn=None):
    """ab_target as a side that logs each turn to LOG; turn: shell run in
    place of a turn instead ($n: this side's turn count so far, from 0)."""
    body = ('case "$*" in *--list*) exec "%s" "$@";; esac\n'
            'n=$(grep -c "^%s$" "%s" 2>/dev/null); echo %s >> "%s"\n'
            % (TARGET, name, LOG, name, LOG))
    body += (turn + "\n") if turn else ""
    body += 'exec "%s" "$@"\n' % TARGET
    return script(name, body)


def turns():
    try:
        with open(LOG) as f:
            return f.read().split()
    except OSError:
        return []


def start(*args, env_tmp=ABTMP):
    open(LOG, "w").close()
    env = dict(os.environ, TMPDIR=env_tmp)
    return subprocess.Popen([PMB, "ab", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)


def ab(*args, env_tmp=ABTMP, timeout=120):
    p = start(*args, env_tmp=env_tmp)
    out, err = p.communicate(timeout=timeout)
    return p.returncode, out, err


def leftovers():
    """Processes of this test's sides (their scripts, ab_target, a sleep
    or valgrind started from them) still alive, and what is in ab's TMPDIR."""
    ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True).stdout
    procs = [l.strip() for l in ps.splitlines()
             if (TMP in l or "sleep 86400" in l) and "ps -eo" not in l]
    return procs, sorted(os.listdir(ABTMP))


def clean_after(what):
    procs, files = leftovers()
    ok(not procs and not files, "%s: no process of the sides left, nothing in TMPDIR (%r, %r)"
       % (what, procs[:3], files[:5]))


def wait_turns(n, p, limit=60):
    """Until the sides have started n turns (or p ended)."""
    t = time.monotonic()
    while len(turns()) < n and p.poll() is None and time.monotonic() - t < limit:
        time.sleep(0.02)


A, B = side("a"), side("b")

# 1. --out: through the safe writer, its targets checked before any side runs.
prefix = os.path.join(TMP, "no-such-dir", "res")
t = time.monotonic()
rc, out, err = ab(*FAST, "--out=" + prefix, A, B)
ok(rc == 2 and len(err.strip().splitlines()) == 1 and prefix + "-old.json" in err and not turns(),
   "ab --out in a missing folder: exit 2, one line naming the file, before any side ran "
   "(%d, %.1f s, %d turns, %r)" % (rc, time.monotonic() - t, len(turns()), err.strip()))
os.mkdir(os.path.join(TMP, "d-new.json"))
rc, out, err = ab(*FAST, "--out=" + os.path.join(TMP, "d"), A, B)
ok(rc == 2 and "d-new.json" in err and "directory" in err and not turns() and
   not os.path.exists(os.path.join(TMP, "d-old.json")),
   "ab --out where PREFIX-new.json is a folder: refused before any side ran, nothing written (%d, %r)"
   % (rc, err.strip()))
os.symlink(A, os.path.join(TMP, "side-old.json"))
rc, out, err = ab(*FAST, "--out=" + os.path.join(TMP, "side"), A, B)
ok(rc == 2 and "side-old.json" in err and "OLD" in err and not turns() and
   open(A).read().startswith("#!/bin/sh"),
   "ab --out whose file is OLD itself (a symlink to it): refused, OLD untouched (%d, %r)" % (rc, err.strip()))

# A planted symlink where the old writer put its temporary file, a file of
# mode 640 owned by another user, a device node: each kept as it is.
victim = os.path.join(TMP, "victim")
with open(victim, "w") as f:
    f.write("precious\n")
os.symlink(victim, os.path.join(TMP, "p-old.json.tmp"))
with open(os.path.join(TMP, "p-old.json"), "w") as f:
    f.write("{}\n")
os.chmod(os.path.join(TMP, "p-old.json"), 0o640)
owner = None
if os.geteuid() == 0:
    owner = 65534
    os.chown(os.path.join(TMP, "p-old.json"), owner, owner)
node = os.path.join(TMP, "p-new.json")
try:
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))   # /dev/null's numbers
except OSError as e:
    node = None
    diag("no device node (%s): PREFIX-new.json is a regular file" % e)
rc, out, err = ab(*FAST, "--out=" + os.path.join(TMP, "p"), A, B)
st = os.stat(os.path.join(TMP, "p-old.json"))
try:
    runs = len(json.load(open(os.path.join(TMP, "p-old.json")))["benchmarks"])
except (OSError, ValueError, KeyError):
    runs = -1
ok(rc in (0, 1) and open(victim).read() == "precious\n" and runs >= 2,
   "ab --out: a symlink planted at PREFIX-old.json.tmp is not followed, the file holds 2 runs (%d, %d, %r)"
   % (rc, runs, err.strip()[-300:]))
ok(stat.S_IMODE(st.st_mode) == 0o640 and (owner is None or (st.st_uid, st.st_gid) == (owner, owner)),
   "ab --out: the old file's mode 640 and owner kept (%o, %d:%d)" % (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid))
if node:
    ok(stat.S_ISCHR(os.lstat(node).st_mode), "ab --out: a device node at PREFIX-new.json written in place, "
       "not replaced by a file")
else:
    skip("ab --out: a device node written in place", "mknod is not allowed here")
ok(sorted(f for f in os.listdir(TMP) if f.startswith("p-")) == ["p-new.json", "p-old.json", "p-old.json.tmp"],
   "ab --out: no temporary file left beside the files (%r)" % sorted(os.listdir(TMP)))
clean_after("ab --out")

# 2. Signals: ab and its sides stop within a second, exit 128 + the signal.
for sig, code in ((signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)):
    out_prefix = os.path.join(TMP, "sig%d" % code)
    p = start("--max-rounds=1000", "--precision=0", "--min-sample-time=200us", "--filter=chain",
              "--out=" + out_prefix, A, B)
    wait_turns(3, p)   # a round measured, the second under way
    t = time.monotonic()
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    took = time.monotonic() - t
    name = signal.Signals(sig).name
    try:
        o = json.load(open(out_prefix + "-old.json"))
        marked = o["context"].get("incomplete") is True and name in o["context"].get("incomplete_reason", "")
        nruns = len(o["benchmarks"])
    except (OSError, ValueError, KeyError):
        marked, nruns = False, -1
    ok(p.returncode == code and took < 1.0, "%s: ab exits %d within a second (%d, %.2f s)"
       % (name, code, p.returncode, took))
    ok(("interrupted by " + name) in err and "stopped: interrupted by " + name in out and
       "abt/chain" in out and marked and nruns >= 1,
       "%s: the rounds measured reported, --out written and marked incomplete (%d runs; %r)"
       % (name, nruns, err.strip()[-300:]))
    clean_after(name)

# A sim side: its valgrind stopped and reaped too, its files removed.
why = sim_unavailable()
if why:
    skip("SIGTERM under --backend=sim", why)
else:
    p = start("--backend=sim", "--filter=chain", A, B)
    vg = False
    t = time.monotonic()
    while not vg and p.poll() is None and time.monotonic() - t < 60:
        ps = subprocess.run(["ps", "-eo", "args"], capture_output=True, text=True).stdout
        vg = any("valgrind" in l and ABTMP in l for l in ps.splitlines())
        time.sleep(0.05)
    t = time.monotonic()
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=20)
    took = time.monotonic() - t
    ok(vg and p.returncode == 143 and took < 1.0 and "nothing to report" in err,
       "SIGTERM during a sim turn: exit 143 within a second, no round to report (%s, %d, %.2f s, %r)"
       % (vg, p.returncode, took, err.strip()))
    clean_after("SIGTERM under --backend=sim")

# 3. A side that hangs is stopped after its stated time, and named.
HANG = side("hang", "sleep 86400")
t = time.monotonic()
rc, out, err = ab("--time-limit=1s", *FAST, A, HANG)
took = time.monotonic() - t
ok(rc == 2 and "NEW " + HANG + " did not finish its turn within 2.0 s" in err and "--time-limit" in err
   and took < 10, "a side that hangs in its first turn: stopped after the floor of 2 s, named, exit 2 "
   "(%d, %.1f s, %r)" % (rc, took, err.strip()))
clean_after("a hung first turn")
LATE = side("late", '[ "$n" -ge 2 ] && sleep 86400')
rc, out, err = ab("--max-rounds=5", "--min-sample-time=200us", "--filter=chain", LATE, B)
ok(rc == 2 and "OLD " + LATE + " did not finish its turn within" in err and "5 x its slowest turn" in err,
   "a side that hangs in its third turn: stopped after 5 x its slowest turn, named (%d, %r)"
   % (rc, err.strip()))
clean_after("a hung third turn")

# 4. Why a side failed: never a warning line.
CRASH = script("crash", 'case "$*" in *--list*) exec "%s" "$@";; esac\n'
               'echo "pmubench: warning: the error rate is high, an unrelated warning" >&2\n'
               'kill -SEGV $$\n' % TARGET)
rc, out, err = ab(*FAST, A, CRASH)
ok(rc == 2 and "killed by signal 11" in err and "unrelated" not in err and "only 1 warning line" in err,
   "a side killed after a warning: the signal said, the warning not quoted as its reason (%d, %r)"
   % (rc, err.strip()))
FAIL = script("fail", 'case "$*" in *--list*) exec "%s" "$@";; esac\n'
              'echo "pmubench: warning: a warning first" >&2\necho "cannot go on: reason here" >&2\n'
              'exit 3\n' % TARGET)
rc, out, err = ab(*FAST, A, FAIL)
ok(rc == 2 and err.strip().endswith("exited 3: cannot go on: reason here"),
   "a side that warns, then fails: its failure line is the reason (%d, %r)" % (rc, err.strip()))
clean_after("sides that fail")

# 5. A full TMPDIR: the side's own reason (no space), not "(nothing on stderr)".
FULL = os.path.join(TMP, "full")
os.mkdir(FULL)
if os.geteuid() != 0 or subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", FULL],
                                       capture_output=True).returncode:
    skip("ab with a full TMPDIR", "cannot mount a small tmpfs here (needs root)")
else:
    try:
        os.mkdir(os.path.join(FULL, "x"))   # the folder ab makes there fits
        try:
            with open(os.path.join(FULL, "fill"), "wb") as f:
                while True:
                    f.write(b"\0" * 4096)
                    f.flush()
        except OSError:
            pass
        os.rmdir(os.path.join(FULL, "x"))
        rc, out, err = ab(*FAST, A, B, env_tmp=FULL)
        ok(rc == 2 and "No space left on device" in err and "nothing on stderr" not in err,
           "ab with a full TMPDIR: exit 2, no space said (%d, %r)" % (rc, err.strip()))
        left = sorted(f for f in os.listdir(FULL) if f != "fill")
        ok(not left, "ab with a full TMPDIR: nothing of ab's left there (%r)" % left)
    finally:
        subprocess.run(["umount", FULL])

# 6. Many benchmarks: the lists compared in n log n, the names kept off the
# sides' command lines (a side's turn here fails at once, on purpose).
def many(n):
    names = os.path.join(TMP, "names%d" % n)
    with open(names, "w") as f:
        f.write("".join("grp/bench_%07d\n" % i for i in range(n)))
    args = os.path.join(TMP, "args%d" % n)
    body = ('case "$*" in *--list*) cat "%s"; exit 0;; esac\n'
            'echo "$*" > "%s"; echo "error: no turn here, on purpose" >&2; exit 3\n' % (names, args))
    return script("many%d" % n, body), args


took = {}
for n in (25000, 100000):
    s, args = many(n)
    t = time.monotonic()
    rc, out, err = ab("--max-rounds=2", s, s)
    took[n] = time.monotonic() - t
    arglen = len(open(args).read()) if os.path.exists(args) else -1
    ok(rc == 2 and "no turn here, on purpose" in err and 0 < arglen < 300,
       "%d benchmarks: listed and compared, the turn's arguments %d bytes, not the names (%d, %.2f s, %r)"
       % (n, arglen, rc, took[n], err.strip()))
# Quadratic: 16 times as long for 4 times the names (100 k took 79 s);
# linear or n log n: at most about 4.5 times, plus the fixed cost of
# starting the sides.
ok(took[100000] < 8 * took[25000], "100 k benchmarks take at most 8 x the time of 25 k (%.2f s, %.2f s)"
   % (took[100000], took[25000]))
clean_after("many benchmarks")
done()
