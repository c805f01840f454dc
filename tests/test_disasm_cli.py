#!/usr/bin/env python3
"""--disasm: the built-in kernels' measured loops as pmubench reads them from
its own binary (capstone, libelf), their per-instruction counts under
--backend=sim (exact for the simulator: one execution per item, the branchy
sum_if's one conditional jump at 0.50 mispredictions per item at p50 and
none at p0, the branchless form none), the checks seed 004 asks for, the
JSON, `pmubench report` of a saved --disasm run (the live listing byte for
byte), and a stripped binary's message.  Prints TAP."""
import json
import os
import re
import shutil
import subprocess
import tempfile

import pmbtap  # noqa: E402
from pmbtap import binary, binary_arch, done, emulator, ok, require_pmubench, run, run_json, sim_unavailable, skip

require_pmubench()
FAST = ["--samples=3", "--min-sample-time=100us"]
X86 = binary_arch() == "x86-64"

# The sum_if kernels' inner loops, compiled at -O2 without if-conversion or
# vectorization whatever the build type (src/kernels/branch.h pins it).
SEQ = {
    "pmb_sum_if_branchy": ["movzbl", "cmpb", "jae", "addq", "addq", "cmpq", "jne"],
    "pmb_sum_if_branchless": ["movzbl", "cmpb", "sbbq", "addq", "andq", "addq", "cmpq", "jne"],
    "pmb_sum_if_sol": ["movzbl", "addq", "addq", "cmpq", "jne"],
}


def bench(d, name):
    for b in (d or {}).get("benchmarks", []):
        if b.get("name") == name:
            return b
    return {}


def measured(x, kind):
    return [p for p in (x or {}).get("parts", []) if p.get("measured") and p.get("kind") == kind]


def inner_loop(part):
    """The instructions from the last backward conditional branch's target
    to it: a function's innermost loop as laid out."""
    ins = part["instructions"]
    back = [i for i in ins if i["conditional_branch"] and i.get("target", 1 << 64) <= i["address"]]
    if not back:
        return []
    j = back[-1]
    return [i for i in ins if j["target"] <= i["address"] <= j["address"]]


# ---- the option ---------------------------------------------------------------
r = run("--help")
ok(r.returncode == 0 and re.search(r"^ +--disasm +\S", r.stdout, re.M), "--help lists --disasm")
man = os.path.join(os.environ.get("PMB_SOURCE_ROOT", ""), "man", "pmubench.1")
text = open(man).read() if os.path.exists(man) else ""
ok(r"\-\-disasm" in text and "skid" in text and "disasm" in text.split(".SH OUTPUT")[-1],
   "man/pmubench.1 documents --disasm, its sampling's skid and its JSON")

# ---- the built-in kernels' loops ----------------------------------------------
# bsearch's sizes follow this machine's caches: its smallest one.
FORMS = {"sum_if": "p0", "filter": "p0", "varint": "w1",
         "bsearch": (pmbtap.instances("^branch/bsearch/branchy/", 1) or ["-/-/-/none"])[0].split("/")[-1]}
filt = "^branch/(%s)$" % "|".join("%s/[a-z]+/%s" % (k, re.escape(a)) for k, a in FORMS.items())
r, d = run_json("--disasm", "--filter=" + filt, *FAST)
ok(r.returncode == 0 and d is not None, "--disasm over the branch kernels runs (%d: %s)"
   % (r.returncode, r.stderr.strip()[-200:]))
for kernel, arg in FORMS.items():
    for form in ("branchy", "branchless", "sol"):
        name = "branch/%s/%s/%s" % (kernel, form, arg)
        b = bench(d, name)
        x = b.get("disasm")
        if b.get("error_occurred") or b.get("skipped"):
            skip("%s: one measured loop calling pmb_%s_%s" % (name, kernel, form), "not run here")
            continue
        loops, called = measured(x, "loop"), measured(x, "called")
        fn = "pmb_%s_%s" % (kernel, form)
        ok(len(loops) == 1 and [p["function"] for p in called] == [fn]
           and x.get("via") == "tail call to bm_" + kernel,
           "%s: one measured loop (of bm_%s's three), calling %s (%r, %r)"
           % (name, kernel, fn, [p["function"] for p in loops], [p["function"] for p in called]))
        choices = [i for p in called for i in p["instructions"] if i["role"] == "choice"]
        want = 1 if form == "branchy" else 0
        ok(len(choices) == want and all(i["conditional_branch"] for i in choices),
           "%s: %s holds %s conditional branch that stays in its loop (%r)"
           % (name, fn, "exactly one" if want else "no", [i["text"] for i in choices]))
        ok(any(("the loop calls %s, not inlined" % fn) in n for n in x.get("notes", []))
           and not any("made it branchless" in n for n in x.get("notes", [])),
           "%s: the note names the call to %s; no branchless-branchy note" % (name, fn))
        if kernel == "sum_if":
            seq = [i["text"].split()[0] for i in inner_loop(called[0])] if called else []
            if X86:
                ok(seq == SEQ[fn], "%s: %s's loop is exactly %s (%s)" % (name, fn, " ".join(SEQ[fn]),
                                                                         " ".join(seq)))
            else:
                skip("%s: %s's exact instruction sequence" % (name, fn), "written for x86-64")

r, d = run_json("--disasm", "--filter=^calib/(empty|add_chain)$", *FAST)
x = bench(d, "calib/empty").get("disasm") or {}
loop = measured(x, "loop")
ok(x.get("body_empty") is True and len(loop) == 1
   and all(i["role"] == "loop" or i["text"].startswith("nop") for i in loop[0]["instructions"])
   and any("as this calibration benchmark (.empty) means" in n for n in x.get("notes", [])),
   "calib/empty: the body is empty, every instruction the loop's own, said as meant")
x = bench(d, "calib/add_chain").get("disasm") or {}
body = [i for p in measured(x, "loop") for i in p["instructions"] if i["role"] == "body"]
ok(x.get("body_empty") is False and len(body) == 64 and all(i["text"].startswith("add") for i in body)
   and not x.get("notes"), "calib/add_chain: the body is its 64 adds, no note (%d)" % len(body))
ins = [i for p in x.get("parts", []) for i in p["instructions"]]
ok(ins and all(re.fullmatch(r"[0-9a-f]{2}( [0-9a-f]{2})*", i["bytes"]) and isinstance(i["address"], int)
               and "source_line" in i for i in ins),
   "JSON: every instruction has its address, bytes, text and source line (or null)")

# ---- per-instruction counts under the simulator --------------------------------
SIM = ["sum_if/branchy/p0: the conditional jump runs once per item and mispredicts 0.00 per item",
       "sum_if/branchy/p50: the conditional jump runs once per item and mispredicts 0.50 per item",
       "sum_if/branchless/p0 and p50: no misprediction per item on any instruction",
       "sum_if: the executions per instruction add up to the simulated instructions per item",
       "the listing is ranked by the chosen event: the jump first at 0.5",
       "only the loop that ran and what it calls are shown",
       "report of the saved run prints the --disasm sections byte for byte as the live run, at 100 columns",
       "report --format=json of the saved run writes its listings (and the rest) byte for byte"]
why = sim_unavailable()
if why:
    for t in SIM:
        skip(t, why)
else:
    args = ["--backend=sim", "--disasm", "--counters=branch-misses,instructions",
            "--filter=^branch/sum_if/branch(y|less)/p(0|50)$"]
    r, d = run_json(*args)
    jump = {}
    for p in ("p0", "p50"):
        x = bench(d, "branch/sum_if/branchy/" + p).get("disasm") or {}
        c = [i for q in measured(x, "called") for i in q["instructions"] if i["role"] == "choice"]
        jump[p] = c[0] if len(c) == 1 else {}
    j0, j50 = jump["p0"], jump["p50"]
    ok(j0.get("exec") == 1 and j0.get("misp", 1) < 0.005, SIM[0] + " (%r, %r)" % (j0.get("exec"), j0.get("misp")))
    ok(j50.get("exec") == 1 and abs(j50.get("misp", 0) - 0.5) < 0.02,
       SIM[1] + " (%r, %r)" % (j50.get("exec"), j50.get("misp")))
    worst = max((i.get("misp", 1) for p in ("p0", "p50")
                 for q in (bench(d, "branch/sum_if/branchless/" + p).get("disasm") or {}).get("parts", [])
                 if q.get("measured") for i in q["instructions"]), default=1)
    ok(worst < 0.001, SIM[2] + " (largest %r)" % worst)
    sums = []
    for n in ("branchy/p0", "branchy/p50", "branchless/p0", "branchless/p50"):
        b = bench(d, "branch/sum_if/" + n)
        tot = sum(i.get("exec", 0) for q in (b.get("disasm") or {}).get("parts", []) if q.get("measured")
                  for i in q["instructions"])
        sums.append((n, round(tot, 4), b.get("instructions_per_item")))
    ok(all(isinstance(s[2], (int, float)) and abs(s[1] - s[2]) < 0.01 for s in sums), SIM[3] + " (%r)" % sums)
    # The console run saves its results: `pmubench report` of them must
    # draw the listings the live run drew (issue 25 point 4), from the
    # same counts, so exact.
    tmp = tempfile.mkdtemp(prefix="pmb-disasm-")
    saved, cols = os.path.join(tmp, "sum_if.json"), dict(os.environ, COLUMNS="100")
    r = run(*args[:-1], "--filter=^branch/sum_if/branchy/p50$", "--save=" + saved, env=cols)
    m = re.search(r"ranked by misp per item: 1\. ([0-9a-f]+) ([0-9.]+)", r.stdout)
    ok(m and int(m.group(1), 16) == j50.get("address") and abs(float(m.group(2)) - 0.5) < 0.02,
       SIM[4] + " (%s)" % (m.group(0) if m else r.stdout[-300:]))
    # (its .reference, sum_if/sol, runs with it and has a section too)
    sec = r.stdout.partition("--disasm branch/sum_if/branchy/p50:")[2].partition("\n--disasm ")[0]
    shown = re.findall(r"^  (measured loop in|called from the loop:) (\S+)", sec, re.M)
    ok(len(shown) == 2 and shown[1][1] == "pmb_sum_if_branchy" and "not shown" in sec,
       SIM[5] + " (%r)" % shown)
    again = run("report", saved, env=cols)
    live_sec, again_sec = ("\n--disasm " + x.stdout.partition("\n--disasm ")[2] for x in (r, again))
    ok(r.returncode == 0 and again.returncode == 0 and live_sec.count("\n--disasm ") == 2
       and again_sec == live_sec and again.stdout == r.stdout and "note:" not in again.stderr,
       SIM[6] + " (rc %d, %d; %d and %d bytes of sections; first difference: %r; %r)"
       % (r.returncode, again.returncode, len(live_sec), len(again_sec),
          next(((a, b) for a, b in zip(live_sec.splitlines(), again_sec.splitlines()) if a != b), None),
          again.stderr[-300:]))
    again = run("report", "--format=json", saved)
    with open(saved) as f:
        written = f.read()
    ok(again.returncode == 0 and again.stdout == written and '"nop": true' in written, SIM[7]
       + " (rc %d, %d and %d bytes)" % (again.returncode, len(written), len(again.stdout)))
    shutil.rmtree(tmp, ignore_errors=True)

# ---- a stripped binary ------------------------------------------------------------
STRIP = "a stripped binary: --disasm says so in one line, exit 2; without --disasm it runs"
strip = shutil.which("strip")
if emulator() or not X86 or not strip:
    skip(STRIP, "needs the host's strip and an x86-64 pmubench")
else:
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "pmubench")
        shutil.copy(binary(), exe)
        subprocess.run([strip, exe], check=True)
        env = dict(os.environ)
        a = subprocess.run([exe, "--disasm", "--filter=^calib/empty$"] + FAST, capture_output=True, text=True,
                           timeout=300, env=env)
        b = subprocess.run([exe, "--filter=^calib/empty$"] + FAST, capture_output=True, text=True, timeout=300,
                           env=env)
        err = a.stderr.strip().splitlines()
        ok(a.returncode == 2 and len(err) == 1 and "no symbol table (the binary is stripped)" in err[0]
           and exe in err[0] and b.returncode == 0, STRIP + " (%d: %r; %d)" % (a.returncode, err, b.returncode))

done()
