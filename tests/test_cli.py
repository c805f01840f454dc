#!/usr/bin/env python3
"""Command-line errors: exit 2, one line naming the bad value and what is
valid, nothing measured and nothing written.  Also --help, --version,
--list, and the no-PMU warning printed exactly once."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pmbtap  # noqa: E402
from pmbtap import done, emulator, idlest_cpu, ok, run, skip  # noqa: E402

PMB = os.environ.get("PMUBENCH")



def run(*args, env=None):
    return subprocess.run([PMB, *args], capture_output=True, text=True, timeout=300, env=env)


if not PMB or not os.access(PMB, os.X_OK):
    print("1..0 # SKIP $PMUBENCH is not set to the built pmubench")
    sys.exit(0)

tmp = tempfile.mkdtemp()
# (arguments, text the one-line message must contain)
cases = [
    (["--no-such-option"], "--no-such-option"),
    (["--samples=0"], "--samples=0"),
    (["--samples=abc"], "--samples=abc"),
    (["--cpu=999"], "--cpu=999"),
    (["--cpu=-1"], "--cpu=-1"),
    (["--filter=("], "--filter=("),
    (["--format=xml"], "--format=xml"),
    (["--min-sample-time=fast"], "--min-sample-time=fast"),
    (["--backend=gpu"], "--backend=gpu"),
    (["--hugepages=maybe"], "--hugepages=maybe"),
    (["--repetitions=0"], "--repetitions=0"),
    (["--counters="], "--counters="),
    (["--help=foo"], "--help takes no value"),
    (["--kernel=yes"], "--kernel takes no value"),
    (["--self-check", "--format=json"], "--self-check"),
    (["--topology", "--out=/tmp/pmb-topology.txt"], "--topology"),
    (["--plot=/tmp/pmb-x.png"], "--plot=/tmp/pmb-x.png"),
    (["--out=/tmp/pmb-same.svg", "--plot=/tmp/pmb-same.svg"], "--plot=/tmp/pmb-same.svg"),
    (["--min-sample-time=1e9s"], "--min-sample-time=1e9s"),
    (["--counters=,,"], "--counters=,,"),
    (["--out=/nonexistent-dir/x.json"], "--out=/nonexistent-dir/x.json"),
    (["--out=" + tmp], "--out=" + tmp),
    (["--filter=^no-such-benchmark$"], "no-such-benchmark"),
    (["stray"], "stray"),
]
for args, needle in cases:
    r = run(*args, "--filter=^calib/empty$" if not any(a.startswith("--filter") for a in args) else "--samples=10")
    lines = [l for l in r.stderr.splitlines() if l.strip()]
    ok(r.returncode == 2, "%s exits 2 (got %d)" % (" ".join(args), r.returncode))
    ok(len(lines) == 1 and needle in lines[0],
       "%s: one line naming the bad value: %r" % (" ".join(args), lines[:2]))
    ok(r.stdout == "", "%s: nothing measured on stdout" % " ".join(args))

# An unwritable --out leaves nothing behind, and a failed run never
# replaces an existing report.
out = os.path.join(tmp, "keep.json")
with open(out, "w") as f:
    f.write("old")
r = run("--filter=(", "--out=" + out)
ok(r.returncode == 2 and open(out).read() == "old", "bad run leaves an existing --out file untouched")
ok(os.listdir(tmp) == ["keep.json"], "no temporary files left: %r" % os.listdir(tmp))

r = run("--help")
ok(r.returncode == 0 and "--counters" in r.stdout and "--filter" in r.stdout, "--help lists the options")
r = run("--version")
ok(r.returncode == 0 and r.stdout.startswith("pmubench "), "--version")


# Each option is declared once, in a table (src/cli/run_options.c; compare's in
# src/compare/compare.c, ab's in src/compare/ab.c): --help lists exactly the table's options, hidden ones
# aside, in its order, and man/pmubench.1 documents every one of them.
ROOT = os.environ.get("PMB_SOURCE_ROOT", os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))


def option_table(path, name):
    """[(option, hidden)] of the pmb_optdef table `name` in src/path."""
    src = open(os.path.join(ROOT, "src", path)).read()
    body = src[src.index("struct pmb_optdef %s[] = {" % name):]
    body = body[:body.index("\n};")]
    return [(n, ".hidden = 1" in rest)
            for n, rest in re.findall(r'\{\s*\.name = "(--[a-z0-9-]+)"([^{}]*)\}', body)]


def help_options(text):
    return re.findall(r"^  (--[a-z0-9-]+)", text, re.M)


def in_man(man, opt):
    return re.search(r"\\-\\-" + re.escape(opt[2:]) + r"(?![a-z0-9-])", man) is not None


man = open(os.path.join(ROOT, "man", "pmubench.1")).read()
for path, name, args in [("cli/run_options.c", "options", ["--help"]),
                         ("compare/compare.c", "compare_options", ["compare", "--help"]),
                         ("compare/ab.c", "ab_options", ["ab", "--help"]),
                         ("compare/merge.c", "merge_options", ["merge", "--help"]),
                         ("cli/fleet.c", "fleet_options", ["fleet", "--help"])]:
    table = option_table(path, name)
    r = run(*args)
    ok(len(table) >= 2 and r.returncode == 0 and
       help_options(r.stdout) == [o for o, hidden in table if not hidden],
       "%s lists exactly the options of %s's table, in order (%r against %r)"
       % (" ".join(args), path, help_options(r.stdout), table))
    missing = [o for o, _ in table if not in_man(man, o)]
    ok(not missing, "man/pmubench.1 documents every option of %s's table (missing: %r)" % (path, missing))
ok(any(hidden for _, hidden in option_table("cli/run_options.c", "options")),
   "the table marks the options for tests only (--topology-source) hidden")
r = run("--list", "--filter=^calib/")
ok(r.returncode == 0 and r.stdout.split() == ["calib/add_chain", "calib/add_chain4", "calib/empty"], "--list with --filter: %r" % r.stdout)
r = run("--list")
names = r.stdout.split()
ok("branch/sum_if/branchy/p50" in names and "branch/sum_if/branchless/p0" in names,
   "built-in branch kernels are named group/kernel/variant/args")
ok(len(names) == len(set(names)), "benchmark names are unique")

# A real run: the console table names each benchmark; without a PMU the
# warning comes exactly once, on stderr.
r = run("--filter=^calib/", "--samples=10")
ok(r.returncode == 0, "calib run exits 0 (%d: %s)" % (r.returncode, r.stderr.strip()[:200]))
ok("calib/add_chain" in r.stdout and "calib/empty" in r.stdout, "console table names both")
pmu = subprocess.run(["perf", "stat", "-e", "instructions", "true"], capture_output=True, text=True) \
    if os.path.exists("/usr/bin/perf") else None
warn = r.stderr.count("hardware counters are not available")
if "est.cyc" in r.stdout:
    ok(warn == 1, "no-PMU warning printed exactly once (%d)" % warn)
    ok("ESTIMATED" in r.stdout, "estimated cycles are labelled in the console output")
else:
    ok(warn == 0, "no no-PMU warning where cycles are counted")
    skip("estimated-cycles labels", "the machine has a PMU: no fallback labels to check")

# --out writes atomically and the file is complete.
out = os.path.join(tmp, "r.csv")
r = run("--filter=^calib/empty$", "--samples=10", "--format=csv", "--out=" + out)
ok(r.returncode == 0 and os.path.exists(out) and open(out).read().count("\n") >= 2,
   "--out writes the report (%s)" % r.stderr.strip()[:200])
ok(sorted(os.listdir(tmp)) == ["keep.json", "r.csv"], "only the report is left: %r" % os.listdir(tmp))

# Permissions: an unprivileged user asking for kernel counts at
# perf_event_paranoid >= 2 gets the paranoid level and the exact sysctl.
def paranoid():
    try:
        with open("/proc/sys/kernel/perf_event_paranoid") as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


level = paranoid()
runuser = shutil.which("runuser")
if emulator():
    skip("unprivileged --kernel names perf_event_paranoid and the sysctl",
         "under emulation (%s) perf_event_open never reaches the kernel (ENOSYS), so no "
         "permission refusal; test_hw checks this in the aarch64 guest" % os.path.basename(emulator()))
elif os.geteuid() != 0 or not runuser or level is None or level < 2:
    skip("unprivileged --kernel names perf_event_paranoid and the sysctl",
         "needs root to run as nobody, and perf_event_paranoid >= 2 (is %r)" % level)
else:
    # A copy nobody can reach: the build tree may sit under /root.
    d = tempfile.mkdtemp()
    os.chmod(d, 0o755)
    exe = os.path.join(d, "pmubench")
    shutil.copy(PMB, exe)
    os.chmod(exe, 0o755)
    ev = os.path.join(d, "events")
    shutil.copytree(os.path.join(os.environ.get("PMB_SOURCE_ROOT", "."), "events"), ev)
    for root, dirs, files in os.walk(ev):
        for x in dirs + files:
            os.chmod(os.path.join(root, x), 0o755)
    os.chmod(ev, 0o755)
    env = dict(os.environ, PMUBENCH_EVENTS_DIR=ev)
    r = subprocess.run([runuser, "-u", "nobody", "--", exe, "--kernel", "--filter=^calib/empty$",
                        "--samples=10"], capture_output=True, text=True, timeout=300, env=env, cwd=d)
    want = ["perf_event_paranoid is %d" % level, "`sudo sysctl kernel.perf_event_paranoid=1`"]
    ok(r.returncode == 0 and all(x in r.stderr for x in want),
       "unprivileged --kernel: runs on, naming the paranoid level and the sysctl (%d: %s)"
       % (r.returncode, r.stderr.strip()[:300]))
    ok(r.stderr.count("not allowed to count") == 1, "the permission warning is given once")
    shutil.rmtree(d)

# A topology without caches (containers, some Arm boards, the emulated
# aarch64 machine): everything runs; tiers rest on assumed sizes, said once.
NOCACHE = "--topology-source=pack:1 core:2 pu:1"
r = run(NOCACHE, "--topology")
assumed = [l for l in r.stdout.splitlines() if l.startswith("  L") and re.search(r"ASSUMED \(PUs \d+\)$", l)]
ok(r.returncode == 0 and len(assumed) == 3 and "pmubench's defaults" in r.stdout,
   "--topology without caches prints the three assumed levels and where they come from (%d: %s)"
   % (r.returncode, (r.stdout + r.stderr)[-300:]))
r = run(NOCACHE, "--list")
ok(r.returncode == 0 and "calib/add_chain" in r.stdout and "mem/chase/" in r.stdout,
   "--list without caches lists every benchmark, sweeps included (%d: %s)" % (r.returncode, r.stderr[-200:]))
r = run(NOCACHE, "--filter=^calib/empty$", "--samples=5")
ok(r.returncode == 0 and "ASSUMED" not in r.stderr,
   "a run without tiers runs and says nothing of assumed sizes (%d: %s)" % (r.returncode, r.stderr[-200:]))
r = run(NOCACHE, "--filter=^mem/chase/(4KiB|16MiB)$", "--samples=3", "--min-sample-time=100us")
ok(r.returncode == 0 and r.stderr.count("ASSUMED sizes") == 1,
   "a sweep without caches runs and names the assumed sizes once (%d: %s)" % (r.returncode, r.stderr[-300:]))

# ---- the console report: its width, its options, progress ---------------
def widest(text):
    return max((len(l) for l in text.splitlines()), default=0)


# The default report fits the width: 100 columns when stdout is no
# terminal, $COLUMNS where it is set; --wide is as wide as it needs.
FILT = "--filter=^calib/|^branch/filter/branch(y|less)/p5$"
for cols in (None, "80", "120"):
    e = dict(os.environ)
    e.pop("COLUMNS", None)
    if cols:
        e["COLUMNS"] = cols
    r = run(FILT, "--samples=5", env=e)
    lim = int(cols or 100)
    ok(r.returncode == 0 and widest(r.stdout) <= lim and "ratio×" in r.stdout and "ns/item" in r.stdout,
       "the default report fits %d columns%s (widest %d)" % (lim, "" if cols else " (not a terminal)",
                                                            widest(r.stdout)))
    ok("\r" not in r.stderr and "[1/" not in r.stderr, "no progress where stderr is no terminal")
e = dict(os.environ, COLUMNS="80")
r = run(FILT, "--samples=5", "--wide", env=e)
ok(r.returncode == 0 and widest(r.stdout) > 80 and "sd ns" in r.stdout and "outliers" in r.stdout,
   "--wide gives every column however wide (widest %d)" % widest(r.stdout))
r = run(FILT, "--samples=5", "--columns=ns,sd,samples", env=e)
head = [l for l in r.stdout.splitlines() if l.startswith("benchmark")]
ok(r.returncode == 0 and head and head[0].split() == ["benchmark", "ns/item", "sd", "ns", "samples"],
   "--columns=ns,sd,samples shows those beside the name (%r)" % head)
r = run(FILT, "--columns=ns,nope")
ok(r.returncode == 2 and "--columns=ns,nope" in r.stderr and "'nope'" in r.stderr and "instr" in r.stderr
   and r.stdout == "", "--columns with an unknown name: one line naming it and what is valid (%d: %s)"
   % (r.returncode, r.stderr.strip()[-200:]))
r = run("--filter=^calib/empty$", "--samples=5", "--verbose")
ok(r.returncode == 0 and "harness overhead subtracted:" in r.stdout and "perf_event_paranoid" in r.stdout,
   "--verbose prints the rest of the probe")
r = run("--filter=^calib/empty$", "--samples=5")
ok(r.returncode == 0 and "harness overhead subtracted:" not in r.stdout
   and len(r.stdout.split("\n\n")[0].splitlines()) <= 3,
   "without --verbose the header is the version line and the machine's line")


def on_pty(args, stop_at=None):
    """pmubench with stderr on a terminal: (what the terminal got, exit
    status)."""
    return pmbtap.on_pty([PMB, *args], stop_at=stop_at)


try:
    import pty  # noqa: F401
    def erased(got):
        """Whether the last progress line ("[n/N] name") was erased, and
        nothing but warnings on lines of their own came after it."""
        last = list(re.finditer(rb"\[\d+/\d+\] ", got))
        tail = got[last[-1].end():] if last else b""
        return bool(last) and b"\r\x1b[K" in tail and \
            all(x.startswith((b"pmubench: warning", b"  ")) or not x
                for x in tail[tail.index(b"\r\x1b[K") + 4:].split(b"\r\n"))

    got, rc = on_pty(["--filter=^calib/", "--samples=5"])
    ok(rc == 0 and erased(got), "progress on a terminal, erased before the report (%r)" % got[-80:])
    got, rc = on_pty(["--filter=^mem/", "--samples=5"], stop_at=b"[2/")
    last = list(re.finditer(rb"\[\d+/\d+\] ", got))
    tail = got[last[-1].end():] if last else b""
    ok(rc == 130 and b"\r\x1b[K" in tail and
       re.match(rb"(\r\x1b\[K)+pmubench: interrupted by SIGINT", tail[tail.index(b"\r\x1b[K"):]),
       "a run stopped by SIGINT erases its progress line, says so and exits 130 (%d, %r)" % (rc, got[-60:]))
except (ImportError, OSError) as err:
    skip("progress on a terminal", "no pseudo-terminal here (%s)" % err)
    skip("progress erased when stopped", "no pseudo-terminal here")

done()
