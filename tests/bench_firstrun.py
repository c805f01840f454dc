#!/usr/bin/env python3
"""The first run (issue 27): `pmubench` with no arguments, against the
build before issue 27, side by side in one run.  Not a test: it is run by
hand, and its figures are this machine's at this moment.

    python3 tests/bench_firstrun.py [--old=BINARY|self-full] [--rev=REV]
                                    [--rounds=N] [--args='...'] [--keep=DIR]
                                    [--topology=SPEC|issue27]

NEW is $PMUBENCH (default build/src/pmubench) with no arguments.  OLD is,
by default, pmubench at revision dd629e0 (the last commit before issue 27's
short sweep and adaptive sampling; --rev=REV another), run with no
arguments and its own events tables: built on first use from `git archive`
into build/bench-old-REV/src, with meson (the buildtype of build/, so both
sides' kernels are compiled alike; --buildtype=T another) into
build/bench-old-REV/build, and reused after (ninja only).  --old=BINARY runs
that binary instead; --old=self-full runs NEW with `--sweep=full
--precision=0` (every sweep point, each benchmark sampled to its budget).
--args adds arguments to both (e.g. --args='--cpu=1').  --topology=SPEC
runs both on an hwloc synthetic topology (--topology-source=SPEC --cpu=0:
the sweeps' sizes are SPEC's, the machine is this one); issue27 is the
topology the issue was filed on (L1d 48 KiB, L2 2 MiB, L3 300 MiB), whose
DRAM points are 640 MiB and 1.25 GiB.  --rounds=N runs
OLD, NEW, OLD, NEW... N times each, alternating, so a drift of the machine
falls on both.  Each runs with --save=FILE.json, so the console report is
what a user sees (its lines are counted) and the figures are read from the
file.

Printed: per run, wall time, CPU time (user + system), peak RSS (the
child's ru_maxrss) against the largest working set measured, console
lines, benchmarks and samples, and how many benchmarks each stop reason
ended.  Then the points of the mem/ sweeps from 2 MiB up, OLD's and NEW's
per-item time with their intervals side by side (round 1).  Then point 7: for every benchmark both ran, whether NEW's
ns_per_item lies within OLD's 95 % interval (round by round); those that
do not are listed as ratios NEW/OLD [OLD's interval / OLD's median];
the same for the CPU time per item (task_clock_per_item), which a busy
machine's preemption does not inflate.  With
two rounds or more, the same for OLD's second run against its first: how
often the old binary leaves its own interval is the noise floor that NEW's
count is to be read against.
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


OLD_REV = "dd629e0"

# The machine issue 27 was filed on, as hwloc's synthetic topology.
TOPOLOGIES = {"issue27": "pack:1 l3:1(size=300MiB) l2:1(size=2MiB) l1d:1(size=48KiB) core:1 pu:1"}


def run(cmd, save, env):
    """Run cmd with --save=save; returns (wall s, cpu s, peak RSS bytes,
    stdout lines, exit status, stderr)."""
    t0 = time.monotonic()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        p = subprocess.Popen(cmd + ["--save=" + save], stdout=out, stderr=err, env=env)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.monotonic() - t0
        out.seek(0)
        err.seek(0)
        lines = out.read().decode(errors="replace").count("\n")
        errtext = err.read().decode(errors="replace")
    rc = os.waitstatus_to_exitcode(status)
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024, lines, rc, errtext


def new_buildtype():
    """build/'s meson buildtype, or debugoptimized where it cannot be read."""
    try:
        with open(os.path.join(ROOT, "build", "meson-info", "intro-buildoptions.json")) as f:
            for o in json.load(f):
                if o.get("name") == "buildtype":
                    return o["value"]
    except (OSError, ValueError, KeyError):
        pass
    return "debugoptimized"


def build_old(rev, buildtype):
    """pmubench at rev, built (once) under build/bench-old-REV; returns the
    binary and its events folder."""
    try:
        full = subprocess.run(["git", "-C", ROOT, "rev-parse", "--verify", "--short", rev + "^{commit}"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit("bench_firstrun: --rev=%s: not a commit of this repository (%s)" % (rev, e))
    top = os.path.join(ROOT, "build", "bench-old-" + rev)
    src, bld = os.path.join(top, "src"), os.path.join(top, "build")
    if not os.path.isfile(os.path.join(src, "meson.build")):
        print("bench_firstrun: extracting %s (%s) into %s ..." % (rev, full, src), file=sys.stderr, flush=True)
        os.makedirs(src, exist_ok=True)
        arch = subprocess.Popen(["git", "-C", ROOT, "archive", full], stdout=subprocess.PIPE)
        tar = subprocess.run(["tar", "-x", "-C", src], stdin=arch.stdout)
        arch.stdout.close()
        if arch.wait() != 0 or tar.returncode != 0:
            sys.exit("bench_firstrun: git archive %s into %s failed" % (full, src))
    if not os.path.isfile(os.path.join(bld, "build.ninja")):
        print("bench_firstrun: building %s (%s) in %s ..." % (rev, buildtype, bld), file=sys.stderr, flush=True)
        if subprocess.run(["meson", "setup", "--buildtype=" + buildtype, bld, src],
                          stdout=subprocess.DEVNULL).returncode != 0:
            sys.exit("bench_firstrun: meson setup of %s in %s failed" % (rev, bld))
    if subprocess.run(["ninja", "-C", bld, "src/pmubench"], stdout=subprocess.DEVNULL).returncode != 0:
        sys.exit("bench_firstrun: building %s in %s failed" % (rev, bld))
    return os.path.join(bld, "src", "pmubench"), os.path.join(src, "events")


def load(path):
    try:
        with open(path) as f:
            return {b["name"]: b for b in json.load(f)["benchmarks"]
                    if b.get("repetition_index", 0) == 0}
    except (OSError, ValueError, KeyError) as e:
        sys.exit("bench_firstrun: cannot read %s: %s" % (path, e))


def summary(b):
    ws = max((x.get("working_set_bytes", 0) for x in b.values()), default=0)
    stops = collections.Counter(x.get("stopped_by", "-") for x in b.values())
    samples = sum(x.get("samples", 0) for x in b.values())
    return ws, stops, samples


def mib(x):
    return "%.0f MiB" % (x / 2**20)


def sweep_side_by_side(nb, ob, least=2 << 20):
    """The mem/ sweep points of at least `least` bytes both ran: OLD's and
    NEW's ns per item, each with its 95 % interval, and whether NEW's lies
    in OLD's."""
    rows = [k for k in ob if k in nb and k.startswith("mem/")
            and ob[k].get("working_set_bytes", 0) >= least and "ns_per_item" in nb[k]]
    if not rows:
        return
    print("mem/ sweep points from %s, ns per item [95 %% interval]:" % mib(least))
    print("  %-28s %-30s %-30s %s" % ("benchmark", "old", "new", "new in old's"))
    for k in sorted(rows, key=lambda k: (k.rsplit("/", 1)[0], ob[k]["working_set_bytes"])):
        o, n = ob[k], nb[k]
        cell = lambda x: "%.2f [%.2f, %.2f]" % (x["ns_per_item"], x.get("ns_per_item_ci_lo") or 0,
                                               x.get("ns_per_item_ci_hi") or 0)
        inside = (o.get("ns_per_item_ci_lo") or 0) <= n["ns_per_item"] <= (o.get("ns_per_item_ci_hi") or 0)
        print("  %-28s %-30s %-30s %s" % (k, cell(o), cell(n), "yes" if inside else "NO"))


def within(nb, ob, what, key="ns_per_item"):
    """Point 7: nb's key (ns_per_item, or task_clock_per_item: CPU time,
    which a busy machine's preemption leaves out) within ob's 95 % interval,
    benchmark by benchmark; prints the count and the rows outside."""
    lo_k, hi_k = key + "_ci_lo", key + "_ci_hi"
    common = [k for k in nb if k in ob and key in nb[k] and key in ob[k]
              and ob[k].get(lo_k) is not None and ob[k].get(hi_k) is not None
              and ob[k][key] and nb[k][key]]
    if not common:
        return
    out = []
    for k in common:
        n, o = nb[k], ob[k]
        lo, hi, m = o[lo_k], o[hi_k], o[key]
        if not lo <= n[key] <= hi:
            out.append((k, n[key] / m, lo / m, hi / m))
    print("%s: %s within the old run's 95 %% interval: %d of %d, outside %d"
          % (what, key, len(common) - len(out), len(common), len(out)))
    # The ratios' spread, for a bias against noise: a median ratio off 1
    # says the one side measures differently, a wide spread that either's
    # intervals miss how runs differ (compare it with the noise floor).
    r = sorted(nb[k][key] / ob[k][key] for k in common)
    at = [r[int(f * (len(r) - 1))] for f in (0.5, 0.1, 0.9)]
    print("  ratios: median %.3f, 10th-90th percentile %.3f-%.3f, %d of %d within +-5 %%"
          % (at[0], at[1], at[2], sum(1 for x in r if 0.95 <= x <= 1.05), len(r)))
    for k, r, lo, hi in sorted(out, key=lambda x: -abs(x[1] - 1)):
        print("  outside: %-40s ratio %.3f, old's interval [%.3f, %.3f]" % (k, r, lo, hi))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--old", help="an older pmubench run with no arguments, or self-full: NEW with "
                    "--sweep=full --precision=0 (default: revision --rev, built)")
    ap.add_argument("--rev", default=OLD_REV, help="the revision OLD is built from (default %s)" % OLD_REV)
    ap.add_argument("--buildtype", default=None, help="OLD's meson buildtype (default: build/'s)")
    ap.add_argument("--rounds", type=int, default=1, help="OLD, NEW pairs, alternating (default 1)")
    ap.add_argument("--args", default="", help="arguments added to both runs")
    ap.add_argument("--keep", help="keep the result files in this folder")
    ap.add_argument("--topology", help="an hwloc synthetic topology for both runs (--topology-source, "
                    "--cpu=0), or issue27: %s" % TOPOLOGIES["issue27"])
    a = ap.parse_args()
    if a.rounds < 1:
        sys.exit("bench_firstrun: --rounds=%d: expected 1 or more" % a.rounds)
    new = os.environ.get("PMUBENCH", os.path.join(ROOT, "build", "src", "pmubench"))
    extra = a.args.split()
    if a.topology:
        extra += ["--topology-source=" + TOPOLOGIES.get(a.topology, a.topology), "--cpu=0"]
    new_env = dict(os.environ)
    new_env.setdefault("PMUBENCH_EVENTS_DIR", os.path.join(ROOT, "events"))
    old_env = dict(new_env)
    if a.old == "self-full":
        old_label, old_cmd = "--sweep=full --precision=0", [new, "--sweep=full", "--precision=0"]
    elif a.old:
        old_label, old_cmd = "old " + os.path.basename(a.old), [a.old]
    else:
        binary, events = build_old(a.rev, a.buildtype or new_buildtype())
        old_label, old_cmd = "old " + a.rev, [binary]
        old_env["PMUBENCH_EVENTS_DIR"] = events
    folder = a.keep or tempfile.mkdtemp(prefix="bench_firstrun-")
    os.makedirs(folder, exist_ok=True)
    got = {"old": [], "new": []}
    for i in range(a.rounds):
        for side, label, cmd, env in (("old", old_label, old_cmd + extra, old_env),
                                      ("new", "default", [new] + extra, new_env)):
            path = os.path.join(folder, "%s-%d.json" % (side, i + 1))
            with open("/proc/loadavg") as f:
                before = f.read().split()[0]
            print("running %s (load average %s) ..." % (" ".join(cmd), before), file=sys.stderr, flush=True)
            wall, cpu, rss, lines, rc, err = run(cmd, path, env)
            if rc not in (0, 1):
                sys.exit("bench_firstrun: %s exited %d: %s" % (" ".join(cmd), rc, err.strip()[-400:]))
            got[side].append(("%s #%d" % (label, i + 1), wall, cpu, rss, lines, before, load(path)))
    with open("/proc/loadavg") as f:
        loadavg = f.read().split()[0]
    print("the first run, side by side (load average %s after the runs; %d cores)"
          % (loadavg, os.cpu_count()))
    print("%-32s %6s %7s %7s %10s %10s %7s %6s %6s %8s  %s" % (
        "run", "load", "wall s", "CPU s", "peak RSS", "largest WS", "RSS/WS", "lines", "bench", "samples",
        "stopped by"))
    for i in range(a.rounds):
        for side in ("old", "new"):
            label, wall, cpu, rss, lines, before, b = got[side][i]
            ws, stops, samples = summary(b)
            print("%-32s %6s %7.1f %7.1f %10s %10s %7s %6d %6d %8d  %s" % (
                label, before, wall, cpu, mib(rss), mib(ws), "%.2f" % (rss / ws) if ws else "-", lines,
                len(b), samples, ", ".join("%s %d" % kv for kv in sorted(stops.items()))))
    ow = sum(x[1] for x in got["old"]) / a.rounds
    nw = sum(x[1] for x in got["new"]) / a.rounds
    print("wall time: default / old = %.2f (means over %d round%s)" % (nw / ow, a.rounds, "s" * (a.rounds > 1)))
    if a.topology:
        print("topology: %s" % TOPOLOGIES.get(a.topology, a.topology))
    sweep_side_by_side(got["new"][0][6], got["old"][0][6])
    for key in ("ns_per_item", "task_clock_per_item"):
        for i in range(a.rounds):
            within(got["new"][i][6], got["old"][i][6], "round %d, new against old" % (i + 1), key)
        for i in range(1, a.rounds):
            within(got["old"][i][6], got["old"][0][6], "noise floor, old #%d against old #1" % (i + 1), key)
    if a.keep:
        print("results: %s" % folder)


if __name__ == "__main__":
    main()
