"""TAP for the python tests: test points, skips, the plan, and helpers the
CLI tests share (the pmubench under test, the idlest core, what an emulated
or foreign-architecture pmubench cannot show)."""
import json
import os
import re
import shutil
import subprocess
import sys
import time

PMB = os.environ.get("PMUBENCH")
_n = 0
_failed = 0


def ok(cond, what):
    """One test point: "ok N - what" or "not ok N - what"."""
    global _n, _failed
    _n += 1
    # One line per point: a message quoting program output must not break
    # the TAP stream.
    what = str(what).replace("\n", "\\n")
    print(("ok %d - %s" if cond else "not ok %d - %s") % (_n, what))
    if not cond:
        _failed += 1
    return cond


def skip(what, reason):
    """A test point that cannot run here, with the reason."""
    global _n
    _n += 1
    print("ok %d - %s # SKIP %s" % (_n, what, reason))


def unwrapped(text):
    """text with each wrapped line's further lines (pmubench indents them
    by 4: its notes) joined back onto it, for reading line by line."""
    return re.sub(r"\n    (?=\S)", " ", text)


def diag(text):
    """Diagnostic lines."""
    for line in str(text).splitlines():
        print("# " + line)


def count():
    """Test points so far, and how many failed."""
    return _n, _failed


_guest = None


def guest():
    """The aarch64 guest whose -cpu $PMB_GUEST names (booted once, powered
    off at exit; see tests/aarch64/README), for tests that drive it beyond
    run(): sysctl, another process, another user (one vCPU: see
    pmbguest.Guest)."""
    global _guest
    import atexit
    import pmbguest
    if _guest is None or not _guest.alive():
        if _guest is None:
            atexit.register(lambda: _guest and _guest.close())
        _guest = pmbguest.Guest(cpu=os.environ["PMB_GUEST"])
    return _guest


def _in_guest(args, env, timeout, user=None):
    import pmbguest
    r = guest().run(["pmubench", *args], env=pmbguest.guest_env(env), user=user, timeout=timeout)
    return subprocess.CompletedProcess([PMB, *args], r.returncode, r.stdout, r.stderr)


def run(*args, env=None, timeout=300, user=None):
    """Run the pmubench under test; its CompletedProcess (text).  user
    (e.g. "nobody") only in the guest, where root may become anyone."""
    if os.environ.get("PMB_GUEST"):
        return _in_guest(args, env, timeout, user)
    assert user is None, "run(user=) needs the guest (PMB_GUEST)"
    return subprocess.run([PMB, *args], capture_output=True, text=True, timeout=timeout, env=env)


def instances(pattern, n=None):
    """The first n (None: all) benchmark names of --list matching the
    regex pattern: sweep points are named after this machine's caches
    (4KiB here, 6KiB there), so a test picks them rather than names them."""
    r = run("--list", "--filter=" + pattern)
    names = r.stdout.split() if r.returncode == 0 else []
    return names[:n] if n is not None else names


def exact_filter(names):
    """A --filter matching exactly these names."""
    return "^(%s)$" % "|".join(re.escape(x) for x in names)


def run_json(*args, env=None):
    """Run with --format=json: (CompletedProcess, parsed JSON or None)."""
    r = run(*args, "--format=json", env=env)
    try:
        return r, json.loads(r.stdout)
    except ValueError:
        return r, None


def on_pty(argv, env=None, winsize=None, stop_at=None, timeout=60):
    """argv with stderr on a pseudo-terminal (of winsize columns, if
    given), stdout discarded: (what the terminal got, exit status).
    stop_at: SIGINT once the terminal shows that text."""
    import fcntl
    import pty
    import select
    import signal
    import struct
    import termios
    master, slave = pty.openpty()
    if winsize:
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, winsize, 0, 0))
    p = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=slave, env=env)
    os.close(slave)
    got, sent = b"", False
    while select.select([master], [], [], timeout)[0]:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        got += chunk
        if stop_at and not sent and stop_at in got:
            p.send_signal(signal.SIGINT)
            sent = True
    os.close(master)
    return got, p.wait(timeout=timeout)


def wants(part):
    """Whether to run this part of a test file: the parts named on its
    command line, or every part where none is (tests/meson.build runs a
    file's "timing" part alone, after the rest, and its other part beside
    the other tests)."""
    return not sys.argv[1:] or part in sys.argv[1:]


def ab_target():
    """The built tests/ab_target for ab's tests, or the whole test skipped
    (exit) where it is not set or ab cannot start it (an emulated build)."""
    target = os.environ.get("PMB_AB_TARGET")
    if not target or not os.access(target, os.X_OK):
        print("1..0 # SKIP $PMB_AB_TARGET is not set to the built tests/ab_target")
        raise SystemExit(0)
    if emulator():
        print("1..0 # SKIP ab starts its sides as programs; under %s a child "
              "program of another architecture needs binfmt_misc" % emulator())
        raise SystemExit(0)
    return target


def done():
    """Print the plan and exit 1 if any point failed."""
    print("1..%d" % _n)
    sys.exit(1 if _failed else 0)


def require_pmubench():
    """Skip the whole file when $PMUBENCH is not the built pmubench."""
    if not PMB or not os.access(PMB, os.X_OK):
        print("1..0 # SKIP $PMUBENCH is not set to the built pmubench")
        sys.exit(0)


def emulator():
    """The emulator the pmubench under test runs under ($PMB_EXE_WRAPPER,
    which tests/meson.build sets in a cross build: qemu-user), or None."""
    return os.environ.get("PMB_EXE_WRAPPER") or None


def emulated_timing():
    """Why time and estimated cycles mean nothing here (a skip reason), or
    None: under an emulator they are the emulator's, not the CPU's."""
    e = emulator()
    if not e:
        return None
    return "timing under emulation (%s) is not the CPU's" % os.path.basename(e.split()[0])


def binary():
    """The pmubench executable itself: $PMB_PMUBENCH_BINARY where $PMUBENCH
    is the cross build's wrapper script, else $PMUBENCH."""
    return os.environ.get("PMB_PMUBENCH_BINARY") or PMB


# ELF e_machine values of the architectures pmubench builds for.
_ELF_MACHINES = {3: "i386", 40: "arm", 62: "x86-64", 183: "aarch64", 243: "riscv"}


def binary_arch():
    """The architecture binary() is built for, from its ELF header
    ("x86-64", "aarch64", ...); None when it is not an ELF file."""
    try:
        with open(binary(), "rb") as f:
            h = f.read(20)
    except (OSError, TypeError):
        return None
    if len(h) < 20 or h[:4] != b"\x7fELF":
        return None
    m = int.from_bytes(h[18:20], "little" if h[5] == 1 else "big")
    return _ELF_MACHINES.get(m, "ELF machine %d" % m)


def sim_unavailable():
    """Why --backend=sim cannot run here (a skip reason), or None.  Asks
    valgrind itself to run binary() under callgrind: an x86-64 valgrind has
    no tools for the aarch64 pmubench of a cross build under qemu-user.
    The answer is kept in $TMPDIR for this valgrind and this binary (their
    paths, sizes, times and inodes): about 20 tests ask, and each probe cost
    0.4 CPU s here (issue 29)."""
    vg = shutil.which("valgrind")
    if not vg:
        return "valgrind is not in PATH"
    try:
        key = []
        for f in (os.path.realpath(vg), os.path.realpath(binary())):
            st = os.stat(f)
            key.append("%s %d %d %d" % (f, st.st_size, st.st_mtime_ns, st.st_ino))
    except (OSError, TypeError):
        key = None
    cache = None
    if key:
        import hashlib
        import tempfile
        cache = os.path.join(tempfile.gettempdir(), "pmb-sim-probe-%s.txt"
                             % hashlib.sha1("\n".join(key).encode()).hexdigest()[:16])
        try:
            with open(cache) as f:
                text = f.read()
            if text.startswith("ok\n") or text.startswith("no\n"):
                return None if text.startswith("ok\n") else text[3:].strip()
        except OSError:
            pass
    try:
        r = subprocess.run([vg, "--tool=callgrind", "-q", "--callgrind-out-file=/dev/null",
                            binary(), "--version"], capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.SubprocessError):
        return None   # the test's own runs will say what is wrong (not kept)
    m = re.search(r"failed to start tool '([^']+)' for platform '([^']+)'", r.stderr)
    why = "valgrind here has no %s tool for %s, pmubench's platform" % (m.group(1), m.group(2)) if m else None
    if cache:
        # Written whole, then renamed: tests beside this one read it.
        tmp = "%s.%d" % (cache, os.getpid())
        try:
            with open(tmp, "w") as f:
                f.write("no\n%s\n" % why if why else "ok\n")
            os.replace(tmp, cache)
        except OSError:
            pass
    return why


def idle_share(cpu, seconds=1.0):
    """The share of the last `seconds` core cpu spent idle (/proc/stat),
    None if it cannot tell: what the machine does now, where the load
    average still holds the last minute's."""
    def snap():
        try:
            with open("/proc/stat") as f:
                for line in f:
                    if line.startswith("cpu%d " % cpu):
                        v = [int(x) for x in line.split()[1:]]
                        return v[3] + (v[4] if len(v) > 4 else 0), sum(v)
        except OSError:
            pass
        return None
    a = snap()
    time.sleep(seconds)
    b = snap()
    if not a or not b or b[1] <= a[1]:
        return None
    return (b[0] - a[0]) / (b[1] - a[1])


def _machine_busy_s():
    """Seconds all cores together spent on anything but idling, the host's
    steal included (/proc/stat's first line); None if it cannot tell."""
    try:
        with open("/proc/stat") as f:
            v = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    # user nice system idle iowait irq softirq steal (guest is inside user)
    return (sum(v[:8]) - v[3] - v[4]) / os.sysconf("SC_CLK_TCK")


def _ours_s():
    """CPU seconds of this process and its children that have ended."""
    import resource
    return sum(resource.getrusage(w).ru_utime + resource.getrusage(w).ru_stime
               for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))


class Load:
    """What else the machine did while a timed run ran: a timing test's
    figures are judged only where it did (next to) nothing else, and
    otherwise skip, saying what was measured (issue 29: "the machine was
    too busy to judge" is not "the figure is wrong").

        with pmbtap.Load() as load:
            r = run(...)
        if load.busy:
            skip(what, load.why)

    other: the share of the machine's cores that work other than this test
    and its children took over the run (steal time included).  Busy from
    BUSY: the bound test_figures uses for its core (90 % idle), here for
    the whole machine, since on a VM the other core may be the same
    physical core's sibling."""
    BUSY = 0.10

    def __enter__(self):
        self.t0, self.b0, self.o0 = time.monotonic(), _machine_busy_s(), _ours_s()
        return self

    def __exit__(self, *exc):
        wall = time.monotonic() - self.t0
        b1, ncpu = _machine_busy_s(), os.cpu_count() or 1
        self.load = os.getloadavg()[0]
        if self.b0 is None or b1 is None or wall <= 0:
            self.other = None
        else:
            self.other = max(0.0, (b1 - self.b0) - (_ours_s() - self.o0)) / (wall * ncpu)
        self.busy = self.other is None or self.other > self.BUSY
        self.why = ("the machine was too busy to judge: other work took %s of its %d cores over "
                    "the %.0f s run (load average %.1f); figures are judged below %.0f %%"
                    % ("%.0f %%" % (100 * self.other) if self.other is not None else "an unknown share",
                       ncpu, wall, self.load, 100 * self.BUSY))
        self.said = ("other work took %.0f %% of the %d cores over the %.0f s run, load average %.1f"
                     % (100 * (self.other or 0), ncpu, wall, self.load))
        return False


def idlest_cpu():
    """The core with the most idle time over a short look at /proc/stat
    (as pmubench's busy-core warning advises); None if it cannot tell."""
    def snap():
        d = {}
        try:
            with open("/proc/stat") as f:
                for line in f:
                    m = re.match(r"cpu([0-9]+)\s+(.*)", line)
                    if m:
                        v = [int(x) for x in m.group(2).split()]
                        d[int(m.group(1))] = (v[3] + (v[4] if len(v) > 4 else 0), sum(v))
        except OSError:
            pass
        return d
    a = snap()
    time.sleep(0.3)
    b = snap()
    allowed = os.sched_getaffinity(0)
    cpus = [c for c in b if c in a and c in allowed]
    if not cpus:
        return None
    return max(cpus, key=lambda c: ((b[c][0] - a[c][0]) / max(1, b[c][1] - a[c][1]), -c))
