#!/usr/bin/env python3
"""bench_scaling.py - time against input size for each path issue 33 found
quadratic, to show the slope (run by hand, not by meson):

  compare, one benchmark with N per-item keys      (figure look-up)
  compare, N benchmarks named to collide under the unseeded FNV-1a
           with linear probing                     (name look-up)
  merge, N benchmarks (crafted names, as for compare) and one benchmark
         with N per-item keys, the file given twice (a host's look-ups
         and the rows' keys)
  --disasm, a function with N conditional branches (the listing; from
           12.5 k its loop is longer than the 32768 instructions listed:
           refused, rc=2, in as little time)
  --disasm, a function with N nops before its loop  (the window around it)
  report, a result file of N MB of [0,0,...], {}, distinct keys, 9-byte
          numbers (the reader's memory: peak over the baseline, in times
          the file)

Each line: path, N, seconds (and peak memory where it is the point), and
the ratio to the previous size: about 2 for linear, 4 for quadratic, for a
size that doubles.  Usage:

  PMUBENCH=build/src/pmubench PMUBENCH_EVENTS_DIR=events \\
      python3 tests/bench_scaling.py [compare|names|merge|disasm|late|memory]...

OLD_PMUBENCH=another/pmubench times that one too, for a before/after."""
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

PMB = os.environ.get("PMUBENCH", "build/src/pmubench")
OLD = os.environ.get("OLD_PMUBENCH")
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMP = tempfile.mkdtemp(prefix="pmb-scaling-")
LIMIT = float(os.environ.get("PMB_SCALING_LIMIT", "60"))


def timed(argv):
    """Seconds the command took, its exit status, and the peak resident
    memory of the children so far (KiB: ru_maxrss of the largest)."""
    t = time.monotonic()
    try:
        r = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=LIMIT)
        rc = r.returncode
    except subprocess.TimeoutExpired:
        rc = "timeout"
    return time.monotonic() - t, rc, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss


def series(what, sizes, make, argv_of):
    for exe in [PMB] + ([OLD] if OLD else []):
        prev = None
        for n in sizes:
            arg = make(n)
            # Each size in a fresh process group so ru_maxrss is its own.
            t, rc, _ = timed(argv_of(exe, arg))
            peak = peak_kib(argv_of(exe, arg)) if what.startswith("memory") else None
            if peak:
                base = peak_kib(argv_of(exe, tiny_file()))
                peak = "  peak %6.0f MB, %.2fx the file over the %.0f MB baseline" % (
                    peak / 1024, (peak - base) * 1024 / os.path.getsize(arg), base / 1024)
            print("%-24s %-8s N=%-9d %7.3f s%s  rc=%s%s" % (
                what, "old" if exe == OLD else "new", n, t, peak or "", rc,
                "  x%.1f" % (t / prev) if prev and prev > 0.01 else ""), flush=True)
            prev = t
            if rc == "timeout":
                break


def peak_kib(argv):
    """Peak resident memory of argv alone: a small Python (-S, os only)
    forks it and reports its children's; a process starts with its
    parent's resident size, so the parent is not this one."""
    code = ("import os, sys, resource\n"
            "pid = os.fork()\n"
            "if pid == 0:\n"
            "    fd = os.open(os.devnull, os.O_WRONLY)\n"
            "    os.dup2(fd, 1)\n"
            "    os.dup2(fd, 2)\n"
            "    os.execv(sys.argv[1], sys.argv[1:])\n"
            "os.waitpid(pid, 0)\n"
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n")
    r = subprocess.run([sys.executable, "-S", "-c", code, *argv], capture_output=True, text=True, timeout=LIMIT)
    return float(r.stdout.strip() or 0)


def tiny_file():
    p = os.path.join(TMP, "tiny.json")
    with open(p, "w") as f:
        f.write('{"context": {}, "benchmarks": [], "x": [0]}')
    return p


def context():
    return {"pmubench_version": "0.1.0", "results_schema": 2, "backend": "perf", "host_name": "h"}


def keys_file(n):
    """One benchmark with n per-item keys."""
    p = os.path.join(TMP, "keys-%d.json" % n)
    b = {"name": "k/one", "run_type": "iteration", "status": "ok", "ns_per_item": 1.0,
         "time_unit": "ns", "real_time": 1.0, "cpu_time": 1.0}
    for i in range(n):
        b["k%06d_per_item" % i] = 1.0 + i
    with open(p, "w") as f:
        json.dump({"context": context(), "benchmarks": [b]}, f)
    return p


def fnv_slot(name):
    """The slot the unseeded reader gave name: FNV-1a, h ^ (h >> 32)."""
    h = 0xcbf29ce484222325
    for c in name.encode():
        h = ((h ^ c) * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h ^ (h >> 32)


_crafted = []


def crafted(n):
    """n names whose unseeded slot is below 1024 under any table mask of
    17 bits or fewer: one cluster that linear probing walks end to end."""
    i = 0
    while len(_crafted) < n:
        name = "c%08x" % (len(_crafted) * 7919 + i)
        i += 1
        if fnv_slot(name) & 0x1fc00 == 0:
            _crafted.append(name)
    return _crafted[:n]


def names_file(n):
    p = os.path.join(TMP, "names-%d.json" % n)
    bs = [{"name": x, "run_type": "iteration", "status": "ok", "ns_per_item": 1.0} for x in crafted(n)]
    with open(p, "w") as f:
        json.dump({"context": context(), "benchmarks": bs}, f)
    return p


def branches_plugin(n):
    """A plugin whose measured loop holds n conditional branches (skipped
    at run time: the listing is what costs), each on an opaque value so
    that the compiler keeps them as branches."""
    c, so = os.path.join(TMP, "br-%d.c" % n), os.path.join(TMP, "br-%d.so" % n)
    with open(c, "w") as f:
        f.write("#include <pmubench.h>\nstatic void bm(struct pmb_state *st)\n{\n\tlong v = 1, s = 0;\n"
                "\twhile (pmb_loop(st)) {\n\t\tlong x = pmb_opaque(v);\n\t\tif (x < 0) {\n")
        for i in range(n):
            f.write("\t\t\tx = pmb_opaque(x);\n\t\t\tif (x == %d) s += %d;\n" % (-i * 3 - 1, i))
        f.write('\t\t}\n\t\tpmb_do_not_optimize(s);\n\t}\n}\nPMB_BENCHMARK(bm, .group = "br", .name = "loop");\n')
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-I" + os.path.join(SRC, "include"), c, "-o", so], check=True)
    return so


def late_plugin(n):
    """A plugin whose measured loop follows n nops (run once)."""
    c, so = os.path.join(TMP, "late-%d.c" % n), os.path.join(TMP, "late-%d.so" % n)
    with open(c, "w") as f:
        f.write("#include <pmubench.h>\nstatic void bm(struct pmb_state *st)\n{\n\tunsigned long x = 1;\n"
                '\t__asm__ volatile(".rept %d\\n\\tnop\\n\\t.endr");\n'
                "\twhile (pmb_loop(st)) {\n\t\tx = x * 3 + 1;\n\t\tpmb_do_not_optimize(x);\n\t}\n}\n"
                'PMB_BENCHMARK(bm, .group = "late", .name = "loop");\n' % n)
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-I" + os.path.join(SRC, "include"), c, "-o", so], check=True)
    return so


UNITS = {"zeros": "0,", "objects": "{},", "numbers9": "123456789,"}


def zeros_file(kind, mb):
    """mb MB of one shape, written a chunk at a time."""
    p = os.path.join(TMP, "%s-%d.json" % (kind, mb))
    with open(p, "w") as f:
        f.write('{"context": {}, "benchmarks": [], "x": ')
        if kind == "keys":
            n = mb * (1 << 20) // 12
            f.write("{" + ",".join('"%08x":0' % i for i in range(n)) + "}}")
            return p
        f.write("[")
        unit = UNITS[kind]
        n = mb * (1 << 20) // len(unit)
        for k in range(0, n - 1, 65536):
            f.write(unit * min(65536, n - 1 - k))
        f.write(unit[:-1] + "]}")
    return p


def main(which):
    if "compare" in which:
        series("compare keys", [2000, 4000, 8000, 16000, 32000, 75000], keys_file,
               lambda exe, p: [exe, "compare", p, p])
    if "names" in which:
        series("compare crafted names", [6250, 12500, 25000, 50000], names_file,
               lambda exe, p: [exe, "compare", p, p])
    if "merge" in which:
        series("merge crafted names", [6250, 12500, 25000, 50000], names_file,
               lambda exe, p: [exe, "merge", p, p])
        series("merge keys", [2000, 4000, 8000, 16000, 32000], keys_file,
               lambda exe, p: [exe, "merge", p, p])
    if "disasm" in which:
        series("disasm branches", [3125, 6250, 12500, 25000], branches_plugin,
               lambda exe, so: [exe, "--load=" + so, "--disasm", "--samples=3", "--min-sample-time=100us"])
    if "late" in which:
        series("disasm late loop", [40000, 80000, 160000, 320000], late_plugin,
               lambda exe, so: [exe, "--load=" + so, "--disasm", "--samples=3", "--min-sample-time=100us"])
    if "memory" in which:
        for kind in ("zeros", "objects", "keys", "numbers9"):
            series("memory " + kind, [5, 10, 20], lambda mb, kind=kind: zeros_file(kind, mb),
                   lambda exe, p: [exe, "report", p])


try:
    main(sys.argv[1:] or ["compare", "names", "merge", "disasm", "late", "memory"])
finally:
    shutil.rmtree(TMP, ignore_errors=True)
