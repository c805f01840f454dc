#!/usr/bin/env python3
"""README's commands, run as its reader runs them: from a fresh copy of
the tree (its files, no build), in one shell's order, exports carried from
one command to the next, $HOME a folder of the test's own.  The quick
start is checked for form and its set-up (tests/setup.sh, which installs
nothing where every package is there) run for real; then every command of
every other ```sh block, extracted from README.md (not copied here), so a
README edit that breaks a command fails this test: the user-prefix install
after the quick start's build/ (nothing installed outside $HOME), the
user's C and C++ benchmark (README's ```c block) built against the
installed library and run, --disasm with source lines, the --load plugin,
ab and compare; then test_install.py's checks of the installed tree on
that install (its DESTDIR staging by a second `meson install`).  A
measuring run gets --samples=3 --min-sample-time=100us
appended, ab --time-limit=3s: the commands' options, files and exit
status are tested, not their speed."""
import os
import re
import shutil
import subprocess
import tempfile
import time

from pmbtap import diag, done, emulator, ok, sim_unavailable, skip
import test_install

SRC = os.environ.get("PMB_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
QUICK = " --samples=3 --min-sample-time=100us"
AB_QUICK = " --time-limit=3s"
QUICK_START = ["sh tests/setup.sh && build/src/pmubench",
               "sh tests/setup.sh && meson test -C build --print-errorlogs"]


def sections(text):
    """[(title, [(lang, code)])] of README's "## " sections, in order."""
    out = []
    for part in re.split(r"^## ", text, flags=re.M)[1:]:
        title = part.split("\n", 1)[0].strip()
        blocks = re.findall(r"^```(\w*)\n(.*?)^```$", part, re.S | re.M)
        out.append((title, blocks))
    return out


def commands(code):
    """The commands of a sh block: continuation lines joined, a comment
    (" # " to the end of the line) dropped."""
    lines = code.replace("\\\n", " ").splitlines()
    return [" ".join(re.sub(r"\s+#\s.*$", "", x).split()) for x in lines if x.strip() and not x.startswith("#")]


def quick(cmd):
    """cmd, made quick where it measures: pmubench (the build's, the
    installed, the user's program) without a subcommand and a listing."""
    words = cmd.split()
    prog = os.path.basename(words[0])
    if prog not in ("pmubench",) and not prog.startswith("my_bench"):
        return cmd
    if len(words) > 1 and words[1] == "ab":
        return cmd + AB_QUICK
    if len(words) > 1 and words[1] in ("compare", "report"):
        return cmd
    if any(w.startswith(("--list", "--topology", "--backend=sim")) for w in words[1:]):
        return cmd
    return cmd + QUICK


def fresh_copy(dest):
    """The tree's files as a clone has them (git's list where there is one),
    without build outputs."""
    r = subprocess.run(["git", "-C", SRC, "ls-files", "-co", "--exclude-standard", "-z"],
                       capture_output=True, text=True)
    if r.returncode == 0 and r.stdout:
        for rel in r.stdout.split("\0"):
            if not rel or not os.path.isfile(os.path.join(SRC, rel)):
                continue
            os.makedirs(os.path.dirname(os.path.join(dest, rel)), exist_ok=True)
            shutil.copy2(os.path.join(SRC, rel), os.path.join(dest, rel))
    else:
        shutil.copytree(SRC, dest, ignore=shutil.ignore_patterns("build*", ".git"), dirs_exist_ok=True)


def missing_packages(tree):
    """setup.sh's packages not installed here (it would install them)."""
    text = open(os.path.join(tree, "tests", "setup.sh")).read()
    m = re.search(r"^for pkg in (.*?); do$", text, re.S | re.M)
    pkgs = m.group(1).replace("\\\n", " ").split() if m else []
    arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True, text=True).stdout.strip()
    lack = []
    for p in pkgs:
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status} ${Architecture}\n", p], capture_output=True, text=True)
        if not re.search(r"^install ok installed (%s|all)$" % re.escape(arch), r.stdout, re.M):
            lack.append(p)
    return lack if pkgs else ["(no package list found in tests/setup.sh)"]


class Shell:
    """One reader's shell: each command runs in bash with the exports of
    the commands before it."""

    def __init__(self, cwd, home, user=()):
        self.cwd, self.envfile, self.user = cwd, os.path.join(home, ".readme-env"), list(user)
        self.env = {k: v for k, v in os.environ.items()
                    if k in ("PATH", "LANG", "LC_ALL", "TERM", "TMPDIR", "USER", "LOGNAME")}
        self.env["HOME"] = home
        open(self.envfile, "w").close()
        if self.user:
            os.chown(self.envfile, 65534, 65534)

    def run(self, cmd, timeout=600):
        script = 'source "$PMB_README_ENV"\n%s\nrc=$?\nexport -p > "$PMB_README_ENV"\nexit $rc\n' % cmd
        t = time.monotonic()
        r = subprocess.run(self.user + ["bash", "-c", script], capture_output=True, text=True, cwd=self.cwd, timeout=timeout,
                           env=dict(self.env, PMB_README_ENV=self.envfile))
        return r, time.monotonic() - t


def last(text):
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return lines[-1] if lines else ""


def check_form(secs):
    titles = [t for t, _ in secs]
    ok(titles and titles[0].startswith("Quick start"), "README's first section is the quick start: %s" % titles[:1])
    qs = [c for lang, c in secs[0][1] if lang == "sh"] if secs else []
    ok([c.strip() for c in qs] == QUICK_START,
       "the quick start is exactly two commands, the set-up then pmubench, the set-up then the tests: %s" % qs)
    want = ["Everyday use", "Reading the report", "Your own benchmark", "Comparing builds", "On many machines",
            "Where to read more"]
    ok(all(w in titles for w in want), "README has the user's sections %s (has %s)" % (want, titles))


def check_example_report(text):
    """The report shown is the golden test's file, as far as it is shown."""
    m = re.search(r"`(COLUMNS=80 build/src/pmubench --backend=sim[^`]*)`.*?\n```\n(.*?)^```$", text, re.S | re.M)
    golden = open(os.path.join(SRC, "tests", "golden", "refs.w80.console")).read().splitlines()
    shown = m.group(2).splitlines() if m else []
    ok(m and shown and shown == golden[:len(shown)],
       "README's example report is the start of tests/golden/refs.w80.console (first difference: %s)" %
       (next((repr((a, b)) for a, b in zip(shown, golden) if a != b), None) if m else "no example found"))


def check_references(text):
    """Each file README sends its reader to is in the tree."""
    paths = set(re.findall(r"`((?:man|src|tests)/[\w./-]+)`", text)) | set(re.findall(r"\b((?:src|tests)/README\.md)", text))
    gone = sorted(p for p in paths if not os.path.exists(os.path.join(SRC, p)))
    ok(paths and not gone, "the files README names are there (%d; missing %s)" % (len(paths), gone))
    pages = set(re.findall(r"pmubench\(([137])\)", text))
    ok(pages == {"1", "3", "7"} and all(os.path.exists(os.path.join(SRC, "man", "pmubench." + s)) for s in pages),
       "the man pages README cites exist in man/: pmubench(%s)" % ", ".join(sorted(pages)))


def expect(cmd):
    """The exit statuses a command may end with: 1 is a verdict for ab,
    compare (regressed) and --self-check (a check failed on a busy machine),
    not a broken command."""
    words = cmd.split()
    if len(words) > 1 and (words[1] in ("ab", "compare") or "--self-check" in words):
        return (0, 1)
    return (0,)


def run_blocks(secs, sh, tree, home):
    """Every sh block after the quick start, command by command."""
    total = 0.0
    for title, blocks in secs[1:]:
        for lang, code in blocks:
            if lang != "sh":
                continue
            for cmd in commands(code):
                run = quick(cmd)
                r, took = sh.run(run)
                total += took
                errors = [x for x in r.stderr.splitlines() if x.startswith("pmubench: ") and
                          not x.startswith("pmubench: warning:")]
                good = r.returncode in expect(cmd) and not errors
                if not ok(good, "%s: `%s` exits %d (%.1f s)%s" % (title, run, r.returncode, took,
                                                                 "" if good else ": " + last(r.stderr))):
                    diag(r.stdout[-2000:] + r.stderr[-2000:])
                if "meson install" in cmd:
                    check_install(r, home, tree)
                if "--disasm" in cmd and r.returncode == 0:
                    ok(re.search(r"my_bench\.c:\d+", r.stdout),
                       "--disasm of the -g build shows source lines (my_bench.c:N): %s" %
                       (re.findall(r"\S+\.c:\d+", r.stdout)[:3] or last(r.stdout)))
    return total


def check_install(r, home, tree):
    """The user-prefix install wrote under $HOME and only there."""
    to = re.findall(r"^Installing .* to (\S+)$", r.stdout, re.M)
    outside = sorted({d for d in to if not d.startswith(home + "/")})
    ok(to and not outside, "meson install after `meson configure --prefix`: %d files, all under $HOME "
       "(elsewhere: %s)" % (len(to), outside[:3]))
    ok(os.access(os.path.join(home, ".local", "bin", "pmubench"), os.X_OK), "$HOME/.local/bin/pmubench installed")


def check_installed_tables(sh, tree):
    """The installed pmubench reads the installed events tables, not the
    copy's: its prefix was compiled in."""
    os.rename(os.path.join(tree, "events"), os.path.join(tree, "events.moved"))
    try:
        r, _ = sh.run("cd / && pmubench --list-events=cycles")
    finally:
        os.rename(os.path.join(tree, "events.moved"), os.path.join(tree, "events"))
    ok(r.returncode == 0 and "cycles" in r.stdout,
       "with the copy's events/ moved away, the installed pmubench reads $HOME/.local's tables: %s" %
       (last(r.stderr) or "ok"))


def main():
    text = open(os.path.join(SRC, "README.md")).read()
    secs = sections(text)
    check_form(secs)
    check_example_report(text)
    check_references(text)
    if emulator():
        skip("README's commands from a fresh copy", "this is a cross build under %s" % emulator())
        return
    # The reader is no root: as root, the commands run as nobody (setpriv),
    # so an install that needs root fails here as it would for them.
    user = []
    if os.geteuid() == 0:
        if not shutil.which("setpriv"):
            skip("README's commands from a fresh copy", "run as root, and no setpriv to run them as a user")
            return
        user = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
    why = sim_unavailable()
    if why:
        skip("README's commands from a fresh copy", "they include --backend=sim: %s" % why)
        return
    tmp = tempfile.mkdtemp(prefix="pmb-readme-")
    try:
        tree, home = os.path.join(tmp, "pmubench"), os.path.join(tmp, "home")
        os.makedirs(home)
        fresh_copy(tree)
        os.chmod(tmp, 0o755)
        lack = missing_packages(tree)
        if lack:
            skip("README's commands from a fresh copy", "tests/setup.sh would install %s" % " ".join(lack))
            return
        code = [c for lang, c in secs[[t for t, _ in secs].index("Your own benchmark")][1] if lang == "c"]
        ok(len(code) == 1, "README has one C example (%d)" % len(code))
        with open(os.path.join(tree, "my_bench.c"), "w") as f:
            f.write(code[0] if code else "")
        if user:
            for d, dirs, files in os.walk(tmp):
                for x in [d] + [os.path.join(d, f) for f in dirs + files]:
                    os.lchown(x, 65534, 65534)
        sh = Shell(tree, home, user)
        r, _ = sh.run("id -u")
        ok(r.stdout.strip() != "0", "the reader's shell is not root's (uid %s)" % r.stdout.strip())
        setup = QUICK_START[0].split(" && ")[0]
        r, took = sh.run(setup)
        ok(r.returncode == 0 and os.access(os.path.join(tree, "build", "src", "pmubench"), os.X_OK),
           "the quick start's `%s` builds build/src/pmubench in the fresh copy (%.0f s): %s" %
           (setup, took, last(r.stderr) or "ok"))
        if r.returncode:
            diag(r.stdout[-3000:] + r.stderr[-3000:])
            return
        took = run_blocks(secs, sh, tree, home)
        diag("README's commands after the set-up took %.0f s" % took)
        check_installed_tables(sh, tree)
        # The install test's checks on this install: one build for both
        # (a second whole build was the CI's longest wait after the guest's).
        prefix = os.path.join(home, ".local")
        if ok(os.access(os.path.join(prefix, "bin", "pmubench"), os.X_OK),
              "README's install is there for test_install.py's checks"):
            scratch = os.path.join(tmp, "install-checks")
            os.makedirs(scratch)
            test_install.checks_of_installed(os.path.join(tree, "build"), prefix, scratch)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


main()
done()
