#!/usr/bin/env python3
"""Work hoisted out of the measured loop (issue 34), under --backend=sim:
issue 34's example (tests/hoist_bench.c, and the same in C++ built with
g++, tests/hoist_bench.cc) computes r = a*a*a + 3*a/7 from an argument
that is the same every pass.  Kept with pmb_do_not_optimize alone, the
compiler computes it once before the loop: the loop holds only the
harness, sim counts no instruction per item, the warning says the work was
removed or hoisted (never just "use pmb_do_not_optimize", which the
benchmark does): hoisted, since the code computes before the loop (read
from the disassembly without --disasm, and saved in the JSON for
`pmubench report`); a result kept by nothing reads "removed".  --disasm's
note says hoisted, naming where.  With
pmb_opaque(a) the loop computes it every pass: the instructions per item
are exactly the body's, counted here from objdump -d of the same binary
(the opaque loop's instructions less the bare harness loop's).  Prints
TAP."""
import json
import os
import re
import subprocess
import sys
import tempfile

from pmbtap import done, emulator, ok, sim_unavailable, skip

PROGS = [("C", os.environ.get("PMB_HOIST_BENCH"), "hoist", "bm_inv"),
         ("C++", os.environ.get("PMB_HOIST_BENCH_CC"), "hoistcc", "_ZL6bm_invP9pmb_state")]

if not PROGS[0][1] or not os.access(PROGS[0][1], os.X_OK):
    print("1..0 # SKIP $PMB_HOIST_BENCH is not set to the built test program")
    sys.exit(0)
if emulator():
    print("1..0 # SKIP the test programs run natively only (a cross build's run under %s)" % emulator())
    sys.exit(0)
why = sim_unavailable()
if why:
    print("1..0 # SKIP %s" % why)
    sys.exit(0)

INSN = re.compile(r"^\s*([0-9a-f]+):\s+([a-z][a-z0-9.]*)\s*(.*)$")
COMPUTE = ("imul", "mul", "shr", "lea", "add", "sub")


def functions(exe):
    """objdump -d: each function's [(address, mnemonic, operands)]."""
    out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", exe], capture_output=True, text=True,
                         check=True).stdout
    funcs, cur = {}, None
    for line in out.splitlines():
        m = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if m:
            cur = funcs.setdefault(m.group(1), [])
            continue
        m = INSN.match(line)
        if m and cur is not None:
            cur.append((int(m.group(1), 16), m.group(2), m.group(3)))
    return funcs


def pass_loop(code):
    """The per-pass loop: a backward conditional jump over code without a
    call (the loop around pmb__loop_next holds one); its instructions."""
    for i, (addr, op, arg) in enumerate(code):
        m = re.match(r"([0-9a-f]+) <", arg)
        if not op.startswith("j") or op == "jmp" or not m or int(m.group(1), 16) >= addr:
            continue
        body = [c for c in code[:i + 1] if c[0] >= int(m.group(1), 16)]
        if not any(c[1].startswith("call") for c in body):
            return body
    return []


def sim_json(exe, *args):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "r.json")
        r = subprocess.run([exe, "--backend=sim", *args, "--format=json", "--out=" + out],
                           capture_output=True, text=True, timeout=300)
        try:
            with open(out) as f:
                return r, json.load(f)
        except (OSError, ValueError):
            return r, None


def check(lang, exe, group, inv_sym):
    funcs = functions(exe)
    opaque_sym = inv_sym.replace("6bm_inv", "13bm_inv_opaque") if lang == "C++" else "bm_inv_opaque"
    inv, opq = funcs.get(inv_sym, []), funcs.get(opaque_sym, [])
    harness, loop = pass_loop(inv), pass_loop(opq)
    if not ok(harness and loop, "%s: objdump -d shows the pass loops of %s and %s" % (lang, inv_sym, opaque_sym)):
        return
    body = len(loop) - len(harness)
    first = harness[0][0]
    before = [c for c in inv if c[0] < first and c[1].startswith(COMPUTE) and "sp" not in c[2]]
    ok(not any(c[1].startswith(("imul", "mul")) for c in harness) and
       sum(c[1].startswith(("imul", "mul")) for c in before) == 3,
       "%s: the code is there: %s's multiplications (a*a*a and the /7) sit before its loop, none inside: %s" %
       (lang, inv_sym, [c[1] for c in before]))
    ok(sum(c[1].startswith(("imul", "mul")) for c in loop) == 3 and body > 0,
       "%s: with pmb_opaque(a) the loop computes: %d instructions beside the harness's %d" %
       (lang, body, len(harness)))

    r, j = sim_json(exe, "--filter=^%s/" % group)
    if not ok(j is not None, "%s: the sim run writes its JSON: %s" % (lang, r.stderr[-300:])):
        return
    per = {b["name"]: b.get("instructions_per_item") for b in j["benchmarks"]}
    got = per.get("%s/inv/5" % group)
    ok(got is not None and got < 0.001,
       "%s: the old form measures the wrong thing: no instructions per item (%s)" % (lang, got))
    got = per.get("%s/inv_opaque/5" % group)
    ok(got == body, "%s: pmb_opaque: exactly the body's %d instructions per item, as objdump counts (%s)" %
       (lang, body, got))
    warn = [w for w in j["context"]["warnings"] if "%s/inv/5" % group in w]
    ok(len(warn) == 1 and "the compiler hoisted the work" in warn[0] and "pmb_opaque()" in warn[0] and
       "keeping the result with pmb_do_not_optimize is not enough" in warn[0] and "removed" not in warn[0],
       "%s: without --disasm, the warning says hoisted (its code read), not removed, and its fix: %s" %
       (lang, warn))
    went = {b["name"]: b["instance"].get("work_went") for b in j["benchmarks"]}
    ok(went.get("%s/inv/5" % group) == "hoisted" and went.get("%s/unkept/5" % group) == "removed" and
       went.get("%s/setup_unkept/5" % group) == "removed" and went.get("%s/inv_opaque/5" % group) is None,
       "%s: the JSON says where the work went, only for the loops without work: %s" % (lang, went))
    unkept = funcs.get(inv_sym.replace("6bm_inv", "9bm_unkept") if lang == "C++" else "bm_unkept", [])
    ok(unkept and not any(c[1].startswith(("imul", "mul")) for c in unkept),
       "%s: objdump -d: bm_unkept holds no multiplication anywhere (the work is gone): %s" %
       (lang, [c[1] for c in unkept]))
    warn = [w for w in j["context"]["warnings"] if "%s/unkept/5" % group in w]
    ok(len(warn) == 1 and "the compiler removed the work" in warn[0] and "hoisted" not in warn[0] and
       "pmb_do_not_optimize" in warn[0],
       "%s: the result kept by nothing: the warning says removed, and how to keep it: %s" % (lang, warn))
    setup = funcs.get(inv_sym.replace("6bm_inv", "15bm_setup_unkept") if lang == "C++" else "bm_setup_unkept", [])
    ok(setup and any(c[1].startswith("lea") for c in setup) and any("malloc" in c[2] for c in setup),
       "%s: objdump -d: bm_setup_unkept computes a size outside its loop and passes it to malloc: %s" %
       (lang, [c[1] for c in setup]))
    warn = [w for w in j["context"]["warnings"] if "%s/setup_unkept/5" % group in w]
    ok(len(warn) == 1 and "the compiler removed the work" in warn[0] and "hoisted" not in warn[0],
       "%s: setup arithmetic outside the loop (a size for malloc) is not read as hoisted work: %s" %
       (lang, warn))
    with tempfile.TemporaryDirectory() as d:
        saved = os.path.join(d, "r.json")
        with open(saved, "w") as f:
            json.dump(j, f)
        r = subprocess.run([os.environ["PMUBENCH"], "report", saved, "--format=json",
                            "--out=" + os.path.join(d, "again.json")], capture_output=True, text=True)
        again = None
        try:
            with open(os.path.join(d, "again.json")) as f:
                again = json.load(f)
        except (OSError, ValueError):
            pass
    ok(again is not None and again["context"]["warnings"] == j["context"]["warnings"],
       "%s: pmubench report re-reads where the work went: the same warnings without the binary (%s)" %
       (lang, r.stderr[-300:]))
    ok(not any("%s/inv_opaque" % group in w for w in j["context"]["warnings"]),
       "%s: no warning for the opaque form" % lang)

    r, j = sim_json(exe, "--filter=^%s/inv/" % group, "--disasm")
    notes = j["benchmarks"][0]["disasm"]["notes"] if j else []
    hoisted = [n for n in notes if "the work was hoisted before the loop" in n]
    ok(len(hoisted) == 1 and "pmb_opaque()" in hoisted[0] and "removed" not in hoisted[0] and
       "0x%x.." % before[0][0] in hoisted[0],
       "%s: --disasm's note says hoisted (not removed), where it starts (0x%x), and the fix: %s" %
       (lang, before[0][0] if before else 0, notes))


for lang, exe, group, sym in PROGS:
    if not exe or not os.access(exe, os.X_OK):
        skip("%s: issue 34's example" % lang, "not built (no C++ compiler: $PMB_HOIST_BENCH_CC unset)")
        continue
    check(lang, exe, group, sym)
done()
