#!/usr/bin/env python3
"""test_slurm.py - `pmubench fleet --submit` on a real Slurm (issue 31,
point 3): munged, slurmctld and slurmd from Debian 12 (installed where
missing), started on loopback with a generated slurm.conf in a temporary
folder (one node, this machine, 2 CPUs), the fleet's job array (each task
placed on its node of --nodelist) and merge step submitted, waited for, and the merged report read back as JSON.  Of
three tasks, the node runs one after another: the last is cancelled
before it starts, the second a second into its run (SIGTERM, as at a time
limit); the merge (--fleet) must name both missing by their node and task,
with their reasons and Slurm's state of them, while the first stands.  Every daemon this test started is
stopped, and its folder removed; where the packages cannot be installed
(not root, no network) or the daemons do not come up, it skips with the
reason."""
import json
import re
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

from pmbtap import diag, done, ok, require_pmubench

require_pmubench()
PMB = os.environ["PMUBENCH"]
PACKAGES = {"munged": "munge", "slurmctld": "slurmctld", "slurmd": "slurmd", "sbatch": "slurm-client"}
SBIN = ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
# The whole test, daemons up to merge read, stays well under a minute here.
WAIT_S = 60


def skip_all(reason):
    print("1..0 # SKIP " + reason)
    sys.exit(0)


def which(prog):
    return shutil.which(prog, path=os.pathsep.join([os.environ.get("PATH", "")] + SBIN))


def install():
    """The programs this test needs, installed with apt-get where missing;
    None, or why they cannot be had."""
    missing = sorted({pkg for prog, pkg in PACKAGES.items() if not which(prog)})
    if not missing:
        return None
    if os.geteuid() != 0:
        return "not root, and %s not installed (apt-get install %s)" % (", ".join(missing), " ".join(missing))
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    r = subprocess.run(["apt-get", "install", "-y", "--no-install-recommends", *missing],
                       capture_output=True, text=True, env=env, timeout=600)
    if r.returncode != 0 or any(not which(p) for p in PACKAGES):
        return "apt-get install %s failed: %s" % (" ".join(missing), (r.stderr or r.stdout).strip()[-300:])
    return None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SLURM_CONF = """ClusterName=pmbtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort={ctld_port}
SlurmdPort={slurmd_port}
SlurmUser={user}
AuthType=auth/munge
AuthInfo=socket={t}/munge.sock
CredType=cred/munge
StateSaveLocation={t}/state
SlurmdSpoolDir={t}/spool
SlurmctldPidFile={t}/slurmctld.pid
SlurmdPidFile={t}/slurmd.pid
SlurmctldLogFile={t}/slurmctld.log
SlurmdLogFile={t}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
NodeName=n1 NodeAddr=127.0.0.1 NodeHostname={host} CPUs=2 State=UNKNOWN
PartitionName=test Nodes=n1 Default=YES MaxTime=INFINITE State=UP
"""


class Cluster:
    """munged, slurmctld and slurmd in the foreground, as children of this
    test, all of their files in one temporary folder."""

    def __init__(self):
        self.t = tempfile.mkdtemp(prefix="pmb-slurm-")
        self.procs = []
        self.env = dict(os.environ, SLURM_CONF=os.path.join(self.t, "slurm.conf"))

    def start(self):
        """None, or why the cluster did not come up."""
        t = self.t
        for d in ("state", "spool"):
            os.mkdir(os.path.join(t, d))
        key = os.path.join(t, "munge.key")
        r = subprocess.run([which("mungekey") or "mungekey", "--create", "--keyfile=" + key],
                           capture_output=True, text=True)
        if r.returncode != 0:
            return "mungekey failed: " + r.stderr.strip()
        os.chmod(key, 0o600)
        with open(self.env["SLURM_CONF"], "w") as f:
            f.write(SLURM_CONF.format(t=t, ctld_port=free_port(), slurmd_port=free_port(),
                                      user=os.environ.get("USER") or "root", host=socket.gethostname()))
        self.spawn([which("munged"), "-F", "--force", "--key-file=" + key, "--socket=" + t + "/munge.sock",
                    "--pid-file=" + t + "/munged.pid", "--log-file=" + t + "/munged.log",
                    "--seed-file=" + t + "/munge.seed"])
        if not self.wait(lambda: os.path.exists(t + "/munge.sock"), 10):
            return "munged did not start: " + self.log("munged.log")
        self.spawn([which("slurmctld"), "-D", "-f", self.env["SLURM_CONF"]])
        self.spawn([which("slurmd"), "-D", "-N", "n1", "-f", self.env["SLURM_CONF"]])
        if not self.wait(self.idle, 30):
            return "slurmctld and slurmd did not bring node n1 up: " + self.log("slurmctld.log")
        return None

    def spawn(self, argv):
        self.procs.append(subprocess.Popen(argv, env=self.env, stdout=subprocess.DEVNULL,
                                           stderr=subprocess.DEVNULL))

    def log(self, name):
        try:
            return open(os.path.join(self.t, name)).read().strip()[-400:]
        except OSError as e:
            return str(e)

    def idle(self):
        r = subprocess.run(["sinfo", "-h", "-n", "n1", "-o", "%T"], capture_output=True, text=True, env=self.env)
        return r.returncode == 0 and r.stdout.strip() == "idle"

    def state(self, job):
        r = subprocess.run(["squeue", "-h", "-j", job, "-o", "%T"], capture_output=True, text=True, env=self.env)
        return r.stdout.strip()

    def queue_empty(self):
        r = subprocess.run(["squeue", "-h"], capture_output=True, text=True, env=self.env)
        return r.returncode == 0 and not r.stdout.strip()

    @staticmethod
    def wait(cond, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if cond():
                return True
            time.sleep(0.3)
        return cond()

    def stop(self):
        """Every job cancelled, every daemon this test started stopped, the
        folder removed."""
        if self.procs:
            subprocess.run(["scancel", "--full", "-u", str(os.getuid())], env=self.env,
                           capture_output=True)
        for p in reversed(self.procs):
            p.terminate()
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        shutil.rmtree(self.t, ignore_errors=True)


def check_merge(merged, names, jobdir):
    ok(merged is not None, "the merge step wrote %s/merged.json as JSON" % jobdir)
    if merged is None:
        return
    ok(merged["merge_schema"] == 1 and merged["baseline"] == "A", "merge_schema 1, baseline group A")
    groups = merged["groups"]
    files = [os.path.basename(h["file"]) for g in groups for h in g["hosts"]]
    ok(len(groups) == 1 and groups[0]["counting"] == "simulated" and len(files) == 1 and
       re.fullmatch(r"n1(\.[01])?\.json", files[0]),
       "one host group holding the task that ran to its end, its file named by the Slurm node "
       "(n1.json; a second task on one node n1.TASK.json): %s" %
       [(g["label"], g["cpu"], [h["file"] for h in g["hosts"]]) for g in groups])
    missing = {x.get("task"): x for x in merged["missing"]}
    stopped = [x for t, x in missing.items() if t in (0, 1) and x["node"] == "n1" and
               re.fullmatch(r"n1(\.[01])?\.json", os.path.basename(x["file"] or "")) and
               "SIGTERM" in x["reason"] and x["reason"].endswith("; Slurm: CANCELLED, cancelled")]
    ok(len(missing) == 2 and len(stopped) == 1 and os.path.basename(stopped[0]["file"]) not in files,
       "the task cancelled as it ran named missing by its node and task, stopped by SIGTERM, Slurm's state "
       "CANCELLED: %s" % merged["missing"])
    ok(missing.get(2) == {"file": None, "node": "n1", "task": 2,
                          "reason": "no file: the task never ran pmubench; Slurm: CANCELLED, cancelled"},
       "the task cancelled before it started named missing by its node, with Slurm's state: %s" % missing.get(2))
    ok([b["name"] for b in merged["benchmarks"]] == names,
       "the benchmarks the run was given, and only they: %s" % [b["name"] for b in merged["benchmarks"]])
    for b in merged["benchmarks"]:
        cell = b["figures"].get("instructions_per_item", {}).get("A")
        want = 1 if b["name"] == "calib/add_chain" else 4
        ok(cell and cell["value"] == want and cell["hosts"] == 1 and cell["ratio"] == 1 and
           cell["counting"] == "simulated",
           "%s: simulated instructions per item %s, ratio 1 to itself: %s"
           % (b["name"], want, cell))


def main():
    if not which("valgrind"):
        skip_all("valgrind is not installed: the fleet's run is --backend=sim, for exact counts")
    why = install()
    if why:
        skip_all(why)
    c = Cluster()
    try:
        why = c.start()
        if why:
            c.stop()
            skip_all(why)
        jobdir = os.path.join(c.t, "fleet")
        names = ["calib/add_chain", "calib/add_chain4"]
        # --samples=300: a task lasts seconds under sim (here 0.9 s with the
        # default samples, about 5 s with these), so that the one cancelled below
        # is cancelled while it measures, not after it wrote its file.
        r = subprocess.run([PMB, "fleet", "--nodelist=n1,n1,n1", "--dir=" + jobdir, "--time=5", "--submit", "--",
                            "--backend=sim", "--filter=^calib/(add_chain|add_chain4)$", "--samples=300"],
                           capture_output=True, text=True, env=c.env, timeout=60)
        ok(r.returncode == 0 and "submitted job array" in r.stdout,
           "fleet --submit: exit %d, %s" % (r.returncode, (r.stdout + r.stderr).strip()))
        array = r.stdout.split()[3] if r.returncode == 0 else "0"
        # --nodelist: the array submitted held, each task given its node
        # (scontrol update), released.  One node runs the three exclusive
        # tasks one after the other: the
        # last is still pending, and cancelled so; the second is cancelled
        # a second into its run, as a time limit stops it (SIGTERM).
        subprocess.run(["scancel", array + "_2"], env=c.env, capture_output=True)
        # Which of tasks 0 and 1 runs first is Slurm's choice once they
        # are placed: the second to run is cancelled a second into its run.
        c.wait(lambda: c.state(array + "_0") == "RUNNING" or c.state(array + "_1") == "RUNNING", WAIT_S / 2)
        second = array + ("_1" if c.state(array + "_0") == "RUNNING" else "_0")
        running = c.wait(lambda: c.state(second) == "RUNNING", WAIT_S / 2)
        # Cancelled once its pmubench runs under valgrind (its command line
        # names the fleet's folder): measuring, its file not yet written.
        measuring = c.wait(lambda: subprocess.run(["pgrep", "-f", "valgrind.*" + re.escape(jobdir)],
                                                  capture_output=True).returncode == 0, WAIT_S / 2)
        time.sleep(0.5)
        subprocess.run(["scancel", second], env=c.env, capture_output=True)
        if not measuring:
            diag("the second task's valgrind was not seen running before it was cancelled")
        ok(running, "the second task to run (%s) ran, and was cancelled while it ran" % second)
        done_ = c.wait(lambda: c.queue_empty() and os.path.exists(jobdir + "/merged.txt"), WAIT_S)
        ok(done_, "the array and the merge step ended within %d s" % WAIT_S)
        try:
            merged = json.load(open(jobdir + "/merged.json"))
        except (OSError, ValueError) as e:
            diag("merged.json: %s; slurmctld.log: %s" % (e, c.log("slurmctld.log")))
            merged = None
        check_merge(merged, names, jobdir)
        for f in sorted(os.listdir(jobdir)) if os.path.isdir(jobdir) else []:
            if f.startswith("slurm-") and os.path.getsize(os.path.join(jobdir, f)):
                diag("%s: %s" % (f, open(os.path.join(jobdir, f)).read()[-600:]))
    finally:
        c.stop()
    left = [p.pid for p in c.procs if p.poll() is None]
    ok(not left and not os.path.exists(c.t), "every daemon started stopped (%s), its folder removed" % left)
    done()


main()
