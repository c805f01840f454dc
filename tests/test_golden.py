#!/usr/bin/env python3
"""Golden output: the JSON, CSV and console reports of deterministic
--backend=sim runs, compared byte for byte with tests/golden/ after
normalising only what the clock and the machine decide (see NORM_JSON and
the console rules below; tests/golden/README says how to regenerate)."""
import csv
import difflib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from pmbtap import binary_arch, diag, done, ok, require_pmubench  # noqa: E402

PMB = os.environ.get("PMUBENCH")
HERE = os.path.dirname(os.path.abspath(__file__))
GOLDEN = os.path.join(HERE, "golden")
UPDATE = os.environ.get("PMB_GOLDEN_UPDATE") == "1"
DIFF_LINES = 40

# One core with made-up caches: tiers, sweep points and the simulated cache
# geometry then do not depend on this machine.  Its only PU is 0, hence
# --cpu=0 (the default, the core pmubench started on, may not exist in it).
TOPO = "pack:1 l3:1(size=8MiB) l2:1(size=1MiB) l1d:1(size=32KiB) core:1 pu:1"
COMMON = ["--backend=sim", "--cpu=0", "--topology-source=" + TOPO, "--samples=5"]


def case(name, *args):
    """A row of CASES, with its source line so a failure points at it."""
    return {"name": name, "args": list(args), "line": sys._getframe(1).f_lineno}


CASES = [
    # plain and refs without --seed: the benchmarks' own seeds.
    case("plain", "--filter=^calib/"),
    # branchless names branchy as its reference, branchy names sol: the
    # scaled [95% CI] column and the ratio fields.  No built-in benchmark
    # has a .baseline, so the normalized figure is not covered here.
    case("refs", "--filter=^branch/filter/branchless/p(5|50)$"),
    # One point per tier of TOPO (L1, L2, L3, DRAM) and the sweep summary.
    # --hugepages=off: the huge-page share in the output is then 0 on every
    # machine, instead of whatever THP gives here (it changes no simulated
    # count).
    case("sweep", "--filter=^mem/chase/(16KiB|256KiB|2MiB|12MiB)$", "--seed=7",
         "--hugepages=off"),
    case("study", "--filter=^branch/sum_if/branch(y|less)/p(0|50)$", "--seed=1"),
]

FORMATS = [("json", "--format=json"), ("csv", "--format=csv"), ("console", None)]

# JSON values replaced by "<normalised>", by key path ("[]": any element).
# Varying from run to run (three runs of every case compared): anything
# timed, the clock and frequency probes, the date, the load, free memory.
# Naming the machine (same from run to run here, different elsewhere): host,
# path of the executable, CPU count (the real one; TOPO does not set it),
# what sysfs/procfs say of governor, turbo and perf_event_paranoid.
NORM_JSON = [
    "context/date",
    "context/host_name",
    "context/executable",
    "context/num_cpus",
    "context/mhz_per_cpu",
    "context/cpu_scaling_enabled",
    "context/load_avg/[]",
    "context/clock/resolution_ns",
    "context/clock/read_cost_ns",
    "context/core_ghz_estimate",
    "context/governor",
    "context/turbo",
    "context/perf_event_paranoid",
    "context/harness_overhead/ns_per_pass",
    "context/harness_overhead/ns_per_sample",
    "context/topology/available_memory",
    "benchmarks/[]/warmup_ns",
    "benchmarks/[]/raw_samples/ns/[]",
]
# Warnings that only the machine's state raises (src/probe.c): dropped from
# context/warnings and from stderr.  Every other warning stays pinned.
MACHINE_WARNINGS = re.compile(r"^(CPU governor is '|turbo is on: )")
# The console's first line: "pmubench VERSION  HOST  core N  backend B".
# The core is pinned by --cpu=0, so only the host is normalised.  CSV has no
# machine-dependent column under sim (every ns column is empty): it is not
# normalised at all.
CONSOLE_HEAD = re.compile(r"\A(pmubench \S+  ).*?(  core \d+  backend \S+\n)")
PLACEHOLDER = '"<normalised>"'


# --- JSON: scan the text, keeping every byte not normalised ---------------

_NUM = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")


def _ws(text, i):
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _scan(text, i, path, values, arrays):
    """Scan the JSON value at text[i:]; record each scalar (path, start, end)
    in values and each array (path, start, end, element spans) in arrays.
    Returns the index after the value.  Raises ValueError on bad JSON."""
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
    """The report with NORM_JSON's values replaced and machine warnings
    dropped; everything else byte for byte.  Raises ValueError on bad JSON."""
    json.loads(text)  # the strict parser's verdict first
    values, arrays = [], []
    end = _ws(text, _scan(text, 0, (), values, arrays))
    if end != len(text):
        raise ValueError("text after the JSON value at %d" % end)
    edits = [(s, e, PLACEHOLDER) for path, s, e in values
             if any(_match(p, path) for p in NORM_JSON)]
    for path, s, e, elems in arrays:
        if path != ("context", "warnings"):
            continue
        keep = [x for x in elems
                if not MACHINE_WARNINGS.match(json.loads(text[x[0]:x[1]]))]
        if len(keep) == len(elems):
            continue
        if not keep:
            edits.append((s, e, "[]"))
            continue
        # Rebuild with the writer's own spacing: what stood before the
        # first element, between elements, and after the last.
        sep = text[elems[0][1]:elems[1][0]] if len(elems) > 1 else ","
        body = sep.join(text[a:b] for a, b in keep)
        edits.append((s, e, text[s:elems[0][0]] + body + text[elems[-1][1]:e]))
    for s, e, new in sorted(edits, reverse=True):
        text = text[:s] + new + text[e:]
    return text


def normalise_console(text):
    return CONSOLE_HEAD.sub(r"\1<host>\2", text, count=1)


def normalise_stderr(text):
    """stderr less the machine's warnings."""
    warn = "pmubench: warning: "
    return "".join(line for line in text.splitlines(True)
                   if not (line.startswith(warn) and MACHINE_WARNINGS.match(line[len(warn):])))


NORMALISE = {"json": normalise_json, "csv": lambda t: t, "console": normalise_console}


# --- running and comparing --------------------------------------------------

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
      exports PWD), with only PATH (valgrind's folder) and the events folder
      by a link of fixed length: no HOME (no ~/.valgrindrc), no TMPDIR, no
      VALGRIND_OPTS, no COLUMNS or LINES.
    - Between samples the child parses callgrind's dump, whose header holds
      its pid: the number of digits changes the predictor's state and so
      a simulated branch miss or so per sample.  So it runs in a new pid
      namespace (prefix, from pid_namespace), where the pids are 1 and 2.
    Returns (command prefix, executable, env)."""
    exe = os.path.join(tmp, "pmubench")
    shutil.copy2(PMB, exe)
    events = os.path.join(tmp, "events")
    os.symlink(os.path.abspath(os.environ.get("PMUBENCH_EVENTS_DIR")
                               or os.path.join(HERE, "..", "events")), events)
    vg = os.path.dirname(os.path.abspath(shutil.which("valgrind")))
    return prefix, exe, {"PATH": vg, "PMUBENCH_EVENTS_DIR": events}


def run(world, args):
    """pmubench in world (from stage) with stdout and stderr captured (so
    neither is a terminal), as bytes decoded strictly: the comparison is
    byte for byte."""
    prefix, exe, env = world
    p = subprocess.run([*prefix, exe, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env, cwd=os.path.dirname(exe), timeout=300)
    return p.returncode, p.stdout.decode("utf-8"), p.stderr.decode("utf-8")


def _flat(x, path=()):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _flat(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _flat(v, path + (i,))
    else:
        yield path, x


def changed_fields(golden_name, want, got):
    """Names of the JSON keys or CSV columns whose values differ (indices
    and benchmarks folded), to tell at a glance a layout-sensitive count
    (a simulated miss moved by one) from a real change; [] for console."""
    if golden_name.endswith(".json"):
        try:
            a, b = (dict(_flat(json.loads(t))) for t in (want, got))
        except ValueError:
            return []
        keys = (k for k in set(a) | set(b) if a.get(k, a) != b.get(k, b))
        return sorted({"/".join(str(x) for x in k if not isinstance(x, int)) for k in keys})
    if golden_name.endswith(".csv"):
        a, b = (list(csv.reader(io.StringIO(t))) for t in (want, got))
        if not a or not b or a[0] != b[0] or len(a) != len(b):
            return ["the header or the number of rows"]
        return [h for i, h in enumerate(a[0])
                if any(r[i:i + 1] != q[i:i + 1] for r, q in zip(a[1:], b[1:]))]
    return []


def compare(what, golden_name, got, line):
    path = os.path.join(GOLDEN, golden_name)
    if UPDATE:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(got)
        ok(True, "%s: wrote tests/golden/%s" % (what, golden_name))
        return
    try:
        with open(path, encoding="utf-8", newline="") as f:
            want = f.read()
    except OSError as e:
        ok(False, "%s: tests/golden/%s: %s (PMB_GOLDEN_UPDATE=1 writes it)"
           % (what, golden_name, e.strerror))
        return
    if ok(got == want, "%s matches tests/golden/%s (case at line %d)"
          % (what, golden_name, line)):
        return
    fields = changed_fields(golden_name, want, got)
    if fields:
        diag("fields that differ: " + ", ".join(fields))
    d = list(difflib.unified_diff(want.splitlines(True), got.splitlines(True),
                                  "tests/golden/" + golden_name, "this run"))
    diag("".join(d[:DIFF_LINES]) + ("... %d more diff lines\n" % (len(d) - DIFF_LINES)
                                    if len(d) > DIFF_LINES else ""))


def self_check():
    """The JSON normaliser on made-up text: machine warnings go, others and
    every figure stay, the spacing is the writer's."""
    doc = ('{\n  "context": {\n    "date": "x",\n    "load_avg": [1, 2],\n'
           '    "warnings": [\n      "CPU governor is \'powersave\', not",\n'
           '      "kept one",\n      "turbo is on: x"\n    ]\n  },\n'
           '  "benchmarks": [\n    {"warmup_ns": 5, "ns": 6, "raw_samples":'
           ' {"ns": [7, 8], "passes": [1, 2]}}\n  ]\n}\n')
    want = ('{\n  "context": {\n    "date": "<normalised>",\n    "load_avg":'
            ' ["<normalised>", "<normalised>"],\n    "warnings": [\n'
            '      "kept one"\n    ]\n  },\n  "benchmarks": [\n'
            '    {"warmup_ns": "<normalised>", "ns": 6, "raw_samples":'
            ' {"ns": ["<normalised>", "<normalised>"], "passes": [1, 2]}}\n  ]\n}\n')
    got = normalise_json(doc)
    ok(got == want, "the JSON normaliser replaces only its paths and drops only "
       "machine warnings")
    if got != want:
        diag(got)
    only = doc.replace('"kept one",\n      ', "").replace(
        '"CPU governor is \'powersave\', not",\n      ', "")
    ok('"warnings": []' in normalise_json(only),
       "a warnings array left empty reads [] as the writer writes it")
    ok(normalise_stderr("pmubench: warning: turbo is on: x\npmubench: warning: other\n")
       == "pmubench: warning: other\n", "stderr keeps every warning but the machine's")


def main():
    require_pmubench()
    if not shutil.which("valgrind"):
        print("1..0 # SKIP valgrind is not in PATH")
        sys.exit(0)
    if os.environ.get("PMB_GUEST") or binary_arch() != "x86-64":
        print("1..0 # SKIP the goldens hold the x86-64 build's simulated counts (this "
              "pmubench is %s)" % binary_arch())
        sys.exit(0)
    if 0 not in os.sched_getaffinity(0):
        print("1..0 # SKIP core 0 is not in this process's affinity: the "
              "synthetic topology has only core 0")
        sys.exit(0)
    prefix = pid_namespace()
    if prefix is None:
        print("1..0 # SKIP cannot start a new pid namespace (unshare --pid): "
              "the simulated branch misses depend on the digits of the pid")
        sys.exit(0)
    self_check()
    if UPDATE:
        os.makedirs(GOLDEN, exist_ok=True)
    # mkdtemp's names have a fixed length: so has every path in the runs.
    tmp = tempfile.mkdtemp(prefix="pmb-golden-", dir="/tmp")
    try:
        cases(stage(tmp, prefix))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    done()


def cases(world):
    total = time.monotonic()
    for c in CASES:
        t0 = time.monotonic()
        errs = {}
        for ext, fmt in FORMATS:
            args = COMMON + c["args"] + ([fmt] if fmt else [])
            rc, out, err = run(world, args)
            what = "%s %s" % (c["name"], ext)
            if not ok(rc == 0, "%s: exits 0 (rc %d)" % (what, rc)):
                diag("pmubench " + " ".join(args))
                diag(err[-2000:])
                continue
            errs[ext] = normalise_stderr(err)
            try:
                got = NORMALISE[ext](out)
            except ValueError as e:
                ok(False, "%s: the JSON is well-formed (%s)" % (what, e))
                continue
            compare(what, "%s.%s" % (c["name"], ext), got, c["line"])
        # Warnings are part of the output too: the same in every format.
        if errs:
            same = len(set(errs.values())) == 1
            if not ok(same, "%s: every format warns alike on stderr" % c["name"]):
                diag("\n".join("%s: %r" % kv for kv in errs.items()))
            compare("%s stderr" % c["name"], "%s.stderr" % c["name"],
                    errs.get("console", next(iter(errs.values()))), c["line"])
        diag("%s: %.1f s for %d runs" % (c["name"], time.monotonic() - t0, len(FORMATS)))
    diag("all cases: %.1f s" % (time.monotonic() - total))


if __name__ == "__main__":
    main()
