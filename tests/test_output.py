#!/usr/bin/env python3
"""test_output.py - what pmubench writes is whole or an error: a failed write
to standard output says why and exits non-zero, for every command; numbers
do not follow the caller's locale (a program that called setlocale(LC_ALL,
"") in de_DE); all output is valid UTF-8, with control characters and bytes
that are not UTF-8 in names, reasons and paths escaped as \\xNN."""
import csv
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pmbtap  # noqa: E402
from pmbtap import ok, skip, diag  # noqa: E402

pmbtap.require_pmubench()
PMB = pmbtap.PMB
# A cross build's locale_bench is for another machine: run natively only.
BENCH = None if pmbtap.emulator() else os.environ.get("PMB_LOCALE_BENCH")
GOLDEN = os.path.join(os.environ.get("PMB_SOURCE_ROOT", "."), "tests", "golden", "plain.json")


def run_to(args, stdout, exe=None, env=None, timeout=300):
    """Run with stdout on the given file object (or None: closed)."""
    return subprocess.run([exe or PMB, *args], stdout=stdout, stderr=subprocess.PIPE,
                          env=env, timeout=timeout, close_fds=True)


def err_lines(p):
    return [x for x in p.stderr.decode("utf-8", "replace").splitlines()
            if not x.startswith("pmubench: warning:")]


# ---- standard output that cannot be written --------------------------------
cases = [
    (["--list"], "--list"),
    (["--help"], "--help"),
    (["--version"], "--version"),
    (["--topology"], "--topology"),
    (["--list-events"], "--list-events"),
    (["--self-check"], "--self-check"),
    (["--filter=^calib/empty$", "--samples=3"], "a run (console)"),
    (["--filter=^calib/empty$", "--samples=3", "--format=json"], "a run (json)"),
    (["--filter=^calib/empty$", "--samples=3", "--format=csv"], "a run (csv)"),
    (["compare", GOLDEN, GOLDEN], "compare"),
]
full_dev = os.path.exists("/dev/full") and stat.S_ISCHR(os.stat("/dev/full").st_mode)
full = open("/dev/full" if full_dev else os.devnull, "wb")
for args, what in cases:
    if not full_dev:
        skip("%s > /dev/full" % what, "/dev/full is not the character device here (was it replaced?)")
        continue
    p = run_to(args, full)
    lines = [x for x in err_lines(p) if "standard output" in x]
    ok(p.returncode != 0 and len(lines) == 1 and lines[0].endswith(": No space left on device"),
       "%s > /dev/full: exit status %d, one line with the reason (%r)" % (what, p.returncode, lines))
full.close()
for args, what in cases[:1] + cases[7:8]:
    p = run_to(args, subprocess.DEVNULL)
    ok(p.returncode == 0 and not [x for x in err_lines(p) if "standard output" in x],
       "%s > /dev/null: exit status 0, no complaint (the check does not cry wolf)" % what)
    p = subprocess.run("exec %s >&-" % " ".join("'%s'" % a for a in [PMB, *args]), shell=True,
                       stderr=subprocess.PIPE)
    lines = [x for x in err_lines(p) if "standard output" in x]
    ok(p.returncode != 0 and len(lines) == 1 and "Bad file descriptor" in lines[0],
       "%s with standard output closed: exit status %d, %r" % (what, p.returncode, lines))

# ---- locale ----------------------------------------------------------------
loc_dir = tempfile.mkdtemp(prefix="pmb-locale-")
why = None
if not BENCH or not os.access(BENCH, os.X_OK):
    why = "$PMB_LOCALE_BENCH (tests/locale_bench.c) is not built"
elif not shutil.which("localedef"):
    why = "localedef is not installed (libc-bin)"
else:
    # A de_DE locale of our own: the machine need not have one generated.
    lp = subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", os.path.join(loc_dir, "de_DE.UTF-8")],
                        capture_output=True, text=True)
    if not os.path.isdir(os.path.join(loc_dir, "de_DE.UTF-8")):
        why = "localedef cannot make de_DE.UTF-8 here (package locales?): %s" % lp.stderr.strip()[-200:]
de = dict(os.environ, LOCPATH=loc_dir, LC_ALL="de_DE.UTF-8")
if why:
    for w in ("locale: the program's locale has a decimal comma", "locale: JSON", "locale: CSV",
              "locale: console", "locale: --min-sample-time=0.5ms"):
        skip(w, why)
else:
    base = ["--filter=^locale/", "--samples=5"]
    pm = run_to(base + ["--min-sample-time=0.5ms", "--format=json"], subprocess.PIPE, exe=BENCH, env=de)
    ok("decimal point ','" in pm.stderr.decode(), "locale: the program's locale has a decimal comma, "
       "as a de_DE user's would (else this test shows nothing)")
    try:
        msn = json.loads(pm.stdout.decode())["context"].get("min_sample_time_ns")
    except (ValueError, KeyError):
        msn = None
    ok(pm.returncode == 0 and msn == 500000, "locale: --min-sample-time=0.5ms is read as 0.5 ms "
       "(min_sample_time_ns %r; %s)" % (msn, err_lines(pm)[-1:]))
    pj = run_to(base + ["--format=json"], subprocess.PIPE, exe=BENCH, env=de)
    try:
        doc = json.loads(pj.stdout.decode())
    except ValueError as e:
        doc = None
        diag("JSON: %s: %r" % (e, pj.stdout[:300]))
    rt = [b.get("real_time") for b in (doc or {}).get("benchmarks", [])]
    # A 3-item sum can fall below what the loop resolves on a busy machine
    # (seen: real_time 0, written as 0): a number all the same; the point
    # is that fractions are written with a '.', which a float shows.
    ok(doc is not None and len(rt) == 2 and all(isinstance(x, (int, float)) for x in rt) and
       any(isinstance(x, float) and x != int(x) for x in rt) and
       doc["context"]["harness_overhead"]["ns_per_pass"] > 0,
       "locale: JSON reads back, with fractional numbers (%r)" % rt)
    pc = run_to(base + ["--format=csv"], subprocess.PIPE, exe=BENCH, env=de)
    rows = list(csv.reader(pc.stdout.decode().splitlines()))
    head = rows[0] if rows else []
    col = head.index("ns_per_item") if "ns_per_item" in head else -1
    ok(len(rows) == 3 and all(len(r) == len(head) for r in rows) and col >= 0 and
       all(re.fullmatch(r"-?[0-9.]+(e[-+][0-9]+)?", r[col]) and float(r[col]) > 0 for r in rows[1:]),
       "locale: CSV has one field per column and ns_per_item like 0.25 (%r)" %
       ([r[col] for r in rows[1:]] if col >= 0 else head))
    pt = run_to(base, subprocess.PIPE, exe=BENCH, env=de)
    text = pt.stdout.decode()
    ok(pt.returncode == 0 and "ns/item" in text and re.search(r" [0-9]+\.[0-9]+ ", text) and
       not re.search(r"[0-9],[0-9]", text),
       "locale: the console report writes 0.25 (ns/item), never 0,25")
shutil.rmtree(loc_dir, ignore_errors=True)

# ---- UTF-8 and control characters ------------------------------------------
def strict(b):
    try:
        b.decode("utf-8", "strict")
        return True
    except UnicodeDecodeError:
        return False


if not BENCH:
    skip("UTF-8", "$PMB_LOCALE_BENCH is not built")
    pmbtap.done()
odd_dir = tempfile.mkdtemp(prefix="pmb-utf8-")
odd_exe = os.path.join(odd_dir.encode(), b"bench\xff\x1b[2J")
shutil.copy(BENCH, odd_exe)
os.chmod(odd_exe, 0o755)
args = ["--filter=^odd", "--samples=3"]
for fmt in ("console", "json", "csv"):
    p = subprocess.run([odd_exe, *args, "--format=" + fmt], capture_output=True)
    ok(p.returncode == 0 and strict(p.stdout) and strict(p.stderr) and b"\x1b" not in p.stdout + p.stderr and
       b"\x07" not in p.stdout, "%s: output is valid UTF-8 with no raw control character" % fmt)
    out = p.stdout.decode("utf-8", "replace")
    if fmt == "json":
        try:
            d = json.loads(out)
        except ValueError:
            d = {}
        names = [b.get("name") for b in d.get("benchmarks", [])]
        reason = [b.get("skip_reason") for b in d.get("benchmarks", []) if b.get("skip_reason")]
        ok(d.get("context", {}).get("executable", "").endswith("/bench\\xff\\x1b[2J"),
           "json: the executable's path with its bad bytes as \\xNN (%r)" % d.get("context", {}).get("executable"))
        ok(names == ["odd\\x1b[31m\\xff/bm_odd/1", "odd\\x1b[31m\\xff/bm_skip"],
           "json: names escaped as \\xNN (%r)" % names)
        ok(reason == ["because\\x07 \\xc3( \u20ac"],
           "json: a skip reason keeps its valid UTF-8 (the euro sign) and escapes the rest (%r)" % reason)
        back = os.path.join(odd_dir, "odd.json")
        with open(back, "wb") as f:
            f.write(p.stdout)
        c = subprocess.run([PMB, "compare", back, back], capture_output=True)
        ok(c.returncode == 0 and b"odd\\x1b[31m\\xff/bm_odd/1" in c.stdout,
           "json: pmubench compare reads the file back (%d: %r)" % (c.returncode, c.stderr[-200:]))
    elif fmt == "console":
        ok("odd\\x1b[31m\\xff/bm_odd/1" in out and "because\\x07 \\xc3( \u20ac" in out,
           "console: the name and the reason escaped as \\xNN")
    else:
        ok("odd\\x1b[31m\\xff/bm_skip" in out, "csv: the name escaped as \\xNN")
p = subprocess.run([odd_exe, "--list"], capture_output=True)
ok(p.stdout.decode("utf-8", "replace").splitlines()[2:] == ["odd\\x1b[31m\\xff/bm_odd/1", "odd\\x1b[31m\\xff/bm_skip"],
   "--list: names escaped as \\xNN (%r)" % p.stdout[-80:])
p = subprocess.run([PMB, "--filter=\x1b[2J\xff(".encode("latin-1")], capture_output=True)
ok(p.returncode == 2 and strict(p.stderr) and b"\x1b" not in p.stderr and b"--filter=\\x1b[2J\\xff(" in p.stderr,
   "an error quoting the command line escapes it (%r)" % p.stderr[:120])
# compare quotes names from result files, which anyone may have written.
with open(GOLDEN) as f:
    doc = json.load(f)
for b in doc["benchmarks"]:
    b["name"] = b["run_name"] = "esc\x1b[2J\x07" + b["name"]
esc_file = os.path.join(odd_dir, "esc.json")
with open(esc_file, "w") as f:
    json.dump(doc, f)
p = subprocess.run([PMB, "compare", esc_file, esc_file], capture_output=True)
ok(p.returncode == 0 and strict(p.stdout) and b"\x1b" not in p.stdout + p.stderr and
   b"esc\\x1b[2J\\x07calib/" in p.stdout,
   "compare: a name with a terminal escape in a result file is shown as \\xNN (%r)" % p.stdout[100:260])
shutil.rmtree(odd_dir, ignore_errors=True)
pmbtap.done()
