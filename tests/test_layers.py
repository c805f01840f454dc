#!/usr/bin/env python3
"""The layers of src/ hold: every #include "..." under src/ is checked
against the layer table of src/README.md's "How it is built" (read from there, so
that the document and the code cannot drift).  A file may include its own
folder's headers, the public API (include/pmubench.h) and the build's
pmb_config.h; another folder's header only where the table lets its layer
include that layer, and then only that folder's public header (FOLDER.h).
A failure names file:line and the rule it breaks."""
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

bad = []
used = set()
for folder, f in sources():
    path = os.path.join(SRC, folder, f)
    for no, line in enumerate(open(path), 1):
        m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
        if not m:
            continue
        h = m.group(1)
        where = "src/%s/%s:%d: #include \"%s\"" % (folder, f, no, h)
        if h in ANYWHERE:
            continue
        if "/" in h or h not in home:
            bad.append("%s: not a header of src/ (name another folder's header by its file name)"
                       % where)
            continue
        to = home[h]
        if to == folder:
            continue
        key = ("%s/%s" % (folder, f), h)
        if key in EXCEPTIONS:
            used.add(key)
            continue
        if h in single.get(folder, set()):
            continue
        if to not in table.get(folder, set()):
            bad.append("%s: layer %s may not include layer %s (src/README.md \"How it is built\": %s may "
                       "include %s)" % (where, folder, to, folder,
                                        ", ".join(sorted(table.get(folder, ()))) or "no other layer"))
        elif h != to + ".h":
            bad.append("%s: %s is internal to %s/; other layers include its public header %s.h"
                       % (where, h, to, to))
for b in bad:
    diag(b)
ok(not bad, "every #include under src/ holds to the layer table (%d do not)" % len(bad))
for key, why in sorted(EXCEPTIONS.items()):
    ok(key in used, "listed exception %s -> %s is still there (%s); else drop it from the list"
       % (key[0], key[1], why))
done()
