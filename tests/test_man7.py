#!/usr/bin/env python3
"""pmubench(7) says what every warning means: each warning pmubench can
print is found in the sources (the format strings of pmb__warn,
pmb__context_warn, the counters' say() and the analysis's fig_warn titles,
and the topology's fallback texts), and each of its literal parts of 10
characters or more must stand in the page's WARNINGS section, so a warning
added without its entry fails here, naming file:line.  The page is
installed with the others (man/meson.build) and renders without a groff
warning."""
import os
import re
import shutil
import subprocess

from pmbtap import diag, done, ok, skip

ROOT = os.environ.get("PMB_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "man", "pmubench.7")

# The calls whose next argument is a warning's text (a printf format; a
# fig_warn title is printed as it is), up to that argument.
CALLS = [r"\bpmb__warn\(\s*[\w>.&-]+,", r"\bpmb__context_warn\(\s*[\w>.&-]+,\s*[\w>.&-]+,", r"\bsay\(\s*o,",
         r"\bfig_warn\(\s*ctx,\s*out,\s*&?[\w>.-]+,", r"\bsnprintf\(\s*title,\s*sizeof\(title\),",
         r"\bsnprintf\(\s*info->fallback,\s*sizeof\(info->fallback\),"]
# A printf conversion (%% is taken out first).
CONV = r"%[-#0 +']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|q|j|z|t)?[diouxXeEfgGcsp]"
MIN = 10


def c_literal(s):
    """The text of a C string literal's body."""
    return re.sub(r'\\(["\\\'n])', lambda m: {"n": "\n"}.get(m.group(1), m.group(1)), s)


def warnings():
    """[(where, format)] of every warning text in src/."""
    found = []
    for folder, _, files in sorted(os.walk(os.path.join(ROOT, "src"))):
        for f in sorted(files):
            if not f.endswith(".c"):
                continue
            path = os.path.join(folder, f)
            text = open(path).read()
            for m in re.finditer("|".join(CALLS), text):
                # the argument, where it is a run of adjacent literals
                lit = re.compile(r'\s*((?:"(?:[^"\\]|\\.)*"\s*)+)', re.S).match(text, m.end())
                if not lit:
                    continue
                fmt = "".join(c_literal(x) for x in re.findall(r'"((?:[^"\\]|\\.)*)"', lit.group(1)))
                if fmt.strip() in ("%s", ""):
                    continue
                rel = os.path.relpath(path, ROOT)
                found.append(("%s:%d" % (rel, text.count("\n", 0, m.start()) + 1), fmt,
                              m.group(0).startswith("fig_warn")))
    return found


def page_text(troff):
    """The words the page shows, fonts and escapes taken out."""
    t = re.sub(r"\\f[BIRP]", "", troff)
    t = t.replace("\\-", "-").replace("\\e", "\\").replace("\\&", "").replace("\\(mu", "×")
    lines = [re.sub(r"^\.(?:B|I|BR|IR|RB)\s+", "", x) for x in t.splitlines()]
    lines = [x for x in lines if not re.match(r"^\.[A-Za-z]", x)]
    return " ".join(" ".join(lines).replace("`", "").split())


def fragments(fmt, literal):
    """The literal parts of a format that are long enough to say something."""
    text = fmt.replace("`", "")
    parts = [text] if literal else re.split(CONV, text.replace("%%", "\x01"))
    return [" ".join(p.replace("\x01", "%").split()) for p in parts if len(p.strip()) >= MIN]


def main():
    ok(os.path.exists(PAGE), "man/pmubench.7 is there")
    if not os.path.exists(PAGE):
        return
    troff = open(PAGE).read()
    ok(troff.startswith(".TH PMUBENCH 7 "), "it is section 7 of pmubench: %s" % troff.split("\n", 1)[0])
    heads = re.findall(r"^\.SH (.+)$", troff, re.M)
    want = ["NAME", "DESCRIPTION", "HOW A FIGURE IS MADE", "SIMULATED COUNTS", "READING THE ASSEMBLY",
            "COMPARING TWO BUILDS", "WARNINGS", "SEE ALSO"]
    ok(all(h in heads for h in want), "its sections %s (has %s)" % (want, heads))
    build = open(os.path.join(ROOT, "man", "meson.build")).read()
    ok(re.search(r"install_man\([^)]*'pmubench\.7'", build), "man/meson.build installs it: %s" % build.strip())
    for page in ("pmubench.1", "pmubench.3"):
        other = open(os.path.join(ROOT, "man", page)).read()
        see = other.split("\n.SH SEE ALSO\n", 1)[-1]
        ok(".BR pmubench (7)" in see, "%s's SEE ALSO names pmubench(7)" % page)

    sect = troff.split("\n.SH WARNINGS\n", 1)[-1].split("\n.SH ", 1)[0]
    shown = page_text(sect)
    found = warnings()
    ok(len(found) >= 30, "the sources' warnings found: %d" % len(found))
    missing = []
    for where, fmt, literal in found:
        for frag in fragments(fmt, literal):
            if frag not in shown:
                missing.append("%s: %r" % (where, frag))
    for m in missing:
        diag("not in pmubench(7) WARNINGS: " + m)
    ok(not missing, "pmubench(7)'s WARNINGS quotes every warning of the sources (%d parts missing)" % len(missing))

    if shutil.which("groff"):
        r = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-z", PAGE], capture_output=True, text=True)
        ok(r.returncode == 0 and not r.stderr.strip(), "groff -man -ww renders it without a warning: %s" %
           (r.stderr.strip().splitlines()[:2] or "none"))
    else:
        skip("groff renders it without a warning", "groff is not installed")


main()
done()
