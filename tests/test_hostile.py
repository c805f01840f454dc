#!/usr/bin/env python3
"""test_hostile.py - what a hostile user's inputs get: --out and --plot
targets (devices, FIFOs, symlinks, the run's own inputs, mode and owner),
values that are almost numbers, control characters in arguments, events
tables that are not text or expand without end."""
import os
import re
import shutil
import socket
import stat
import subprocess
import tempfile
import threading
import time

import pmbtap  # noqa: E402
from pmbtap import PMB, done, ok, require_pmubench, run, skip

require_pmubench()
SRC = os.environ.get("PMB_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EVENTS = os.environ.get("PMUBENCH_EVENTS_DIR") or os.path.join(SRC, "events")
TMP = tempfile.mkdtemp(prefix="pmb-hostile-")
# One quick benchmark: a report in well under a second.
QUICK = ["--filter=^calib/empty$", "--samples=10", "--min-sample-time=100us", "--format=json"]
ROOT = os.geteuid() == 0


def path(name):
    return os.path.join(TMP, name)


def one_line(r):
    """The error line, if stderr holds exactly one that is not a warning."""
    lines = [x for x in r.stderr.splitlines() if not x.startswith("pmubench: warning:")]
    return lines[0] if len(lines) == 1 else None


def refused(r, words, what, status=2):
    line = one_line(r)
    ok(r.returncode == status and line is not None and all(w in line for w in words),
       "%s: exit %d, one line saying %s (%d, %r)" % (what, status, ", ".join(words), r.returncode,
                                                      r.stderr.strip()[-300:]))


def leftovers():
    return [f for f in os.listdir(TMP) if ".pmubench-" in f]


def is_report(p):
    with open(p) as f:
        return f.read(1) == "{"


# ---- --out and --plot targets ----------------------------------------------

# A device is written in place, never replaced by a regular file; its
# errors are said with the reason.  Root gets nodes of its own for /dev/full
# and /dev/null (1,7 and 1,3): a pmubench that replaced the target would
# otherwise replace the machine's /dev/null.
FULL, NULL = "/dev/full", "/dev/null"
if ROOT:
    FULL, NULL = path("full"), path("null")
    try:
        os.mknod(FULL, stat.S_IFCHR | 0o666, os.makedev(1, 7))
        os.mknod(NULL, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except OSError as e:
        FULL = NULL = None
        why = "root here cannot make device nodes of its own (%s)" % e.strerror
if FULL:
    r = run(*QUICK, "--out=" + FULL)
    refused(r, ["--out=" + FULL, "write failed", "No space left on device"], "--out=/dev/full", 1)
    ok(stat.S_ISCHR(os.stat(FULL).st_mode), "/dev/full is still a character device")
    r = run(*QUICK, "--out=" + NULL)
    ok(r.returncode == 0 and stat.S_ISCHR(os.stat(NULL).st_mode),
       "--out=/dev/null: exit 0, /dev/null still a character device (%d)" % r.returncode)
else:
    for what in ["--out=/dev/full", "/dev/full stays a device", "--out=/dev/null"]:
        skip(what, why)
# /dev/stdout as the link it is (to /proc/self/fd/1, whose text on a pipe
# is no path), made here: a pmubench that replaced links would replace it.
os.symlink("/proc/self/fd/1", path("stdout"))
r = run(*QUICK, "--out=" + path("stdout"))
ok(r.returncode == 0 and r.stdout.startswith("{") and os.path.islink(path("stdout")),
   "--out=/dev/stdout on a pipe: the report comes through it (%d)" % r.returncode)

# A FIFO: written in place for the reader at the other end.
fifo = path("fifo")
os.mkfifo(fifo)
got = []
reader = threading.Thread(target=lambda: got.append(open(fifo).read()), daemon=True)
reader.start()
r = run(*QUICK, "--out=" + fifo)
reader.join(60)
ok(r.returncode == 0 and got and got[0].startswith("{") and stat.S_ISFIFO(os.stat(fifo).st_mode),
   "--out=FIFO: the reader gets the report, the FIFO stays a FIFO (%d)" % r.returncode)

# A symlink is followed: its target is replaced (keeping its mode), the
# link stays a link.
target, link = path("target.json"), path("link.json")
with open(target, "w") as f:
    f.write("old\n")
os.chmod(target, 0o600)
os.symlink("target.json", link)
r = run(*QUICK, "--out=" + link)
ok(r.returncode == 0 and os.path.islink(link) and is_report(target) and
   stat.S_IMODE(os.stat(target).st_mode) == 0o600,
   "--out=symlink: the target is written, keeps mode 0600, the link stays (%d, %o)"
   % (r.returncode, stat.S_IMODE(os.stat(target).st_mode)))
dangling = path("dangling.json")
os.symlink("created.json", dangling)
r = run(*QUICK, "--out=" + dangling)
ok(r.returncode == 0 and os.path.islink(dangling) and is_report(path("created.json")),
   "--out=dangling symlink: the file it names is created (%d)" % r.returncode)
if ROOT:
    os.chown(target, 65534, 65534)
    os.chmod(target, 0o640)
    r = run(*QUICK, "--out=" + target)
    st = os.stat(target)
    ok(r.returncode == 0 and (st.st_uid, st.st_gid) == (65534, 65534) and
       stat.S_IMODE(st.st_mode) == 0o640 and is_report(target),
       "a file of uid 65534 replaced by root keeps its owner and mode 0640 (%d, %d:%d %o)"
       % (r.returncode, st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)))
else:
    skip("a replaced file keeps another user's ownership", "needs root")
# A new file gets 0666 less the umask, as any program's.
r = subprocess.run([PMB, *QUICK, "--out=" + path("new.json")], capture_output=True, text=True,
                   preexec_fn=lambda: os.umask(0o027))
ok(r.returncode == 0 and stat.S_IMODE(os.stat(path("new.json")).st_mode) == 0o640,
   "a new file under umask 027 is 0640 (%o)" % stat.S_IMODE(os.stat(path("new.json")).st_mode))
r = run(*QUICK, "--out=" + path("p.json"), "--plot=" + path("plot-link.svg"),
        "--filter=" + pmbtap.exact_filter(pmbtap.instances("^mem/chase/", 2)))
ok(r.returncode == 0 and os.path.exists(path("plot-link.svg")), "--plot writes beside --out (%d)"
   % r.returncode)

# Refused before anything is measured: what is no file to write, and the
# run's own inputs.
r = run(*QUICK, "--out=" + TMP)
refused(r, ["is a directory"], "--out=a directory")
loop = path("loop1")
os.symlink("loop2", loop)
os.symlink("loop1", path("loop2"))
refused(run(*QUICK, "--out=" + loop), ["Too many levels of symbolic links"], "--out=a symlink loop")
sock = socket.socket(socket.AF_UNIX)
sock.bind(path("sock"))
refused(run(*QUICK, "--out=" + path("sock")), ["is a socket"], "--out=a socket")
try:
    # A made-up block device (loop device 255), refused before it is opened.
    os.mknod(path("blk.svg"), stat.S_IFBLK | 0o600, os.makedev(7, 255))
    refused(run(*QUICK, "--out=" + path("blk.svg")), ["is a block device"], "--out=a block device")
    refused(run(*QUICK, "--plot=" + path("blk.svg")), ["--plot=", "is a block device"],
            "--plot=a block device")
except OSError as e:
    skip("--out and --plot=a block device are refused", "mknod: %s" % e.strerror)

events = path("events")
shutil.copytree(EVENTS, events)
env = dict(os.environ, PMUBENCH_EVENTS_DIR=events)
before = open(os.path.join(events, "sets.txt")).read()
r = run(*QUICK, "--out=" + os.path.join(events, "sets.txt"), env=env)
refused(r, ["is an events table", "which this run reads"], "--out=the events table sets.txt")
ok(open(os.path.join(events, "sets.txt")).read() == before, "the events table is untouched")
os.symlink(os.path.join(events, "aliases.txt"), path("alias-link"))
refused(run(*QUICK, "--out=" + path("alias-link"), env=env), ["is an events table"],
        "--out=a symlink to aliases.txt")
topo = path("topo.xml")
shutil.copy(os.path.join(SRC, "tests", "topo", "line128.xml"), topo)
refused(run(*QUICK, "--topology-source=" + topo, "--cpu=0", "--out=" + topo),
        ["is the topology source"], "--out=the topology source")
exe = path("pmubench-copy")
shutil.copy(PMB, exe)
r = subprocess.run([exe, *QUICK, "--out=" + exe], capture_output=True, text=True, env=env)
refused(r, ["is the running program"], "--out=the running binary")
ok(os.access(exe, os.X_OK) and open(exe, "rb").read(4) == b"\x7fELF", "the binary is untouched")
cc = shutil.which("cc") or shutil.which("gcc")
if cc:
    with open(path("plug.c"), "w") as f:
        f.write("#include <pmubench.h>\n"
                "static void bm_nop(struct pmb_state *s) { while (pmb_loop_batch(s, 1)) "
                "pmb_do_not_optimize(0); }\nPMB_BENCHMARK(bm_nop, .group = \"plug\");\n")
    plug = path("plug.so")
    subprocess.run([cc, "-shared", "-fPIC", "-I" + os.path.join(SRC, "include"), path("plug.c"),
                    "-o", plug], check=True)
    refused(run(*QUICK, "--load=" + plug, "--filter=^plug/", "--out=" + plug),
            ["is a shared object of --load"], "--out=a shared object of --load")
else:
    skip("--out=a shared object of --load is refused", "no C compiler to build one")
ok(not leftovers(), "no temporary file is left behind (%s)" % leftovers())

# Input files are checked before they are read: a FIFO as the topology
# source would block hwloc, a directory is no file.
os.mkfifo(path("topo-fifo.xml"))
refused(run("--list", "--topology-source=" + path("topo-fifo.xml"), timeout=30),
        ["--topology-source=", "not a regular file"], "a FIFO as the topology source")
os.mkdir(path("topo-dir.xml"))
refused(run("--list", "--topology-source=" + path("topo-dir.xml")), ["Is a directory"],
        "a directory as the topology source")

# ---- values that are almost numbers, and control characters ---------------

for arg, words in [("--samples= 5", ["--samples= 5", "whole number"]),
                   ("--samples=+5", ["--samples=+5"]),
                   ("--samples=5 ", ["--samples=5 "]),
                   ("--seed= -1", ["--seed= -1", "positive whole number"]),
                   ("--seed=-1", ["--seed=-1"]),
                   ("--seed=0x", ["--seed=0x"]),
                   ("--min-sample-time= 1ms", ["--min-sample-time= 1ms", "duration"]),
                   ("--cpu=+0", ["--cpu=+0", "core number"]),
                   ("--repetitions=0x2", ["--repetitions=0x2"]),
                   # One number syntax for every option (issue 33): decimal,
                   # with the unit where one applies; hex, exponents, inf
                   # refused with the option's name, never read as 16 or 8.
                   ("--seed=0x10", ["--seed=0x10", "decimal"]),
                   ("--min-sample-time=0x1p3ms", ["--min-sample-time=0x1p3ms", "decimal"]),
                   ("--min-sample-time=0x10", ["--min-sample-time=0x10", "decimal"]),
                   ("--min-sample-time=1e3us", ["--min-sample-time=1e3us", "duration"]),
                   ("--min-sample-time=inf", ["--min-sample-time=inf", "duration"]),
                   ("--min-sample-time=nanms", ["--min-sample-time=nanms", "duration"]),
                   ("--samples=1e2", ["--samples=1e2", "whole number"]),
                   ("--samples=99999999999999999999999", ["--samples=99999999999999999999999"]),
                   ("--cpu=0x0", ["--cpu=0x0", "core number"])]:
    refused(run("--list", arg), words, "%r refused" % arg)
for arg, seed in [("--seed=010", 10), ("--seed=18446744073709551615", 2**64 - 1)]:
    r = run(*QUICK, arg)
    m = re.search(r'"seed": (\d+)', r.stdout)
    ok(r.returncode == 0 and m and int(m.group(1)) == seed,
       "%s is seed %d (decimal; never octal) (%s)" % (arg, seed, m and m.group(1)))
r = run(*QUICK, "--min-sample-time=2.5ms", "--samples=3")
m = re.search(r'"min_sample_time_ns": ([0-9.e+]+)', r.stdout)
ok(r.returncode == 0 and (m is None or float(m.group(1)) == 2.5e6),
   "--min-sample-time=2.5ms: a decimal fraction with its unit is 2500000 ns (%s)" % (m and m.group(1)))
for sub, arg in [("compare", "--threshold=0x10"), ("compare", "--threshold=1e1"), ("compare", "--drift=0x5"),
                 ("ab", "--threshold=0x10"), ("ab", "--precision=inf"), ("ab", "--time-limit=0x10"),
                 ("ab", "--max-rounds=0x10"), ("ab", "--seed=0x10")]:
    r = subprocess.run([PMB, sub, arg, "a", "b"], capture_output=True, text=True)
    first = (r.stderr.splitlines() or [""])[0]
    ok(r.returncode == 2 and (arg + ": expected") in first,
       "%s %s refused with the option's name (%d, %r)" % (sub, arg, r.returncode, r.stderr.strip()[:100]))
refused(run("--seed=18446744073709551616"), ["--seed="], "a seed past 2^64 - 1")
r = subprocess.run([PMB, "compare", "--threshold= 5", "a", "b"], capture_output=True, text=True)
ok(r.returncode == 2 and "--threshold= 5: expected a percentage" in r.stderr,
   "compare --threshold=' 5' refused (%r)" % r.stderr.strip()[:100])
r = subprocess.run([PMB, "compare", "--threshold"], capture_output=True, text=True)
ok(r.returncode == 2 and "--threshold: expects a value" in r.stderr and "unknown" not in r.stderr,
   "compare --threshold without a value: says it expects one (%r)" % r.stderr.strip()[:100])
refused(run("--list", "--filter=^nothing-matches$"), ["--filter=^nothing-matches$", "matches no benchmark"],
        "--list with a filter that matches nothing (as a run does)")

# Control characters in what is echoed: escaped, never sent to the terminal.
for arg in ["--filter=\x1b[31m(", "--counters=\x1b]0;title\x07", "--samples=\x1b[2J", "--\x07bell"]:
    r = run(*QUICK, arg)
    line = one_line(r) or ""
    ok(r.returncode == 2 and not re.search(r"[\x00-\x1f\x7f]", line) and ("\\x1b" in line or "\\x07" in line),
       "%r: the error line escapes control characters (%r)" % (arg, line[:120]))
r = run(*QUICK, "--filter=caf\xe9\u20ac\udcff")
line = one_line(r) or ""
ok(r.returncode == 2 and "caf\xe9\u20ac\\xff" in line,
   "UTF-8 in an argument is kept, a byte that is not UTF-8 escaped (%r)" % line[:120])

# ---- events tables -----------------------------------------------------------

def tables(name, aliases, sets):
    """A folder of events tables; aliases or sets None: left for the caller."""
    d = path("tables-" + name)
    os.makedirs(d)
    for base, text in [("aliases.txt", aliases), ("sets.txt", sets)]:
        if text is not None:
            with open(os.path.join(d, base), "wb" if isinstance(text, bytes) else "w") as f:
                f.write(text)
    return d


def with_tables(d, *args, timeout=120):
    t0 = time.monotonic()
    try:
        r = run(*QUICK, *args, env=dict(os.environ, PMUBENCH_EVENTS_DIR=d), timeout=timeout)
    except subprocess.TimeoutExpired:
        r = subprocess.CompletedProcess([], -1, "", "timed out after %d s" % timeout)
    return r, time.monotonic() - t0


# Sets that name each other 100 times, 7 deep: 100^7 expansions before
# (never ended), each set once now.
deep = tables("deep", "map x * cycles\n", "".join(
    "set s%d %s\n" % (i, ",".join(["@s%d" % (i + 1)] * 100 if i < 6 else ["x,task-clock"] * 30))
    for i in range(7)))
r, secs = with_tables(deep, "--counters=@s0")
m = re.search(r'"events": \[([^\]]*)\]', r.stdout)
ok(r.returncode == 0 and secs < 20 and m and "task-clock" in m.group(1),
   "7 levels of sets naming the next 100 times: resolved once each, in %.1f s (bound 20 s; %d)"
   % (secs, r.returncode))
selfref = tables("self", "map x * cycles\n", "set a x,@b\nset b @c\nset c @a\n")
r, secs = with_tables(selfref, "--counters=@a")
refused(r, ["@a", "includes itself"], "a set that names itself through two others")
# 50 000 lines: one alias for 50 000 PMUs, and a chain of 50 000 sets; the
# duplicate checks were quadratic (over 60 s), now by hash.
big = tables("big", "".join("map a %s cycles\n" % ("*" if i == 0 else "p%d" % i) for i in range(50000)),
             "".join("set s%d a,task-clock\n" % i for i in range(50000)))
r, secs = with_tables(big, "--counters=@s49999,a")
ok(r.returncode == 0 and secs < 20, "50 000 alias rows and 50 000 sets: loaded and resolved in %.1f s "
   "(bound 20 s; %d)" % (secs, r.returncode))
dup = tables("dup", "".join("map a%d * cycles\n" % i for i in range(50000)) + "map A7 * instructions\n", "")
r, secs = with_tables(dup)
refused(r, ["aliases.txt:50001", "'A7' mapped twice", "first at line 8"], "an alias mapped twice "
        "among 50 000 (in %.1f s)" % secs)

d = tables("long", "map x * cycles\n", "set s " + ",".join(["x,task-clock"] * 100) + "\n")
refused(with_tables(d, "--counters=@s")[0], ["sets.txt:1", "set 's' lists 1299 characters, at most 511"],
        "a set longer than a set holds: refused, not cut into another name")

# What is no table: refused, naming it, never read as empty or forever.
d = tables("dir", "map x * cycles\n", None)
os.mkdir(os.path.join(d, "sets.txt"))
refused(with_tables(d)[0], ["sets.txt", "a directory", "not a regular file"], "a directory as sets.txt")
d = tables("zero", "map x * cycles\n", None)
os.symlink("/dev/zero", os.path.join(d, "sets.txt"))
refused(with_tables(d, timeout=30)[0], ["sets.txt", "a character device"], "/dev/zero as sets.txt")
d = tables("fifo", "map x * cycles\n", None)
os.mkfifo(os.path.join(d, "sets.txt"))
refused(with_tables(d, timeout=30)[0], ["sets.txt", "a FIFO"], "a FIFO as sets.txt (no writer)")
d = tables("huge", "map x * cycles\n", None)
with open(os.path.join(d, "sets.txt"), "w") as f:
    f.truncate(17 << 20)
refused(with_tables(d)[0], ["sets.txt", "over the 16 MiB limit"], "a 17 MiB sets.txt")
d = tables("junk", b"map x * cycles\n\x1b[2J\x00\xff junk\n", "")
r = with_tables(d)[0]
refused(r, ["aliases.txt:2", "control character (0x1b)"], "binary junk in aliases.txt")
ok("\x1b" not in r.stderr, "the junk is not echoed to the terminal")
refused(with_tables(path("nonexistent"))[0], ["PMUBENCH_EVENTS_DIR=" + path("nonexistent"),
                                              "No such file or directory"],
        "PMUBENCH_EVENTS_DIR naming no folder: an error, not a silent fallback")

shutil.rmtree(TMP)
done()
