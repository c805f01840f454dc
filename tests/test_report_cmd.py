#!/usr/bin/env python3
"""`pmubench report RUN.json`: a saved run analysed again prints what the
live run printed, byte for byte, for the same width and options.  Each live
run saves its own results with --save (or writes them with --format=json
--out), so both sides come from the same samples: the four cases of
test_golden.py under --backend=sim (CSV with its --plot, the JSON saved;
their console is test_golden.py's), a perf-backend run
(time only where there is no PMU), a timed sweep with its --plot (its
axis of estimated cycles where none count), a --disasm run's listings (and
an older file's, without the padding marked), and the files that cannot be
reported (an older schema, another program's file, malformed JSON, a
listing out of range), each
refused in one line with exit 2."""
import json
import os
import tempfile

from pmbtap import diag, done, ok, require_pmubench, run, sim_unavailable, skip

require_pmubench()

SRC = os.environ.get("PMB_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TOPO = "pack:1 l3:1(size=8MiB) l2:1(size=1MiB) l1d:1(size=32KiB) core:1 pu:1"
SIM = ["--backend=sim", "--cpu=0", "--topology-source=" + TOPO, "--samples=5"]
# test_golden.py's CASES: a plain run, references, a sweep and a branch
# study (the last two are what --plot draws).
CASES = [
    ("plain", ["--filter=^calib/"]),
    ("refs", ["--filter=^branch/filter/branchless/p(5|50)$"]),
    ("sweep", ["--filter=^mem/chase/(16KiB|256KiB|2MiB|12MiB)$", "--seed=7", "--hugepages=off"]),
    ("study", ["--filter=^branch/sum_if/branch(y|less)/p(0|50)$", "--seed=1"]),
]
tmp = tempfile.mkdtemp(prefix="pmb-report-")


def path(name):
    return os.path.join(tmp, name)


def read(p):
    try:
        with open(p, "rb") as f:
            return f.read()
    except OSError:
        return None


def env_cols(width):
    """The environment with $COLUMNS (three digits: the same length at
    every width, as test_golden.py keeps it)."""
    return dict(os.environ, COLUMNS="%03d" % width) if width else \
        {k: v for k, v in os.environ.items() if k != "COLUMNS"}


def same(what, live, again):
    """Byte-identical, or the first differing line shown."""
    if ok(live is not None and live == again, what):
        return
    if live is None or again is None:
        diag("missing: %s" % ("live" if live is None else "report"))
        return
    a, b = live.splitlines(), again.splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            diag("line %d:\n  live:   %r\n  report: %r" % (i + 1, x, y))
            return
    diag("lengths differ: %d and %d lines" % (len(a), len(b)))


def check_console(tag, args, width, plot, view=()):
    """A console run at width with the view options (--wide...), with
    --plot where the case plots, against `report` of the file it saved."""
    saved, svg, svg2 = path(tag + ".json"), path(tag + ".live.svg"), path(tag + ".report.svg")
    extra = ["--plot=" + svg] if plot else []
    live = run(*args, *view, "--save=" + saved, *extra, env=env_cols(width))
    if not ok(live.returncode == 0 and os.path.exists(saved), "%s: the live run exits 0 and saves its "
              "results (rc %d)" % (tag, live.returncode)):
        diag(live.stderr)
        return
    again = run("report", *view, saved, *(["--plot=" + svg2] if plot else []), env=env_cols(width))
    ok(again.returncode == 0, "%s: report exits 0 (rc %d)" % (tag, again.returncode))
    same("%s: report prints the console byte for byte" % tag, live.stdout, again.stdout)
    if plot:
        same("%s: report draws the same SVG" % tag, read(svg), read(svg2))


def check_format(tag, args, fmt, plot=False):
    """--format=fmt: CSV from a run that saves its results, or the JSON
    itself (--out), against `report --format=fmt` of that file; with its
    --plot where plot, against report's --plot of the file."""
    saved, svg, svg2 = path(tag + ".json"), path(tag + ".live.svg"), path(tag + ".report.svg")
    live = run(*args, "--format=" + fmt, ("--out=" if fmt == "json" else "--save=") + saved,
               *(["--plot=" + svg] if plot else []))
    again = run("report", "--format=" + fmt, saved, *(["--plot=" + svg2] if plot else []))
    ok(live.returncode == 0 and again.returncode == 0, "%s: live and report exit 0 (rc %d, %d)"
       % (tag, live.returncode, again.returncode))
    printed = read(saved) if fmt == "json" else live.stdout.encode()
    same("%s: report writes the %s byte for byte" % (tag, fmt.upper()), printed, again.stdout.encode())
    if plot:
        same("%s: report draws the same SVG" % tag, read(svg), read(svg2))


def check_saved_json(tag):
    """The results a live run saved against `report --format=json` of them."""
    saved = path(tag + ".json")
    again = run("report", "--format=json", saved)
    ok(again.returncode == 0, "%s: report --format=json exits 0 (rc %d)" % (tag, again.returncode))
    same("%s: report writes the saved JSON byte for byte" % tag, read(saved), again.stdout.encode())


def sim_cases():
    """Each case's CSV with its --plot (sweep, study), and the JSON the
    CSV run saved: one valgrind run a case (issue 29).  Its console, the
    live run's against `report` of what it saved, is test_golden.py's
    check: that test's one sim run of each case, at 100, 80, 120 and 200
    columns (stdout and stderr byte for byte), and a perf run of each case
    at every other width of 80, 120 and 200.  Here it took a second
    valgrind run of each case (10.5 of this test's 23 CPU s)."""
    why = sim_unavailable()
    if why:
        skip("the golden cases under --backend=sim", why)
        return
    for name, args in CASES:
        check_format(name + ".csv", SIM + args, "csv", plot=name in ("sweep", "study"))
        check_saved_json(name + ".csv")


def perf_case():
    """Timed figures: the report must reproduce them from the samples,
    not measure again (no PMU here: time, estimated cycles)."""
    args = ["--backend=perf", "--filter=^branch/filter/branchless/p5$", "--samples=5",
            "--min-sample-time=200us"]
    check_console("perf.w120", args + ["--repetitions=2"], 120, False)
    check_console("perf.wide", args, 200, False, ["--wide", "--verbose"])
    check_console("perf.cols", args, 100, False, ["--columns=ns,ci,samples,fixed"])
    # Software counters asked for (--counters): their columns, their
    # multiplexing flags, from raw counts with their times.
    check_console("perf.counters", args + ["--counters=task-clock,page-faults"], 100, False)
    saved = path("perf.wide.json")
    if os.path.exists(saved):
        again = run("report", "--wide", "--verbose", saved, env=env_cols(200))
        live = run("report", "--wide", "--verbose", saved, env=env_cols(200))
        same("perf: two reports of one file agree", live.stdout, again.stdout)
    check_format("perf.csv", args, "csv")
    # A timed sweep and its plot: where no cycles count, the plot's axis
    # of cycles estimated at the frequency the analysis chose (est_ghz),
    # which report computes again from the saved run.
    check_console("perf.sweep", ["--backend=perf", "--filter=^mem/chase/(16KiB|256KiB)$", "--samples=5",
                                 "--min-sample-time=200us"], 120, True)


def refused(what, file_text, expect, exact=False):
    """report of a file that cannot be reported: exit 2, one line that says
    expect (that is the whole of stderr, where exact)."""
    p = path("bad.json")
    with open(p, "w") as f:
        f.write(file_text)
    r = run("report", p)
    lines = r.stderr.splitlines()
    said = r.stderr == expect if exact else expect in r.stderr
    ok(r.returncode == 2 and r.stdout == "" and len(lines) == 1 and said,
       "%s: exit 2, one line %s %r (rc %d: %r)" % (what, "that is" if exact else "naming", expect,
                                                   r.returncode, r.stderr))


def errors():
    src = path("plain.csv.json")
    data = None
    try:
        with open(src) as f:
            data = json.load(f)
    except (OSError, ValueError):
        pass
    if data is None:
        r = run("--backend=perf", "--filter=^calib/add_chain$", "--samples=3", "--min-sample-time=100us",
                "--format=json", "--out=" + src)
        with open(src) as f:
            data = json.load(f)
    old = json.loads(json.dumps(data))
    del old["context"]["results_schema"]
    old["context"].pop("reanalysis", None)
    for b in old["benchmarks"]:
        for k in ("instance", "raw_counts", "fixed_cost_probe_counts"):
            b.pop(k, None)
    refused("a schema 1 file", json.dumps(old), "results schema 1 (pmubench %s)"
            % data["context"]["pmubench_version"])
    # The schema: a newer one, or one not an integer, named as what it is
    # beside the schemas read (the whole line, exactly).
    version = data["context"]["pmubench_version"]
    for schema, line in (
            (3, "results schema 3 (pmubench %s) was written by a newer pmubench; this pmubench reads "
             "schema 2: report it with that pmubench" % version),
            ("2", "context.results_schema: expected an integer, found a string (\"2\"); this pmubench "
             "reads schema 2"),
            (2.5, "context.results_schema: expected an integer, found a number not an integer (2.5); "
             "this pmubench reads schema 2"),
            (None, "context.results_schema: expected an integer, found null; this pmubench reads "
             "schema 2"),
            (0, "results schema 0 (pmubench %s) is no schema pmubench writes; this pmubench reads "
             "schema 2" % version),
            (1, "results schema 1 (pmubench %s) has no raw counts to analyse again; this pmubench "
             "reads schema 2: measure again with this pmubench" % version)):
        other = json.loads(json.dumps(data))
        other["context"]["results_schema"] = schema
        refused("results_schema %s" % json.dumps(schema), json.dumps(other),
                "pmubench: report: %s: %s\n" % (path("bad.json"), line), exact=True)
    merged = json.loads(json.dumps(data))
    for b in merged["benchmarks"]:
        b["repetitions"] = 2
    refused("turns merged by ab --out", json.dumps(merged), "not one run")
    gb = {"context": {"date": "x", "library_build_type": "release"}, "benchmarks": []}
    refused("Google Benchmark's file", json.dumps(gb), "not written by pmubench")
    refused("malformed JSON", '{"context": {', "line 1")
    refused("no benchmarks", '{"context": {}}', "not a pmubench results file")
    r = run("report", path("no-such-file.json"))
    ok(r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "No such file" in r.stderr,
       "a missing file: exit 2, one line (%r)" % r.stderr)
    r = run("report", "--columns=nonesuch", src)
    ok(r.returncode == 2 and "nonesuch" in r.stderr, "--columns of an unknown column: exit 2 (%r)" % r.stderr)
    r = run("report", "--plot=" + path("x.png"), src)
    ok(r.returncode == 2 and ".svg" in r.stderr, "--plot not .svg: exit 2 (%r)" % r.stderr)
    r = run("report", "--out=" + src, src)
    ok(r.returncode == 2 and "--out" in r.stderr and os.path.getsize(src) > 0,
       "--out over the file read: refused, the file kept (%r)" % r.stderr)
    r = run("report")
    ok(r.returncode == 2 and len(r.stderr.splitlines()) == 1, "no file: exit 2, one line (%r)" % r.stderr)
    r = run("--filter=^calib/add_chain$", "--out=" + path("same.json"), "--save=" + path("same.json"))
    ok(r.returncode == 2 and "--save" in r.stderr, "--save and --out one file: exit 2 (%r)" % r.stderr)



def listings(text):
    """The console's --disasm sections, from the first to the end."""
    return "\n--disasm " + text.partition("\n--disasm ")[2] if "\n--disasm " in text else ""


def addresses(data, nop_in_shown=False):
    """Addresses (as the console writes them) of every instruction of the
    listings, or of the padding in the parts they show."""
    return {"%x" % i["address"] for b in data["benchmarks"] for p in (b.get("disasm") or {}).get("parts", [])
            if p["measured"] or not nop_in_shown for i in p["instructions"] if i.get("nop") or not nop_in_shown}


def disasm_reported():
    """A --disasm run (the perf backend: without a PMU, the static listing)
    reported again: its listings byte for byte; a file of an older
    pmubench (no "nop") drawn with one note, its padding listed; a listing
    that cannot be drawn refused in one line naming the member."""
    save = path("disasm.json")
    args = ["--filter=^branch/sum_if/branchy/p50$", "--disasm", "--samples=3", "--min-sample-time=100us"]
    r = run(*args, "--save=" + save, env=env_cols(120))
    again = run("report", save, env=env_cols(120))
    live = listings(r.stdout)
    ok(r.returncode == 0 and again.returncode == 0 and live.count("\n--disasm ") == 2 and
       listings(again.stdout) == live and "note:" not in again.stderr,
       "report of a --disasm run: its two listings byte for byte (rc %d, %d; %d and %d bytes; %r)"
       % (r.returncode, again.returncode, len(live), len(listings(again.stdout)), again.stderr[-200:]))
    same("report of a --disasm run: the whole console byte for byte", r.stdout, again.stdout)
    try:
        with open(save) as f:
            data = json.load(f)
    except (OSError, ValueError):
        return
    old = json.loads(json.dumps(data))
    for b in old["benchmarks"]:
        for p in (b.get("disasm") or {}).get("parts", []):
            for i in p["instructions"]:
                del i["nop"]
    p = path("disasm-old.json")
    with open(p, "w") as f:
        json.dump(old, f)
    olds = run("report", p, env=env_cols(120))
    notes = [x for x in olds.stderr.splitlines() if x.startswith("pmubench: note: ")]
    # What it draws besides the live listing: the padding the live run
    # left out (with counts or samples, the padding that ran was drawn).
    lines = live.splitlines()
    extra = [x for x in listings(olds.stdout).splitlines() if x not in lines]
    at = {t for x in extra for t in x.split() if t in addresses(data)}
    hidden = addresses(data, True) - {t for x in lines for t in x.split()}
    ok(olds.returncode == 0 and len(notes) == 1 and "the --disasm listings of 2 benchmarks were saved by an "
       "older pmubench, without which instructions are padding (instructions[].nop)" in notes[0] and
       hidden and at == hidden and len(extra) == len(hidden),
       "an older file without \"nop\": drawn, the padding the live run left out listed besides (%r of %r), "
       "one note (%r)" % (sorted(at), sorted(hidden), notes or olds.stderr[-200:]))
    name = data["benchmarks"][0]["name"]

    def bad(what, edit, member, found):
        x = json.loads(json.dumps(data))
        edit(x["benchmarks"][0])
        refused("--disasm listing: " + what, json.dumps(x), "pmubench: report: %s: %s: disasm%s: expected %s\n"
                % (path("bad.json"), name, member, found), exact=True)

    def insn(b):
        return b["disasm"]["parts"][0]["instructions"][0]

    bad("a negative address", lambda b: insn(b).update(address=-4096),
        ".parts[0].instructions[0].address", "a whole number from 0 to 2^53, found -4096")
    bad("a huge address", lambda b: insn(b).update(address=1e300),
        ".parts[0].instructions[0].address", "a whole number from 0 to 2^53, found 1.0000000000000001e+300")
    bad("truncated bytes", lambda b: insn(b).update(bytes=insn(b)["bytes"][:-1]),
        ".parts[0].instructions[0].bytes", "1 to 15 bytes as hex pairs (\"8b 45 f0\"), found the string \"%s\""
        % insn(data["benchmarks"][0])["bytes"][:-1])
    bad("a text of the wrong type", lambda b: insn(b).update(text=7),
        ".parts[0].instructions[0].text", "a string of at most 143 bytes, found 7")
    bad("an unknown role", lambda b: insn(b).update(role="boss"),
        ".parts[0].instructions[0].role", "\"choice\", \"loop\" or \"body\", found the string \"boss\"")
    bad("negative decisions", lambda b: b["disasm"].update(decisions=-1),
        ".decisions", "a whole number from 0 to 2^53, found -1")
    bad("17 parts", lambda b: b["disasm"].update(parts=b["disasm"]["parts"] * 17),
        ".parts", "an array of at most 16, found an array")
    bad("a note too long", lambda b: b["disasm"].update(notes=["x" * 400]),
        ".notes[0]", "a string of at most 319 bytes, found the string \"%s\"" % ("x" * 40))
    bad("a negative share", lambda b: b["disasm"].update(accounted_share=-0.5),
        ".accounted_share", "a number of at least 0, or null, found -0.5")
    bad("a listing not an object", lambda b: b.update(disasm=[1]), "", "an object, found an array")


def long_name():
    """A benchmark name longer than half the width (a --load plugin's may
    be anything) is printed whole on a line of its own, its figures on
    the next, in the columns the short name had: at 80 columns a
    75-character name once left room for no figure ("not shown, for the
    width of 80 columns: ..." every one).  On the golden refs fixture,
    one name renamed."""
    fixture = os.path.join(SRC, "tests", "golden", "refs.json")
    old = "branch/filter/branchless/p50"
    new = old + "_an_argument_whose_name_fills_the_line_" + "x" * 8
    text = read(fixture)
    if text is None or ('"%s"' % old).encode() not in text:
        ok(False, "long name: the golden fixture %s names %s" % (fixture, old))
        return
    with open(path("long.json"), "wb") as f:
        f.write(text.replace(('"%s"' % old).encode(), ('"%s"' % new).encode()))
    a = run("report", fixture, env=env_cols(80))
    b = run("report", path("long.json"), env=env_cols(80))
    lines, orig = b.stdout.splitlines(), a.stdout.splitlines()
    row = [x for x in orig if x.startswith(old + " ")]
    at = lines.index(new) if new in lines else -1
    wide = [x for x in lines if len(x) > 80]
    ok(a.returncode == 0 and b.returncode == 0 and row and at > 0 and at + 1 < len(lines) and
       lines[at + 1].split() == row[0].split()[1:] and not wide,
       "long name: a %d-character name at 80 columns is printed whole on its own line, the figures its "
       "row had under it (%r; %s), no line over 80 columns (%d)" %
       (len(new), lines[at + 1] if 0 < at < len(lines) - 1 else b.stderr[-200:], row[:1], len(wide)))
    w = run("report", "--wide", path("long.json"), env=env_cols(80))
    ok(w.returncode == 0 and any(x.startswith(new + " ") for x in w.stdout.splitlines()),
       "long name: under --wide, whose lines are never wrapped, the name stays on its row (rc %d)" % w.returncode)
    heads = [x.split() for x in lines if x.startswith("benchmark ")]
    ok(heads and heads == [x.split() for x in orig if x.startswith("benchmark ")],
       "long name: the tables keep the columns the short name had (%s)" % heads[:1])


sim_cases()
perf_case()
errors()
disasm_reported()
long_name()
done()
