#!/usr/bin/env python3
"""Golden output: the JSON, CSV and console reports of deterministic
--backend=sim runs, one run per case saved with --save and every format
rendered from it by `pmubench report` (issue 29: one valgrind run per case,
not one per format), compared byte for byte with tests/golden/ after
normalising only what the clock and the machine decide (see NORM_JSON and
the console rules below; tests/golden/README says how to regenerate).

One exception: figures from simulated *miss* counts (callgrind's branch
predictor and caches alias by address, so they move by a few per sample
whenever pmubench's own code, data or stack moves) compare within the
tolerance of MISS TOLERANCE below; every other byte is exact."""
import csv
import difflib
import io
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from pmbtap import binary_arch, diag, done, ok, require_pmubench, skip  # noqa: E402

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
    # ratio [95% CI] column and the ratio fields.  No built-in benchmark
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

# Each case is one --backend=sim run that saves its results (SAVED); every
# golden is `pmubench report` of that file (issue 29): the JSON first, the
# CSV, the console without $COLUMNS (not a terminal: 100 columns) and at
# three terminal widths.  $COLUMNS is written with three digits, as
# test_report_cmd.py does.
SAVED = "r.json"
WIDTHS = [80, 120, 200]
RENDERS = [("json", "--format=json", None), ("csv", "--format=csv", None), ("console", None, None)] + \
    [("console", None, w) for w in WIDTHS]

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
    "context/harness_overhead/ns_noise_per_pass",
    "context/reanalysis/cpu_model",
    "context/topology/available_memory",
    "benchmarks/[]/warmup_ns",
    "benchmarks/[]/raw_samples/ns/[]",
]
# Warnings that only the machine's state raises (src/measure/probe.c): dropped from
# context/warnings and from stderr.  Every other warning stays pinned.
MACHINE_WARNINGS = re.compile(r"^(CPU governor is '|turbo is on: )")
# The console's first line: "pmubench VERSION  HOST  core N  backend B".
# The core is pinned by --cpu=0, so only the host is normalised.  CSV has no
# machine-dependent column under sim (every ns column is empty): it is not
# normalised at all.
CONSOLE_HEAD = re.compile(r"\A(pmubench \S+  ).*?(  core \d+  backend \S+\n)")
PLACEHOLDER = '"<normalised>"'
# The runs' whole PATH, whatever the caller's: the goldens are Debian's
# /usr/bin/valgrind's figures, and PATH's length moves them (see stage()).
RUN_PATH = "/usr/bin"


# --- JSON: scan the text, keeping every byte not normalised ---------------

_NUM = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null")


def _ws(text, i):
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def _scan(text, i, path, values, arrays, members=None):
    """Scan the JSON value at text[i:]; record each scalar (path, start, end)
    in values, each array (path, start, end, element spans) in arrays and,
    where members is a list, each object member (path, key start, value
    end).  Returns the index after the value.  Raises ValueError on bad
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
            k0 = i
            key, i = json.decoder.scanstring(text, i + 1)
            i = _ws(text, i)
            if text[i] != ":":
                raise ValueError("':' expected at %d" % i)
            i = _scan(text, i + 1, path + (key,), values, arrays, members)
            if members is not None:
                members.append((path + (key,), k0, i))
            i = _ws(text, i)
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
                e1 = _scan(text, e0, path + (len(elems),), values, arrays, members)
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


# --- MISS TOLERANCE: figures from simulated miss counts ---------------------
#
# callgrind's branch predictor and caches are indexed by address, so the
# simulated misses follow where pmubench's own code, data, heap and stack
# lie: a layout change with no change of behaviour moves them by a few per
# sample (tests/golden/README has the measurements).  Those figures, and
# nothing else, compare within these limits:
#
# - raw per-sample miss counts (raw_samples/<miss event>/[], and the harness
#   overhead per sample): |a - b| <= max(RAW_ABS, RAW_REL * max(|a|, |b|));
#   seen: up to 8 (a 1000-byte stack frame moved a 16 KiB chase's L1d read
#   misses from 8 to 16 a sample; a 64-byte function moved calib/empty's
#   cond-branch misses from 10 to 3) and at most 0.1 % (1 in 1033);
# - per-item miss figures (<miss event>_per_item and its _ci_lo, _ci_hi,
#   _resolution; the harness overhead per pass): |a - b| <= max(ITEM_ABS,
#   ITEM_REL * max(|a|, |b|)); seen: at most 0.00037 per item and 0.1 %
#   (0.2 % on a ratio); ITEM_ABS is 8 misses over the smallest sample here
#   (calib/empty: 4096 passes of one item);
# - derived figures over a miss count (context/derived: *_mpki,
#   *_miss_ratio, *_mispredict_ratio): ITEM_REL, or ITEM_ABS per item carried
#   through the definition (scale * ITEM_ABS / the denominator per item, the
#   denominator being an exact count such as instructions);
# - ratios to the reference (<miss event>_per_item_ratio, _ci_lo, _ci_hi):
#   ITEM_REL, or the per-item limits of numerator and denominator carried
#   through the quotient (the denominator per item is per_item / ratio);
# - below-resolution: <miss event>_per_item_below_resolution (and
#   _resolution) may appear or go only where the resolved side's figure is
#   within ITEM_ABS / ITEM_REL of the other side's resolution, or its
#   interval within ITEM_ABS of 0; the ratio keys only where the reference's
#   figure is within ITEM_ABS of 0 or the ratio's interval within its limit
#   of 0.  In CSV a "<event>:below_resolution" label may come or go only
#   where the JSON of the same case shows that flip, within these rules; on
#   the console "< R" may become "V" only where |V - R| is within the limit.
# The console prints rounded figures: half a unit of each side's last digit
# is added to its limit.
RAW_ABS, RAW_REL = 16, 0.001
ITEM_ABS, ITEM_REL = 0.002, 0.005
MISS_HEADER = re.compile(r"miss|mpki|misp")  # console headers: a miss figure


class MissSpec:
    """Which fields are miss figures, from a report's context: the events
    whose key names a miss, and the derived figures over them (name ->
    (numerator key, denominator key or None, scale))."""

    def __init__(self, doc):
        events = doc["context"]["events"]
        self.key_of = {e["name"]: e["key"] for e in events}
        self.miss = {e["key"] for e in events if "miss" in e["key"]}
        self.derived = {}
        for d in doc["context"].get("derived") or []:
            num = self.key_of.get(d.get("numerator"))
            if num in self.miss:
                self.derived[d["name"]] = (num, self.key_of.get(d.get("denominator")),
                                           d.get("scale") or 1)
        # Each benchmark's per-item figures: the denominator of a derived
        # column whose own column the console left out for the width.
        self.per_item = {}
        for b in doc.get("benchmarks") or []:
            for k, v in b.items():
                if k.endswith("_per_item") and isinstance(v, (int, float)):
                    self.per_item[(b.get("name"), k[:-len("_per_item")])] = v

    def event_field(self, key):
        """(miss event, suffix) for "<event>_per_item<suffix>", else None."""
        best = None
        for ev in self.miss:
            p = ev + "_per_item"
            if key.startswith(p) and (best is None or len(ev) > len(best[0])):
                best = (ev, key[len(p):])
        return best


def load_spec(path):
    try:
        with open(path, encoding="utf-8") as f:
            return MissSpec(json.load(f))
    except (OSError, ValueError, KeyError, TypeError):
        return None


# Kinds: "raw", "item", "resolution" (a per-item figure), "derived", "ratio",
# "flag" (below_resolution); the last three and "resolution" are optional
# keys, written only where they apply.
_ITEM_SUFFIX = {"": "item", "_ci_lo": "item", "_ci_hi": "item",
                "_resolution": "resolution", "_below_resolution": "flag",
                "_ratio": "ratio", "_ratio_ci_lo": "ratio", "_ratio_ci_hi": "ratio"}
_ITEM_SUFFIX.update({"_normalized": "item", "_normalized_ci_lo": "item", "_normalized_ci_hi": "item",
                     "_raw_ratio": "ratio", "_raw_ratio_ci_lo": "ratio", "_raw_ratio_ci_hi": "ratio"})
# A miss event's fixed cost per sample (exact under sim): counts per
# sample, as the raw samples; its share of a sample, as a per-item figure.
_FIXED_SUFFIX = {"_fixed_per_sample": "raw", "_fixed_ci_lo": "raw", "_fixed_ci_hi": "raw",
                 "_fixed_two_point": "raw", "_fixed_share": "item"}
_OPTIONAL = ("resolution", "flag", "ratio")


def miss_kind(spec, name):
    """The kind of a benchmark's JSON key or CSV column, with its event;
    (None, None) for an exact one."""
    if name in spec.derived:
        return "derived", spec.derived[name][0]
    ef = spec.event_field(name)
    if ef and ef[1] in _ITEM_SUFFIX:
        return _ITEM_SUFFIX[ef[1]], ef[0]
    for ev in spec.miss:
        if name.startswith(ev + "_fixed") and name[len(ev):] in _FIXED_SUFFIX:
            return _FIXED_SUFFIX[name[len(ev):]], ev
    return None, None


def json_kind(spec, path):
    if len(path) == 3 and path[0] == "benchmarks" and isinstance(path[2], str):
        return miss_kind(spec, path[2])
    if len(path) == 5 and path[0] == "benchmarks" and path[2] == "raw_samples" \
            and path[3] in spec.miss:
        return "raw", path[3]
    if len(path) == 6 and path[0] == "benchmarks" and path[5] == 0 \
            and path[2] in ("raw_counts", "fixed_cost_probe_counts") and path[3] in spec.miss:
        return "raw", path[3]
    if len(path) == 5 and path[:3] == ("context", "harness_overhead", "events") \
            and path[3] in spec.miss and path[4] in ("per_sample", "per_pass"):
        return ("raw" if path[4] == "per_sample" else "item"), path[3]
    return None, None


def _num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def lim_raw(a, b):
    return max(RAW_ABS, RAW_REL * max(abs(a), abs(b)))


def lim_item(a, b):
    return max(ITEM_ABS, ITEM_REL * max(abs(a), abs(b)))


def lim_derived(a, b, scale, den):
    """ITEM_REL, or ITEM_ABS per item of the numerator in the derived
    figure's units.  den: the denominator per item; None where the figure
    has none (numerator x scale), 0 or less where it is not known (then
    ITEM_REL alone)."""
    if den is None:
        per_item = scale * ITEM_ABS
    else:
        per_item = scale * ITEM_ABS / den if den > 0 else 0
    return max(ITEM_REL * max(abs(a), abs(b)), per_item)


def lim_ratio(a, b, num, den):
    """A ratio num/den whose numerator and denominator per item may each
    move within lim_item."""
    m = max(abs(a), abs(b))
    if not den or den <= 0:
        return ITEM_REL * m
    return max(ITEM_REL * m, (lim_item(num, num) + m * lim_item(den, den)) / den)


def fold(path):
    """A JSON path without indices: one name for every benchmark and sample."""
    return "/".join(str(x) for x in path if not isinstance(x, int))


class Verdict:
    """What a tolerant comparison found: fields that differ (exact fields,
    or miss figures beyond their limit), and miss figures that moved within
    it (kept so that drift stays visible)."""

    def __init__(self):
        self.bad = {}    # field -> first detail
        self.moved = {}  # field -> [values moved, max |diff|, max share of limit, flips]

    def exact(self, field, detail=""):
        self.bad.setdefault(field, detail)

    def within(self, field, a, b, limit, where=""):
        """a and b compared within limit: recorded as moved or as bad."""
        d = abs(a - b)
        if d > limit:
            self.exact(field, "%sgolden %r, this run %r: beyond the limit %.3g"
                       % (where, a, b, limit))
            return False
        if d:
            m = self.moved.setdefault(field, [0, 0, 0, 0])
            m[0] += 1
            m[1] = max(m[1], d)
            m[2] = max(m[2], d / limit if limit else 1)
        return True

    def flipped(self, field, allowed, detail):
        if not allowed:
            self.exact(field, detail)
            return False
        self.moved.setdefault(field, [0, 0, 0, 0])[3] += 1
        return True

    def bad_list(self):
        return ["%s (%s)" % (f, d) if d else f for f, d in self.bad.items()]

    def moved_list(self):
        out = []
        for f, (n, d, use, flips) in sorted(self.moved.items()):
            parts = []
            if n:
                parts.append("%d value%s, max |diff| %.3g = %.0f%% of its limit"
                             % (n, "s" * (n != 1), d, 100 * use))
            if flips:
                parts.append("%d within-tolerance below-resolution flip%s"
                             % (flips, "s" * (flips != 1)))
            out.append("%s (%s)" % (f, "; ".join(parts)))
        return out


def _member_cuts(members, drop):
    """Spans that remove the object members whose paths drop accepts,
    separators included, so that an optional key written on one side only
    leaves the rest of the text to compare byte for byte."""
    by_parent = {}
    for path, k0, v1 in members:
        by_parent.setdefault(path[:-1], []).append((path, k0, v1))
    cuts = []
    for mem in by_parent.values():
        mem.sort(key=lambda m: m[1])
        gone = [drop(m[0]) for m in mem]
        i = 0
        while i < len(mem):
            if not gone[i]:
                i += 1
                continue
            j = i
            while j + 1 < len(mem) and gone[j + 1]:
                j += 1
            if j + 1 < len(mem):
                cuts.append((mem[i][1], mem[j + 1][1]))    # up to the next key
            elif i > 0:
                cuts.append((mem[i - 1][2], mem[j][2]))    # from the last kept value
            else:
                cuts.append((mem[i][1], mem[j][2]))        # the object's only members
            i = j + 1
    return cuts


def _mask_json(text, spec):
    """The text with every toleranced value replaced by ~ and every
    optional miss key dropped; raises ValueError on bad JSON."""
    values, arrays, members = [], [], []
    _scan(text, 0, (), values, arrays, members)
    edits = [(s, e, "~") for path, s, e in values
             if json_kind(spec, path)[0] not in (None,) + _OPTIONAL]
    edits += [(a, b, "") for a, b in
              _member_cuts(members, lambda p: json_kind(spec, p)[0] in _OPTIONAL)]
    for s, e, new in sorted(edits, reverse=True):
        text = text[:s] + new + text[e:]
    return text


def tolerant_json(want, got, spec, flips):
    """Compare two normalised JSON reports: exact but for the miss figures.
    Adds to flips the (benchmark, event) whose below-resolution flag came
    or went within tolerance.  Returns a Verdict."""
    v = Verdict()
    try:
        da, db = json.loads(want), json.loads(got)
        ma, mb = _mask_json(want, spec), _mask_json(got, spec)
    except ValueError as e:
        v.exact("the JSON", str(e))
        return v
    A, B = dict(_flat(da)), dict(_flat(db))
    if ma != mb:
        for k in sorted(set(A) | set(B), key=str):
            if json_kind(spec, k)[0] is None and A.get(k, A) != B.get(k, B):
                v.exact(fold(k))
        if not v.bad:
            v.exact("the text around the figures (same values, other bytes)")
    bench = {}  # (side, index) -> the benchmark object
    for side, d in (("a", da), ("b", db)):
        for i, x in enumerate(d.get("benchmarks") or []):
            bench[side, i] = x if isinstance(x, dict) else {}
    seen = set()
    for k in sorted(set(A) | set(B), key=str):
        kind, ev = json_kind(spec, k)
        if kind is None:
            continue
        f = fold(k)
        if k in A and k in B:
            a, b = A[k], B[k]
            if a == b:
                continue
            if not (_num(a) and _num(b)):
                v.exact(f, "golden %r, this run %r" % (a, b))
            elif kind == "raw":
                v.within(f, a, b, lim_raw(a, b))
            elif kind in ("item", "resolution"):
                v.within(f, a, b, lim_item(a, b))
            elif kind == "derived":
                _, den_key, scale = spec.derived[k[-1]]
                den = bench["a", k[1]].get(den_key + "_per_item", 0) if den_key else None
                v.within(f, a, b, lim_derived(a, b, scale, den if den is None or _num(den) else 0))
            elif kind == "ratio":
                num, den = _ratio_den(bench["a", k[1]], bench["b", k[1]], ev)
                v.within(f, a, b, lim_ratio(a, b, num, den))
            else:  # a flag that is there on both sides is true on both
                v.exact(f, "golden %r, this run %r" % (a, b))
            continue
        # A key on one side only: an optional miss key whose condition
        # changed within tolerance, or a difference.
        if kind not in _OPTIONAL or k[0] != "benchmarks":
            v.exact(f, "on one side only")
            continue
        group = "ratio" if kind == "ratio" else "flag"
        if (k[1], ev, group) in seen:
            continue
        seen.add((k[1], ev, group))
        has = "a" if k in A else "b"
        other = "b" if has == "a" else "a"
        x, y = bench.get((has, k[1]), {}), bench.get((other, k[1]), {})
        p = ev + "_per_item"
        if group == "flag":
            keys = (p + "_below_resolution", p + "_resolution")
            whole = all(kk in x and kk not in y for kk in keys)
            r, val, lo = x.get(p + "_resolution"), y.get(p), y.get(p + "_ci_lo")
            allowed = whole and all(_num(z) for z in (r, val, lo)) and (
                val <= r + lim_item(val, r) or lo <= ITEM_ABS)
            if v.flipped(f, allowed, "%s: below resolution on one side only (%s vs "
                         "resolution %s)" % (x.get("name"), val, r)):
                flips.add((x.get("name"), ev))
        else:
            keys = (p + "_ratio", p + "_ratio_ci_lo", p + "_ratio_ci_hi")
            whole = all(kk in x and kk not in y for kk in keys)
            r, n, lo = x.get(p + "_ratio"), x.get(p), x.get(p + "_ratio_ci_lo")
            allowed = whole and _num(r) and _num(n) and _num(lo) and (
                r == 0 or n / r <= ITEM_ABS or lo <= lim_ratio(lo, 0, n, n / r))
            v.flipped(f, allowed, "%s: a ratio on one side only" % x.get("name"))
    return v


def _ratio_den(x, y, ev):
    """(numerator, denominator) per item behind "<ev>_per_item_ratio" on
    either side: the larger denominator (the tighter limit)."""
    p = ev + "_per_item"
    num, den = 0, 0
    for z in (x, y):
        n, r = z.get(p), z.get(p + "_ratio")
        if _num(n) and _num(r) and r:
            num, den = max(num, abs(n)), max(den, abs(n / r))
    return num, den


def tolerant_csv(want, got, spec, flips):
    """Compare two CSV reports line by line: a line differs only in miss
    columns, within tolerance, and in its labels only by below-resolution
    flags that the JSON showed flipping (flips)."""
    v = Verdict()
    wl, gl = want.splitlines(True), got.splitlines(True)
    if not wl or len(wl) != len(gl) or wl[0] != gl[0]:
        v.exact("the header or the number of rows")
        return v
    header = next(csv.reader([wl[0]]))

    def cells(line):
        # Only unquoted lines: then the cells are the bytes between commas.
        c = line.rstrip("\r\n").split(",")
        return c if '"' not in line and len(c) == len(header) else None
    for n, (la, lb) in enumerate(zip(wl, gl), 1):
        if la == lb:
            continue
        ra, rb = cells(la), cells(lb)
        if ra is None or rb is None or la[len(la.rstrip("\r\n")):] != lb[len(lb.rstrip("\r\n")):]:
            v.exact("line %d" % n)
            continue
        row = dict(zip(header, ra))
        for h, a, b in zip(header, ra, rb):
            if a == b:
                continue
            where = "%s: " % ra[0]
            if h == "labels":
                _csv_labels(v, spec, flips, ra[0], a, b)
                continue
            kind, ev = miss_kind(spec, h)
            try:
                x, y = float(a), float(b)
            except ValueError:
                kind = None
            if kind in ("item", "resolution"):
                v.within(h, x, y, lim_item(x, y), where)
            elif kind == "derived":
                _, den_key, scale = spec.derived[h]
                den = None
                if den_key:
                    try:
                        den = float(row.get(den_key + "_per_item", ""))
                    except ValueError:
                        den = 0
                v.within(h, x, y, lim_derived(x, y, scale, den), where)
            else:
                v.exact(h, "%sgolden %r, this run %r" % (where, a, b))
    return v


def _csv_labels(v, spec, flips, name, a, b):
    ta, tb = a.split(";"), b.split(";")

    def flag(t):
        m = re.fullmatch(r"(\w+):below_resolution", t)
        return m.group(1) if m and m.group(1) in spec.miss else None
    odd = [t for t in ta if t not in tb] + [t for t in tb if t not in ta]
    keep_a = [t for t in ta if t not in odd]
    keep_b = [t for t in tb if t not in odd]
    if keep_a != keep_b or any(flag(t) is None for t in odd):
        v.exact("labels", "%s: golden %r, this run %r" % (name, a, b))
        return
    for t in odd:
        v.flipped("labels " + t, (name, flag(t)) in flips,
                  "%s: below resolution on one side only, and not so in the "
                  "JSON within tolerance" % name)


_CNUM = re.compile(r"(?<![\w.])(-?\d+(?:\.(\d+))?(?:[eE]([-+]?\d+))?)([kMG]?)(?![\w.])")
_MULT = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9}


def _cnums(text):
    """The numbers printed in text: (value, half a unit of the last digit)
    each, and the text with each number replaced by #."""
    nums = []
    for m in _CNUM.finditer(text):
        mult = _MULT[m.group(4)]
        ulp = 10.0 ** (int(m.group(3) or 0) - len(m.group(2) or "")) * mult
        nums.append((float(m.group(1)) * mult, ulp / 2))
    return nums, _CNUM.sub("#", text)


_CELL = re.compile(r"\S+(?: \S+)*")  # console cells are 2 or more spaces apart


def _console_tables(lines):
    """line index -> (header cells) for each row of a console table (a
    header, a line of dashes, rows up to a blank line)."""
    rows, hdr = {}, None
    for i, line in enumerate(lines):
        if i + 1 < len(lines) and line.strip() and re.fullmatch(r"-+", lines[i + 1].rstrip("\n")):
            hdr, start = [(m.start(), m.end(), m.group()) for m in _CELL.finditer(line)], i + 2
            continue
        if hdr is None or not line.strip():
            hdr = None
            continue
        if i >= start:
            rows[i] = hdr
    return rows


def _map_cells(line, hdr):
    """{header index: (start, end, text)} for each cell of a table row: a
    cell belongs to the header it ends under (right-aligned) or starts under
    (left-aligned); None where a cell maps to no header or to two."""
    out = {}
    for m in _CELL.finditer(line.rstrip("\n")):
        cand = [j for j, (s, e, _) in enumerate(hdr) if e == m.end() or s == m.start()]
        if len(cand) != 1 or cand[0] in out:
            return None
        out[cand[0]] = (m.start(), m.end(), m.group())
    return out


# Console headers that name an event by a short name (report_cols.c).
_SHORT = {"instr": ("instructions",), "br-miss": ("branch-misses", "cond-branch-misses")}


def _header_event(spec, header):
    """The event a console header names ("instr/item", "l1d-read-misses/item",
    or the old "NAME (sim)"), or None."""
    base = re.sub(r" \(.*\)$", "", header)
    base = re.sub(r"/item$", "", base)
    for name in _SHORT.get(base, (base,)):
        if name in spec.key_of:
            return name
    return None


def _header_derived(spec, header):
    """(derived name, scale of the print) for a derived figure's header: its
    name, or "NAME %" for NAME_ratio printed in % ("misp %": the
    mispredict ratio)."""
    base = re.sub(r" \(.*\)$", "", header)
    if base in spec.derived:
        return base, 1
    if base.endswith(" %"):
        stem = base[:-2]
        for d in spec.derived:
            if d == stem + "_ratio" or (stem == "misp" and d.endswith("mispredict_ratio")):
                return d, 100
    return None, 1


def _console_miss(spec, header):
    """(kind, derived name, scale) for a console column header."""
    ev = _header_event(spec, header)
    if ev is not None and spec.key_of[ev] in spec.miss:
        return "item", None, 1
    dname, scale = _header_derived(spec, header)
    if dname is not None:
        return "derived", dname, scale
    if MISS_HEADER.search(header):
        return "item", None, 1
    return None, None, 1


def tolerant_console(want, got, spec, flips):
    """Compare two console reports line by line: table rows may differ only
    in cells under a miss column, free text only in numbers followed by a
    miss event's name, each within tolerance plus the rounding of the
    print; everything else exact."""
    v = Verdict()
    wl, gl = want.splitlines(True), got.splitlines(True)
    if len(wl) != len(gl):
        v.exact("the number of lines")
        return v
    tables = _console_tables(wl)
    for i, (la, lb) in enumerate(zip(wl, gl)):
        if la == lb:
            continue
        if i not in tables:
            _console_free(v, spec, i + 1, la, lb)
            continue
        hdr = tables[i]
        ca, cb = _map_cells(la, hdr), _map_cells(lb, hdr)
        if ca is None or cb is None or set(ca) != set(cb) or len(la) != len(lb):
            v.exact("line %d" % (i + 1), "its cells do not map to the header's columns alike")
            continue
        names = {h[2]: j for j, h in enumerate(hdr)}
        label = ca.get(0, (0, 0, "line %d" % (i + 1)))[2]
        for j in sorted(ca):
            (sa, ea, a), (sb, eb, b) = ca[j], cb[j]
            if a == b and sa == sb:
                continue
            col = hdr[j][2]
            kind, dname, scale = _console_miss(spec, col)
            na, ka = _cnums(a.replace("< ", ""))
            nb, kb = _cnums(b.replace("< ", ""))
            anchor_same = ea == eb if hdr[j][1] == ea else sa == sb
            if kind is None or ka != kb or len(na) != len(nb) or not na or not anchor_same:
                v.exact(col, "%s: golden %r, this run %r" % (label, a, b))
                continue
            for (x, ux), (y, uy) in zip(na, nb):
                if kind == "derived":
                    _, den_key, dscale = spec.derived[dname]
                    den = _console_den(spec, den_key, names, ca, label) if den_key else None
                    lim = scale * lim_derived(x / scale, y / scale, dscale, den)
                else:
                    lim = lim_item(x, y)
                v.within(col, x, y, lim + ux + uy, "%s: " % label)
            if a.startswith("< ") != b.startswith("< "):
                v.flipped(col + " below resolution", True, "")
    return v


def _console_den(spec, den_key, names, cells, label):
    """The denominator per item of a derived column, from this row's cell
    under that event's column, else from the golden JSON's row of that
    name; 0 (no per-item allowance) where unknown."""
    for col, j in names.items():
        ev = _header_event(spec, col)
        if ev is None or spec.key_of[ev] != den_key or j not in cells:
            continue
        t = cells[j][2]
        nums, _ = _cnums(t)
        if len(nums) == 1 and not t.startswith("<"):
            return nums[0][0]
    return spec.per_item.get((label.strip(), den_key), 0)


def _console_free(v, spec, n, la, lb):
    """A line outside the tables: its numbers may differ within tolerance
    only where the word after them names a miss event (the sweep summary's
    "median 0.000 l1d-read-misses")."""
    na, ka = _cnums(la)
    nb, kb = _cnums(lb)
    if ka != kb or len(na) != len(nb):
        v.exact("line %d" % n, "golden %r, this run %r" % (la.strip(), lb.strip()))
        return
    ms = list(_CNUM.finditer(la))
    for m, (x, ux), (y, uy) in zip(ms, na, nb):
        if x == y:
            continue
        after = re.match(r"\s+([\w-]+)", la[m.end():])
        if after and spec.key_of.get(after.group(1)) in spec.miss:
            v.within("line %d (%s)" % (n, after.group(1)), x, y, lim_item(x, y) + ux + uy)
        else:
            v.exact("line %d" % n, "golden %r, this run %r" % (la.strip(), lb.strip()))


TOLERANT = {"json": tolerant_json, "csv": tolerant_csv, "console": tolerant_console}


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
      exports PWD), with only PATH and the events folder by a link of fixed
      length (pmubench opens the tables through it; where it points moved
      no count): no HOME (no ~/.valgrindrc), no TMPDIR, no VALGRIND_OPTS, no
      COLUMNS or LINES, no locale (so the C locale), stdin /dev/null.
      LIBPFM_FORCE_PMU is fixed too: the parent hands its core PMU's name
      to the child in it (sim_exec.c), and "icl" or "amd64_fam19h_zen3"
      would be two lengths of environment.
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
    undoes that: those differences are left to MISS TOLERANCE.
    Returns (command prefix, executable, env)."""
    exe = os.path.join(tmp, "pmubench")
    shutil.copy2(PMB, exe)
    events = os.path.join(tmp, "events")
    os.symlink(os.path.abspath(os.environ.get("PMUBENCH_EVENTS_DIR")
                               or os.path.join(HERE, "..", "events")), events)
    return prefix, exe, {"PATH": RUN_PATH, "PMUBENCH_EVENTS_DIR": events, "LIBPFM_FORCE_PMU": "ix86arch"}


def run(world, args, width=None):
    """pmubench in world (from stage) with stdout and stderr captured (so
    neither is a terminal), as bytes decoded strictly: the comparison is
    byte for byte.  width: $COLUMNS, or None for none."""
    prefix, exe, env = world
    if width is not None:
        env = dict(env, COLUMNS="%03d" % width)
    p = subprocess.run([*prefix, exe, *args], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=env, cwd=os.path.dirname(exe), timeout=300)
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


# README shows the start of this golden file as its example report
# (test_readme.py checks it): PMB_GOLDEN_UPDATE=1 rewrites both.
README_EXAMPLE = "refs.w80.console"


def update_readme_example(got):
    """Replace README's example block (after the COLUMNS=80 command) with
    as many first lines of got as it shows now.  True where it did."""
    path = os.path.join(os.environ.get("PMB_SOURCE_ROOT", "."), "README.md")
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


def compare(what, golden_name, got, line, tolerant=None):
    """got against tests/golden/golden_name: byte for byte, or where they
    differ, through tolerant(want, got) -> Verdict (exact but for the
    simulated miss figures), when given."""
    path = os.path.join(GOLDEN, golden_name)
    if UPDATE:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(got)
        ok(True, "%s: wrote tests/golden/%s" % (what, golden_name))
        if golden_name == README_EXAMPLE:
            ok(update_readme_example(got), "README's example report: the start of tests/golden/%s" % golden_name)
        return
    try:
        with open(path, encoding="utf-8", newline="") as f:
            want = f.read()
    except OSError as e:
        ok(False, "%s: tests/golden/%s: %s (PMB_GOLDEN_UPDATE=1 writes it)"
           % (what, golden_name, e.strerror))
        return
    name = "%s matches tests/golden/%s (case at line %d)" % (what, golden_name, line)
    if got == want:
        ok(True, name)
        return
    verdict = tolerant(want, got) if tolerant else None
    if verdict is not None and not verdict.bad:
        ok(True, name + ", simulated misses within tolerance")
        diag("%s: simulated miss figures that moved within tolerance (code layout): %s"
             % (what, ", ".join(verdict.moved_list())))
        return
    ok(False, name)
    fields = verdict.bad_list() if verdict is not None else changed_fields(golden_name, want, got)
    if fields:
        diag("fields that differ: " + ", ".join(fields))
    if verdict is not None and verdict.moved:
        diag("and within the simulated-miss tolerance: " + ", ".join(verdict.moved_list()))
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
    tolerance_self_check()


def _edit_json(text, want, fn):
    """text with the first scalar whose path want accepts replaced by
    fn(its text); None where there is none."""
    values = []
    _scan(text, 0, (), values, [])
    for path, s, e in values:
        if want(path, text[s:e]):
            return text[:s] + fn(text[s:e]) + text[e:]
    return None


def _edit_line(text, want, fn):
    """text with the first line that want accepts replaced by fn(line)."""
    lines = text.splitlines(True)
    for i, line in enumerate(lines):
        if want(line):
            lines[i] = fn(line)
            return "".join(lines)
    return None


def _scaled(f):
    return lambda t: repr(float(t) * f)


def _cell(header, row_start, fn):
    """An edit for _edit_line on a console table: the cell under header in
    the row whose name starts with row_start, replaced by fn(cell), kept
    right-aligned."""
    def edit(text):
        lines = text.splitlines(True)
        for h, line in enumerate(lines):
            if header in line and h + 1 < len(lines) and lines[h + 1].startswith("---"):
                end = line.index(header) + len(header)
                for i in range(h + 2, len(lines)):
                    if lines[i].startswith(row_start):
                        m = list(re.finditer(r"\S+(?: \S+)*", lines[i][:end]))[-1]
                        new = fn(m.group())
                        lines[i] = (lines[i][:end - len(new)] + new + lines[i][end:]
                                    if len(new) <= m.end() - m.start() + 1 else lines[i])
                        return "".join(lines)
        return None
    return edit


def tolerance_self_check():
    """The tolerant comparison on the goldens themselves, edited: miss
    figures moved within their limits pass, anything else fails (an exact
    figure, a name, a label, a miss figure beyond its limit)."""
    try:
        texts = {}
        for ext in ("json", "csv", "console"):
            with open(os.path.join(GOLDEN, "study." + ext), encoding="utf-8") as f:
                texts[ext] = f.read()
        spec = MissSpec(json.loads(texts["json"]))
    except (OSError, ValueError, KeyError):
        skip("the tolerant comparison on edited goldens", "no readable tests/golden/study.*")
        return
    js, cs, co = texts["json"], texts["csv"], texts["console"]

    def raw(p, t):
        return p[-2:-1] == ("cond_branch_misses",) and p[2] == "raw_samples" and int(t) > 1000

    def item(p, t):
        return p[-1] == "cond_branch_misses_per_item" and float(t) > 0.1

    def key(name):
        return lambda p, t: p[-1] == name and p[0] == "benchmarks"
    row = re.compile(r"^branch/sum_if/branchy/p50,")
    cols = next(csv.reader([cs.splitlines()[0]]))

    def csv_cell(name, fn):
        i = cols.index(name)

        def edit(line):
            c = line.rstrip("\n").split(",")
            c[i] = fn(c[i])
            return ",".join(c) + "\n"
        return edit
    def lines_of(bench, key):
        """The span of the lines of "key" in benchmark bench."""
        i = js.index('"name": "%s"' % bench)
        j = js.rindex("\n", 0, js.index('"%s":' % key, i)) + 1
        return j, js.index("\n", j) + 1
    below = "cond_branch_misses_per_item_below_resolution"
    a0, _ = lines_of("branch/sum_if/branchless/p50", below)
    _, a1 = lines_of("branch/sum_if/branchless/p50", "cond_branch_misses_per_item_resolution")
    b0, b1 = lines_of("branch/sum_if/branchy/p50", "cond_branch_misses_per_item_ci_hi")
    ind = js[b0:b1][:len(js[b0:b1]) - len(js[b0:b1].lstrip())]
    checks = [  # (format, what, edited text, passes)
        ("json", "a tiny miss figure resolved (its below-resolution keys gone)",
         js[:a0] + js[a1:], True),
        ("json", "below-resolution keys on a miss figure far above them",
         js[:b1] + '%s"%s": true,\n%s"%s": 1.52587890625e-05,\n' % (
             ind, below, ind, below.replace("below_", "")) + js[b1:], False),
        ("json", "a raw miss count one off", _edit_json(js, raw, lambda t: str(int(t) - 1)), True),
        ("json", "a raw miss count one beyond max(RAW_ABS, RAW_REL)",
         # ceil: int() fell short of the limit where it has a fraction
         # above .5 of a count (32980 misses: 32.98 -> 32, +1 = 33, within
         # the 33.01 of the edited value)
         _edit_json(js, raw, lambda t: str(int(t) + math.ceil(lim_raw(int(t), int(t))) + 1)), False),
        ("json", "a small raw miss count %d off" % (RAW_ABS + 1),
         _edit_json(js, lambda p, t: p[-2:-1] == ("l1d_write_misses",) and p[2] == "raw_samples",
                    lambda t: str(int(t) + RAW_ABS + 1)), False),
        ("json", "a per-item miss figure x1.001", _edit_json(js, item, _scaled(1.001)), True),
        ("json", "a per-item miss figure x1.1", _edit_json(js, item, _scaled(1.1)), False),
        ("json", "cond_mispredict_ratio x1.1",
         _edit_json(js, lambda p, t: p[-1] == "cond_mispredict_ratio" and float(t) > 0.1,
                    _scaled(1.1)), False),
        ("json", "instructions per item x(1+1e-9)",
         _edit_json(js, key("instructions_per_item"), _scaled(1 + 1e-9)), False),
        ("json", "a raw instruction count one off",
         _edit_json(js, lambda p, t: p[-2:-1] == ("instructions",), lambda t: str(int(t) + 1)),
         False),
        ("json", "a benchmark's name", _edit_json(js, key("name"), lambda t: t[:-1] + 'x"'),
         False),
        ("json", "a miss figure's flag true -> false",
         _edit_json(js, key("indirect_branch_misses_per_item_below_resolution"),
                    lambda t: "false"), False),
        ("csv", "a per-item miss figure one miss off",
         _edit_line(cs, row.match, csv_cell("cond_branch_misses_per_item",
                                            lambda t: repr(float(t) + 1 / 65536))), True),
        ("csv", "a per-item miss figure x1.1",
         _edit_line(cs, row.match, csv_cell("cond_branch_misses_per_item", _scaled(1.1))), False),
        ("csv", "instructions per item",
         _edit_line(cs, row.match, csv_cell("instructions_per_item", _scaled(1.001))), False),
        ("csv", "a label",
         _edit_line(cs, row.match, csv_cell("labels", lambda t: t.replace("simulated", "sim"))),
         False),
        ("csv", "a miss figure's below-resolution label the JSON does not drop",
         _edit_line(cs, row.match, csv_cell("labels", lambda t: t.replace(
             "indirect_branch_misses:below_resolution;", ""))), False),
        ("console", "a miss cell one in the last digit",
         _cell("br-miss/item", "branch/sum_if/branchy/p50",
               lambda t: "%.4f" % (float(t) + 0.0001))(co), True),
        ("console", "a miss cell x1.1",
         _cell("br-miss/item", "branch/sum_if/branchy/p50",
               lambda t: "%.4f" % (float(t) * 1.1))(co), False),
        ("console", "an instructions cell in the last digit",
         _cell("instr/item", "branch/sum_if/branchy/p50",
               lambda t: "%.3f" % (float(t) + 0.001))(co), False),
        ("console", "a benchmark's name",
         _edit_line(co, lambda x: x.startswith("branch/sum_if/branchy/p50 "),
                    lambda x: x.replace("branchy/p50 ", "branchy/p51 ", 1)), False),
    ]
    for ext, what, edited, passes in checks:
        name = "tolerant %s comparison, study.%s with %s: %s" % (
            ext, ext, what, "passes" if passes else "fails")
        if edited is None or edited == texts[ext]:
            ok(False, name + " (nothing to edit)")
            continue
        v = TOLERANT[ext](texts[ext], edited, spec, set())
        if not ok(not v.bad if passes else bool(v.bad), name):
            diag("differ: %s; within tolerance: %s" % (v.bad_list(), v.moved_list()))


def main():
    require_pmubench()
    if not shutil.which("valgrind", path=RUN_PATH):
        print("1..0 # SKIP valgrind is not in %s (the goldens hold its figures, and "
              "the runs' PATH is that alone: see stage())" % RUN_PATH)
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
        # Which fields are miss figures: from the golden JSON's context.  The
        # JSON is compared first; the CSV labels may flip only as its flags did.
        spec, flips = load_spec(os.path.join(GOLDEN, c["name"] + ".json")), set()
        if spec is None and not UPDATE:
            diag("%s: no readable tests/golden/%s.json: compared byte for byte"
                 % (c["name"], c["name"]))
        # The one simulated run of the case: the console as it prints it,
        # its results saved (SAVED, in the run's folder: a name as long as
        # --format=json, so the stack, and with it every simulated miss,
        # lies where the JSON run of the goldens before put it).
        args = COMMON + c["args"] + ["--save=" + SAVED]
        rc, live, err = run(world, args)
        if not ok(rc == 0, "%s: the sim run exits 0 and saves %s (rc %d)" % (c["name"], SAVED, rc)):
            diag("pmubench " + " ".join(args))
            diag(err[-2000:])
            continue
        errs["the run"] = normalise_stderr(err)
        # Every format and width: `pmubench report` of the saved run.
        for ext, fmt, width in RENDERS:
            rc, out, err = run(world, ["report"] + ([fmt] if fmt else []) + [SAVED], width)
            label = ext if width is None else "%s at %d columns" % (ext, width)
            golden = "%s.%s" % (c["name"], ext) if width is None else "%s.w%d.%s" % (c["name"], width, ext)
            what = "%s %s" % (c["name"], label)
            if not ok(rc == 0, "%s: report exits 0 (rc %d)" % (what, rc)):
                diag(err[-2000:])
                continue
            errs[label] = normalise_stderr(err)
            if ext == "console" and width is None:
                # test_report_cmd.py checks this for every format and width;
                # here the console the run itself printed, whose golden this is.
                ok(out == live, "%s: report prints what the run printed, byte for byte" % what)
            try:
                got = NORMALISE[ext](out)
            except ValueError as e:
                ok(False, "%s: the JSON is well-formed (%s)" % (what, e))
                continue
            if width is not None:
                wide = [ln for ln in got.splitlines() if len(ln) > width]
                if not ok(not wide, "%s: no line wider than %d" % (what, width)):
                    diag("\n".join(wide[:5]))
            tol = None
            if spec is not None:
                tol = (lambda w, g, f=TOLERANT[ext]: f(w, g, spec, flips))
            compare(what, golden, got, c["line"], tol)
        # Warnings are part of the output too: the run's, and each render's alike.
        same = len(set(errs.values())) == 1
        if not ok(same, "%s: the run and every render warn alike on stderr" % c["name"]):
            diag("\n".join("%s: %r" % kv for kv in errs.items()))
        compare("%s stderr" % c["name"], "%s.stderr" % c["name"], errs["the run"], c["line"])
        diag("%s: %.1f s for one sim run and %d renders" % (c["name"], time.monotonic() - t0, len(RENDERS)))
    diag("all cases: %.1f s" % (time.monotonic() - total))


if __name__ == "__main__":
    main()
