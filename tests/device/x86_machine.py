"""x86_machine.py - what x86_pmu.py reads of the machine itself, not of
pmubench: sysfs PMUs (hybrid core PMUs and their cpus), the CPU model, the
core to pin to, and why hardware counters do not work here (no PMU driver,
perf_event_paranoid, a seccomp filter, a container)."""
import os
import re

SYSFS = "/sys/bus/event_source/devices"


def num(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def cpu_list(text):
    """'0-3,8' -> [0, 1, 2, 3, 8]."""
    cpus = []
    for part in (text or "").split(","):
        if "-" in part:
            lo, hi = part.split("-")
            cpus.extend(range(int(lo), int(hi) + 1))
        elif part.strip():
            cpus.append(int(part))
    return cpus


def hybrid_pmus():
    """{sysfs PMU name: its cpus} for a hybrid CPU's core PMUs (cpu_core,
    cpu_atom); {} elsewhere."""
    found = {}
    try:
        names = os.listdir(SYSFS)
    except OSError:
        return {}
    for n in names:
        if n.startswith("cpu_"):
            cpus = read_text(os.path.join(SYSFS, n, "cpus"))
            if cpus:
                found[n] = cpu_list(cpus)
    return found if len(found) > 1 else {}


def cpu_model():
    for line in (read_text("/proc/cpuinfo") or "").splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return "unknown (no model name in /proc/cpuinfo)"


def pmu_type_of(cpu):
    """The sysfs type of the hybrid PMU owning cpu, as a string ("" if not
    hybrid), for x86_hog's extended type."""
    for name, cpus in hybrid_pmus().items():
        if cpu in cpus:
            return read_text(os.path.join(SYSFS, name, "type")) or ""
    return ""


def default_cpu():
    """The last core this process may run on (cpu 0 takes most interrupts);
    on a hybrid CPU, the last P-core."""
    allowed = sorted(os.sched_getaffinity(0))
    p = [c for c in hybrid_pmus().get("cpu_core", []) if c in allowed]
    return (p or allowed)[-1]


def container():
    """The container this runs in, or None."""
    if os.path.exists("/.dockerenv"):
        return "docker"
    if os.path.exists("/run/.containerenv"):
        return "podman"
    if os.environ.get("container"):
        return os.environ["container"]
    cg = read_text("/proc/1/cgroup") or ""
    for name in ("docker", "kubepods", "lxc", "containerd"):
        if name in cg:
            return name
    return None


def seccomp_mode():
    for line in (read_text("/proc/self/status") or "").splitlines():
        if line.startswith("Seccomp:"):
            return line.split()[1]
    return None


def hypervisor():
    """True where /proc/cpuinfo's flags include 'hypervisor' (x86 guests)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return "hypervisor" in line.split(":", 1)[1].split()
    except OSError:
        pass
    return False


def no_pmu_reason(ctx):
    """Why hardware counters do not work here, from what pmubench said
    (the errno of its failed perf_event_open) and what the machine shows:
    no PMU driver, perf_event_paranoid, a seccomp filter, a container."""
    text = " ".join(ctx.get("warnings") or []) + " " + str(ctx.get("fallback") or "")
    m = re.search(r"failed \(([^)]+)\)", text)
    err = m.group(1) if m else None
    # pmubench's words for a refusal by permission (counters_policy.c)
    denied = "not allowed to count" in text or any(
        str(e.get("not_counted") or "").startswith("not permitted") for e in ctx.get("events") or [])
    paranoid = ctx.get("perf_event_paranoid")
    where = container()
    core = [n for n in ("cpu", "cpu_core", "cpu_atom") if os.path.isdir(os.path.join(SYSFS, n))]
    if not core:
        if hypervisor():
            # The CPU says it runs under a hypervisor: the host exposes no
            # virtual PMU, whatever driver the guest's kernel has.
            why = ("no PMU: a virtual machine whose hypervisor exposes no PMU ('hypervisor' in "
                   "/proc/cpuinfo's flags; %s has no cpu PMU: software events only)" % SYSFS)
        else:
            why = ("no PMU: the kernel has no driver for this CPU's PMU (%s has no cpu PMU: "
                   "software events only)" % SYSFS)
    elif denied or err in ("Permission denied", "Operation not permitted"):
        if num(paranoid) and paranoid >= 3 and os.geteuid() != 0:
            why = ("PMU refused: perf_event_open is forbidden to this user at kernel.perf_event_paranoid=%d "
                   "(sysctl kernel.perf_event_paranoid=2 allows user-mode counting)" % paranoid)
        elif seccomp_mode() == "2":
            why = "PMU refused: perf_event_open blocked by a seccomp filter (Seccomp: 2 in /proc/self/status)"
        else:
            why = "PMU refused: perf_event_open not permitted (perf_event_paranoid %r)" % paranoid
    elif seccomp_mode() == "2":
        why = ("PMU refused?: perf_event_open failed (%s) under a seccomp filter (Seccomp: 2 in "
               "/proc/self/status), which may block it" % (err or ctx.get("fallback")))
    else:
        why = "no working PMU (%s): pmubench says %s" % (", ".join(core), ctx.get("fallback") or err)
    if where:
        why += "; in a container (%s)" % where
    return why
