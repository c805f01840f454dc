"""An aarch64 QEMU guest with a real (emulated) PMU for the hardware tests.

tests/aarch64/setup.sh builds the kernel and initramfs; this boots them and
talks to the guest's /init (tests/aarch64/init) over the serial console:

    with Guest() as g:
        r = g.run(["pmubench", "--topology"])     # a CompletedProcess
        r = g.run(["id"], user="nobody")
        r = g.sh("cat /proc/cpuinfo")
"""
import base64
import os
import re
import select
import shlex
import shutil
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE_ROOT = os.environ.get("PMB_SOURCE_ROOT") or os.path.dirname(HERE)
BUILD = os.environ.get("PMB_AARCH64_BUILD") or os.path.join(SOURCE_ROOT, "build-aarch64")
GUEST_DIR = os.path.join(BUILD, "guest")
KERNEL = os.path.join(GUEST_DIR, "vmlinuz")
INITRD = os.path.join(GUEST_DIR, "initramfs.cpio")
QEMU = "qemu-system-aarch64"
GUEST_PATH = "/pmb:/pmb/tests:/bin:/sbin:/usr/bin:/usr/sbin"
EVENTS_DIR = "/pmb/events"
# Never handed to the guest: they name host paths or drive the test rig.
HOST_ONLY = re.compile(r"PATH$|PMUBENCH$|PMUBENCH_EVENTS_DIR$|PMB_")


class GuestError(RuntimeError):
    """The guest did not boot, died, or garbled a reply."""


def available():
    """(True, "") when QEMU, the kernel and the initramfs are there, else
    (False, why)."""
    if not shutil.which(QEMU):
        return False, QEMU + " is not installed (run tests/aarch64/setup.sh)"
    for f in (KERNEL, INITRD):
        if not os.path.isfile(f):
            return False, f + " is missing (run tests/aarch64/setup.sh)"
    return True, ""


def guest_env(env):
    """The variables of env (None: os.environ) the guest gets: those that
    differ from os.environ, and any LIBPFM_*/HWLOC_*; never a host path or
    the rig's own PMB_* settings."""
    env = os.environ if env is None else env
    return {k: v for k, v in env.items()
            if (os.environ.get(k) != v or k.startswith(("LIBPFM_", "HWLOC_")))
            and not HOST_ONLY.match(k)}


class Guest:
    # One vCPU by default: under -icount, TCG runs all vCPUs on one
    # instruction count, so a PMU counter of one vCPU also counts what the
    # others execute (with -smp 2 the other CPU's timer interrupts came out
    # as ~2400 "user" instructions in half the samples); with one, exact.
    def __init__(self, cpu="cortex-a57", smp=1, mem=1024, append="", boot_timeout=60):
        ok, why = available()
        if not ok:
            raise GuestError(why)
        # -icount shift=0: one instruction per virtual ns, which QEMU's PMU
        # model needs to count instructions (exactly) at all.  Not
        # sleep=off: it would skip the guest's idle time (every pmubench
        # run's 100 ms look at the other cores' load), but an idle guest
        # then races its clock through its timers, 0.46 CPU s per second
        # that it waits for the host (for the other guest, say), where
        # sleep=on costs 0.01 (issue 29).
        self.cmd = [QEMU, "-M", "virt", "-cpu", cpu, "-smp", str(smp), "-m", str(mem),
                    "-accel", "tcg", "-icount", "shift=0",
                    "-nodefaults", "-display", "none", "-monitor", "none", "-serial", "stdio",
                    "-kernel", KERNEL, "-initrd", INITRD,
                    "-append", ("console=ttyAMA0 rdinit=/init quiet loglevel=0 " + append).strip()]
        # QEMU's own messages join the console stream: replies are read only
        # between markers, and an error shows the tail of everything.
        self._p = subprocess.Popen(self.cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                   stderr=subprocess.STDOUT)
        self._buf = bytearray()
        self._n = 0
        t0 = time.monotonic()
        try:
            self._wait(re.compile(rb"@@PMB-READY\r?\n"), b"@@PMB-READY", boot_timeout, "boot")
        except subprocess.TimeoutExpired:
            raise GuestError("the guest did not come up within %gs (%s); console tail:\n%s"
                             % (boot_timeout, " ".join(self.cmd), self._tail())) from None
        self.boot_seconds = time.monotonic() - t0

    # ---- console -----------------------------------------------------------
    def _tail(self):
        return self._buf[-2000:].decode("utf-8", "replace")

    def _wait(self, pattern, last, timeout, what):
        """Read the console until pattern, which ends with a line starting
        with the bytes last, matches; the match.  Kills the guest on timeout
        (raising subprocess.TimeoutExpired) or when QEMU exits (GuestError),
        with the console's tail."""
        end = time.monotonic() + timeout
        fd = self._p.stdout.fileno()
        start = 0   # the regex runs only once last came: a big reply stays linear
        while True:
            at = self._buf.find(last, start)
            if at < 0:
                start = max(0, len(self._buf) - len(last) + 1)
            else:
                start = at
                if self._buf.find(b"\n", at) >= 0:
                    m = pattern.search(self._buf)
                    if m:
                        return m
                    start = at + 1
            left = end - time.monotonic()
            if left <= 0:
                self.kill()
                raise subprocess.TimeoutExpired(what, timeout, output=self._tail())
            if select.select([fd], [], [], min(left, 1.0))[0]:
                data = os.read(fd, 65536)
                if not data:
                    self._p.wait()
                    raise GuestError("QEMU exited (%s) during %s; console tail:\n%s"
                                     % (self._p.returncode, what, self._tail()))
                self._buf += data

    def alive(self):
        return self._p.poll() is None

    def sh(self, script, timeout=300):
        """Run a sh script as root in the guest (cwd /tmp, stdin /dev/null);
        CompletedProcess(script, returncode, stdout, stderr) as text."""
        if not self.alive():
            raise GuestError("the guest is not running; console tail:\n" + self._tail())
        self._n += 1
        n = self._n
        self._buf = bytearray()     # what came before this request is no reply to it
        req = base64.b64encode(script.encode()).decode()
        try:
            self._p.stdin.write(("%d %s\n" % (n, req)).encode())
            self._p.stdin.flush()
        except BrokenPipeError:
            raise GuestError("QEMU closed its console; tail:\n" + self._tail()) from None
        m = self._wait(re.compile(rb"@@PMB-BEGIN %d\r?\n(.*?)@@PMB-ERR %d\r?\n(.*?)"
                                  rb"@@PMB-END %d (\d+) (\d+) (\d+)\r?\n" % (n, n, n), re.S),
                       b"@@PMB-END %d " % n, timeout, script)
        rc, out, err = int(m.group(3)), self._decode(m.group(1), int(m.group(4))), \
            self._decode(m.group(2), int(m.group(5)))
        del self._buf[:m.end()]     # (the match reads the buffer: used it first)
        return subprocess.CompletedProcess(script, rc, out, err)

    def _decode(self, block, size):
        # Only whole base64 lines count: anything else is console noise.
        lines = [l.strip() for l in block.split(b"\n")]
        data = base64.b64decode(b"".join(l for l in lines if re.fullmatch(rb"[A-Za-z0-9+/=]+", l)))
        if len(data) != size:
            raise GuestError("garbled reply (%d bytes, %d expected); console:\n%s"
                             % (len(data), size, block[-2000:].decode("ascii", "replace")))
        return data.decode("utf-8", "replace")

    def run(self, argv, env=None, user=None, timeout=300):
        """Run argv (argv[0] "pmubench" is the guest's /pmb/pmubench) with
        only env's variables added to PATH and PMUBENCH_EVENTS_DIR, as root
        or as user (e.g. "nobody"); a CompletedProcess with argv as args."""
        argv = list(argv)
        prog = ["/pmb/pmubench" if argv[0] == "pmubench" else argv[0]]
        fixed = {"PATH": GUEST_PATH, "PMUBENCH_EVENTS_DIR": EVENTS_DIR, "HOME": "/tmp"}
        cmd = " ".join(shlex.quote(w) for w in
                       ["env", "-i"] + ["%s=%s" % kv for kv in {**fixed, **(env or {})}.items()]
                       + prog + argv[1:])
        if user not in (None, "root"):
            # busybox su: root needs no password; -s since nobody has no shell.
            cmd = "su -s /bin/sh %s -c %s" % (shlex.quote(user), shlex.quote(cmd))
        r = self.sh("exec " + cmd, timeout=timeout)
        return subprocess.CompletedProcess(argv, r.returncode, r.stdout, r.stderr)

    # ---- shutdown ----------------------------------------------------------
    def kill(self):
        if self.alive():
            self._p.kill()
        self._p.wait()

    def close(self, timeout=30):
        """Power the guest off (killing QEMU if it does not stop)."""
        if self.alive():
            try:
                self._p.stdin.write(b"exit\n")
                self._p.stdin.flush()
                self._p.wait(timeout)
            except (BrokenPipeError, subprocess.TimeoutExpired):
                self.kill()
        for f in (self._p.stdin, self._p.stdout):
            f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
