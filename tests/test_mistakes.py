#!/usr/bin/env python3
"""Issue 28: every mistake is answered by its fix on one line, exit 2.
Options by edit distance (their value kept), -h; events in the user's
spelling, every bad name of a list at once, perf and sim alike;
--list-events finds names as --counters compares them, and under
--backend=sim what the simulator counts; nothing of valgrind's after
pmubench's own error, and the cache sizes stated are those valgrind was
given; --topology says why the PMU counts nothing."""
import json
import os
import re
import shutil
import subprocess
import tempfile

import pmbtap
from pmbtap import done, ok, require_pmubench, sim_unavailable, skip

require_pmubench()
PMB = pmbtap.PMB
ROOT = os.environ.get("PMB_SOURCE_ROOT", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
EMPTY = "--filter=^calib/empty$"


def run(*args, env=None):
    return subprocess.run([PMB, *args], capture_output=True, text=True, timeout=120, env=env)


def one_line(r):
    """The one line of stderr, or None where there is not exactly one."""
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    return lines[0] if len(lines) == 1 else None


def refused(r, want, what):
    """r exited 2, measured nothing, and said exactly want on one line."""
    ok(r.returncode == 2 and r.stdout == "" and one_line(r) == want,
       "%s: exit 2 and one line %r (exit %d, %r)" % (what, want, r.returncode, r.stderr.strip()[:300]))


# ---- options: did you mean, -h ------------------------------------------------

def visible_options():
    """The run's options as its table declares them, hidden ones aside."""
    src = open(os.path.join(ROOT, "src", "cli", "run_options.c")).read()
    body = src[src.index("struct pmb_optdef options[] = {"):]
    body = body[:body.index("\n};")]
    return [n for n, rest in re.findall(r'\{\s*\.name = "(--[a-z0-9-]+)"([^{}]*)\}', body)
            if ".hidden = 1" not in rest]


refused(run("--fliter=branch"), "pmubench: unknown option '--fliter=branch': did you mean --filter=branch?",
        "a misspelt option with its value")
refused(run("--topolgy"), "pmubench: unknown option '--topolgy': did you mean --topology?", "a misspelt flag")
refused(run("--wdie=3"), "pmubench: unknown option '--wdie=3': did you mean --wide?",
        "a flag takes no value: the fix drops it")
refused(run("--xyzzy"), "pmubench: unknown option '--xyzzy' (see --help for the options)",
        "an option near none")
starts = [o for o in visible_options() if o.startswith("--s")]
refused(run("--s"), "pmubench: option '--s' is ambiguous: it starts %s" % ", ".join(starts),
        "an ambiguous abbreviation names the options it starts (%d of the table)" % len(starts))
refused(run("compare", "--thresold=5", "a.json", "b.json"),
        "pmubench compare: unknown option '--thresold=5': did you mean --threshold=5?", "compare's options")
refused(run("compare", "a.json"), "pmubench compare: need two files (usage: pmubench compare [--threshold=PCT] "
        "[--drift=PCT] OLD.json NEW.json)", "compare with one file: the usage in the one line")
refused(run("ab", "./a"), "pmubench ab: need two programs (usage: pmubench ab [OPTION]... OLD NEW)",
        "ab with one program: the usage in the one line")
r = run("report", "--fromat=csv", "x.json")
refused(r, "pmubench: report: unknown option '--fromat=csv': did you mean --format=csv?", "report's options")

helped = run("--help")
r = run("-h")
ok(r.returncode == 0 and r.stderr == "" and r.stdout == helped.stdout and r.stdout.startswith("usage: pmubench"),
   "-h is --help: the usage, exit 0 (%d, %r)" % (r.returncode, r.stderr[:200]))
for sub in ("compare", "ab", "report"):
    r = run(sub, "-h")
    ok(r.returncode == 0 and r.stdout.startswith("usage: pmubench " + sub), "%s -h: its usage, exit 0" % sub)

# ---- events: the user's spelling, every bad name at once ---------------------

r = run("--counters=BR_MISP_RETIRD", EMPTY)
line = one_line(r) or ""
ok(r.returncode == 2 and line.startswith("pmubench: --counters: unknown event 'BR_MISP_RETIRD': did you mean "
                                         "BR_MISP_RETIRED") and "br-misp" not in line,
   "BR_MISP_RETIRD: the closest name first, in the spelling typed (%r)" % line)
r = run("--counters=br_misp_retird", EMPTY)
line = one_line(r) or ""
ok(r.returncode == 2 and "did you mean br_misp_retired" in line, "br_misp_retird: br_misp_retired (%r)" % line)
r = run("--counters=br_misp_retird", EMPTY, env=dict(os.environ, LIBPFM_FORCE_PMU="skx"))
ok(r.returncode == 2 and (one_line(r) or "").endswith("did you mean br_misp_retired, br_inst_retired?"),
   "libpfm4's own names (skx forced) in the case typed too (%r)" % one_line(r))

r = run("--counters=BR_MISP_RETIRD,instructions,instrctions,@brnch", EMPTY)
parts = (one_line(r) or "").split("; ")
ok(r.returncode == 2 and r.stdout == "" and len(parts) == 3 and
   parts[0].startswith("pmubench: --counters: unknown event 'BR_MISP_RETIRD': did you mean BR_MISP_RETIRED") and
   parts[1] == "unknown event 'instrctions': did you mean instructions?" and
   parts[2] == "unknown event set '@brnch': did you mean @branch?",
   "three bad names of one list, each with its fix, on one line, in order (%r)" % parts)
refused(run("--counters=nosuchevent,instructions", EMPTY),
        "pmubench: --counters: unknown event 'nosuchevent' (no close match; --list-events shows the known ones)",
        "one bad name among good ones")

# ---- --list-events --------------------------------------------------------------


def listed(out):
    """[(pmu, name)] of a --list-events listing."""
    return re.findall(r"^(\S+?)::(\S+)$", out, re.M)


def folded(s):
    return s.lower().replace("_", "-")


r = run("--list-events=BR_MISP")
names = listed(r.stdout)
ok(r.returncode == 0 and ("alias", "br-misp-retired") in names and
   all("br-misp" in folded(n) for _, n in names),
   "--list-events=BR_MISP finds br-misp-retired, which --counters=BR_MISP_RETIRED takes (%r)" % names[:4])
r = run("--list-events=BR_MISP_RETIRED", env=dict(os.environ, LIBPFM_FORCE_PMU="skx"))
ok(r.returncode == 0 and ("skx", "BR_MISP_RETIRED") in listed(r.stdout),
   "with libpfm4's skx forced, its event BR_MISP_RETIRED is listed too")

r = run("--backend=sim", "--list-events")
sim = listed(r.stdout)
ok(r.returncode == 0 and r.stderr == "" and ("sim", "instructions") in sim and ("set", "@branch") in sim and
   not [p for p, _ in sim if p not in ("sim", "set")],
   "--backend=sim --list-events lists the simulator's names and sets only, without valgrind (%d)" % len(sim))
desc = dict(re.findall(r"^sim::(\S+)\n    (.*)$", r.stdout, re.M))
ok(desc.get("branch-misses", "").endswith("(callgrind Bcm+Bim)") and desc.get("instructions", "").endswith(
    "(callgrind Ir)"), "each with what it counts and callgrind's columns (%r)" % desc.get("branch-misses"))
r = run("--backend=sim", "--list-events=cycles")
ok(r.returncode == 1 and r.stdout == "" and
   one_line(r) == "pmubench: no event the simulator counts matches 'cycles'",
   "under sim, nothing matches cycles: status 1, as grep (%r)" % r.stderr)

# ---- --backend=sim: errors alone, the geometry given -----------------------------

TOPO = "pack:1 l3:1(size=318767104) l2:1(size=1048576) l1d:1(size=49152) core:1 pu:1"
why = sim_unavailable()
if why:
    for what in ("sim: every bad name at once, with the simulated ones near it",
                 "sim: nothing of valgrind's after pmubench's error",
                 "sim: the geometry stated is the one valgrind was given"):
        skip(what, why)
else:
    gives = [n for p, n in sim if p == "sim" and n in desc and "the same as" not in desc[n]]
    gives += [n for p, n in sim if p == "set"]
    r = run("--backend=sim", "--counters=instrctions,cycles,instructions", EMPTY)
    want = ("pmubench: event 'instrctions' cannot be simulated: did you mean instructions?; "
            "event 'cycles' cannot be simulated; the sim backend gives: " + ", ".join(gives))
    refused(r, want, "sim: every bad name at once, with the simulated ones near it")

    # A valgrind that, like valgrind on a machine whose L3 has no
    # power-of-two set count, notes the LL it detected (which --LL
    # replaces), and records the options it was given.
    tmp = tempfile.mkdtemp()
    real = shutil.which("valgrind")
    fake = os.path.join(tmp, "valgrind")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\nprintf '%%s\\n' \"$@\" > %s/args\nlog=\nfor a; do case $a in --log-file=*) "
                "log=${a#--log-file=};; esac; done\n%s \"$@\"\nrc=$?\n"
                "printf '==1== warning: specified LL cache: line_size 64  assoc 20  total_size 318,767,104\\n"
                "==1== warning: simulated LL cache: line_size 64  assoc 19  total_size 318,767,104\\n' >> \"$log\"\n"
                "exit $rc\n" % (tmp, real))
    os.chmod(fake, 0o755)
    env = dict(os.environ, PATH=tmp + ":" + os.environ.get("PATH", ""))
    r = run("--backend=sim", "--counters=cycles", "--topology-source=" + TOPO, "--cpu=0", EMPTY, env=env)
    ok(r.returncode == 2 and r.stdout == "" and (one_line(r) or "").startswith(
        "pmubench: event 'cycles' cannot be simulated") and "valgrind" not in r.stderr,
       "sim: pmubench's error alone, nothing of valgrind's after it (%r)" % r.stderr[-300:])
    r = run("--backend=sim", "--topology-source=" + TOPO, "--cpu=0", EMPTY, "--samples=5", "--format=json",
            "--counters=instructions", env=env)
    try:
        geom = json.loads(r.stdout)["context"].get("sim_geometry", "")
    except (ValueError, KeyError):
        geom = r.stderr.strip()[-300:]
    given = open(os.path.join(tmp, "args")).read().split("\n") if os.path.exists(os.path.join(tmp, "args")) else []
    opt = {a.split("=")[0]: [int(x) for x in a.split("=")[1].split(",")] for a in given
           if a.startswith(("--D1=", "--LL="))}
    unit = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
    stated = {lvl: [int(float(n) * unit[u]), int(w), int(line)] for lvl, n, u, w, line in
              re.findall(r"(L1d|LL) ([\d.]+) (B|KiB|MiB|GiB) (\d+)-way (\d+) B", geom)}
    ok(r.returncode == 0 and "LL cache" not in r.stderr and stated and
       stated.get("L1d") == opt.get("--D1") and stated.get("LL") == opt.get("--LL"),
       "sim: the caches stated (%s) are those valgrind was given (%s)" % (geom, opt))
    shutil.rmtree(tmp, ignore_errors=True)

# ---- --topology: what is known of the PMU, or why nothing ---------------------

SYSFS = "/sys/bus/event_source/devices"


def pmu_line(env=None):
    r = run("--topology", env=env)
    lines = [x for x in r.stdout.splitlines() if x.startswith("PMU ")]
    return r.returncode, lines[0] if len(lines) == 1 else None


def kernel_says():
    """What the kernel exposes, as --topology must say it."""
    try:
        devs = sorted(os.listdir(SYSFS))
    except OSError:
        return None
    core = sorted(d for d in devs if d == "cpu" or d.startswith(("cpu_", "armv8_", "armv7_")))
    if core:
        return "the kernel's cpu PMU: " + core[0]
    return "the kernel exposes no cpu PMU (%s: %s)" % (SYSFS, ", ".join(devs) or "nothing")


rc, line = pmu_line()
ok(rc == 0 and line and "()" not in line, "--topology's PMU line has no empty description (%r)" % line)
if line and "hardware counters work" not in line:
    ok(line.endswith("hardware counters do NOT work here: " + kernel_says()) or "NOT PERMITTED" in line,
       "where counters do not work, it says what the kernel exposes (%r)" % line)
else:
    skip("--topology says why counters do not work", "they work here (%r)" % line)
name = re.match(r"PMU (\S+)", line or "")
if name and name.group(1) not in ("none", "callgrind"):
    rc, none = pmu_line(dict(os.environ, LIBPFM_DISABLED_PMUS=name.group(1)))
    ok(rc == 0 and none and none.startswith("PMU none (libpfm4 knows no core PMU for this CPU; "
                                            "LIBPFM_DISABLED_PMUS=%s): hardware counters " % name.group(1)),
       "with libpfm4's PMU disabled: 'none', and why (%r)" % none)
else:
    skip("--topology with libpfm4's PMU disabled", "libpfm4 names no PMU here (%r)" % line)

# ---- --cpu against the topology -----------------------------------------------
# A core outside the machine, or outside --topology-source's topology, is
# named with the cores there are; without --cpu a topology that lacks the
# core this process runs on is measured on its first core, not refused
# with a --cpu the user never gave.
r = run("--cpu=4096", EMPTY)
ok(r.returncode == 2 and r.stdout == "" and re.fullmatch(
    r"pmubench: --cpu=4096: no such core here; expected one of [0-9][0-9,-]* that this process may use",
    one_line(r) or ""), "--cpu=4096: exit 2, the cores there are (%r)" % r.stderr.strip()[:200])
ONE = "--topology-source=pack:1 l3:1(size=8MiB) l2:1(size=1MiB) l1d:1(size=32KiB) core:1 pu:1"
refused(run(ONE, "--cpu=1", EMPTY), "pmubench: --cpu=1: no such core in --topology-source's topology; "
        "expected one of 0 that this process may use", "--cpu outside --topology-source's one core")
cpus = sorted(os.sched_getaffinity(0))
if len(cpus) > 1 and shutil.which("taskset"):
    r = subprocess.run(["taskset", "-c", str(cpus[-1]), PMB, ONE, EMPTY, "--samples=3", "--min-sample-time=100us",
                        "--format=json"], capture_output=True, text=True, timeout=120)
    try:
        cpu = json.loads(r.stdout)["context"]["pinned_cpu"]
    except (ValueError, KeyError) as e:
        cpu = "%s: %s" % (e, r.stderr.strip()[-200:])
    ok(r.returncode == 0 and cpu == 0, "started on core %d without --cpu, --topology-source's one core 0 is "
       "measured (cpu %r)" % (cpus[-1], cpu))
else:
    skip("a run started outside --topology-source's cores", "one core allowed here, or no taskset")

# Under --backend=sim nothing is timed: --topology says the frequency and
# the clock were not measured, not "0.00 GHz" and "resolution 0 ns" (the
# probe is skipped inside valgrind), and the JSON holds null for them.
why = sim_unavailable()
if why:
    skip("--topology --backend=sim: frequency and clock not measured", why)
else:
    r = run("--topology", "--backend=sim")
    ok(r.returncode == 0 and "core frequency estimate: not measured under --backend=sim" in r.stdout and
       "clock: CLOCK_MONOTONIC, not measured under --backend=sim" in r.stdout and " GHz" not in r.stdout,
       "--topology --backend=sim: frequency and clock not measured, said so (%r)" %
       [x for x in r.stdout.splitlines() if x.startswith(("core frequency", "clock"))])
    r = run("--backend=sim", EMPTY, "--format=json")
    try:
        c = json.loads(r.stdout)["context"]
        got = (c["clock"]["resolution_ns"], c["clock"]["read_cost_ns"], c["core_ghz_estimate"])
    except (ValueError, KeyError) as e:
        got = str(e)
    ok(got == (None, None, None), "a sim run's JSON: clock resolution, read cost and frequency null (%r)" % (got,))

done()
