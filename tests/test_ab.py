#!/usr/bin/env python3
"""test_ab.py - `pmubench ab OLD NEW`: turns in a random order, the paired
verdict, exit codes, lists and errors; exact counts under --backend=sim.

The sides are tests/ab_target (its kernel made k % slower by
PMB_TEST_SLOWDOWN=k) behind small shell scripts that set k and log each
turn.  Timing verdicts are asserted only for a 30 % slowdown, where the
ratio must read 1.30 (260 steps an item for 200) within the run's own
interval, and "regressed" only where the machine was idle enough and the
run's own interval and test resolved the change (else it skips, saying the
load and the interval measured); false-positive and detection rates are
measured by tests/bench_ab.py, not here."""
import json
import os
import re
import stat
import subprocess
import tempfile

from pmbtap import PMB, ab_target, Load, diag, done, ok, require_pmubench, sim_unavailable, skip, wants

require_pmubench()
TARGET = ab_target()

TMP = tempfile.mkdtemp(prefix="pmb-ab-")
LOG = os.path.join(TMP, "turns.log")


def side(name, k, list_only=None):
    """A script running ab_target with PMB_TEST_SLOWDOWN=k that logs each
    measuring turn as its name; list_only: what its --list keeps (a grep
    pattern), to make the two sides list different benchmarks."""
    path = os.path.join(TMP, name)
    lst = ('if [ "$1" = --list ]; then "%s" "$@" | grep -e "%s"; exit 0; fi\n'
           % (TARGET, list_only)) if list_only else ""
    with open(path, "w") as f:
        f.write("#!/bin/sh\n%sexport PMB_TEST_SLOWDOWN=%s\n"
                'case "$*" in *--list*) ;; *) echo %s >> "%s";; esac\n'
                'exec "%s" "$@"\n' % (lst, k, name, LOG, TARGET))
    os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
    return path


def ab(*args, timeout=300):
    p = subprocess.run([PMB, "ab", *args], capture_output=True, text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def rows(out):
    """Table rows by (benchmark, figure), compare's 8 columns."""
    table = {}
    for line in out.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if len(cells) == 8 and cells[0] != "benchmark":
            table[(cells[0], cells[1])] = cells
    return table


def below(out):
    """The line under the table: {figure: [benchmarks] or their number},
    the figures below resolution on both sides (issue 27, point 5)."""
    m = re.search(r"^below resolution on both sides \(no change to see\), not in the table: (.*?)\n(?=\S|$)",
                  out, re.S | re.M)
    found = {}
    for part in (" ".join(m.group(1).split()).split("; ") if m else []):
        fig, _, where = part.partition(" in ")
        n = re.match(r"(\d+) benchmarks$", where)
        found[fig] = int(n.group(1)) if n else where.split(", ")
    return found


def turns():
    try:
        with open(LOG) as f:
            return f.read().split()
    except OSError:
        return []


A0, B0, B30 = side("a0", 0), side("b0", 0), side("b30", 30)

# Two parts (pmbtap.wants): "timing", the 30 % slowdown's verdict, which
# the machine's speed decides; "cli", the rest.
if wants("cli"):
    # 1. Usage: exit 2, one line naming what is wrong.
    for args, words, what in [([], ["need two programs"], "no program"),
                              ([A0], ["need two programs"], "one program"),
                              ([A0, B0, B0], ["more than two"], "three programs"),
                              (["--threshold=abc", A0, B0], ["--threshold=abc", "percentage"], "a bad threshold"),
                              (["--time-limit=0", A0, B0], ["--time-limit=0", "duration"], "a zero time limit"),
                              (["--frobnicate", A0, B0], ["unknown option"], "an unknown option")]:
        rc, out, err = ab(*args)
        ok(rc == 2 and err.startswith("pmubench ab: ") and all(w in err.splitlines()[0] for w in words),
           "usage, %s: exit 2, the first line says %r (%d, %r)" % (what, words, rc, err.strip()[:200]))
    rc, out, err = ab("--help")
    ok(rc == 0 and "--time-limit" in out and "--precision" in out, "ab --help: exit 0, lists its options")

    # 2. A side that cannot run, or fails: exit 2, naming the side.
    rc, out, err = ab(A0, os.path.join(TMP, "no-such-program"))
    ok(rc == 2 and "NEW" in err and "no-such-program" in err and "cannot run" in err,
       "a NEW that does not exist: exit 2, named (%d, %r)" % (rc, err.strip()[:200]))
    bad = os.path.join(TMP, "bad")
    with open(bad, "w") as f:
        f.write('#!/bin/sh\necho "error: broken on purpose" >&2\nexit 3\n')
    os.chmod(bad, 0o755)
    rc, out, err = ab(bad, B0)
    ok(rc == 2 and "OLD" in err and "exited 3" in err and "broken on purpose" in err,
       "an OLD that exits 3: exit 2, its status and its error line (%d, %r)" % (rc, err.strip()[:200]))
    # A plugin side (X.so) runs as this pmubench --load=X.so.
    # (No plugin is there: this pmubench's own error about --load comes back,
    # naming the side; with --load built in, one about the missing file.)
    so = os.path.join(TMP, "plugin.so")
    rc, out, err = ab(so, B0)
    ok(rc == 2 and ("OLD " + so) in err and "load" in err.split(": ", 2)[-1].lower(),
       "a side ending in .so is run as pmubench --load=SIDE (%d, %r)" % (rc, err.strip()[:200]))

    # 3. Lists that differ: reported, and only the common benchmark compared.
    NOFIX = side("nofix", 0, list_only="abt/chain")
    rc, out, err = ab("--max-rounds=2", "--min-sample-time=200us", A0, NOFIX)
    r = rows(out)
    ok("only in OLD (removed): abt/fixed" in out and ("abt/chain", "ns_per_item") in r and
       not any(k[0] == "abt/fixed" for k in r),
       "a benchmark only OLD lists: reported as removed, not compared (%d, %r)" % (rc, out[-600:]))
    rc, out, err = ab("--filter=^nothing$", A0, B0)
    ok(rc == 2 and "no benchmark in common" in err, "nothing in common: exit 2 (%d, %r)" % (rc, err.strip()))

    # 4. Turns: every round one turn of each, the order drawn; a seed repeats it.
    open(LOG, "w").close()
    rc, out, err = ab("--max-rounds=16", "--precision=0", "--seed=7", "--min-sample-time=200us",
                      "--filter=chain", A0, B0)
    t1 = turns()
    pairs = [tuple(t1[i:i + 2]) for i in range(0, len(t1), 2)]
    ok(len(pairs) == 16 and all(sorted(p) == ["a0", "b0"] for p in pairs),
       "16 rounds of one turn each, in pairs (%r)" % pairs)
    ok(("a0", "b0") in pairs and ("b0", "a0") in pairs,
       "both orders occur (%d AB, %d BA)" % (pairs.count(("a0", "b0")), pairs.count(("b0", "a0"))))
    ok(re.search(r"16 rounds, each in a random order \(--seed=7\)", out) and "--max-rounds=16 reached" in out,
       "the report says the rounds, the seed and why it stopped (%r)" % out[:300])
    ok(re.search(r"round 10, [0-9.]+ s of 60 s; widest interval \+-[0-9.]+ %", err),
       "progress shows the round, the time against the limit and the widest interval (%r)" % err[-300:])
    # The order is drawn round by round from the seed: a shorter run with
    # it repeats the first rounds' order (10 rounds, not 16 again: CI time).
    open(LOG, "w").close()
    ab("--max-rounds=10", "--precision=0", "--seed=7", "--min-sample-time=200us", "--filter=chain", A0, B0)
    ok(len(t1) == 32 and turns() == t1[:20], "--seed=7 again: the same order of turns (the first 10 rounds)")
    r = rows(out)
    c = r.get(("abt/chain", "ns_per_item"))
    m = re.match(r"\[([0-9.]+), ([0-9.]+)\]$", c[5]) if c else None
    ok(c and m and float(m.group(1)) <= float(c[4]) <= float(m.group(2)) and re.match(r"^(<)?[0-9.]+$", c[6]),
       "A/A: ratio inside its interval, a p-value (%r)" % (c,))
    # The last line counts the table's rows by verdict, and apart from them
    # the figures below resolution on both sides that the line above names.
    last = out.strip().splitlines()[-1] if out.strip() else ""
    nb = sum(v if isinstance(v, int) else len(v) for v in below(out).values())
    said = {w: int(n) for n, w in re.findall(r"(\d+) (regressed|improved|within noise|inconclusive|"
                                              r"below the threshold|not told from the threshold|"
                                              r"below resolution on both sides)", last)}
    noise = sum(1 for v in r.values() if v[7] == "within noise")
    ok(said.get("within noise") == noise and said.get("below resolution on both sides", 0) == nb and
       sum(said.values()) == len(r) + nb,
       "the last line counts %d rows and, apart, the %d figures below resolution on both sides (%r)"
       % (len(r), nb, last))

    # 5. Time limit: the run stops before it is spent, and says the interval
    # it reached and what would reach the goal (issue 27): from 2 rounds
    # the rounds and time at the interval's shrink so far, or that it did
    # not shrink; after one, that an interval needs two.  A goal of
    # +-0.001 % is never reached in 3 s.
    rc, out, err = ab("--time-limit=3s", "--precision=0.001", "--min-sample-time=200us", A0, B0)
    m = re.search(r"(\d+) rounds?", out)
    ok(rc in (0, 1) and "time limit (3 s) reached" in out and m and int(m.group(1)) >= 1,
       "--time-limit=3s: stops on time (%d, %r)" % (rc, out[:300]))
    ok(re.search(r"reached after 1 round; no interval yet: a paired interval needs 2 rounds or more, "
                 r"--time-limit=\d+s at least\n", out) or
       re.search(r"reached after \d+ rounds; widest interval \+-[0-9.]+ % \(goal \+-0\.001 %\): "
                 r"(at its shrink so far \(n\^-[0-9.]+\) about \d+ rounds, --time-limit=\d+s, would "
                 r"reach it, or a quieter core|it did not narrow with rounds, so more time would not "
                 r"reach it; a quieter core might)\n", out),
       "--time-limit=3s: says the interval reached and what would reach +-0.001 %% (%r)"
       % re.findall(r"stopped: .*", out))

    # 6b. --counters and --cpu pass to both sides: their turns count those
    # events on that core, and each event has its verdict.
    rc, out, err = ab("--max-rounds=2", "--min-sample-time=200us", "--counters=task-clock,page-faults", "--cpu=0",
                      "--filter=^abt/chain$", "--out=" + os.path.join(TMP, "cnt"), A0, B0)
    low = below(out)
    figs = {f for (b, f) in rows(out) if b == "abt/chain"}
    ok(not figs & {f for f in low if "abt/chain" in low[f]} and
       not any(v[5] == "both below resolution" for v in rows(out).values()),
       "a figure below resolution on both sides has no row, only its name under the table (%r, %r)"
       % (sorted(figs), low))
    figs |= {f for f in low if "abt/chain" in low[f]}
    ctx = [json.load(open(os.path.join(TMP, "cnt-%s.json" % k)))["context"] for k in ("old", "new")]
    ok(rc == 0 and figs == {"ns_per_item", "task_clock_per_item", "page_faults_per_item"} and
       all(c.get("pinned_cpu") == 0 and [e["name"] for e in c["events"]] == ["task-clock", "page-faults"]
           for c in ctx),
       "ab --counters=task-clock,page-faults --cpu=0: both sides count those on core 0, one verdict each (%d, %s, %s)"
       % (rc, sorted(figs), [(c.get("pinned_cpu"), [e["name"] for e in c["events"]]) for c in ctx]))
    rc, out, err = ab("--max-rounds=2", "--counters=no_such_event_xyz", A0, B0)
    ok(rc == 2 and len(err.strip().splitlines()) == 1 and "no_such_event_xyz" in err and "exited 2" in err,
       "ab --counters with an unknown event: exit 2, the side's one-line error (%d, %r)" % (rc, err))

    # 7. --backend=sim: one round, exact counts, no statistics.
    why = sim_unavailable()
    if why:
        skip("ab --backend=sim", why)
    else:
        # Three sides, two ab runs (four simulated runs, not six: issue
        # 29): A/A, then 5 % against 10 % slower.  Steps an item: 200,
        # 210, 220; the A/A run's OLD holds the counts of 200.  --samples=3,
        # not ab's 10: the counts are exact in any number of samples, and a
        # side's simulated run took 1.0 CPU s so, against 1.9 (issue 29).
        rc, out, err = ab("--backend=sim", "--samples=3", "--out=" + os.path.join(TMP, "simaa"), A0, B0)
        r = rows(out)
        ok(rc == 0 and "1 round under --backend=sim" in out and "simulated counts are exact" in out and
           r and all(v[7] == "unchanged" and v[4] == "1" for v in r.values()),
           "sim A/A: one round, every ratio in the table exactly 1, exit 0 (%d, %r)" % (rc, out[:400]))
        # What both sides count as zero within resolution is one line, not rows.
        low = below(out)
        names = {b for (b, f) in r}
        ok(all(isinstance(w, int) or set(w) <= names | {"abt/chain", "abt/fixed"} for w in low.values()) and
           not any((b, f) in r for f, w in low.items() if not isinstance(w, int) for b in w),
           "sim A/A: the figures below resolution on both sides named under the table, not as rows (%r)" % low)
        S5, S10 = side("s5", 5), side("s10", 10)
        rc, out, err = ab("--backend=sim", "--samples=3", "--out=" + os.path.join(TMP, "sim510"), S5, S10)
        r = rows(out)

        def benches(path):
            try:
                with open(path) as f:
                    return {b["name"]: b for b in json.load(f)["benchmarks"]}
            except (OSError, ValueError, KeyError):
                return {}
        b0 = benches(os.path.join(TMP, "simaa-old.json"))
        b5, b10 = benches(os.path.join(TMP, "sim510-old.json")), benches(os.path.join(TMP, "sim510-new.json"))
        i0, i5, i10 = (b.get("abt/chain", {}).get("instructions_per_item") or 0 for b in (b0, b5, b10))
        ins = r.get(("abt/chain", "instructions_per_item"))
        exact = i10 / i5 if i5 else 0
        # 220 steps an item for 210 (1.0476), the loop's own instructions
        # beside them in both.
        ok(rc == 1 and ins and ins[7] == "regressed" and ins[5] == "exact (simulated)" and
           float(ins[4]) == float("%.6g" % exact) and 1.04 < exact < 1.05,
           "sim, 10 %% against 5 %% slower: instructions regressed by exactly new/old of the counts (%r, %.6g)"
           % (ins, exact))
        fixed = r.get(("abt/fixed", "instructions_per_item"))
        ok(fixed and fixed[7] == "unchanged", "sim: the untouched benchmark unchanged (%r)" % (fixed,))
        # 200, 210, 220 steps an item: the counts grow by the same whole number.
        ok(abs((i10 - i5) - (i5 - i0)) < 1e-9 and abs(i5 - i0 - round(i5 - i0)) < 1e-9 and i5 > i0,
           "sim: exact counts, 10 more steps add the same %g instructions an item (%g, %g, %g)"
           % (i5 - i0, i0, i5, i10))


if wants("timing"):
    # 6. A 30 % slower kernel: regressed in time, exit 1; the untouched
    # benchmark beside it is not.  --out: each side's turns as repetitions,
    # which compare reads.  The slowdown is known exactly: ab_target runs
    # lround(200 * 1.30) = 260 dependent adds an item for 200, one cycle each,
    # its pass loop 1 step in 51200 and the harness overhead subtracted, so
    # new/old is 1.30 and the run's 95 % interval must hold it.  Under load
    # that figure is not this code's (here at load 7: 18 rounds, +-42 %, and
    # the untouched abt/fixed "improved" to 0.65), so it is judged only where
    # the machine was idle enough (pmbtap.Load).
    TRUE_RATIO = 260 / 200


    def holds(cells, truth):
        """truth within a table row's 95 % interval stretched twice about
        its estimate (about four standard errors each way).  A 95 %
        interval misses the truth in 1 run of 20 by construction (a CI
        here: 1.264 [1.126, 1.299], the rounds' test at p=0.095); twice
        its reach misses it in about 1 of 10 000, and still fails a ratio
        off by more than the run's own spread."""
        m = cells and re.match(r"\[([0-9.]+), ([0-9.]+)\]$", cells[5])
        if not m:
            return False
        est, lo, hi = float(cells[4]), float(m.group(1)), float(m.group(2))
        return est - 2 * (est - lo) <= truth <= est + 2 * (hi - est)


    with Load() as load:
        rc, out, err = ab("--time-limit=10s", "--out=" + os.path.join(TMP, "slow"), A0, B30)
    r = rows(out)
    verdicts = {k: v[7] for k, v in r.items()}
    chain = {f: r.get(("abt/chain", f)) for f in ("ns_per_item", "task_clock_per_item")}
    diag("30 %% slower: %s; %s" % ({f: c and c[4:8] for f, c in chain.items()}, load.said))
    # What the run itself could not resolve is not a wrong figure: a time
    # figure whose interval holds 1 (within noise) or whose rounds disagree
    # with it (inconclusive: the signed-rank test's p) was measured through
    # noise that the load meter did not see (a hypervisor's other guests:
    # here once 1.314 [0.946, 1.558] with 0 % other work).  Its interval must
    # still hold 1.30, and no figure may read improved; "regressed" is
    # asserted of every figure the run resolved, and skipped, saying why,
    # where it resolved none.
    unresolved = {f: c[4:8] for f, c in chain.items()
                  if c and (c[7] == "within noise" or c[7].startswith(("inconclusive", "not told")))}
    if load.busy:
        skip("30 % slower: regressed, exit 1, 1.30 within the ratio's interval", load.why)
        skip("the unchanged benchmark is not called regressed", load.why)
    else:
        ns, tc = chain["ns_per_item"], chain["task_clock_per_item"]
        ok(ns and tc and holds(ns, TRUE_RATIO) and "improved" not in (ns[7], tc[7]),
           "30 %% slower: ns_per_item reads %.2f within twice its 95 %% interval's reach, neither time figure "
           "improved (%r)"
           % (TRUE_RATIO, chain))
        if len(unresolved) == len(chain):
            skip("30 % slower: regressed in both time figures, exit 1",
                 "the run resolved neither time figure, its own noise too wide to judge 30 %% (%r; %s)"
                 % (unresolved, load.said))
        else:
            ok(rc == 1 and all(c[7] == "regressed" for f, c in chain.items() if f not in unresolved),
               "30 %% slower: regressed in every time figure the run resolved, exit 1 (%d, %r; "
               "not resolved: %r)" % (rc, chain, unresolved))
        ok(verdicts.get(("abt/fixed", "ns_per_item")) != "regressed" or
           verdicts.get(("abt/fixed", "task_clock_per_item")) != "regressed",
           "the unchanged benchmark is not called regressed in both time figures (%r)" %
           {k: v for k, v in verdicts.items() if k[0] == "abt/fixed"})
    if rc != 1:
        diag(out + err)
    nround = int(re.search(r"(\d+) rounds", out).group(1)) if re.search(r"(\d+) rounds", out) else 0
    try:
        old = json.load(open(os.path.join(TMP, "slow-old.json")))
        reps = sorted(b["repetition_index"] for b in old["benchmarks"] if b["name"] == "abt/chain")
        ok(reps == list(range(nround)) and all(b["repetitions"] == nround for b in old["benchmarks"]),
           "--out: every turn of OLD as repetitions 0..%d (%r)" % (nround - 1, reps[:5]))
    except (OSError, ValueError, KeyError) as e:
        ok(False, "--out wrote slow-old.json (%s)" % e)
    p = subprocess.run([PMB, "compare", os.path.join(TMP, "slow-old.json"),
                        os.path.join(TMP, "slow-new.json")], capture_output=True, text=True)
    cr = rows(p.stdout).get(("abt/chain", "task_clock_per_item"))
    if load.busy:
        ok(p.returncode in (0, 1) and cr, "compare reads ab's files (%d, %r)" % (p.returncode, cr))
        skip("compare reads ab's files: 1.30 within its interval", load.why)
    else:
        ok(p.returncode in (0, 1) and holds(cr, TRUE_RATIO),
           "compare reads ab's files: 30 %% slower there too, %.2f within twice its 95 %% interval's reach (%d, %r)"
           % (TRUE_RATIO, p.returncode, cr))


done()
