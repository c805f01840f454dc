#!/usr/bin/env python3
"""test_events_cli.py - pmubench --list-events and --counters errors, end to end (TAP)."""
import json
import os
import subprocess
import sys

PMUBENCH = os.environ.get("PMUBENCH", "")
results = []


def ok(cond, what):
    results.append((bool(cond), what))
    print(("ok" if cond else "not ok") + " %d - %s" % (len(results), what))
    sys.stdout.flush()


def skip(what):
    results.append((True, what))
    print("ok %d # SKIP %s" % (len(results), what))
    sys.stdout.flush()


def run(args, pmu="skx"):
    """Run pmubench with libpfm forced to one PMU, so that the event names
    do not depend on the machine the test runs on."""
    env = dict(os.environ)
    env["LIBPFM_FORCE_PMU"] = pmu
    try:
        p = subprocess.run([PMUBENCH] + args, env=env, capture_output=True,
                           text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return None
    return p


def lines(text):
    return [l for l in text.splitlines() if l.strip()]


def plan_context(counters, pmu):
    """The JSON report's context for --counters=counters, or None: one short
    benchmark, whatever the machine can count."""
    p = run(["--counters=" + counters, "--filter=^calib/empty$", "--samples=10",
             "--format=json"], pmu=pmu)
    if p is None or p.returncode != 0:
        return None
    try:
        return json.loads(p.stdout)["context"]
    except (ValueError, KeyError, TypeError):
        return None


def plan_events(counters, pmu):
    """The events of plan_context(), by name, or None."""
    try:
        return {e["name"]: e for e in plan_context(counters, pmu)["events"]}
    except (KeyError, TypeError):
        return None


def plan_derived(counters, pmu):
    """The derived figures of plan_context(), by name: (numerator,
    denominator), or None."""
    try:
        return {d["name"]: (d["numerator"], d["denominator"])
                for d in plan_context(counters, pmu)["derived"]}
    except (KeyError, TypeError):
        return None


def main():
    if not PMUBENCH:
        print("1..0 # SKIP $PMUBENCH is not set")
        return 0
    if not (os.path.isfile(PMUBENCH) and os.access(PMUBENCH, os.X_OK)):
        print("1..0 # SKIP $PMUBENCH (%s) is not an executable file" % PMUBENCH)
        return 0

    # libpfm4 has each architecture's PMUs in that architecture's build only
    p = run(["--list-events=BR_MISP_RETIRED:ALL"])
    if p is None or "skx::" not in p.stdout:
        skip("no skx in this build's libpfm4: the x86 event names are not checked")
    else:
        x86_checks()
    arm_checks()

    print("1..%d" % len(results))
    return 0 if all(c for c, _ in results) else 1


def x86_checks():
    """Intel and AMD names, under LIBPFM_FORCE_PMU=skx and amd64_fam17h."""
    p = run(["--list-events=BR_MISP"])
    ok(p is not None and p.returncode == 0,
       "--list-events=BR_MISP exits 0 (%s)" % (p and p.returncode))
    out = p.stdout if p else ""
    ok("BR_MISP_RETIRED" in out, "it lists BR_MISP_RETIRED")
    ok("BR_MISP_RETIRED:ALL_BRANCHES" in out, "and its umask ALL_BRANCHES")
    ok("ispredicted" in out, "with descriptions (libpfm's 'Mispredicted ...')")
    named = [l for l in lines(out) if "BR_" in l.upper()]
    ok(named and all("br_misp" in l.lower() for l in named),
       "every event it names matches the pattern")
    ok("BR_INST_RETIRED" not in out, "events outside the pattern are left out")

    p = run(["--list-events=br_misp"])
    ok(p is not None and p.returncode == 0 and "BR_MISP_RETIRED" in p.stdout,
       "the pattern is case-insensitive")

    p = run(["--list-events"])
    out = p.stdout if p else ""
    ok(p is not None and p.returncode == 0, "--list-events exits 0")
    for name in ("branch-misses", "task-clock", "l1d-misses", "@branch", "@cache"):
        ok(name in out, "--list-events lists %s" % name)

    p = run(["--counters=NO_SUCH_EVENT"])
    ok(p is not None and p.returncode == 2,
       "--counters=NO_SUCH_EVENT exits 2 (%s)" % (p and p.returncode))
    err = lines(p.stderr) if p else []
    ok(len(err) == 1 and "NO_SUCH_EVENT" in err[0],
       "one line on stderr names the event: %r" % err)
    ok(p is not None and p.stdout.strip() == "", "nothing measured (stdout empty)")

    p = run(["--counters=cycles,BR_MISP_RETIRD"])
    err = lines(p.stderr) if p else []
    ok(p is not None and p.returncode == 2 and len(err) == 1
       and "BR_MISP_RETIRD" in err[0] and "BR_MISP_RETIRED" in err[0],
       "a misspelt event gets its close match: %r" % err)

    p = run(["--counters=RETIRED_BRANCH_INSTRUCTION"], pmu="amd64_fam17h")
    err = lines(p.stderr) if p else []
    ok(p is not None and p.returncode == 2 and len(err) == 1
       and "RETIRED_BRANCH_INSTRUCTIONS" in err[0],
       "close matches come from the AMD PMU under amd64_fam17h: %r" % err)

    p = run(["--counters=@nosuchset"])
    err = lines(p.stderr) if p else []
    ok(p is not None and p.returncode == 2,
       "--counters=@nosuchset exits 2 (%s)" % (p and p.returncode))
    ok(len(err) == 1 and "@nosuchset" in err[0], "one line names the set: %r" % err)
    ok(p is not None and p.stdout.strip() == "", "nothing measured (stdout empty)")

    # A qualified name for a PMU this machine lacks: said so, with the way
    # to encode for it anyway (forced here to the AMD PMU, so skx is absent).
    p = run(["--counters=skx::BR_MISP_RETIRED"], pmu="amd64_fam17h")
    err = lines(p.stderr) if p else []
    ok(p is not None and p.returncode == 2 and len(err) == 1 and
       "which this machine does not have" in err[0] and "LIBPFM_FORCE_PMU=skx" in err[0],
       "skx:: on another PMU names the PMU and LIBPFM_FORCE_PMU: %r" % err)

    # What each event counts comes from its encoding: the PMU's own names
    # for cycles, instructions and branches, not a cmask variant.
    want = {"UNHALTED_CORE_CYCLES": "cycles", "INST_RETIRED:ANY_P": "instructions",
            "BR_INST_RETIRED:ALL_BRANCHES": "branches",
            "BR_MISP_RETIRED:ALL_BRANCHES": "branch-misses",
            "BR_MISP_RETIRED:ALL_BRANCHES:c=1": "other"}
    ev = plan_events(",".join(want), "skx")
    ok(ev is not None and all(n in ev for n in want),
       "the JSON report lists the skx events (%s)" % (ev and sorted(ev)))
    ev = ev or {}
    for name, means in want.items():
        ok(ev.get(name, {}).get("means") == means and ev.get(name, {}).get("unsupported") is None,
           "%s means %s: %r" % (name, means, ev.get(name)))

    # Derived figures find the PMU's own cycles and instructions.
    der = plan_derived("skx::UNHALTED_CORE_CYCLES,skx::INST_RETIRED:ANY_P", "skx")
    ok(der is not None and der.get("ipc") == ("skx::INST_RETIRED:ANY_P", "skx::UNHALTED_CORE_CYCLES"),
       "ipc from skx::INST_RETIRED:ANY_P / skx::UNHALTED_CORE_CYCLES: %r" % der)



def arm_checks():
    """No core PMU for libpfm4, and Arm names where it has Arm PMUs."""
    p = run(["--list-events"], pmu="perf")
    ok(p is not None and p.returncode == 0 and "branch-misses" in p.stdout
       and "@branch" in p.stdout,
       "--list-events without a core PMU (LIBPFM_FORCE_PMU=perf) exits 0 with the generic names")

    # Arm names and aliases where this build's libpfm4 has Arm PMUs (aarch64)
    p = run(["--list-events=BRANCH_MISPRED"], pmu="arm_ac57")
    if p is None or p.returncode != 0 or "arm_ac57" not in p.stdout:
        skip("no arm_ac57 in this build's libpfm4 (Arm PMUs are in aarch64 builds only)")
    else:
        ev = plan_events("BR_MISP_RETIRED,BR_MIS_PRED,CPU_CYCLES", "arm_ac57") or {}
        e = ev.get("BR_MISP_RETIRED", {})
        ok("(as alias br-misp-retired)" in e.get("encoding", "") and "BRANCH_MISPRED" in e.get("encoding", "")
           and e.get("means") == "branch-misses",
           "BR_MISP_RETIRED on arm_ac57 is its BRANCH_MISPRED, said so: %r" % e)
        ok(ev.get("CPU_CYCLES", {}).get("means") == "cycles", "CPU_CYCLES means cycles on arm_ac57")
        der = plan_derived("CPU_CYCLES,INST_RETIRED", "arm_ac57")
        ok(der is not None and der.get("ipc") == ("INST_RETIRED", "CPU_CYCLES"),
           "ipc from INST_RETIRED / CPU_CYCLES on arm_ac57: %r" % der)


if __name__ == "__main__":
    sys.exit(main())
