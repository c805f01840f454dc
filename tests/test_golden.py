#!/usr/bin/env python3
"""Golden output of deterministic --backend=sim runs, in two checks
(tests/golden/README says how it works and how to regenerate):

(a) Renders.  tests/golden/CASE.json is the run a case saved with --save,
    normalised (NORM_JSON: what the clock and the machine decide).  Every
    format and width is `pmubench report` of that file, compared byte for
    byte with tests/golden/CASE.{csv,console,wN.console,stderr}; its JSON
    render is the file itself (a saved run is what `report --format=json`
    writes of it, as test_report_cmd.py asserts of every live run).  A
    saved run renders the same bytes anywhere (checked: a second render in
    another environment), so nothing is toleranced.
(b) Measurement.  Each case runs once under valgrind and saves its run;
    normalised alike, it must be the fixture byte for byte, or, where
    pmubench's own code or data moved (callgrind's caches and predictor
    alias by address), differ only in raw simulated miss counts, each
    within its bound (MISS BOUND below), and with those counts set to the
    fixture's render the fixture byte for byte.
The run's console must also be `report` of the file it saved, byte for byte
(issue 25 point 4), at the width the case runs at, and so must a perf run
of the case at each other width of 80, 120 and 200 columns."""
import difflib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# Regeneration is one command from a checkout (tests/golden/README): unless
# told otherwise, this checkout's build, events folder and README.
os.environ.setdefault("PMUBENCH", os.path.join(ROOT, "build", "src", "pmubench"))
os.environ.setdefault("PMUBENCH_EVENTS_DIR", os.path.join(ROOT, "events"))
os.environ.setdefault("PMB_SOURCE_ROOT", ROOT)

from pmbtap import binary_arch, diag, done, ok, require_pmubench, skip  # noqa: E402

PMB = os.environ["PMUBENCH"]
GOLDEN = os.path.join(HERE, "golden")
UPDATE = os.environ.get("PMB_GOLDEN_UPDATE") == "1"
DIFF_LINES = 40

# One core with made-up caches: tiers, sweep points and the simulated cache
# geometry then do not depend on this machine.  Its only PU is 0, hence
# --cpu=0 (the default, the core pmubench started on, may not exist in it).
TOPO = "pack:1 l3:1(size=8MiB) l2:1(size=1MiB) l1d:1(size=32KiB) core:1 pu:1"
COMMON = ["--backend=sim", "--cpu=0", "--topology-source=" + TOPO, "--samples=5"]


def case(name, width, *args):
    """A row of CASES, with its source line so a failure points at it.
    width: the run's $COLUMNS (None: none, so 100 columns), at which its
    own console is checked against `report` of its saved file."""
    return {"name": name, "width": width, "args": list(args), "line": sys._getframe(1).f_lineno}


CASES = [
    # plain and refs without --seed: the benchmarks' own seeds.
    case("plain", None, "--filter=^calib/"),
    # branchless names branchy as its reference, branchy names sol: the
    # ratio [95% CI] column and the ratio fields.  No built-in benchmark
    # has a .baseline, so the normalized figure is not covered here.
    case("refs", 80, "--filter=^branch/filter/branchless/p(5|50)$"),
    # One point per tier of TOPO (L1, L2, L3, DRAM) and the sweep summary.
    # --hugepages=off: the huge-page share in the output is then 0 on every
    # machine, instead of whatever THP gives here (it changes no simulated
    # count).
    case("sweep", 120, "--filter=^mem/chase/(16KiB|256KiB|2MiB|12MiB)$", "--seed=7",
         "--hugepages=off"),
    case("study", 200, "--filter=^branch/sum_if/branch(y|less)/p(0|50)$", "--seed=1"),
]

# The renders of a fixture: the JSON (the fixture itself), the CSV, the
# console without $COLUMNS (not a terminal: 100 columns) and at three
# terminal widths, each a golden.  $COLUMNS is written with three digits, as test_report_cmd.py does.
WIDTHS = [80, 120, 200]
RENDERS = [("json", "--format=json", None), ("csv", "--format=csv", None), ("console", None, None)] + \
    [("console", None, w) for w in WIDTHS]

# What the fixture holds instead of what the clock or the machine decided,
# by key path ("[]": any element), each a value of the type pmubench writes
# there, so that `report` reads the fixture as any saved run.  Varying from
# run to run (three runs of every case compared): anything timed, the clock
# and frequency probes, the date, the load, free memory.  Naming the
# machine (same from run to run here, different elsewhere): host, path of
# the executable, CPU count (the real one; TOPO does not set it), CPU
# model, what sysfs/procfs say of governor, turbo and perf_event_paranoid.
# Each case checks that these feed nothing else: its run renders the same
# as its normalised run but for these (measure()).
NORM_JSON = [
    ("context/date", '"<date>"'),
    ("context/host_name", '"<host>"'),
    ("context/executable", '"<executable>"'),
    ("context/num_cpus", "0"),
    ("context/mhz_per_cpu", "0"),
    ("context/cpu_scaling_enabled", "false"),
    ("context/load_avg/[]", "0"),
    ("context/clock/resolution_ns", "0"),
    ("context/clock/read_cost_ns", "0"),
    ("context/core_ghz_estimate", "null"),
    ("context/governor", "null"),
    ("context/turbo", "null"),
    ("context/perf_event_paranoid", "null"),
    ("context/harness_overhead/ns_per_pass", "0"),
    ("context/harness_overhead/ns_per_sample", "0"),
    ("context/harness_overhead/ns_noise_per_pass", "0"),
    ("context/reanalysis/cpu_model", '"<cpu>"'),
    ("context/topology/available_memory", "0"),
    ("benchmarks/[]/warmup_ns", "0"),
    ("benchmarks/[]/raw_samples/ns/[]", "0"),
]
# Warnings that only the machine's state raises (src/measure/probe.c):
# dropped from context/warnings (and counted out of the warnings measured)
# and from the run's stderr.  Every other warning stays pinned.
MACHINE_WARNINGS = re.compile(r"^(CPU governor is '|turbo is on: )")
# The console's first line, "pmubench VERSION  HOST  core N  backend B":
# the host as the normalised run names it.
CONSOLE_HEAD = re.compile(r"\A(pmubench \S+  ).*?(  core \d+  backend \S+\n)")
# The runs' whole PATH, whatever the caller's: the goldens are Debian's
# /usr/bin/valgrind's figures, and PATH's length moves them (see stage()).
RUN_PATH = "/usr/bin"


# --- normalising a saved run: every byte kept but NORM_JSON's values ---------

_NUM = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")


def _ws(text, i):
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _scan(text, i, path, values, arrays):
    """Scan the JSON value at text[i:]; record each scalar (path, start,
    end) in values and each array (path, start, end, element spans) in
    arrays.  Returns the index after the value.  Raises ValueError on bad
    JSON."""
    i = _ws(text, i)
    if i >= len(text):
        raise ValueError("JSON ends early")
    c = text[i]
    if c == "{":
        i = _ws(text, i + 1)
        if text[i] == "}":
            return i + 1
        while True:
            if text[i] != '"':
                raise ValueError("key expected at %d" % i)
            key, i = json.decoder.scanstring(text, i + 1)
            i = _ws(text, i)
            if text[i] != ":":
                raise ValueError("':' expected at %d" % i)
            i = _ws(text, _scan(text, i + 1, path + (key,), values, arrays))
            if text[i] == "}":
                return i + 1
            if text[i] != ",":
                raise ValueError("',' or '}' expected at %d" % i)
            i = _ws(text, i + 1)
    if c == "[":
        start, elems = i, []
        i = _ws(text, i + 1)
        if text[i] != "]":
            while True:
                e0 = _ws(text, i)
                e1 = _scan(text, e0, path + (len(elems),), values, arrays)
                elems.append((e0, e1))
                i = _ws(text, e1)
                if text[i] == "]":
                    break
                if text[i] != ",":
                    raise ValueError("',' or ']' expected at %d" % i)
                i += 1
        arrays.append((path, start, i + 1, elems))
        return i + 1
    if c == '"':
        _, end = json.decoder.scanstring(text, i + 1)
    else:
        m = _NUM.match(text, i)
        if not m:
            raise ValueError("value expected at %d" % i)
        end = m.end()
    values.append((path, i, end))
    return end


def _match(pattern, path):
    p = pattern.split("/")
    return len(p) == len(path) and all(
        a == "[]" and isinstance(b, int) or a == b for a, b in zip(p, path))


def normalise_json(text):
    """A saved run (or its JSON render) with NORM_JSON's values replaced and
    the machine's warnings dropped (context/reanalysis/warnings_measured
    less those of them it counted); every other byte kept.  Raises
    ValueError on bad JSON."""
    doc = json.loads(text)  # the strict parser's verdict first
    values, arrays = [], []
    end = _ws(text, _scan(text, 0, (), values, arrays))
    if end != len(text):
        raise ValueError("text after the JSON value at %d" % end)
    edits = [(s, e, new) for path, s, e in values
             for pat, new in NORM_JSON if _match(pat, path)]
    for path, s, e, elems in arrays:
        if path != ("context", "warnings"):
            continue
        gone = [k for k, x in enumerate(elems) if MACHINE_WARNINGS.match(json.loads(text[x[0]:x[1]]))]
        if not gone:
            continue
        keep = [x for k, x in enumerate(elems) if k not in gone]
        if not keep:
            edits.append((s, e, "[]"))
        else:
            # Rebuild with the writer's own spacing: what stood before the
            # first element, between elements, and after the last.
            sep = text[elems[0][1]:elems[1][0]]
            body = sep.join(text[a:b] for a, b in keep)
            edits.append((s, e, text[s:elems[0][0]] + body + text[elems[-1][1]:e]))
        measured = (doc["context"].get("reanalysis") or {}).get("warnings_measured")
        for p, vs, ve in values:
            if p == ("context", "reanalysis", "warnings_measured") and isinstance(measured, int):
                edits.append((vs, ve, str(measured - sum(k < measured for k in gone))))
    for s, e, new in sorted(edits, reverse=True):
        text = text[:s] + new + text[e:]
    return text


def normalise_stderr(text):
    """stderr less the machine's warnings."""
    warn = "pmubench: warning: "
    return "".join(line for line in text.splitlines(True)
                   if not (line.startswith(warn) and MACHINE_WARNINGS.match(line[len(warn):])))


# --- MISS BOUND: raw simulated miss counts ----------------------------------
#
# callgrind's caches and branch predictor are indexed by address, so a
# simulated miss count follows where pmubench's own code, data and stack lie
# as well as what the benchmark does: builds that only moved them (an unused
# function, a stack frame, a malloc, .data, the checkout path:
# tests/golden/README) moved raw miss counts by up to 8 a sample and
# nothing else.  What moves is the harness's own path between a sample's
# counter start and stop, which the empty loop measures, exactly under sim,
# as context/harness_overhead/events/E/per_sample (today 40 loads, 78
# stores, 62 conditional and 3 indirect branches a sample).  Each of those
# accesses may miss or not wherever it lies (1), and may evict one of the
# benchmark's cache lines or retrain one of its predictor entries, which
# then misses once more (1).  So a raw miss count of one sample moves by at
# most
#     B(E) = 2 x the harness's accesses per sample whose misses E counts
# (ACCESSES; callgrind allocates a line on a store miss too, so a cache
# miss may follow any load or store).  The per-pass loop (a load, a store
# and a branch a pass) touches the same line and predictor entry every pass
# in any layout; should it alias with the benchmark's own, a count moves per
# pass, beyond B, and this test fails saying so (no layout tried did).  The
# empty loop's own misses are no bound: it missed no L1d line a sample
# while a 1000-byte stack frame added 8 L1d read misses a sample to the
# 16 KiB chase.  The overhead's fit (src/measure/overhead.c) from samples
# each moved by at most B moves its per_sample by at most 3 B, and its
# per_pass and noise_per_pass by at most 2 B / (N - 1), N its samples'
# fewest passes.
ACCESSES = {
    "cond_branch_misses": ("cond_branches",),
    "indirect_branch_misses": ("indirect_branches",),
    "l1d_read_misses": ("loads", "stores"),
    "l1d_write_misses": ("loads", "stores"),
    "llc_read_misses": ("loads", "stores"),
    "llc_write_misses": ("loads", "stores"),
}


def miss_inputs(doc):
    """{key path: bound} of every raw simulated miss count that `report`
    reads from a saved run (doc, parsed): each sample's and fixed-cost
    probe's count, and the harness overhead fitted from the empty loop's.
    Raises ValueError where a miss event has no bound."""
    cx = doc["context"]
    over = cx["harness_overhead"]["events"]
    bound = {}
    for ev in cx["events"]:
        m = ev["key"]
        if "miss" not in m:
            continue
        if m not in ACCESSES:
            raise ValueError("the simulated event %s has no bound: add what it counts the "
                             "misses of to ACCESSES" % m)
        bound[m] = 2 * sum(over[a]["per_sample"] for a in ACCESSES[m])
    out = {}

    def overhead(path, ov):
        n = max((ov.get("passes") or 0) - 1, 1)
        for m, b in bound.items():
            if m in ov["events"]:
                out[path + ("events", m, "per_sample")] = 3 * b
                out[path + ("events", m, "per_pass")] = 2 * b / n
                out[path + ("events", m, "noise_per_pass")] = 2 * b / n
    overhead(("context", "harness_overhead"), cx["harness_overhead"])
    for i, x in enumerate(doc["benchmarks"]):
        if isinstance(x.get("harness_overhead"), dict):
            overhead(("benchmarks", i, "harness_overhead"), x["harness_overhead"])
        for key in ("raw_counts", "fixed_cost_probe_counts"):
            for m, b in bound.items():
                for j, c in enumerate((x.get(key) or {}).get(m) or []):
                    if c is not None:
                        out[("benchmarks", i, key, m, j, 0)] = b
    return out


_ABSENT = object()


def _get(doc, path):
    for k in path:
        try:
            doc = doc[k]
        except (KeyError, IndexError, TypeError):
            return _ABSENT
    return doc


def _set(doc, path, v):
    for k in path[:-1]:
        doc = doc[k]
    doc[path[-1]] = v


def fold(path):
    """A key path without indices: one name for every benchmark and sample."""
    return "/".join(str(x) for x in path if not isinstance(x, int))


def compare_measurement(fixture, fresh, render_json):
    """A fresh saved run (normalised text) against the fixture: the same
    bytes, or each raw miss count within its bound and, with every raw miss
    count set to the fixture's, `report` of it (render_json(doc) -> (rc,
    stdout, stderr)) the fixture, byte for byte.  Returns (what differs,
    what moved within its bound), each a list of lines."""
    if fresh == fixture:
        return [], []
    want, got = json.loads(fixture), json.loads(fresh)
    try:
        bounds = miss_inputs(want)
        bounds.update({p: b for p, b in miss_inputs(got).items() if p not in bounds})
    except (KeyError, TypeError, ValueError) as e:
        return ["the bound of the raw miss counts: %s" % e], []
    bad, moved = [], {}
    for p, lim in sorted(bounds.items(), key=lambda pb: str(pb[0])):
        a, b = _get(want, p), _get(got, p)
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (a, b)):
            bad.append("%s: fixture %s, this run %s" % ("/".join(map(str, p)), *(
                "none" if v is _ABSENT else repr(v) for v in (a, b))))
            continue
        if abs(a - b) > lim:
            bad.append("%s: fixture %r, this run %r, beyond its bound %.4g"
                       % ("/".join(map(str, p)), a, b, lim))
        elif a != b:
            m = moved.setdefault(fold(p), [0, 0, lim])
            m[0], m[1] = m[0] + 1, max(m[1], abs(a - b))
        # Set even beyond the bound: the render then names what else differs.
        _set(got, p, a)
    rc, out, err = render_json(got)
    if rc != 0:
        bad.append("report of this run with the fixture's miss counts exits %d: %s" % (rc, err.strip()))
    elif out != fixture:
        bad += ["with the fixture's miss counts, the render differs in %s" % f
                for f in changed_fields(fixture, out)] or ["the render differs in its bytes"]
    return bad, ["%s: %d count%s, by at most %.4g (bound %.4g)" % (f, n, "s" * (n != 1), d, lim)
                 for f, (n, d, lim) in sorted(moved.items())]


def _flat(x, path=()):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _flat(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _flat(v, path + (i,))
    else:
        yield path, x


def changed_fields(want, got):
    """The folded key paths whose values differ between two JSON texts."""
    try:
        a, b = (dict(_flat(json.loads(t))) for t in (want, got))
    except ValueError:
        return ["the JSON (not well-formed)"]
    return sorted({fold(k) for k in set(a) | set(b) if a.get(k, a) != b.get(k, b)})


# --- running ------------------------------------------------------------------

def pid_namespace():
    """The command prefix that runs a program as pid 1 of a new pid
    namespace (util-linux unshare; a user namespace too where we are not
    root), or None where that cannot be done here."""
    un = shutil.which("unshare")
    if not un:
        return None
    pre = [un, "--pid", "--fork", "--kill-child"]
    if os.geteuid() != 0:
        pre[1:1] = ["--user", "--map-root-user"]
    try:
        r = subprocess.run(pre + ["/bin/sh", "-c", "exit 0"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    return pre if r.returncode == 0 else None


def stage(tmp, prefix):
    """Where the runs happen, how they start, and their environment: what
    pmubench's simulated counts depend on besides pmubench.
    - The stack starts below the strings of argv and the environment, and
      the simulated L1d misses move with the stack's addresses: one byte
      more there (a longer checkout path, PMB_GOLDEN_UPDATE=1 itself) moves
      a stack slot to another cache set, and a miss per sample with it.  So
      pmubench runs as a copy at a path of fixed length (the sim child's
      argv[0] is its real path), in that folder (Debian's valgrind script
      exports PWD), with only PATH and the events folder by a link of fixed
      length (pmubench opens the tables through it; where it points moved
      no count), and $COLUMNS as the case says: no HOME (no ~/.valgrindrc),
      no TMPDIR, no VALGRIND_OPTS, no LINES, no locale (so the C locale),
      stdin /dev/null.  LIBPFM_FORCE_PMU is fixed too: the parent hands its
      core PMU's name to the child in it (sim_exec.c), and "icl" or
      "amd64_fam19h_zen3" would be two lengths of environment.
    - PATH is RUN_PATH, not the folder where the caller's PATH finds
      valgrind: with the caller's valgrind found through a folder of links
      (so a PATH of 17 bytes instead of 8), sweep.json failed
      (l1d_write_misses_fixed_share 1 -> 0 on a mem/chase point); a PATH
      of "/usr/bin:/bin" moved refs' misses.
    - Between samples the child parses callgrind's dump, whose header holds
      its pid: the number of digits changes the predictor's state and so
      a simulated branch miss or so per sample.  So it runs in a new pid
      namespace (prefix, from pid_namespace), where the pids are 1 and 2.
    With these, nothing tried in the caller changed a count: 3 KB more
    environment with TMPDIR, HOME, VALGRIND_OPTS, COLUMNS and a UTF-8
    locale set; env -i; another cwd; PATH with /bin (a link to /usr/bin)
    first; stdin closed or /dev/null; umask 077; ulimit -s 64 MiB or
    unlimited; SIGINT, SIGQUIT and SIGHUP ignored; 3 more open fds.  What
    still moves with the checkout is pmubench itself: meson.build compiles
    the source tree's events path into it (PMB_EVENTS_SOURCE_DIR), and the
    strings after it in .rodata shift with its length; checkouts at /tmp
    paths of 10 to 30 bytes gave two sets of sweep and study figures (14 to
    16 bytes the odd ones), the same .rodata for the same string.  No copy
    undoes that: those moves are what MISS BOUND is for.
    Returns (command prefix, executable, env); the renders run the same
    executable and environment without the prefix."""
    exe = os.path.join(tmp, "pmubench")
    shutil.copy2(PMB, exe)
    events = os.path.join(tmp, "events")
    os.symlink(os.path.abspath(os.environ["PMUBENCH_EVENTS_DIR"]), events)
    return prefix, exe, {"PATH": RUN_PATH, "PMUBENCH_EVENTS_DIR": events, "LIBPFM_FORCE_PMU": "ix86arch"}


def run(world, args, width=None, prefix=True):
    """pmubench in world (from stage) with stdout and stderr captured (so
    neither is a terminal), as bytes decoded strictly: the comparison is
    byte for byte.  width: $COLUMNS, or None for none.  prefix: in a pid
    namespace of its own (a sim run) or not (a render)."""
    pre, exe, env = world
    if width is not None:
        env = dict(env, COLUMNS="%03d" % width)
    p = subprocess.run([*(pre if prefix else []), exe, *args], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                       cwd=os.path.dirname(exe), timeout=300)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def render(world, path, fmt=None, width=None):
    """`pmubench report` of the saved run at path: (rc, stdout, stderr)."""
    return run(world, ["report"] + ([fmt] if fmt else []) + [path], width, prefix=False)


def elsewhere_render(path, fmt=None):
    """The same render in the caller's own environment, less $COLUMNS and
    $LINES, with a far time zone and a UTF-8 locale, from / and by the
    committed file's own path: what the bytes must not depend on."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    env.update(TZ="Pacific/Chatham", LC_ALL="C.UTF-8", LANG="C.UTF-8")
    p = subprocess.run([PMB, "report"] + ([fmt] if fmt else []) + [path], stdin=subprocess.DEVNULL,
                       capture_output=True, env=env, cwd="/", timeout=300)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def live_at_widths(c, tmp):
    """The case measured by the perf backend (time, and what this machine
    counts) at each width of WIDTHS its sim run does not use: the console
    is `report` of the file the run saved, at that width, stdout and
    stderr byte for byte.  With the sim run's own width, every case is so
    checked at 80, 120 and 200 columns (issue 25 point 4); a perf run
    costs a fifth of a CPU-second where a sim run costs seconds."""
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    saved = os.path.join(tmp, "live.json")
    for w in WIDTHS:
        if w == c["width"]:
            continue
        env["COLUMNS"] = "%03d" % w
        args = [PMB, "--cpu=0", "--topology-source=" + TOPO, "--samples=5"] + c["args"] + \
            ["--save=" + saved]
        live = subprocess.run(args, stdin=subprocess.DEVNULL, capture_output=True, env=env, cwd=tmp,
                              timeout=300)
        again = subprocess.run([PMB, "report", saved], stdin=subprocess.DEVNULL, capture_output=True,
                               env=env, cwd=tmp, timeout=300)
        got, want = again.stdout + again.stderr, live.stdout + live.stderr
        if not ok(live.returncode == again.returncode == 0 and got == want,
                  "%s: a perf run at %d columns prints what report of its saved run prints, stdout "
                  "and stderr, byte for byte (rc %d, %d)" % (c["name"], w, live.returncode, again.returncode)):
            diag(first_difference(want.decode("utf-8", "replace"), got.decode("utf-8", "replace")))


# --- comparing with the goldens ----------------------------------------------

# README shows the start of this golden file as its example report
# (test_readme.py checks it): PMB_GOLDEN_UPDATE=1 rewrites both.
README_EXAMPLE = "refs.w80.console"


def update_readme_example(got):
    """Replace README's example block (after the COLUMNS=80 command) with
    as many first lines of got as it shows now.  True where it did."""
    path = os.path.join(os.environ["PMB_SOURCE_ROOT"], "README.md")
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return False
    m = re.search(r"`COLUMNS=80 build/src/pmubench --backend=sim[^`]*`.*?\n```\n(.*?)^```$", text, re.S | re.M)
    if not m:
        return False
    n = len(m.group(1).splitlines())
    block = "".join(l + "\n" for l in got.splitlines()[:n])
    with open(path, "w", encoding="utf-8") as f:
        f.write(text[:m.start(1)] + block + text[m.end(1):])
    return True


def write(golden_name, text):
    with open(os.path.join(GOLDEN, golden_name), "w", encoding="utf-8", newline="") as f:
        f.write(text)


def compare(what, golden_name, got, line):
    """got against tests/golden/golden_name, byte for byte (with
    PMB_GOLDEN_UPDATE=1: written there)."""
    if UPDATE:
        write(golden_name, got)
        ok(True, "%s: wrote tests/golden/%s" % (what, golden_name))
        if golden_name == README_EXAMPLE:
            ok(update_readme_example(got), "README's example report: the start of tests/golden/%s" % golden_name)
        return
    try:
        with open(os.path.join(GOLDEN, golden_name), encoding="utf-8", newline="") as f:
            want = f.read()
    except OSError as e:
        ok(False, "%s: tests/golden/%s: %s (PMB_GOLDEN_UPDATE=1 writes it)"
           % (what, golden_name, e.strerror))
        return
    if ok(got == want, "%s matches tests/golden/%s (case at line %d)" % (what, golden_name, line)):
        return
    if golden_name.endswith("json"):
        diag("fields that differ: " + ", ".join(changed_fields(want, got)))
    d = list(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                  "tests/golden/" + golden_name, "this render"))
    diag("".join(d[:DIFF_LINES]) + ("... %d more diff lines\n" % (len(d) - DIFF_LINES)
                                    if len(d) > DIFF_LINES else ""))


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a.splitlines(), b.splitlines())):
        if x != y:
            return "line %d:\n  %r\n  %r" % (i + 1, x, y)
    return "lengths differ: %d and %d lines" % (len(a.splitlines()), len(b.splitlines()))


# --- the cases -----------------------------------------------------------------

def measure(c, world, tmp):
    """(b), first half: the case's one simulated run, saved; its console
    against `report` of the file it saved; its normalised run against the
    run itself.  Returns the normalised saved run (text), or None."""
    name, width, saved = c["name"], c["width"], os.path.join(tmp, "r.json")
    args = COMMON + c["args"] + ["--save=" + os.path.basename(saved)]
    rc, live, err = run(world, args, width)
    if not ok(rc == 0, "%s: the sim run exits 0 and saves its run (rc %d)" % (name, rc)):
        diag("pmubench " + " ".join(args))
        diag(err[-2000:])
        return None
    at = "at %d columns" % width if width else "without $COLUMNS"
    rc, again, err2 = render(world, saved, None, width)
    if not ok(rc == 0 and (again, err2) == (live, err),
              "%s: report of the saved run prints what the run printed %s, stdout and "
              "stderr, byte for byte (rc %d)" % (name, at, rc)):
        diag(first_difference(live + err, again + err2))
    with open(saved, encoding="utf-8") as f:
        text = f.read()
    try:
        fresh = normalise_json(text)
    except (ValueError, KeyError, TypeError) as e:
        ok(False, "%s: the saved run is well-formed JSON (%s)" % (name, e))
        return None
    # The normalised fields feed nothing else: the normalised run renders
    # what the run rendered, but for them.
    norm = os.path.join(tmp, name + ".n.json")
    with open(norm, "w", encoding="utf-8") as f:
        f.write(fresh)
    rc1, js, _ = render(world, saved, "--format=json")
    rc2, js_n, _ = render(world, norm, "--format=json")
    rc3, con_n, err_n = render(world, norm, None, width)
    want = CONSOLE_HEAD.sub(r"\1<host>\2", live, count=1)
    same_json = rc1 == rc2 == 0 and normalise_json(js) == js_n
    if not ok(same_json and rc3 == 0 and con_n == want and err_n == normalise_stderr(err),
              "%s: normalising the saved run changes its renders only in NORM_JSON's fields "
              "and the console's host" % name):
        diag("JSON fields: %s; console: %s" % (
            ", ".join(changed_fields(normalise_json(js), js_n)) if rc1 == rc2 == 0 else "rc %d %d" % (rc1, rc2),
            first_difference(want, con_n) if con_n != want else "same"))
    return fresh


def check_renders(c, world):
    """(a): every render of the case's fixture against its golden, each
    without $COLUMNS rendered a second time elsewhere.  Returns the
    fixture's text, or None."""
    name, fixture = c["name"], os.path.join(GOLDEN, c["name"] + ".json")
    try:
        with open(fixture, encoding="utf-8", newline="") as f:
            text = f.read()
    except OSError as e:
        ok(False, "%s: tests/golden/%s.json: %s (PMB_GOLDEN_UPDATE=1 writes it)" % (name, name, e.strerror))
        return None
    errs = {}
    for ext, fmt, width in RENDERS:
        label = ext if width is None else "%s at %d columns" % (ext, width)
        golden = "%s.%s" % (name, ext) if width is None else "%s.w%d.%s" % (name, width, ext)
        what = "%s %s" % (name, label)
        rc, out, err = render(world, fixture, fmt, width)
        if not ok(rc == 0, "%s: report of the fixture exits 0 (rc %d)" % (what, rc)):
            diag(err[-2000:])
            continue
        errs[label] = err
        if width is None:
            # Nothing but $COLUMNS may move a render: not the time zone,
            # the locale, the environment, the folder or the file's path.
            again = elsewhere_render(fixture, fmt)
            if not ok(again == (rc, out, err), "%s: rendered again in another environment, "
                      "the same bytes" % what):
                diag(first_difference(out + err, again[1] + again[2]))
        else:
            wide = [ln for ln in out.splitlines() if len(ln) > width]
            if not ok(not wide, "%s: no line wider than %d" % (what, width)):
                diag("\n".join(wide[:5]))
        if ext != "json":
            compare(what, golden, out, c["line"])
        elif not ok(out == text, "%s: the JSON render of tests/golden/%s is the file itself, "
                    "byte for byte" % (name, golden)):
            diag("fields that differ: " + ", ".join(changed_fields(text, out)))
    if errs:
        if not ok(len(set(errs.values())) == 1, "%s: every render warns alike on stderr" % name):
            diag("\n".join("%s: %r" % kv for kv in errs.items()))
        compare("%s stderr" % name, "%s.stderr" % name, next(iter(errs.values())), c["line"])
    return text


def json_renderer(world, tmp):
    """render_json for compare_measurement: `report --format=json` of a
    parsed run, written to a file first."""
    def render_json(doc):
        path = os.path.join(tmp, "m.json")
        with open(path, "w", encoding="utf-8") as f:
            json.dump(doc, f)
        return render(world, path, "--format=json")
    return render_json


def check_measurement(c, fresh, fixture, render_json):
    """(b), second half: the fresh run against the fixture."""
    name = c["name"]
    bad, moved = compare_measurement(fixture, fresh, render_json)
    how = "byte for byte" if fresh == fixture else "but raw miss counts within their bound"
    if not ok(not bad, "%s: this run measures what tests/golden/%s.json holds, %s (case at line %d)"
              % (name, name, how, c["line"])):
        diag("differs: " + "; ".join(bad[:20]) + ("; ... %d more" % (len(bad) - 20) if len(bad) > 20 else ""))
    if moved:
        # Visible drift: regenerate when a count moved for a reason other
        # than layout (tests/golden/README).
        diag("%s: raw simulated miss counts that moved within their bound (code layout): %s"
             % (name, "; ".join(moved)))


# --- self-checks ----------------------------------------------------------------

def self_check():
    """The JSON normaliser on made-up text: its paths get their values,
    machine warnings go (and out of the count measured), others and every
    figure stay, the spacing is the writer's."""
    doc = ('{\n  "context": {\n    "date": "x",\n    "load_avg": [1, 2],\n'
           '    "warnings": [\n      "CPU governor is \'powersave\', not",\n'
           '      "kept one",\n      "turbo is on: x"\n    ],\n'
           '    "reanalysis": {"cpu_model": "X", "warnings_measured": 2}\n  },\n'
           '  "benchmarks": [\n    {"warmup_ns": 5, "ns": 6, "raw_samples":'
           ' {"ns": [7, 8], "passes": [1, 2]}}\n  ]\n}\n')
    want = ('{\n  "context": {\n    "date": "<date>",\n    "load_avg": [0, 0],\n'
            '    "warnings": [\n      "kept one"\n    ],\n'
            '    "reanalysis": {"cpu_model": "<cpu>", "warnings_measured": 1}\n  },\n'
            '  "benchmarks": [\n    {"warmup_ns": 0, "ns": 6, "raw_samples":'
            ' {"ns": [0, 0], "passes": [1, 2]}}\n  ]\n}\n')
    got = normalise_json(doc)
    if not ok(got == want, "the JSON normaliser replaces only its paths and drops only "
              "machine warnings, counting them out of those measured"):
        diag(got)
    only = doc.replace('"kept one",\n      ', "").replace(
        '"CPU governor is \'powersave\', not",\n      ', "")
    ok('"warnings": []' in normalise_json(only),
       "a warnings array left empty reads [] as the writer writes it")
    ok(normalise_stderr("pmubench: warning: turbo is on: x\npmubench: warning: other\n")
       == "pmubench: warning: other\n", "stderr keeps every warning but the machine's")


def measurement_self_check(render_json):
    """compare_measurement on the committed study fixture, edited: a raw
    miss count within its bound passes, beyond it fails, and one count more
    of anything exact fails."""
    try:
        with open(os.path.join(GOLDEN, "study.json"), encoding="utf-8") as f:
            fixture = f.read()
        bounds = miss_inputs(json.loads(fixture))
    except (OSError, ValueError, KeyError) as e:
        skip("the measurement comparison on an edited fixture", "tests/golden/study.*: %s" % e)
        return
    # A sample of branchy/p50: thousands of simulated mispredictions.
    doc = json.loads(fixture)
    i = next(k for k, b in enumerate(doc["benchmarks"]) if b["name"] == "branch/sum_if/branchy/p50")
    miss = ("benchmarks", i, "raw_counts", "cond_branch_misses", 2, 0)
    instr = ("benchmarks", i, "raw_counts", "instructions", 2, 0)
    lim = bounds[miss]

    def edited(*edits):
        d = json.loads(fixture)
        for path, fn in edits:
            _set(d, path, fn(_get(d, path)))
        return json.dumps(d)
    checks = [  # (what, the fixture edited, passes)
        ("a raw miss count one off", edited((miss, lambda v: v + 1)), True),
        ("a raw miss count at its bound (%g)" % lim, edited((miss, lambda v: v - int(lim))), True),
        ("a raw miss count one beyond its bound", edited((miss, lambda v: v + int(lim) + 1)), False),
        ("a raw instruction count one off", edited((instr, lambda v: v + 1)), False),
        ("a raw miss count one off and a sample's passes one more",
         edited((miss, lambda v: v + 1), (("benchmarks", i, "raw_samples", "passes", 2), lambda v: v + 1)),
         False),
        ("a benchmark's name", edited((("benchmarks", i, "name"), lambda v: v + "x")), False),
    ]
    for what, text, passes in checks:
        bad, moved = compare_measurement(fixture, text, render_json)
        if not ok(not bad if passes else bool(bad), "the measurement comparison, study's fixture "
                  "with %s: %s" % (what, "passes" if passes else "fails")):
            diag("differs: %s; moved: %s" % (bad, moved))


# --- main -----------------------------------------------------------------------

def main():
    if UPDATE and not os.access(PMB, os.X_OK):
        sys.exit("test_golden.py: PMB_GOLDEN_UPDATE=1 needs a built pmubench: %s is none "
                 "(build, or set PMUBENCH)" % PMB)
    require_pmubench()
    if os.environ.get("PMB_GUEST") or binary_arch() != "x86-64":
        # Other compilers' floating point (aarch64's gcc fuses a*b+c) may
        # render the last digits of a figure otherwise.
        print("1..0 # SKIP the goldens are the x86-64 build's renders and simulated counts "
              "(this pmubench is %s)" % binary_arch())
        sys.exit(0)
    # (b) needs valgrind, core 0 and a pid namespace; (a) needs none.
    why = None
    if not shutil.which("valgrind", path=RUN_PATH):
        why = "valgrind is not in %s (the fixtures hold its counts, and the runs' PATH is " \
              "that alone: see stage())" % RUN_PATH
    elif 0 not in os.sched_getaffinity(0):
        why = "core 0 is not in this process's affinity: the synthetic topology has only core 0"
    prefix = pid_namespace() if why is None else None
    if why is None and prefix is None:
        why = "cannot start a new pid namespace (unshare --pid): the simulated branch " \
              "misses depend on the digits of the pid"
    if UPDATE and why:
        sys.exit("test_golden.py: cannot regenerate the goldens here: " + why)
    self_check()
    # mkdtemp's names have a fixed length: so has every path in the runs.
    tmp = tempfile.mkdtemp(prefix="pmb-golden-", dir="/tmp")
    try:
        world = stage(tmp, prefix)
        render_json = json_renderer(world, tmp)
        total = time.monotonic()
        for c in CASES:
            t0 = time.monotonic()
            fresh = None
            if why is None:
                fresh = measure(c, world, tmp)
                if UPDATE and fresh is not None:
                    write(c["name"] + ".json", fresh)
            elif c is CASES[0]:
                skip("the simulated runs against their fixtures", why)
            fixture = check_renders(c, world)
            if 0 in os.sched_getaffinity(0):
                live_at_widths(c, tmp)
            elif c is CASES[0]:
                skip("perf runs at the other widths", "core 0 is not in this process's affinity")
            if fresh is not None and fixture is not None:
                check_measurement(c, fresh, fixture, render_json)
            diag("%s: %.1f s" % (c["name"], time.monotonic() - t0))
        measurement_self_check(render_json)
        diag("all cases: %.1f s" % (time.monotonic() - total))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    done()


if __name__ == "__main__":
    main()
