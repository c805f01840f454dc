#!/usr/bin/env python3
"""Google Benchmark's own tooling reads pmubench's JSON: its compare.py
(Debian's libbenchmark-tools) compares two pmubench runs benchmark by
benchmark.  Skipped where compare.py or its numpy/scipy are missing."""
import os
import shutil
import subprocess
import sys
import tempfile

from pmbtap import done, ok, require_pmubench, run  # noqa: E402

COMPARE = "/usr/share/benchmark/compare.py"
require_pmubench()
# compare.py needs numpy and scipy: Debian's own python has them where
# python3-scipy is installed, whatever python runs this test.
py = shutil.which("python3", path="/usr/bin") or sys.executable
probe = subprocess.run([py, "-c", "import numpy, scipy"], capture_output=True)
if not os.path.exists(COMPARE) or probe.returncode != 0:
    print("1..0 # SKIP Google Benchmark's compare.py with numpy and scipy is not installed "
          "(apt-get install libbenchmark-tools python3-scipy)")
    sys.exit(0)

tmp = tempfile.mkdtemp()
filt = "--filter=^(calib/add_chain|branch/sum_if/(branchy|branchless)/p50)$"
paths = []
for tag in ("old", "new"):
    p = os.path.join(tmp, tag + ".json")
    r = run(filt, "--samples=10", "--min-sample-time=200us", "--format=json", "--out=" + p)
    ok(r.returncode == 0 and os.path.exists(p), "pmubench run %s (%d)" % (tag, r.returncode))
    paths.append(p)
r = subprocess.run([py, COMPARE, "--no-color", "benchmarks", *paths], capture_output=True, text=True,
                   timeout=120)
ok(r.returncode == 0, "compare.py accepts two pmubench JSON files (%d: %s)" % (r.returncode, r.stderr[-300:]))
rows = {l.split()[0]: l.split()[1:] for l in r.stdout.splitlines() if l.strip() and not l.startswith(("-", "Benchmark", "Comparing"))}
for name in ("calib/add_chain", "branch/sum_if/branchy/p50", "branch/sum_if/branchless/p50"):
    cells = rows.get(name, [])
    good = len(cells) >= 2
    try:
        float(cells[0]), float(cells[1])
    except (IndexError, ValueError):
        good = False
    ok(good, "compare.py gives %s a time and cpu change (%r)" % (name, cells[:2]))
ok("OVERALL_GEOMEAN" in rows, "compare.py's geomean over pmubench's benchmarks")
shutil.rmtree(tmp)
done()
