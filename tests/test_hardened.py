#!/usr/bin/env python3
"""test_hardened.py - the hostile and unlucky cases of issue 33 (round 2 of
hardening) for the run and compare: a simulator that wrote no counts is an
error, never a silent zero; duplicate benchmark names are refused with both
sources; Ctrl-C during a long sample is honoured within a second; result
files whose JSON would blow up in memory are refused before they are
parsed, and every file read is held to 10x its size; --disasm lists a
window around a loop past the bound of instructions.  Every case takes a second or two."""
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import pmbtap  # noqa: E402
from pmbtap import PMB, done, ok, require_pmubench, sim_unavailable, skip

require_pmubench()
SRC = os.environ.get("PMB_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMP = tempfile.mkdtemp(prefix="pmb-hardened-")
ROOT = os.geteuid() == 0
# A benchmark with instructions per item to lose: calib/empty's are zero
# after the harness overhead, so its zeros would prove nothing.
SIM = ["--backend=sim", "--filter=^calib/add_chain$"]


def path(name):
    return os.path.join(TMP, name)


def pmb(*args, env=None, timeout=120, preexec_fn=None):
    return subprocess.run([PMB, *args], capture_output=True, text=True, timeout=timeout,
                          env=env, preexec_fn=preexec_fn)


def errors(r):
    """The lines of stderr that are not warnings."""
    return [x for x in r.stderr.splitlines() if x.strip() and not x.startswith("pmubench: warning:")]


# ---- no silent zero: a simulator run that wrote no dump is an error -------

def file_limit(n):
    """preexec_fn: files cut at n bytes (write fails with EFBIG, SIGXFSZ
    ignored as a shell's `ulimit -f` under `trap '' XFSZ` would)."""
    def f():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))
    return f


why = sim_unavailable()
if why:
    for what, fmt in [("a dump cut short by ulimit -f", "json"), ("a full TMPDIR", "console")]:
        if True:
            skip("--backend=sim with %s (%s) is an error" % (what, fmt), why)
else:
    tmp = path("sim-tmp")
    os.mkdir(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    for fmt in ("json",):
        # Standard output is a pipe: only the dumps are cut.
        r = pmb(*SIM, "--format=" + fmt, env=env, preexec_fn=file_limit(100))
        e = errors(r)
        ok(r.returncode == 2 and len(e) == 1 and "callgrind dump" in e[0] and "ulimit -f" in e[0]
           and r.stdout == "",
           "--backend=sim --format=%s with dumps cut at 100 bytes: exit 2, one line naming the cause, "
           "nothing reported (%d, %r, %d bytes out)" % (fmt, r.returncode, e[-2:], len(r.stdout)))
    ok(os.listdir(tmp) == [], "no pmubench-sim folder left in TMPDIR (%r)" % os.listdir(tmp))

    # Few open files (ulimit -n): valgrind keeps some of its own, and the
    # program under it could not open its libraries (exit 127).  A soft
    # limit is raised within the hard one; a hard one too low is refused.
    def files(soft, hard):
        return lambda: resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if hard != resource.RLIM_INFINITY and hard < 64:
        skip("--backend=sim under a soft ulimit -n of 16", "the hard limit here is %d" % hard)
    else:
        r = pmb(*SIM, "--format=json", preexec_fn=files(16, 64))
        ok(r.returncode == 0 and '"benchmarks"' in r.stdout,
           "--backend=sim under a soft ulimit -n of 16 (hard 64): runs (%d, %r)" % (r.returncode, errors(r)[-1:]))
    r = pmb(*SIM, "--format=json", preexec_fn=files(16, 16))
    e = errors(r)
    ok(r.returncode == 2 and len(e) == 1 and "ulimit -n allows 16 (the hard limit): raise it to 64" in e[0]
       and r.stdout == "",
       "--backend=sim under a hard ulimit -n of 16: exit 2, one line naming the limit (%d, %r)"
       % (r.returncode, e))
    # A full filesystem as TMPDIR: a tmpfs of 64 KiB, filled.  Root only.
    mnt = path("full-tmp")
    os.mkdir(mnt)
    mounted = ROOT and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt],
                                      capture_output=True).returncode == 0
    if not mounted:
        for fmt in ("console",):
            skip("--backend=sim --format=%s with a full TMPDIR is an error" % fmt,
                 "cannot mount a tmpfs here (root: %s)" % ROOT)
    else:
        try:
            fd = os.open(os.path.join(mnt, "fill"), os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                while os.write(fd, b"\0" * 4096):
                    pass
            except OSError:
                pass
            os.close(fd)
            for fmt in ("console",):
                r = pmb(*SIM, "--format=" + fmt, env=dict(os.environ, TMPDIR=mnt))
                e = errors(r)
                ok(r.returncode == 2 and len(e) == 1 and "filesystem is full" in e[0] and r.stdout == "",
                   "--backend=sim --format=%s with a full TMPDIR: exit 2, one line saying the "
                   "filesystem is full (%d, %r)" % (fmt, r.returncode, e[-2:]))
            ok(os.listdir(mnt) == ["fill"], "no pmubench-sim folder left in the full TMPDIR (%r)"
               % os.listdir(mnt))
        finally:
            subprocess.run(["umount", mnt])

# ---- duplicate benchmark names: refused, both sources named ---------------

CC = shutil.which("cc") or shutil.which("gcc")


def plugin(name, body):
    """A plugin built from body (C after #include <pmubench.h>), or None."""
    src, so = path(name + ".c"), path(name + ".so")
    with open(src, "w") as f:
        f.write("#include <pmubench.h>\n"
                "static void bm_a(struct pmb_state *s) { while (pmb_loop(s)) {} }\n"
                "static void bm_b(struct pmb_state *s) { while (pmb_loop(s)) {} }\n" + body)
    r = subprocess.run([CC, "-shared", "-fPIC", "-I" + os.path.join(SRC, "include"), src, "-o", so],
                       capture_output=True, text=True)
    return so if r.returncode == 0 else None


twice = CC and plugin("twice", 'PMB_BENCHMARK(bm_a, .group = "dup", .name = "same");\n'
                               'PMB_BENCHMARK(bm_b, .group = "dup", .name = "same");\n')
once = CC and plugin("once", 'PMB_BENCHMARK(bm_a, .group = "dup", .name = "one");\n')
if not (twice and once):
    for what in ["one plugin defining a name twice", "two copies of a plugin"]:
        skip(what + " is refused", "no C compiler to build a plugin")
else:
    copy = path("once-copy.so")
    shutil.copy(once, copy)
    for args, what, srcs in [(["--load=" + twice], "one plugin defining a name twice",
                              [path("twice.c") + ":4 in " + twice, path("twice.c") + ":5 in " + twice]),
                             (["--load=" + once, "--load=" + copy], "two copies of a plugin",
                              [path("once.c") + ":4 in " + once, path("once.c") + ":4 in " + copy])]:
        for mode in (["--list"],) if "copies" in what else (["--list"], ["--samples=3", "--format=json"]):
            r = pmb(*args, *mode)
            e = errors(r)
            ok(r.returncode == 2 and len(e) == 1 and "defined twice" in e[0] and all(x in e[0] for x in srcs)
               and r.stdout == "",
               "%s (%s): exit 2, one line naming both sources (%d, %r)" % (what, mode[0], r.returncode, e[-2:]))
    r = pmb("--load=" + once, "--load=" + once, "--list")
    ok(r.returncode == 0 and r.stdout.split() == ["dup/one"],
       "one plugin given twice is loaded once: no duplicate (%d, %r)" % (r.returncode, r.stdout))

# ---- Ctrl-C within a second at any --min-sample-time ----------------------

# With 10 s samples the first second is inside the harness-overhead sample:
# the signal cuts it, it is discarded, nothing is measured, exit 130.  A
# sample ends within a pass of the signal; the bound is the analysis and the
# writing of an empty report on a shared 2-core machine.
if pmbtap.emulator():
    skip("SIGINT during a 10 s sample", "signals would go to the emulator's wrapper")
else:
    # At 1 to 2 s the harness overhead's own samples run: an empty loop,
    # where the cut's zero was overwritten by the loop's store for up to
    # 1.9 s (interrupt.c); within a second is the bound (issue 33).
    for sig, code, at in [(signal.SIGINT, 130, 1.0), (signal.SIGTERM, 143, 1.5), (signal.SIGINT, 130, 2.0)]:
        p = subprocess.Popen([PMB, "--filter=^calib/add_chain$", "--min-sample-time=10s", "--format=json"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(at)
        t0 = time.monotonic()
        p.send_signal(sig)
        try:
            out, err = p.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
        took = time.monotonic() - t0
        ok(p.returncode == code and took < 1.0 and '"incomplete": true' in out and '"status": "ok"' not in out,
           "%s %.1f s into a run of 10 s samples: exit %d within 1 s, report marked incomplete, nothing "
           "measured (%s, %.2f s, %r)" % (signal.Signals(sig).name, at, code, p.returncode, took,
                                          err.strip()[-120:]))

# ---- result files that would blow up in memory: refused before parsing ----

# Peak memory of reading a file is held to 10x its size (issue 33, point
# 6): each case is read under a small Python of its own (-S, os only), whose
# getrusage(RUSAGE_CHILDREN) gives the peak of the pmubench it waited for
# alone.  A process starts with its parent's resident size (fork, then
# exec), so the parent is that small Python, not this one; the baseline
# (a tiny file's peak, that floor included) is subtracted.
PEAK = ("import os, sys, resource\n"
        "pid = os.fork()\n"
        "if pid == 0:\n"
        "    fd = os.open(os.devnull, os.O_WRONLY)\n"
        "    os.dup2(fd, 1)\n"
        "    os.execv(sys.argv[1], sys.argv[1:])\n"
        "_, status = os.waitpid(pid, 0)\n"
        "print(os.waitstatus_to_exitcode(status), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")


def peak_run(argv):
    """(exit status, stderr, peak resident KiB) of argv, in a child of its own."""
    p = subprocess.run([sys.executable, "-S", "-c", PEAK, *argv], capture_output=True, text=True, timeout=120)
    rc, kib = p.stdout.split()
    return int(rc), p.stderr, int(kib)


def write_shape(f, head, unit, n, tail):
    """head, n units (the last without its separator), tail: a chunk at a time."""
    with open(f, "w") as out:
        out.write(head)
        chunk, k = unit * max(1, 65536 // len(unit)), n - 1
        while k * len(unit) >= len(chunk):
            out.write(chunk)
            k -= len(chunk) // len(unit)
        out.write(unit * k + unit.rstrip(", ") + tail)
    return os.path.getsize(f)


MB = 8 << 20
HEAD, TAIL = '{"context": {}, "benchmarks": [], "x": ', "}"
write_shape(path("tiny.json"), HEAD, "0,", 1, TAIL)
_, _, base = peak_run([PMB, "report", path("tiny.json")])
# (name, head, unit, tail): each shape's text, repeated to MB.  Refused
# ones would take 20x to 90x under jansson (numbers, empty objects and
# arrays, short strings, one-member objects, members, nesting); 9-byte
# numbers, long strings and true/false are read.
SHAPES = [("zeros", "[", "0,", "]"), ("objects", "[", "{},", "]"), ("arrays", "[", "[],", "]"),
          ("strings", "[", '"",', "]"), ("triples", "[", "[0, 0, 0], ", "]"),
          ("one-member objects", "[", '{"a":0},', "]"), ("members", "{", '"k":0,', "}"),
          ("nested arrays", "[", "[" * 2000 + "]" * 2000 + ",", "]"),
          ("nested objects", "[", '{"a":' * 1000 + "0" + "}" * 1000 + ",", "]"),
          ("9-byte numbers", "[", "123456789,", "]"), ("a long string", '["', "a", '"]'),
          ("trues", "[", "true,", "]")]
for name, head, unit, tail in SHAPES:
    f = path("shape.json")
    if name == "members":  # distinct keys, or the reader refuses a duplicate
        with open(f, "w") as out:
            out.write(HEAD + "{")
            for k in range(0, MB // 10, 4096):
                out.write(",".join('"%08x":0' % i for i in range(k, k + 4096)) + ("," if k + 4096 < MB // 10 else ""))
            out.write("}" + TAIL)
        size = os.path.getsize(f)
    else:
        size = write_shape(f, HEAD + head, unit, MB // len(unit), tail + TAIL)
    rc, err, peak = peak_run([PMB, "report", f])
    e = [x for x in err.splitlines() if x.strip()]
    ratio = (peak - base) * 1024 / size
    said = e[-1] if e else ""
    if "refused before parsing" in said:
        ok(rc == 2 and len(e) == 1 and "over the limit of 10 times the file" in said and ratio <= 10,
           "%s (%d MB): exit 2, one line naming the estimate and the limit, peak %.2fx the file (%d, %r)"
           % (name, size >> 20, ratio, rc, said[-160:]))
    else:
        # Read whole: the JSON is good, not a result file of pmubench's.
        ok(rc == 2 and len(e) == 1 and "not written by pmubench" in said and ratio <= 10,
           "%s (%d MB): read, then refused as no result, peak %.2fx the file (%d, %r)"
           % (name, size >> 20, ratio, rc, said[-160:]))
    os.unlink(f)

# A result file of pmubench's own is read as before, within the bound; and
# `compare` refuses what `report` does.
r = pmb("--filter=^calib/", "--samples=30", "--min-sample-time=20us", "--format=json")
with open(path("own.json"), "w") as out:
    out.write(r.stdout)
rc, err, peak = peak_run([PMB, "report", path("own.json")])
ok(r.returncode == 0 and rc == 0 and (peak - base) * 1024 <= 10 * max(os.path.getsize(path("own.json")), 1 << 20),
   "report reads a result file of pmubench's own within 10x its size (past 1 MiB) (%d, %d KiB over the "
   "baseline of %d KiB, %r)" % (rc, peak - base, base, err[-200:]))
rc, err, _ = peak_run([PMB, "compare", path("own.json"), path("own.json")])
ok(rc == 0, "compare reads a result file of pmubench's own (%d, %r)" % (rc, err[-200:]))
# Thousands of samples a benchmark take 11 to 14 times the file (408-byte
# samples from 3-number triples): under the floor of 64 MiB such a file of
# pmubench's own is read, the peak held to the floor (a 4 MiB floor
# refused this 0.4 MB file).
r = pmb("--filter=^calib/add_chain$", "--samples=3000", "--min-sample-time=20us", "--save=" + path("s3000.json"))
rc, err, peak = peak_run([PMB, "report", path("s3000.json")])
crc, cerr, _ = peak_run([PMB, "compare", path("s3000.json"), path("s3000.json")])
ok(r.returncode == 0 and rc == 0 and crc == 0 and (peak - base) * 1024 <= 64 << 20,
   "report and compare read a run of 3000 samples (%d KB), peak %.1fx the file, under the 64 MiB floor "
   "(%d, %d, %r)" % (os.path.getsize(path("s3000.json")) >> 10 if r.returncode == 0 else -1,
                     (peak - base) * 1024 / max(1, os.path.getsize(path("s3000.json")) if r.returncode == 0 else 1),
                     rc, crc, (err + cerr)[-200:]))
write_shape(path("zeros.json"), HEAD + "[", "0,", (4 << 20) // 2, "]" + TAIL)
rc, err, _ = peak_run([PMB, "compare", path("zeros.json"), path("zeros.json")])
ok(rc == 2 and "refused before parsing" in err and len(err.strip().splitlines()) == 1,
   "compare refuses 4 MB of [0,0,...] before parsing, in one line (%d, %r)" % (rc, err[-200:]))

# A result file whose tree passes the estimate but whose samples would
# not: 9-byte numbers (5.6x under jansson) for 408-byte samples.
own = json.load(open(path("own.json")))
b = own["benchmarks"][0]
n = MB // 30
b["raw_samples"] = {"passes": [123456789] * n, "ns": [123456789] * n, "group": [123456789] * n}
b["raw_counts"] = {}
own["benchmarks"] = [b]
own["context"]["repetitions"] = 1
with open(path("many-samples.json"), "w") as out:
    json.dump(own, out, separators=(",", ":"))
del own, b
size = os.path.getsize(path("many-samples.json"))
rc, err, peak = peak_run([PMB, "report", path("many-samples.json")])
e = [x for x in err.splitlines() if x.strip()]
ok(rc == 2 and len(e) == 1 and ("its %d samples would take" % n) in e[0] and "over the limit of 10 times" in e[0]
   and (peak - base) * 1024 <= 10 * size,
   "a result file of %d samples of 30 bytes: exit 2, one line naming the samples and the limit, peak %.2fx "
   "(%d, %r)" % (n, (peak - base) * 1024 / size, rc, e[-1:]))

# ---- linear paths -----------------------------------------------------------

def keys_file(n):
    f = path("keys-%d.json" % n)
    b = {"name": "k/one", "run_type": "iteration", "status": "ok", "ns_per_item": 1.0}
    for i in range(n):
        b["k%06d_per_item" % i] = 1.0 + i
    with open(f, "w") as out:
        json.dump({"context": {"pmubench_version": "0.1.0"}, "benchmarks": [b]}, out)
    return f


def best_of(argv, n=2):
    t = []
    for _ in range(n):
        t0 = time.monotonic()
        r = subprocess.run(argv, capture_output=True, text=True, timeout=120)
        t.append(time.monotonic() - t0)
    return min(t), r


small, big = keys_file(2000), keys_file(16000)
ts, rs = best_of([PMB, "compare", small, small])
tb, rb = best_of([PMB, "compare", big, big])
# Linear: 8x the keys, about 8x the time (the program's start aside);
# the quadratic search took 41x (0.27 s, 10.9 s).  Ratio within one run.
ok(rs.returncode == 0 and rb.returncode == 0 and rb.stdout.count("_per_item") >= 16000 and tb < 16 * max(ts, 0.05),
   "compare of one benchmark with 16 k per-item keys takes < 16x the time of 2 k (%.2f s, %.2f s: x%.1f)"
   % (ts, tb, tb / max(ts, 1e-3)))

# --disasm of a function past the bound of instructions read: cut, said in
# a note, its output bounded.
huge = CC and plugin("huge", "static void bm_huge(struct pmb_state *s)\n{\n\twhile (pmb_loop(s)) {}\n"
                             '\t__asm__ volatile(".rept 60000\\n\\tnop\\n\\t.endr");\n}\n'
                             'PMB_BENCHMARK(bm_huge, .group = "huge", .name = "nops");\n')
if not huge:
    skip("--disasm of a function of 60 k instructions is cut with a note", "no C compiler to build a plugin")
else:
    t0 = time.monotonic()
    r = pmb("--load=" + huge, "--disasm", "--samples=3", "--min-sample-time=100us")
    took = time.monotonic() - t0
    ok(r.returncode == 0 and "bm_huge is cut at" in " ".join(r.stdout.split()) and len(r.stdout) < 1000000,
       "--disasm of a function of 60 k instructions: the listing says it is cut, %d bytes of output "
       "(%d, %.1f s, %r)" % (len(r.stdout), r.returncode, took, errors(r)[-1:]))

# --disasm of a function whose measured loop lies past the bound: the
# listing is a window around the loop (its counts under sim), with a note
# naming the window and the function's size.  40 k nops before the loop,
# run once: a few seconds under valgrind.
late = CC and plugin("late", "static void bm_late(struct pmb_state *s)\n{\n\tunsigned long x = 1;\n"
                             '\t__asm__ volatile(".rept 40000\\n\\tnop\\n\\t.endr");\n'
                             "\twhile (pmb_loop(s)) {\n\t\tx = x * 3 + 1;\n\t\tpmb_do_not_optimize(x);\n\t}\n}\n"
                             'PMB_BENCHMARK(bm_late, .group = "huge", .name = "late");\n')
if not late:
    skip("--disasm of a loop past 40 k instructions: a window around it", "no C compiler to build a plugin")
else:
    sim_why = sim_unavailable()
    t0 = time.monotonic()
    r = pmb("--load=" + late, "--filter=^huge/late$", "--disasm", "--samples=3", "--min-sample-time=100us",
            *([] if sim_why else ["--backend=sim"]))
    took = time.monotonic() - t0
    text = " ".join(r.stdout.split())
    m = re.search(r"bm_late: listing cut to (\d+) instructions around the loop at 0x([0-9a-f]+) "
                  r"\(0x([0-9a-f]+)\.\.0x([0-9a-f]+)\); the function holds (\d+)", text)
    listed = [ln for ln in r.stdout.splitlines() if re.match(r"\s+([0-9.]+\s+){4}[0-9a-f]+\s", ln) or
              re.match(r"\s+[0-9a-f]+\s+(loop\s+)?[a-z]", ln)]
    loop_call = [ln for ln in listed if "pmb__loop_next" in ln]
    ok(r.returncode == 0 and m and int(m.group(1)) <= 32768 and int(m.group(5)) >= 40000 and
       int(m.group(3), 16) <= int(m.group(2), 16) < int(m.group(4), 16) and
       "measured loop in bm_late" in r.stdout and loop_call and len(r.stdout) < 100000,
       "--disasm of a loop after 40 k instructions: the loop listed with its call to pmb__loop_next, and "
       "the note of the window (%d, %.1f s, %r, %d bytes)" % (r.returncode, took, m and m.group(0), len(r.stdout)))
    if sim_why:
        skip("the window's loop carries its simulated counts", sim_why)
    else:
        acc = re.search(r"accounted: the listing holds ([0-9.]+) of the ([0-9.]+) instructions per item "
                        r"counted", text)
        ones = [ln for ln in listed if ln.split()[0] == "1.000"]
        # The loop body runs once per item: its instructions count 1 each,
        # and they are all but the harness's own calls (pmb__loop_next).
        ok(acc and float(acc.group(1)) >= 0.99 * float(acc.group(2)) and len(ones) >= 5,
           "the window's loop carries its simulated counts: %s of %s instructions per item, %d listed "
           "at 1 per item" % (acc and acc.group(1), acc and acc.group(2), len(ones)))

# A measured loop longer than the window (40 k nops in the loop): that
# benchmark is measured without a listing, said in one warning, and the
# run goes on: its neighbour is listed (it ended the run with exit 2).
long_loop = CC and plugin("longloop", "static void bm_long(struct pmb_state *s)\n{\n"
                                      '\twhile (pmb_loop(s))\n\t\t__asm__ volatile(".rept 40000\\n\\tnop\\n\\t.endr");\n}\n'
                                      'PMB_BENCHMARK(bm_long, .group = "huge", .name = "loop");\n'
                                      'PMB_BENCHMARK(bm_a, .group = "huge", .name = "short");\n')
if not long_loop:
    skip("--disasm of a loop longer than its window", "no C compiler to build a plugin")
else:
    r = pmb("--load=" + long_loop, "--filter=^huge/", "--disasm", "--samples=3", "--min-sample-time=100us")
    w = [x for x in r.stderr.splitlines() if "measured without its listing" in x]
    ok(r.returncode == 0 and len(w) == 1 and w[0].startswith("pmubench: warning: --disasm: huge/loop: ") and
       "longer than the 32768 instructions" in w[0] and re.search(r"^huge/loop\s+[0-9.]", r.stdout, re.M) and
       "--disasm huge/short: bm_a" in r.stdout and "--disasm huge/loop" not in r.stdout,
       "--disasm of a loop longer than its window: measured, one warning, the other benchmark listed "
       "(%d, %r)" % (r.returncode, w or r.stderr[-300:]))

shutil.rmtree(TMP, ignore_errors=True)
done()
