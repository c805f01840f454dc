#!/usr/bin/env python3
"""--plot: the SVG of a small working-set sweep and a small branch study,
checked against the JSON report of the same run (one line per family or
variant, one point per plotted benchmark, in order, every coordinate a
finite number inside the viewBox, the labels), a run with nothing to plot,
and a --plot into a folder that does not exist; the data TLBs' reach on 4 KiB
pages (mem/chase_4k) drawn dotted and labelled where the JSON's topology puts
it, or, on a given topology, the legend saying why the geometry is not known."""
import json
import math
import os
import re
import shutil
import tempfile
import time
import xml.etree.ElementTree as ET

from pmbtap import diag, done, ok, require_pmubench, run, skip

require_pmubench()

NS = "{http://www.w3.org/2000/svg}"
FAST = ["--samples=5", "--min-sample-time=200us"]
UNITS = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
tmp = tempfile.mkdtemp(prefix="pmb-plot-")


def size(label):
    m = re.fullmatch(r"([0-9]+(?:\.[0-9]+)?)(B|KiB|MiB|GiB)", label)
    return float(m.group(1)) * UNITS[m.group(2)] if m else None


def plot_run(tag, filt):
    """One run writing JSON (--out) and the plot: (rc, stderr, json, svg root)."""
    js, svg = os.path.join(tmp, tag + ".json"), os.path.join(tmp, tag + ".svg")
    r = run("--filter=" + filt, *FAST, "--format=json", "--out=" + js, "--plot=" + svg)
    data = root = None
    try:
        with open(js) as f:
            data = json.load(f)
        root = ET.parse(svg).getroot()
    except (OSError, ValueError, ET.ParseError) as e:
        diag(str(e))
    return r, data, root


def plotted(data, family, positive=False):
    """The JSON benchmarks of a family the plot draws: first repetition, ok,
    a finite value above the resolution (ns per item; the first event under
    simulation), and above 0 for a log axis."""
    ctx = data["context"]
    key = "ns_per_item"
    if ctx.get("backend") == "sim":
        key = ctx["events"][0]["key"] + "_per_item"
    out = []
    for b in data["benchmarks"]:
        if b["name"].rsplit("/", 1)[0] != family or b.get("repetition_index", 0):
            continue
        v = b.get(key)
        if b.get("status") != "ok" or b.get(key + "_below_resolution") or \
                not isinstance(v, (int, float)) or not math.isfinite(v) or (positive and v <= 0):
            continue
        out.append(b)
    return out, key


def title_of(el):
    t = el.find(NS + "title")
    return t.text if t is not None else None


def points(pl):
    nums = [float(x) for x in re.split(r"[\s,]+", pl.get("points", "").strip()) if x]
    return list(zip(nums[0::2], nums[1::2]))


def texts(root):
    return ["".join(t.itertext()) for t in root.iter(NS + "text")]


def check_geometry(root, what):
    """Well-formed SVG 1.1 in its namespace, every coordinate finite and
    inside the viewBox."""
    ok(root is not None and root.tag == NS + "svg", what + ": an <svg> root in the SVG namespace")
    if root is None:
        return
    vb = [float(x) for x in root.get("viewBox", "").split()]
    ok(len(vb) == 4 and vb[0] == 0 and vb[1] == 0 and vb[2] > 0 and vb[3] > 0,
       what + ": a viewBox from 0,0 (%r)" % vb)
    if len(vb) != 4:
        return
    bad = []
    for el in root.iter():
        coords = []
        for a, dim in (("x", 2), ("x1", 2), ("x2", 2), ("cx", 2), ("width", 2),
                       ("y", 3), ("y1", 3), ("y2", 3), ("cy", 3), ("height", 3)):
            if el.get(a) is not None:
                coords.append((el.get(a), dim))
        for x, y in points(el) if el.tag == NS + "polyline" else []:
            coords += [(str(x), 2), (str(y), 3)]
        for s, dim in coords:
            try:
                v = float(s)
            except ValueError:
                v = math.nan
            if not (math.isfinite(v) and 0 <= v <= vb[dim]):
                bad.append((el.tag.replace(NS, ""), s))
    ok(not bad, what + ": every coordinate is a finite number inside the viewBox %r" % bad[:5])
    raw = ET.tostring(root, encoding="unicode").lower()
    ok(not re.search(r"\b(nan|inf)\b", raw), what + ": no nan or inf anywhere")


def check_line(root, name, bench, key, xkey):
    """One polyline titled name with one point per plotted benchmark, x in
    the benchmarks' order and y ordered as their values (up is more)."""
    lines = [p for p in root.iter(NS + "polyline") if title_of(p) == name]
    ok(len(lines) == 1, "%s: one polyline (%d)" % (name, len(lines)))
    if len(lines) != 1:
        return []
    pts = points(lines[0])
    ok(len(pts) == len(bench) and len(bench) > 0,
       "%s: as many points as the JSON has plotted benchmarks (%d, %d)" % (name, len(pts), len(bench)))
    if len(pts) != len(bench):
        return pts
    order = sorted(range(len(bench)), key=lambda i: xkey(bench[i]))
    xs = [pts[k][0] for k in range(len(pts))]
    ok(xs == sorted(xs) and len(set(xs)) == len(xs), "%s: x grows along the line" % name)
    vals = [bench[i][key] for i in order]
    wrong = [(vals[a], vals[b]) for a in range(len(vals)) for b in range(len(vals))
             if vals[a] < vals[b] * (1 - 1e-6) and not pts[a][1] >= pts[b][1]]
    ok(not wrong, "%s: a larger value is drawn higher %r" % (name, wrong[:3]))
    marks = [c for c in root.iter(NS + "circle")
             if (title_of(c) or "").startswith(name + "/")]
    ok(len(marks) == len(bench), "%s: a marker per point (%d)" % (name, len(marks)))
    return pts


def check_intervals(root, data, fams, key, what):
    """Issue 27, point 6: each plotted point with a 95 % interval in the
    JSON has an error bar (a group of class "errbar") spanning it on the
    point's own x, the point hollow (class "wide") exactly where half the
    interval is over 5 % of the median; the legend says so."""
    bench = {b["name"]: b for b in data["benchmarks"]}
    marks = {}
    for c in root.iter(NS + "circle"):
        t = title_of(c) or ""
        if t.split(":")[0] in bench and t.split(":")[0].rsplit("/", 1)[0] in fams:
            marks[t.split(":")[0]] = c
    bars = [g for g in root.iter(NS + "g") if g.get("class") == "errbar"]
    bad_bar, bad_wide, n_iv, n_wide = [], [], 0, 0
    for name, c in marks.items():
        b = bench[name]
        lo, hi, med = b.get(key + "_ci_lo"), b.get(key + "_ci_hi"), b.get(key)
        has = all(isinstance(v, (int, float)) and math.isfinite(v) for v in (lo, hi, med)) and hi > lo \
            and not b.get(key + "_below_resolution")
        cx, cy = float(c.get("cx")), float(c.get("cy"))
        mine = [g for g in bars if (title_of(g) or "").split(":")[0] == name]
        if has:
            n_iv += 1
            vert = [ln for g in mine for ln in g.iter(NS + "line") if ln.get("x1") == ln.get("x2")]
            ys = [float(v) for ln in vert for v in (ln.get("y1"), ln.get("y2"))]
            # On the point's x; up is more: from at or below the point to at or above it.
            if len(mine) != 1 or len(vert) != 1 or abs(float(vert[0].get("x1")) - cx) > 0.05 or \
                    not (max(ys) >= cy - 0.05 and min(ys) <= cy + 0.05):
                bad_bar.append((name, len(mine), ys, cy))
        elif mine:
            bad_bar.append((name, "a bar without an interval"))
        wide = has and med > 0 and (hi - lo) / 2 / med > 0.05
        n_wide += wide
        if wide != (c.get("class") == "wide"):
            bad_wide.append((name, round((hi - lo) / 2 / med * 100, 2) if has and med > 0 else None, c.get("class")))
    ok(marks and not bad_bar, "%s: an error bar per point with an interval (%d of %d), spanning the point %r"
       % (what, n_iv, len(marks), bad_bar[:3]))
    ok(marks and not bad_wide, "%s: hollow exactly where the interval is wider than +-5 %% (%d of %d) %r"
       % (what, n_wide, len(marks), bad_wide[:3]))
    tx = texts(root)
    ok(any("95 % interval" in t for t in tx) and any("interval over ±5 %" in t for t in tx),
       "%s: the legend says what the bars and the hollow points are" % what)


# ---- a small working-set sweep ---------------------------------------------
lst = run("--list", "--filter=^mem/chase/").stdout.split()
avail = {n.split("/")[-1]: size(n.split("/")[-1]) for n in lst}
avail = {k: v for k, v in avail.items() if v}
if not avail:
    skip("sweep plot", "no mem/chase instances on this machine")
else:
    # 4KiB, 256KiB and 64MiB where the topology gives those points; else
    # the nearest points it does give.
    pick = sorted({min(avail, key=lambda k: abs(math.log2(avail[k] / t)))
                   for t in (4096, 256 << 10, 64 << 20)}, key=lambda k: avail[k])
    filt = "^mem/chase/(%s)$" % "|".join(pick)
    t0 = time.time()
    r, data, root = plot_run("sweep", filt)
    if not ok(r.returncode == 0, "sweep --plot run exits 0 (%d)" % r.returncode):
        diag(r.stderr[-600:])
    check_geometry(root, "sweep")
    if data and root is not None:
        bench, key = plotted(data, "mem/chase", positive=True)
        check_line(root, "mem/chase", bench, key, lambda b: b["working_set_bytes"])
        check_intervals(root, data, {"mem/chase"}, key, "sweep")
        tx = texts(root)
        ok(any(t.startswith("mem/chase") for t in tx), "sweep: a title names mem/chase")
        sim = data["context"].get("backend") == "sim"
        unit = "ns per item" if not sim else "(simulated)"
        ok(any(unit in t for t in tx), "sweep: the y axis is labelled %r" % unit)
        ok(any("working set" in t for t in tx), "sweep: the x axis is labelled")
        xt = [t for t in tx if size(t)]
        ok(len(xt) >= 2 and all(math.log2(size(t)).is_integer() for t in xt),
           "sweep: x ticks labelled with powers of two in bytes %r" % xt[:8])
        yt = [t for t in tx if re.fullmatch(r"[0-9.]+[kM]?", t)]
        ok(len(yt) >= 2, "sweep: labelled y ticks %r" % yt[:8])
        caches = data["context"].get("caches") or []
        if any(c.get("level") == 1 for c in caches):
            l1 = [c["size"] for c in caches if c.get("level") == 1][0]
            lab = [t for t in tx if t.startswith("L1d ")]
            ok(len(lab) == 1 and size(lab[0][4:]) == l1,
               "sweep: the L1d boundary is labelled with its size %r" % lab)
            dashed = [ln for ln in root.iter(NS + "line") if ln.get("stroke-dasharray") == "5,4"
                      and ln.get("x1") == ln.get("x2")]
            ok(len(dashed) == len(caches), "sweep: a dashed vertical line per cache (%d)" % len(dashed))
        else:
            skip("sweep: the L1d boundary is labelled", "no L1 cache reported")
            skip("sweep: a dashed vertical line per cache", "no caches reported")
        tiers = {b["tier"] for b in bench}
        ok(tiers <= set(tx), "sweep: a legend entry per tier drawn %r" % sorted(tiers))
        if not sim and not data["context"]["pmu"].get("hardware_counters_work", True):
            ok(any("ESTIMATED" in t for t in tx), "sweep: estimated cycles are labelled ESTIMATED")
        else:
            skip("sweep: estimated cycles are labelled ESTIMATED", "cycles are counted here")
    print("# sweep run: %.1f s" % (time.time() - t0))

    # The data TLBs' reach on 4 KiB pages (mem/chase_4k): a dotted line
    # per load TLB inside the working-set axis, labelled "L1 dTLB 4K
    # reach", the rest named past the axis; or why the geometry is not
    # known.  Expected from the JSON's topology.tlbs, not from this CPU.
    t0 = time.time()
    r, data, root = plot_run("tlb", filt.replace("^mem/chase/", "^mem/chase_4k/"))
    ok(r.returncode == 0 and data is not None and root is not None, "tlb --plot run exits 0 (%d)" % r.returncode)
    if data and root is not None and data["context"].get("backend") != "sim":
        topo = data["context"].get("topology") or {}
        tx = texts(root)
        tlb_lines = [ln for ln in root.iter(NS + "line") if ln.get("stroke-dasharray") == "2,3"
                     and ln.get("x1") == ln.get("x2")]
        if topo.get("tlb_unknown"):
            why = "TLB geometry not known (" + topo["tlb_unknown"]
            ok(any(why.startswith(t) and len(t) > 30 for t in tx) and not tlb_lines,
               "tlb: no reach drawn, the legend says why the geometry is not known: %r" % topo["tlb_unknown"])
        else:
            ws = [b["working_set_bytes"] for b in data["benchmarks"] if b.get("status") == "ok"]
            bounds = ws + [c["size"] for c in topo.get("caches") or []]
            lo, hi = min(bounds) / math.sqrt(2), max(bounds) * math.sqrt(2)
            kinds = {"d": "dTLB", "u": "TLB", "l": "load TLB"}
            want = ["L%d %s 4K reach" % (t["level"], kinds[t["kind"]]) for t in topo.get("tlbs") or []
                    if t["kind"] in kinds and 4096 in t["page_sizes"] and lo <= t["entries"] * 4096 <= hi]
            past = ["L%d %s 4K reach" % (t["level"], kinds[t["kind"]]) for t in topo.get("tlbs") or []
                    if t["kind"] in kinds and 4096 in t["page_sizes"] and not lo <= t["entries"] * 4096 <= hi]
            labels = sorted(t for t in tx if t.endswith(" reach"))
            ok(labels == sorted(want) and len(tlb_lines) == len(want),
               "tlb: a dotted line and label per data TLB reach on 4 KiB pages inside the axis: %r (%d lines), "
               "want %r" % (labels, len(tlb_lines), want))
            for t in topo.get("tlbs") or []:
                if t["kind"] not in kinds or 4096 not in t["page_sizes"]:
                    continue
                lab = "L%d %s 4K reach" % (t["level"], kinds.get(t["kind"], "?"))
                for el in root.iter(NS + "text"):
                    if el.text == lab:
                        x = float(el.get("x")) + 3
                        span = math.log2(hi / lo)
                        want_x = 90 + (800 - 90) * math.log2(t["entries"] * 4096 / lo) / span
                        ok(abs(x - want_x) < 0.2 and any(abs(float(ln.get("x1")) - x) < 0.05 for ln in tlb_lines),
                           "tlb: %s at %d entries x 4 KiB drawn at x %.1f (want %.1f)" % (lab, t["entries"], x,
                                                                                      want_x))
            ok(not want or any(t.startswith("data TLB reach: entries x page size (") for t in tx),
               "tlb: the legend names the dotted lines")
            ok(all(any(p in t for t in tx if t.startswith("data TLB reach past")) for p in past),
               "tlb: the reach past the axis named in the legend %r" % past)
            ok(not any(" 2M reach" in t for t in tx), "tlb: no 2 MiB reach for buffers on 4 KiB pages")
    # A given topology (hwloc's synthetic one) reads no TLB: the legend
    # says so, with the reason the JSON gives.
    js, svg = os.path.join(tmp, "notlb.json"), os.path.join(tmp, "notlb.svg")
    given = "--topology-source=pack:1 l3:1(size=8MB) l2:1(size=1MB) l1d:1(size=32KB) core:1 pu:1"
    two = run("--list", "--filter=^mem/chase_4k/", "--cpu=0", given).stdout.split()[:2]
    r = run("--filter=^(%s)$" % "|".join(two), *FAST, "--format=json", "--out=" + js, "--plot=" + svg, "--cpu=0", given)
    try:
        with open(js) as f:
            why = (json.load(f)["context"].get("topology") or {}).get("tlb_unknown")
        tx = texts(ET.parse(svg).getroot())
    except (OSError, ValueError, ET.ParseError) as e:
        why, tx = None, []
        diag(str(e))
    ok(r.returncode == 0 and why and any(("TLB geometry not known (" + why + ")").startswith(t) and
                                         t.startswith("TLB geometry not known (a given topology") for t in tx),
       "tlb: a given topology: the legend says the TLB geometry is not known and why (%r)" % why)
    print("# tlb run: %.1f s" % (time.time() - t0))

# ---- a small branch study --------------------------------------------------
t0 = time.time()
r, data, root = plot_run("branch", "^branch/sum_if/.*/p(0|50)$")
if not ok(r.returncode == 0, "branch --plot run exits 0 (%d)" % r.returncode):
    diag(r.stderr[-600:])
check_geometry(root, "branch")
if data and root is not None:
    xs = {}
    for v in ("branchy", "branchless", "sol"):
        fam = "branch/sum_if/" + v
        bench, key = plotted(data, fam)
        pts = check_line(root, fam, bench, key, lambda b: ["p0", "p50"].index(b["name"].split("/")[-1]))
        xs[v] = [x for x, _ in pts]
    check_intervals(root, data, {"branch/sum_if/" + v for v in ("branchy", "branchless", "sol")}, key, "branch")
    full = [v for v in xs if len(xs[v]) == 2]
    ok(len({tuple(xs[v]) for v in full}) <= 1,
       "branch: the variants share the inputs' x positions %r" % xs)
    tx = texts(root)
    ok("branch/sum_if: branchy vs branchless" in tx, "branch: the title names the pair")
    ok({"p0", "p50", "branchy", "branchless", "sol"} <= set(tx),
       "branch: inputs and the legend are labelled")
    ok("0" in tx, "branch: the linear y axis starts at 0")
    ok(not any(t.startswith("mem/") for t in tx), "branch: no sweep panel")
print("# branch run: %.1f s" % (time.time() - t0))

# ---- nothing to plot, and a folder that does not exist ----------------------
out = os.path.join(tmp, "calib.svg")
r = run("--filter=^calib/", *FAST, "--plot=" + out)
ok(r.returncode == 0, "nothing to plot: exits 0 (%d)" % r.returncode)
ok(not os.path.exists(out), "nothing to plot: writes no file")
ok(not [f for f in os.listdir(tmp) if f.startswith("calib.svg")], "nothing to plot: leaves no temporary file")
ok("nothing to plot" in r.stderr, "nothing to plot: says so on stderr")

out = os.path.join(tmp, "no-such-dir", "x.svg")
t0 = time.time()
r = run("--filter=^mem/chase/", "--plot=" + out)
err = r.stderr.strip()
ok(r.returncode == 2, "--plot into a missing folder exits 2 (%d)" % r.returncode)
ok(err.count("\n") == 0 and "--plot" in err and out in err,
   "--plot into a missing folder: one line naming the option and file %r" % err)
ok(r.stdout == "" and time.time() - t0 < 5, "--plot into a missing folder: fails before measuring")

shutil.rmtree(tmp, ignore_errors=True)
done()
