#!/usr/bin/env python3
"""run.sh all (meson test aarch64): the emulated-PMU guest booted once for
both of its tests, one TAP stream: the cross-built C tests (ctests.py), then
tests/test_hw.py, in the one guest pmbtap.guest() boots (issue 29: two
guests booted the same kernel twice).  The C tests go first: test_hw.py
sets the guest's perf_event_paranoid for its permission checks."""
import os
import runpy
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.dirname(HERE)
sys.path.insert(0, TESTS)
sys.path.insert(0, HERE)
import ctests  # noqa: E402
import pmbguest  # noqa: E402
import pmbtap  # noqa: E402

up, why = pmbguest.available()
if not up:
    print("1..0 # SKIP " + why)
    sys.exit(0)
pmbtap.require_pmubench()
ctests.run_all(pmbtap.guest(), pmbtap.ok)
# test_hw.py ends with pmbtap.done(): the plan covers both parts' points.
sys.argv = [os.path.join(TESTS, "test_hw.py")]
runpy.run_path(sys.argv[0], run_name="__main__")
