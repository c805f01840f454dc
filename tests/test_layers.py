#!/usr/bin/env python3
"""The layers of src/ hold: every #include "..." under src/, and every
#include <...> that names a header of src/, is checked
against the layer table of src/README.md's "How it is built" (read from there, so
that the document and the code cannot drift).  A file may include its own
folder's headers, the public API (include/pmubench.h) and the build's
pmb_config.h; another folder's header only where the table lets its layer
include that layer, and then only that folder's public header (FOLDER.h).
A failure names file:line and the rule it breaks.

Then the stage outputs (issue 25: no struct written by more than one
layer): a result's measured part (r->m) and the run's (ctx->m) are
assigned only where they are made (measure/, run/'s assembly of the
context, io/'s reading of a saved run, model/'s helpers), the figures
(r->f, ctx->f) only in analyse/ (and model/'s helpers); the analysis and
the reports take results and contexts through const pointers, but for
the analysis's entries, which hand them on split (analysis.h).  The
console's view is made only by report/'s pmb__console_view(), and run.c
prints only through report_out.c.  The event plan is held by value only
in the context (the run's one plan) and as the software fallback's.  A
report renders the figures the analysis chose: report/ looks no event up
by name (pmb__context_event; one kept, listed with why) and estimates no
cycles from the measured frequency."""
import os
import re

from pmbtap import diag, done, ok

ROOT = os.environ.get("PMB_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SRC = os.path.join(ROOT, "src")
# Headers any file may include: the public API and the configure step's.
ANYWHERE = {"pmubench.h", "pmb_config.h"}

# Includes against the table, kept on purpose: (file, header) -> why.  Each
# is a back edge not yet cut; the test fails when one is no longer there,
# so that the list shrinks with the code.
EXCEPTIONS = {
}


def layer_table():
    """{layer: set of layers it may include} from src/README.md's table."""
    text = open(os.path.join(SRC, "README.md")).read()
    sec = text[text.index("## How it is built"):]
    end = sec.find("\n## ", 1)
    sec = sec[:end] if end > 0 else sec
    rows = re.findall(r"^\| *`([a-z]+)/` *\|[^\n]*?\| *([^|\n]*?) *\|$", sec, re.M)
    table, single = {}, {}
    for layer, may in rows:
        table[layer] = set(re.findall(r"`([a-z]+)/`", may))
        # `base/rng.h`: that one header of the layer, not its public one
        single[layer] = set(re.findall(r"`[a-z]+/([a-z_]+\.h)`", may))
    return table, single


def sources():
    for folder in sorted(os.listdir(SRC)):
        d = os.path.join(SRC, folder)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if f.endswith((".c", ".h")):
                yield folder, f


table, single = layer_table()
ok(len(table) >= 10, "src/README.md's \"How it is built\" has the layer table (%d layers: %s)"
   % (len(table), " ".join(sorted(table))))
folders = {folder for folder, _ in sources()}
ok(folders == set(table), "every folder of src/ is a layer of the table and every layer a folder "
   "(folders only: %s; layers only: %s)" % (sorted(folders - set(table)), sorted(set(table) - folders)))
for layer, may in sorted(table.items()):
    ok(may <= set(table) - {layer}, "layer %s may include only other layers of the table (%s)"
       % (layer, sorted(may - set(table)) or "none else"))

home = {}
for folder, f in sources():
    ok(f not in home, "header name %s is unique under src/ (%s and %s)" % (f, home.get(f), folder))
    home.setdefault(f, folder)

used = set()


def include_faults(folder, f, no, line):
    """What is wrong with one line of src/FOLDER/F: [] for a line that is no
    #include of a header of src/, or one that holds.  Every folder of src/
    is on every target's include path (meson.build), so #include <analyse.h>
    finds src/analyse/analyse.h as "analyse.h" does: an angle-bracket include
    that names a header of src/ is checked as a quoted one, and refused as
    well (a header of src/ is named in quotes)."""
    m = re.match(r'\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)', line)
    if not m:
        return []
    h = m.group(1) or m.group(2)
    angle = m.group(1) is None
    if angle:
        # <x.h> of a header of src/: by its file name (src/LAYER/ is on the
        # path) or by its path under src/ (src/ is too); else a system header.
        known = h in home or h in ANYWHERE or (
            "/" in h and os.path.isfile(os.path.join(SRC, h)) and h.endswith(".h"))
        if not known:
            return []
    where = "src/%s/%s:%d: #include %s" % (folder, f, no, ("<%s>" if angle else "\"%s\"") % h)
    out = []
    if angle and h not in ANYWHERE:
        out.append("%s: a header of src/ named in <...>: name it in quotes, by its file name" % where)
    if h in ANYWHERE:
        return out
    if "/" in h or h not in home:
        out.append("%s: not a header of src/ (name another folder's header by its file name)" % where)
        return out
    to = home[h]
    if to == folder:
        return out
    key = ("%s/%s" % (folder, f), h)
    if key in EXCEPTIONS:
        used.add(key)
        return out
    if h in single.get(folder, set()):
        return out
    if to not in table.get(folder, set()):
        out.append("%s: layer %s may not include layer %s (src/README.md \"How it is built\": %s may "
                   "include %s)" % (where, folder, to, folder,
                                    ", ".join(sorted(table.get(folder, ()))) or "no other layer"))
    elif h != to + ".h":
        out.append("%s: %s is internal to %s/; other layers include its public header %s.h"
                   % (where, h, to, to))
    return out


# The check itself, on lines made up here: each must be refused (or pass)
# whatever the tree holds today.
for line, want in (('#include "analyse.h"', 1), ("#include <analyse.h>", 2),
                   ("# include <analyse/analyse.h>", 2), ("#include <base/stats.h>", 2),
                   ("#include <model.h>", 1), ('#include "model.h"', 0), ("#include <stdio.h>", 0),
                   ('#include "report_cols.h"', 0), ("#include <pmubench.h>", 0)):
    got = include_faults("report", "report_branch.c", 1, line)
    ok(len(got) == want, "the check finds %d fault(s) in report/'s line %s (%s)"
       % (want, line, "; ".join(got) or "none"))

bad = []
for folder, f in sources():
    path = os.path.join(SRC, folder, f)
    for no, line in enumerate(open(path), 1):
        bad += include_faults(folder, f, no, line)
for b in bad:
    diag(b)
ok(not bad, "every #include under src/ holds to the layer table (%d do not)" % len(bad))

# Who assigns a stage output's members: "->m.x =", ".f.y[i] +=", "->m.n++".
WRITERS = {"m": {"measure", "run", "io", "model"}, "f": {"analyse", "model"}}
ASSIGN = re.compile(r"(?:->|\.)(m|f)\.[a-z_]\w*(?:\[[^]\n]*\]|\.[a-z_]\w*)*\s*"
                    r"(?:[-+*/|&^]?=(?!=)|\+\+|--)")
# The analysis's entries, which take the containers and split them; every
# other result or context pointer in analyse/ and report/ is const.
ENTRIES = re.compile(r"^(?:int|void) (?:pmb__analyze|pmb__analyze_figures|pmb__analysis_warn|"
                     r"pmb__analyze_sweeps|pmb__analyze_branches)\(")
MUTABLE = re.compile(r"(?<!const )struct pmb_(?:result|context)\s*\*")
writes, mutable, nwrites = [], [], 0
for folder, f in sources():
    path = os.path.join(SRC, folder, f)
    for no, line in enumerate(open(path), 1):
        code = re.sub(r"/\*.*?(\*/|$)|//.*", "", line)
        for m in ASSIGN.finditer(code):
            nwrites += 1
            if folder not in WRITERS[m.group(1)]:
                writes.append("src/%s/%s:%d: %s assigns a member of the %s (r->%s, ctx->%s), which only %s "
                              "write" % (folder, f, no, m.group(0).strip(),
                                         "measured data" if m.group(1) == "m" else "figures",
                                         m.group(1), m.group(1), ", ".join(sorted(WRITERS[m.group(1)]))))
        if folder in ("analyse", "report") and MUTABLE.search(code) and not ENTRIES.match(code):
            mutable.append("src/%s/%s:%d: a result or context taken without const: %s"
                           % (folder, f, no, code.strip()))
for b in writes + mutable:
    diag(b)
ok(nwrites > 50 and not writes, "the measured data (->m.) is assigned only in measure/, run/, io/ and "
   "model/, the figures (->f.) only in analyse/ and model/ (%d assignments, %d elsewhere)"
   % (nwrites, len(writes)))
ok(not mutable, "analyse/ (but for its entries) and report/ take results and contexts const "
   "(%d do not)" % len(mutable))

# The console's view (width, columns, wide, verbose) is made in one place,
# report/'s pmb__console_view(), which the live run and `pmubench report`
# both call: no file assigns a member of a context's view.
VIEW_WRITE = re.compile(r"(?:->|\.)view\.[a-z_]\w*\s*(?:[-+*/|&^]?=(?!=)|\+\+|--)"
                        r"|\(\s*&?\s*\w+(?:->|\.)view\.[a-z_]\w*\s*,\s*sizeof")
# run.c prints through report_out.c (its lines, their escaping), never
# itself (src/README.md).
PRINTS = re.compile(r"\b(?:printf|fprintf|puts|fputs|putchar|fputc|fwrite|perror)\s*\(")
views, prints = [], []
for folder, f in sources():
    path = os.path.join(SRC, folder, f)
    for no, line in enumerate(open(path), 1):
        code = re.sub(r'/\*.*?(\*/|$)|//.*|"(?:[^"\\]|\\.)*"', "", line)
        if VIEW_WRITE.search(code):
            views.append("src/%s/%s:%d: a member of the console's view assigned; make it with "
                         "pmb__console_view() (report_out.h): %s" % (folder, f, no, code.strip()))
        if (folder, f) == ("run", "run.c") and PRINTS.search(code):
            prints.append("src/run/run.c:%d: prints itself; print through report_out.c: %s"
                          % (no, code.strip()))
for b in views + prints:
    diag(b)
ok(not views, "the console's view is made only by pmb__console_view() (%d members assigned "
   "elsewhere)" % len(views))
ok(not prints, "run.c prints only through report_out.c (%d calls of its own)" % len(prints))

# One event plan per run (issue 25): struct pmb_event_plan (12 KB) is held
# by value only where the run keeps it, the context's m.plan, which the plan
# stage resolves into and the open stage opens in place; every other holder
# points to it (or to one allocated).  A member, variable or parameter of
# that type anywhere else is a copy waiting to differ from what was opened.
PLAN_BY_VALUE = re.compile(r"\bstruct pmb_event_plan\s+(\w+)\s*(?:[;,)=]|\[)")
PLAN_HELD = {
    ("model/result.h", "plan"): "the run's one plan, in struct pmb_run_measured",
    ("run/run.c", "sw"): "open_perf's three software events, which the meter appends to the plan "
                         "where no PMU counts",
}
copies, held = [], set()
for folder, f in sources():
    path = os.path.join(SRC, folder, f)
    for no, line in enumerate(open(path), 1):
        code = re.sub(r'/\*.*?(\*/|$)|//.*|"(?:[^"\\]|\\.)*"', "", line)
        for m in PLAN_BY_VALUE.finditer(code):
            key = ("%s/%s" % (folder, f), m.group(1))
            if key in PLAN_HELD:
                held.add(key)
            else:
                copies.append("src/%s/%s:%d: a struct pmb_event_plan by value (%s): point to the run's "
                              "(ctx->m.plan) instead" % (folder, f, no, m.group(1)))
for b in copies:
    diag(b)
ok(not copies, "struct pmb_event_plan is held by value only as the context's plan and the software "
   "fallback's (%d elsewhere)" % len(copies))
for key, why in sorted(PLAN_HELD.items()):
    ok(key in held, "%s still holds a struct pmb_event_plan %s (%s); else drop it from PLAN_HELD"
       % (key[0], key[1], why))

# A report renders figures; it does not choose them (issue 25).  Which
# event a sweep, a branch study or a result's cost is a figure of is the
# analysis's (ctx->f.sweep_event, branch_event, cost_event), so report/
# looks no event up by name; and cycles estimated from time are the
# analysis's too (r->f.est_cycles, a sweep tier's est_cycles, ctx->f.est_ghz
# the factor), so report/ never multiplies or divides by the measured
# frequency (ctx->m.ghz), which it may print (or write in MHz).
LOOKUP = re.compile(r"\bpmb__context_event\s*\(")
CYCLES = re.compile(r"[*/]\s*(?:\w+(?:->|\.))*m\.ghz\b|\bm\.ghz\s*[*/](?!\s*1000\b)")
# Lookups in report/ kept on purpose: file -> why.
LOOKUPS_KEPT = {
    "report_text.c": "the header's harness overhead in instructions per sample: a count of the "
                     "harness's empty loop, printed as measured, not a figure of the user's code",
}
lookups, cycles, kept = [], [], set()
for folder, f in sources():
    if folder != "report":
        continue
    for no, line in enumerate(open(os.path.join(SRC, folder, f)), 1):
        code = re.sub(r'/\*.*?(\*/|$)|//.*|"(?:[^"\\]|\\.)*"', "", line)
        if LOOKUP.search(code):
            if f in LOOKUPS_KEPT:
                kept.add(f)
            else:
                lookups.append("src/report/%s:%d: looks an event up by name; read the event the analysis "
                               "chose (ctx->f.sweep_event, branch_event, cost_event): %s" % (f, no, line.strip()))
        if CYCLES.search(code):
            cycles.append("src/report/%s:%d: turns time into cycles with the measured frequency; read the "
                          "analysis's estimate (est_cycles, ctx->f.est_ghz): %s" % (f, no, line.strip()))
for b in lookups + cycles:
    diag(b)
ok(not lookups, "report/ looks no event up by name: which event a figure is of is the analysis's "
   "(%d lookups elsewhere than %s)" % (len(lookups), ", ".join(sorted(LOOKUPS_KEPT))))
ok(not cycles, "report/ estimates no cycles from time: the analysis's est_ghz is the one factor "
   "(%d lines multiply or divide by ctx->m.ghz)" % len(cycles))
for f, why in sorted(LOOKUPS_KEPT.items()):
    ok(f in kept, "the lookup kept in src/report/%s is still there (%s); else drop it from the list" % (f, why))

for key, why in sorted(EXCEPTIONS.items()):
    ok(key in used, "listed exception %s -> %s is still there (%s); else drop it from the list"
       % (key[0], key[1], why))
done()
