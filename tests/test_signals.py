#!/usr/bin/env python3
"""test_signals.py - SIGINT, SIGTERM and SIGHUP during a run: it stops after
the current sample, writes what it measured marked incomplete (JSON, CSV,
console), erases its progress line and exits 128 + the signal; a second
signal exits at once; under --backend=sim the valgrind child is reaped and
no temporary file or folder is left."""
import csv
import json
import os
import pty
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import pmbtap  # noqa: E402
from pmbtap import ok, skip, diag  # noqa: E402

pmbtap.require_pmubench()
if pmbtap.emulator():
    # The signals would go to the emulator's wrapper script.
    print("1..0 # SKIP pmubench runs under %s here: signals are tested natively" % pmbtap.emulator())
    sys.exit(0)
PMB = pmbtap.PMB
PROGRESS = re.compile(r"\[([0-9]+)/([0-9]+)\] ")


class Run:
    """pmubench started with stderr on a terminal (so it shows its
    progress line), stdout to a file; stderr collected as bytes."""

    def __init__(self, args, env=None, ignore=()):
        self.err = b""
        self.out_file = tempfile.TemporaryFile()
        master, slave = pty.openpty()

        def pre():
            for s in ignore:
                signal.signal(s, signal.SIG_IGN)
        self.p = subprocess.Popen([PMB, *args], stdout=self.out_file, stderr=slave,
                                  env=env, preexec_fn=pre)
        os.close(slave)
        self.master = master
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        while True:
            try:
                b = os.read(self.master, 4096)
            except OSError:
                return
            if not b:
                return
            self.err += b

    def done_count(self):
        """Benchmarks the progress line says are done, and the total."""
        m = PROGRESS.findall(self.err.decode("utf-8", "replace"))
        return (int(m[-1][0]), int(m[-1][1])) if m else (0, 0)

    def wait_progress(self, n, timeout=240):
        """Wait until n benchmarks are done (True), or the run ended."""
        end = time.time() + timeout
        while time.time() < end and self.p.poll() is None:
            if self.done_count()[0] >= n:
                return True
            time.sleep(0.05)
        return False

    def finish(self, timeout=240):
        """Exit status, seconds it took to end, stdout, stderr (text)."""
        t0 = time.time()
        try:
            rc = self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            rc = self.p.wait()
        took = time.time() - t0
        self.reader.join(5)
        os.close(self.master)
        self.out_file.seek(0)
        return rc, took, self.out_file.read().decode("utf-8", "replace"), \
            self.err.decode("utf-8", "replace")


def leftovers(d, keep=()):
    return sorted(f for f in os.listdir(d) if f not in keep)


def procs_with(text):
    """Processes whose command line contains text (a unique path)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if text.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def erased_after_progress(err):
    """The progress line was erased: after its last "[n/N] name", an
    erase ("\\r\\033[K") comes before the next line of text."""
    last = err.rfind("] ")
    if last < 0:
        return False
    nl = err.find("\n", last)
    return "\r\x1b[K" in err[last:nl if nl >= 0 else len(err)]


# ---- perf backend: SIGINT with --format=json -------------------------------
work = tempfile.mkdtemp(prefix="pmb-sig-")
out = os.path.join(work, "r.json")
env = dict(os.environ, TMPDIR=work)
r = Run(["--filter=^mem/", "--format=json", "--out=" + out], env=env)
started = r.wait_progress(2)
total = r.done_count()[1]
r.p.send_signal(signal.SIGINT)
rc, took, stdout, err = r.finish()
ok(started, "the run got under way (2 benchmarks done) before SIGINT")
ok(rc == 130, "SIGINT: exit status 130 (got %s; %s)" % (rc, err[-300:]))
ok(took < 20, "SIGINT: the run ended %.1f s after the signal (one sample, the analysis and "
   "the report; a whole run of mem/ takes minutes here)" % took)
doc = None
try:
    with open(out) as f:
        doc = json.load(f)
except (OSError, ValueError) as e:
    diag("no JSON: %s" % e)
ctx = (doc or {}).get("context", {})
benches = (doc or {}).get("benchmarks", [])
ok(ctx.get("incomplete") is True and "SIGINT" in ctx.get("incomplete_reason", ""),
   "JSON: context.incomplete is true, with the reason (%r)" % ctx.get("incomplete_reason"))
# The progress line counts a benchmark once it is done: those are written.
ok(2 <= len(benches) < total,
   "JSON: the benchmarks measured before the signal, not the others (%d of %d)" % (len(benches), total))
ok(benches and all(b.get("status") == "ok" and b.get("samples", 0) >= 1 for b in benches),
   "JSON: each benchmark written has samples and status ok (nothing unmeasured is written)")
m = re.search(r"of ([0-9]+) benchmarks measured", ctx.get("incomplete_reason", ""))
ok(m and "%d of %d benchmarks measured" % (len(benches), total) in ctx.get("incomplete_reason", ""),
   "JSON: the reason counts what was measured (%r)" % ctx.get("incomplete_reason"))
lines = [x for x in re.sub(r"\x1b\[K", "", err).replace("\r", "\n").split("\n")
         if x.startswith("pmubench: interrupted")]
ok(len(lines) == 1 and "SIGINT" in lines[0] and "incomplete" in lines[0],
   "stderr: one line says the run was interrupted and is written incomplete (%r)" % lines)
ok(erased_after_progress(err), "stderr: the progress line is erased before that line")
ok(leftovers(work, ["r.json"]) == [], "no temporary file next to --out (%s)" % leftovers(work, ["r.json"]))
cmp = subprocess.run([PMB, "compare", out, out], capture_output=True, text=True)
ok(cmp.returncode == 0, "compare reads the incomplete file back (status %d: %s)" %
   (cmp.returncode, cmp.stderr.strip()[-200:]))

# ---- SIGINT before any benchmark: during the harness overhead --------------
# --samples=3000 makes the overhead phase (3000 samples) last seconds: the
# signal comes before any benchmark starts.  Before the fix the results
# were left unset and the report crashed (exit 139).
out0 = os.path.join(tempfile.mkdtemp(prefix="pmb-sig0-"), "r0.json")
r = Run(["--filter=^calib/empty$", "--samples=3000", "--format=json", "--out=" + out0], env=env)
time.sleep(0.5)
early = r.done_count()[0] == 0 and r.p.poll() is None
r.p.send_signal(signal.SIGINT)
rc, took, stdout, err = r.finish()
try:
    with open(out0) as f:
        doc0 = json.load(f)
except (OSError, ValueError) as e:
    doc0 = {}
    diag("no JSON: %s" % e)
if not early:
    skip("SIGINT during the harness overhead", "the run was past it at 0.5 s (%r)" % err[-200:])
else:
    ok(rc == 130 and doc0.get("context", {}).get("incomplete") is True and doc0.get("benchmarks") == [] and
       "0 of 1 benchmark measured" in doc0["context"].get("incomplete_reason", "") and
       "pmubench: interrupted by SIGINT: 0 of 1 benchmark measured; writing the report, marked incomplete" in err,
       "SIGINT during the harness overhead: exit 130, a JSON marked incomplete with no benchmark (%s, %r)"
       % (rc, err[-200:]))

# ---- SIGTERM with --format=csv, SIGHUP with the console report -------------
for sig, fmt, code in ((signal.SIGTERM, "csv", 143), (signal.SIGHUP, "console", 129)):
    name = signal.Signals(sig).name
    r = Run(["--filter=^mem/chase/", "--format=" + fmt, "--samples=20"], env=env)
    started = r.wait_progress(1)
    r.p.send_signal(sig)
    rc, took, stdout, err = r.finish()
    ok(started and rc == code, "%s: exit status %d (got %s)" % (name, code, rc))
    if fmt == "csv":
        rows = list(csv.reader(stdout.splitlines()))
        ok(len(rows) >= 3 and rows[0][0] == "name" and rows[-1][0].startswith("# incomplete: interrupted by "
                                                                               "SIGTERM"),
           "CSV: the header first, the rows measured, a last comment line '# incomplete: ...' (%r)" %
           (rows[-1] if rows else None))
        ok(all(row[-1] == "ok" for row in rows[1:-1]), "CSV: every row written was measured (status ok)")
    else:
        ok(re.search(r"^INCOMPLETE: interrupted by SIGHUP: [0-9]+ of [0-9]+ benchmarks measured$",
                     stdout, re.M), "console: an INCOMPLETE line under the header")
        ok("skipped" not in stdout, "console: the benchmarks not run are not listed as skipped")

# ---- --self-check: its verdicts so far, and the signal's status -------------
r = Run(["--self-check"], env=env)
started = r.wait_progress(1)
r.p.send_signal(signal.SIGINT)
rc, took, stdout, err = r.finish()
if started and rc == 0:
    skip("--self-check stopped by SIGINT", "the self-check ended before the signal came")
else:
    ok(rc == 130 and re.search(r"^INCOMPLETE: interrupted by SIGINT: [0-9]+ of [0-9]+ benchmarks measured$",
                               stdout, re.M) and "not run: interrupted by SIGINT" in stdout,
       "--self-check stopped by SIGINT: exit status 130 (%s), the checks not run say so, an "
       "INCOMPLETE line" % rc)

# ---- a second signal exits at once -----------------------------------------
out2 = os.path.join(work, "twice.json")
r = Run(["--filter=^mem/", "--format=json", "--out=" + out2], env=env)
r.wait_progress(1)
# Back to back: both are pending at once, so the second is handled right
# after the first (a later one could come after the run ended).
r.p.send_signal(signal.SIGINT)
r.p.send_signal(signal.SIGTERM)
rc, took, stdout, err = r.finish()
ok(rc in (130, 143) and took < 10, "two signals: exits with 130 or 143 (got %s) and at once (%.1f s)" %
   (rc, took))
left = leftovers(work, ["r.json", "twice.json"])
ok(left == [], "two signals: no temporary file left (%s)" % left)
if os.path.exists(out2):
    with open(out2) as f:
        ok(json.load(f)["context"].get("incomplete") is True,
           "two signals: where the report was written before the second, it is whole")

# ---- an ignored SIGHUP (nohup) stays ignored --------------------------------
r = Run(["--filter=^calib/add_chain$", "--samples=5", "--format=json"], env=env, ignore=(signal.SIGHUP,))
time.sleep(0.3)
r.p.send_signal(signal.SIGHUP)
rc, took, stdout, err = r.finish()
ok(rc == 0 and '"incomplete"' not in stdout, "SIGHUP ignored by the caller (nohup): the run goes on "
   "and completes (status %s)" % rc)

# ---- --backend=sim: the valgrind child -------------------------------------
why = pmbtap.sim_unavailable()
for twice in (False, True):
    what = "sim, %s" % ("SIGTERM twice" if twice else "SIGTERM")
    if why:
        skip(what, why)
        continue
    simdir = tempfile.mkdtemp(prefix="pmb-sigsim-")
    sout = os.path.join(simdir, "sim.json")
    r = Run(["--backend=sim", "--filter=^branch/", "--format=json", "--out=" + sout],
            env=dict(os.environ, TMPDIR=simdir))
    started = r.wait_progress(2)
    r.p.send_signal(signal.SIGTERM)
    if twice:
        time.sleep(0.05)
        r.p.send_signal(signal.SIGTERM)
    rc, took, stdout, err = r.finish()
    ok(started and rc == 143, "%s: exit status 143 (got %s; %s)" % (what, rc, err[-300:]))
    time.sleep(0.2)
    ok(procs_with(sout) == [], "%s: no valgrind child left running (%s)" % (what, procs_with(sout)))
    left = leftovers(simdir, ["sim.json"])
    ok(left == [], "%s: no pmubench-sim-* folder or valgrind file left in $TMPDIR (%s)" % (what, left))
    if not twice:
        try:
            with open(sout) as f:
                sd = json.load(f)
        except (OSError, ValueError):
            sd = {}
        c = sd.get("context", {})
        ok(c.get("incomplete") is True and c.get("backend") == "sim" and 2 <= len(sd.get("benchmarks", [])),
           "%s: the child wrote what it simulated, marked incomplete (%r)" % (what, c.get("incomplete_reason")))
        ok(erased_after_progress(err), "%s: the child's progress line is erased" % what)
    else:
        ok(took < 8, "%s: ended at once (%.1f s)" % (what, took))
    for f in os.listdir(simdir):
        os.unlink(os.path.join(simdir, f))
    os.rmdir(simdir)

for f in os.listdir(work):
    os.unlink(os.path.join(work, f))
os.rmdir(work)
pmbtap.done()
