#!/usr/bin/env python3
"""pmubench as a user gets it: configured for a temporary prefix, installed
into a temporary DESTDIR, then moved to that prefix.  The examples of the
installed pmubench(3) (extracted from the page, not copied) are built in C
and C++ against the installed pmubench.pc, run, and their JSON checked; the
same file as a --load plugin of the installed pmubench; each --load error;
the exported symbols against the header's API; the header alone under
-std=c99 -pedantic -Werror; a static link."""
import glob
import json
import os
import re
import shutil
import subprocess
import tempfile

from pmbtap import diag, done, emulator, ok, sim_unavailable, skip

SRC = os.environ.get("PMB_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WARN = ["-Wall", "-Wextra", "-Wpedantic", "-Werror"]
QUICK = ["--samples=5", "--min-sample-time=200us"]


def sh(cmd, env=None, cwd=None, timeout=600):
    """Run cmd (a list); its CompletedProcess (text)."""
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=cwd, timeout=timeout)


def last(text):
    """The last line of text, for a test point's message."""
    lines = [x for x in text.strip().splitlines() if x.strip()]
    return lines[-1] if lines else ""


def install(tmp):
    """Build for prefix tmp/prefix, install with DESTDIR=tmp/dest; returns
    (prefix, dest root) or None with the failure said."""
    prefix, dest, build = tmp + "/prefix", tmp + "/dest", tmp + "/build"
    r = sh(["meson", "setup", build, SRC, "--prefix=" + prefix, "-Dbuildtype=release"])
    if r.returncode == 0:
        targets = ["src/libpmubench.so.0.1.0", "src/libpmubench.a", "src/pmubench"]
        r = sh(["ninja", "-C", build] + targets)
    if r.returncode == 0:
        r = sh(["meson", "install", "-C", build, "--no-rebuild", "--quiet"], env=dict(os.environ, DESTDIR=dest))
    if not ok(r.returncode == 0, "meson setup --prefix, ninja, meson install with DESTDIR: %s" %
              (last(r.stdout + r.stderr) or "ok")):
        diag(r.stdout + r.stderr)
        return None
    return prefix, dest + prefix


def check_parts(staged):
    """Every part installed under staged; returns the libdir."""
    pcs = glob.glob(staged + "/lib*/**/pmubench.pc", recursive=True)
    libdir = os.path.dirname(os.path.dirname(pcs[0])) if pcs else staged + "/lib"
    parts = ["bin/pmubench", "include/pmubench.h", "share/man/man1/pmubench.1", "share/man/man3/pmubench.3",
             "share/man/man7/pmubench.7",
             "share/pmubench/events/aliases.txt", "share/pmubench/events/sets.txt"]
    libs = ["libpmubench.so", "libpmubench.so.0", "libpmubench.a", "pkgconfig/pmubench.pc"]
    missing = [p for p in parts if not os.path.exists(staged + "/" + p)]
    missing += [lib for lib in libs if not os.path.exists(libdir + "/" + lib)]
    ok(pcs and not missing, "installed under %s: program, header, man pages, events tables, libraries, "
       "pmubench.pc (missing: %s)" % (staged, missing))
    same = all(open(staged + "/share/pmubench/events/" + f).read() == open(SRC + "/events/" + f).read()
               for f in ("aliases.txt", "sets.txt") if os.path.exists(staged + "/share/pmubench/events/" + f))
    ok(same, "the installed events tables are the source's")
    return libdir


def check_layout(prefix, staged):
    """DESTDIR respected, every part installed, then moved to the prefix;
    returns the libdir."""
    ok(not os.path.exists(prefix), "nothing written to the prefix itself: DESTDIR is respected")
    libdir = check_parts(staged)
    os.rename(staged, prefix)
    return libdir.replace(staged, prefix)


def unescape(troff):
    """The text a man page's .nf block shows (the escapes its examples use)."""
    text = troff.replace("\\e", "\x00").replace("\\-", "-").replace("\\(dq", '"').replace("\\&", "")
    return text.replace("\x00", "\\")


def examples(page):
    """{subsection title: code} of the page's EXAMPLES section."""
    with open(page) as f:
        text = f.read()
    sect = text.split("\n.SH EXAMPLES\n", 1)[-1].split("\n.SH ", 1)[0]
    found = {}
    for m in re.finditer(r"^\.SS (.+?)\n\.nf\n(.*?)\n\.fi$", sect, re.S | re.M):
        found[m.group(1)] = unescape(m.group(2)) + "\n"
    return found


def bench_names(out):
    """Benchmark names of a JSON report, or None."""
    try:
        return [b["name"] for b in json.loads(out)["benchmarks"]]
    except (ValueError, KeyError, TypeError):
        return None


def json_of(out):
    try:
        return json.loads(out)
    except ValueError:
        return None


DEMO = ["demo/bm_sum/1024", "demo/bm_sum/65536"]


class Env:
    """The installed tree and the commands the README and pmubench(3) give."""

    def __init__(self, prefix, libdir, tmp):
        self.prefix, self.libdir, self.tmp = prefix, libdir, tmp
        self.env = dict(os.environ, PKG_CONFIG_PATH=libdir + "/pkgconfig")
        self.env.pop("PMUBENCH_EVENTS_DIR", None)
        self.pmubench = prefix + "/bin/pmubench"

    def pkg(self, *args):
        r = sh(["pkg-config", *args, "pmubench"], env=self.env)
        return r.stdout.split() if r.returncode == 0 else None

    def build(self, cc, src, out, flags, link=True):
        """cc flags src $(pkg-config ...) -o out; its CompletedProcess."""
        cmd = [cc, *flags, "-O2", src, *self.pkg("--cflags")]
        if link:
            cmd += [*self.pkg("--libs"), "-Wl,-rpath," + self.pkg("--variable=libdir")[0]]
        else:
            cmd += ["-c"]
        return sh(cmd + ["-o", out], cwd=self.tmp)

    def plugin(self, cc, src, out, flags=()):
        return sh([cc, *flags, "-O2", "-shared", "-fPIC", src, *self.pkg("--cflags"), "-o", out], cwd=self.tmp)

    def run(self, *cmd, env=None):
        return sh(list(cmd), env=env or self.env, cwd=self.tmp)


def test_pkgconfig(e):
    cflags, libs = e.pkg("--cflags"), e.pkg("--libs")
    ok(cflags is not None and "-I" + e.prefix + "/include" in cflags,
       "pkg-config --cflags pmubench with the documented PKG_CONFIG_PATH: %s" % cflags)
    ok(libs is not None and "-L" + e.libdir in libs and "-lpmubench" in libs,
       "pkg-config --libs pmubench: %s" % libs)
    ok(e.pkg("--variable=libdir") == [e.libdir], "its libdir variable, for the rpath: %s" % e.pkg("--variable=libdir"))
    # Issue 28: with no other .pc to be found (as where only the runtime
    # packages of hwloc, jansson, capstone and elfutils are installed), a
    # shared link's flags still come, and build a program that runs.
    empty = e.tmp + "/no-pc"
    os.makedirs(empty, exist_ok=True)
    alone = dict(e.env, PKG_CONFIG_LIBDIR=empty)
    r = sh(["pkg-config", "--cflags", "--libs", "pmubench"], env=alone)
    ok(r.returncode == 0 and r.stdout.split() == ["-I" + e.prefix + "/include", "-L" + e.libdir, "-lpmubench"],
       "pkg-config --cflags --libs pmubench needs no other .pc (PKG_CONFIG_LIBDIR=%s): %s" %
       (empty, r.stdout.strip() or last(r.stderr)))
    flags = r.stdout.split() if r.returncode == 0 else []
    with open(e.tmp + "/alone.c", "w") as f:
        f.write("#include <pmubench.h>\nstatic void bm(struct pmb_state *s) { while (pmb_loop(s)) {} }\n"
                "PMB_BENCHMARK(bm, .group = \"alone\");\nint main(int c, char **v) { return pmb_main(c, v); }\n")
    r = sh(["cc", "-O2", "alone.c", *flags, "-Wl,-rpath," + e.libdir, "-o", "alone"], cwd=e.tmp)
    if r.returncode == 0:
        r = sh(["./alone", "--list"], cwd=e.tmp, env=alone)
    ok(r.returncode == 0 and r.stdout.split() == ["alone/bm"],
       "a program links with those flags alone and runs: %s" % (r.stdout.strip() or last(r.stderr)))
    r = sh(["pkg-config", "--static", "--libs", "pmubench"], env=alone)
    libs = r.stdout.split()
    want = ["-lpmubench", "-lpfm", "-lhwloc", "-ljansson", "-lcapstone", "-ldw", "-lelf", "-lm", "-ldl"]
    ok(r.returncode == 0 and all(x in libs for x in want) and len(set(libs)) == len(libs),
       "pkg-config --static --libs names the rest, each once, without their .pc files: %s" %
       (r.stdout.strip() or last(r.stderr)))


def test_c(e, code):
    """The benchmark example in C: builds at each standard, runs, reports."""
    with open(e.tmp + "/my_bench.c", "w") as f:
        f.write(code)
    for std in ("c99", "c11", "gnu17"):
        r = e.build("cc", "my_bench.c", "my_bench_" + std, ["-std=" + std, *WARN])
        ok(r.returncode == 0 and not r.stderr, "the man page's example builds as C (-std=%s %s): %s" %
           (std, " ".join(WARN), last(r.stderr) or "no warning"))
    r = e.run("./my_bench_c99", "--filter=^demo/", "--format=json", *QUICK)
    d = json_of(r.stdout)
    ok(r.returncode == 0 and d and [b["name"] for b in d["benchmarks"]] == DEMO and
       all(b["real_time"] > 0 and b["items_per_pass"] in (1024, 65536) for b in d["benchmarks"]),
       "it runs and its JSON has both instances, timed, with their items per pass (%s)" %
       (last(r.stderr) if r.returncode else bench_names(r.stdout)))
    r = e.run("cc", "-O2", "my_bench.c", *e.pkg("--cflags"), *e.pkg("--libs"), "-o", "my_bench_norpath")
    r = e.run("./my_bench_norpath", "--list")
    ok(r.returncode != 0 and "libpmubench.so.0" in r.stderr,
       "without the rpath, the program does not start, as README says: %s" % last(r.stderr))
    r = e.run("./my_bench_norpath", "--list", env=dict(e.env, LD_LIBRARY_PATH=e.libdir))
    ok(r.returncode == 0 and r.stdout.split() == DEMO, "with LD_LIBRARY_PATH set to the libdir it runs")


def test_cxx(e, code):
    """The same file as C++: g++ and clang++, C++11 to C++20."""
    with open(e.tmp + "/my_bench.cc", "w") as f:
        f.write(code)
    built = None
    for cxx in ("g++", "clang++"):
        if not shutil.which(cxx):
            skip("the man page's example builds with %s" % cxx, "%s is not installed" % cxx)
            continue
        # The oldest and newest standard: PMB_BENCHMARK_FN's example below
        # builds at every one between (issue 29: CI's time).
        for std in ("c++11", "c++20"):
            out = "my_bench_%s_%s" % (cxx.replace("+", "x"), std.replace("+", "x"))
            r = e.build(cxx, "my_bench.cc", out, ["-std=" + std, *WARN])
            ok(r.returncode == 0 and not r.stderr, "the man page's example builds as C++ (%s -std=%s %s): %s" %
               (cxx, std, " ".join(WARN), last(r.stderr) or "no warning"))
            built = built or (out if r.returncode == 0 else None)
    if built:
        r = e.run("./" + built, "--filter=^demo/", "--format=json", *QUICK)
        ok(r.returncode == 0 and bench_names(r.stdout) == DEMO,
           "the C++ program registers and runs the same benchmarks (%s)" % bench_names(r.stdout))
    return built


def test_opaque_example(e, code):
    """pmb_opaque's example (issue 34): a statement expression that must
    build warning-free in C and C++ with gcc and clang, at each standard,
    and keep its work in the loop (tests/test_hoist.py counts it exactly)."""
    for src in ("poly.c", "poly.cc"):
        with open(e.tmp + "/" + src, "w") as f:
            f.write(code)
    builds = [("cc", "poly.c", s) for s in ("c99", "c11", "gnu17")] + [("clang", "poly.c", "c11")]
    builds += [(cxx, "poly.cc", s) for cxx in ("g++", "clang++") for s in ("c++11", "c++20")]
    for cc, src, std in builds:
        if not shutil.which(cc):
            skip("pmb_opaque's example builds with %s" % cc, "%s is not installed" % cc)
            continue
        r = e.build(cc, src, "poly_%s_%s" % (cc.replace("+", "x"), std.replace("+", "x")), ["-std=" + std, *WARN])
        ok(r.returncode == 0 and not r.stderr, "pmb_opaque's example builds (%s -std=%s %s): %s" %
           (cc, std, " ".join(WARN), last(r.stderr) or "no warning"))
    why = sim_unavailable()
    if why:
        skip("pmb_opaque's example keeps its work in the loop", why)
        return
    r = e.run("./poly_cc_c99", "--backend=sim", "--counters=instructions", "--format=json")
    d = json_of(r.stdout)
    got = [b.get("instructions_per_item") for b in d["benchmarks"]] if d else None
    warned = [w for w in d["context"]["warnings"] if "poly/" in w] if d else last(r.stderr)
    ok(got and len(got) == 1 and got[0] and got[0] >= 3 and not warned,
       "pmb_opaque's example computes in the loop under sim (instructions per item %s, warnings %s)" %
       (got, warned))


CXX_FN = ["cxx/stride/1", "cxx/stride/4", "cxx/lambda/add/1", "cxx/lambda/add/2", "cxx/lambda/empty"]


def test_cxx_fn(e, code):
    """PMB_BENCHMARK_FN's example (issue 28): a template with two arguments
    and capture-free lambdas register without tricks, with g++ and clang++
    at C++11 to C++20 (warning-free), and each build lists the same
    instances under the names given."""
    with open(e.tmp + "/cxx_fn.cc", "w") as f:
        f.write(code)
    for cxx in ("g++", "clang++"):
        if not shutil.which(cxx):
            skip("PMB_BENCHMARK_FN's example builds with %s" % cxx, "%s is not installed" % cxx)
            continue
        for std in ("c++11", "c++14", "c++17", "c++20"):
            out = "cxx_fn_%s_%s" % (cxx.replace("+", "x"), std.replace("+", "x"))
            r = e.build(cxx, "cxx_fn.cc", out, ["-std=" + std, *WARN])
            if r.returncode == 0 and not r.stderr:
                r = e.run("./" + out, "--list")
                got = r.stdout.split() if r.returncode == 0 else last(r.stderr)
            else:
                got = last(r.stderr) or "exit %d" % r.returncode
            ok(got == CXX_FN, "PMB_BENCHMARK_FN: templates and lambdas build, link and register (%s -std=%s %s): %s"
               % (cxx, std, " ".join(WARN), got))


# Every way to write a definition, for the C and C++ expansions to agree.
FIELDS = r"""#include <pmubench.h>
static void bm(struct pmb_state *s) { while (pmb_loop(s)) pmb_clobber_memory(); }
PMB_BENCHMARK(bm);
PMB_BENCHMARK(bm, .group = "f", .name = "args", .args = PMB_ARGS(3, 1 << 4, -2));
PMB_BENCHMARK(bm, .name = "named", .group = "f", .args = PMB_NAMED_ARGS("p", 0, 50),
              .args2 = PMB_RANGE(2, 100), .seed = 7, .empty = false);
PMB_BENCHMARK(bm, .group = "f", .name = "ref", .reference = "args", .baseline = "args",
              .role = PMB_ROLE_SOL, .study = "s", .args = PMB_ARGS(3));
PMB_BENCHMARK(bm, .group = "t", .name = "tiers", .args = PMB_TIERS);
int main(int c, char **v) { return pmb_main(c, v); }
"""
FIELDS_LIST = ["bm", "f/args/3", "f/args/16", "f/args/-2", "f/named/p0/2", "f/named/p0/16", "f/named/p0/100",
               "f/named/p50/2", "f/named/p50/16", "f/named/p50/100", "f/ref/3"]


def test_fields(e):
    """PMB_BENCHMARK's fields and argument macros mean the same in C and C++."""
    for name in ("fields.c", "fields.cc"):
        with open(e.tmp + "/" + name, "w") as f:
            f.write(FIELDS)
    lists = {}
    for cc, src, std in (("cc", "fields.c", "c99"), ("g++", "fields.cc", "c++11"), ("clang++", "fields.cc", "c++11")):
        if not shutil.which(cc):
            continue
        r = e.build(cc, src, "fields_" + cc.replace("+", "x"), ["-std=" + std, *WARN])
        if r.returncode == 0:
            r = e.run("./fields_" + cc.replace("+", "x"), "--list")
        lists[cc] = r.stdout.split() if r.returncode == 0 else last(r.stderr)
    c = lists.get("cc")
    ok(isinstance(c, list) and [x for x in c if not x.startswith("t/")] == FIELDS_LIST and
       [x for x in c if x.startswith("t/tiers/")], "every field and argument macro, in C: %s" % c)
    for cxx in ("g++", "clang++"):
        if cxx in lists:
            ok(lists[cxx] == c, "the same instances from the C++ build (%s): %s" % (cxx, lists[cxx]))


def test_api_example(e, code):
    """pmb_run in a program: figures printed by the example, nothing by pmubench."""
    with open(e.tmp + "/figures.c", "w") as f:
        f.write(code)
    r = e.build("cc", "figures.c", "figures", ["-std=c99", *WARN])
    if not ok(r.returncode == 0 and not r.stderr, "the man page's pmb_run example builds (-std=c99 %s): %s" %
              (" ".join(WARN), last(r.stderr) or "no warning")):
        return
    r = e.run("./figures")
    rows = [re.match(r"(\S+) (\S+) (\S+) \[(\S+), (\S+)\] (\S+)/item", x) for x in r.stdout.splitlines()]
    good = [m for m in rows if m]
    ok(r.returncode == 0 and r.stderr == "" and good and len(good) == len(rows),
       "it runs; pmubench printed nothing, the program printed %d figure lines" % len(good))
    if good:
        m = good[0]
        lo, med, hi = float(m.group(4)), float(m.group(3)), float(m.group(5))
        ok(m.group(1) == "demo/bm_add" and m.group(2) == "time" and m.group(6) == "ns" and lo <= med <= hi,
           "its first figure is demo/bm_add's time in ns per item, inside its interval: %s" % m.group(0))


def test_plugin(e, code_c, cxx_bin, figures):
    """The same file as a shared object for pmubench --load."""
    r = e.plugin("cc", "my_bench.c", "my_bench.so")
    ok(r.returncode == 0, "the example builds as a shared object (-shared -fPIC): %s" % (last(r.stderr) or "ok"))
    r = e.run(e.pmubench, "--load=./my_bench.so", "--format=json", *QUICK)
    ok(r.returncode == 0 and bench_names(r.stdout) == DEMO,
       "the installed pmubench --load=./my_bench.so runs its benchmarks and only those: %s" %
       (bench_names(r.stdout) or last(r.stderr)))
    if shutil.which("g++"):
        r = e.plugin("g++", "my_bench.cc", "my_bench_cc.so", ["-std=c++11"])
        r = e.run(e.pmubench, "--load=./my_bench_cc.so", "--list")
        ok(r.returncode == 0 and r.stdout.split() == DEMO, "the C++ build loads too")
    if figures:
        e.plugin("cc", "figures.c", "figures.so")
        r = e.run(e.pmubench, "--load=./my_bench.so", "--load=./figures.so", "--list")
        ok(r.returncode == 0 and r.stdout.split() == DEMO + ["demo/bm_add"],
           "two --load: both objects' benchmarks, in the order given (%s)" % r.stdout.split())
    why = sim_unavailable()
    if why:
        skip("simulated counts agree between program, C++ program and plugin", why)
        return
    counts = []
    for cmd in (["./my_bench_c99"], [e.pmubench, "--load=./my_bench.so"], ["./" + cxx_bin] if cxx_bin else None):
        if cmd:
            r = e.run(*cmd, "--backend=sim", "--counters=instructions", "--format=json", "--filter=^demo/")
            d = json_of(r.stdout)
            counts.append([b.get("instructions_per_item") for b in d["benchmarks"]] if d else None)
    diag("simulated instructions per item (program, plugin, C++): %s" % counts)
    base = counts[0]
    ok(base and all(c and len(c) == 2 and all(abs(x - y) <= 1e-3 * y for x, y in zip(c, base)) for c in counts),
       "--backend=sim: the same instructions per item from the program, the plugin and the C++ build")
    ok(base and abs(base[1] - round(base[1])) < 0.01 and round(base[1]) >= 2,
       "at 65536 items per pass the simulated count is a whole number of instructions per item (%s)" %
       (base[1] if base else None))


def test_load_errors(e):
    """Each --load error: exit 2, one line naming the file and the reason."""
    with open(e.tmp + "/empty.c", "w") as f:
        f.write("int pmb_test_nothing(void);\nint pmb_test_nothing(void) { return 0; }\n")
    with open(e.tmp + "/future.c", "w") as f:
        f.write("#include <pmubench.h>\n"
                "static void f(struct pmb_state *s) { while (pmb_loop(s)) {} }\n"
                "static const struct pmb_benchmark_def def = { .size = sizeof(def),\n"
                "    .abi = PMB_VERSION_MAJOR + 1, .func = f, .name = \"future\" };\n"
                "__attribute__((constructor)) static void reg(void) { pmb_register(&def); }\n")
    e.plugin("cc", "empty.c", "empty.so")
    e.plugin("cc", "future.c", "future.so")
    e.run("cc", "-c", "-fPIC", "empty.c", "-o", "empty.o")
    cases = [("./missing.so", "No such file"), ("./my_bench.c", "not a shared object (not an ELF file)"),
             ("./empty.o", "an ELF object file, not a shared object"),
             ("./empty.so", "registers no benchmark"),
             ("./future.so", "built against pmubench.h of major version %d" % (int(version(e)[0]) + 1))]
    for path, said in cases:
        r = e.run(e.pmubench, "--load=" + path, "--list")
        lines = r.stderr.strip().splitlines()
        ok(r.returncode == 2 and r.stdout == "" and len(lines) == 1 and ("--load=" + path) in lines[0] and
           said in lines[0], "--load=%s: exit 2, one line: %s" % (path, r.stderr.strip()))


def version(e):
    """The installed header's (major, minor, patch)."""
    with open(e.prefix + "/include/pmubench.h") as f:
        h = f.read()
    return tuple(re.search(r"#define PMB_VERSION_%s (\d+)" % k, h).group(1) for k in ("MAJOR", "MINOR", "PATCH"))


def public_api(e):
    """The functions include/pmubench.h declares PMB_API."""
    with open(e.prefix + "/include/pmubench.h") as f:
        h = f.read()
    return set(re.findall(r"^PMB_API\b[^;{]*?\b(pmb_\w+)\s*\(", h, re.M))


def defined(args, path):
    r = sh(["nm", *args, "--defined-only", path])
    return {x.split()[-1].split("@")[0] for x in r.stdout.splitlines() if len(x.split()) == 3}, r.stdout


def test_symbols(e):
    api = public_api(e)
    ok(len(api) >= 20 and "pmb_register" in api and "pmb_run" in api, "the header's API: %d functions" % len(api))
    so, raw = defined(["-D"], e.libdir + "/libpmubench.so")
    # The version nodes (PMUBENCH_0, PMUBENCH_0.1, ...) are symbols of their own.
    so = {x for x in so if not x.startswith("PMUBENCH_")}
    ok(so == api, "the shared library exports exactly the API (extra %s, missing %s)" %
       (sorted(so - api), sorted(api - so)))
    ok(all("@@PMUBENCH_0" in x for x in raw.splitlines() if " T " in x),
       "each export carries a version node PMUBENCH_0[.N]")
    ar, _ = defined(["-g"], e.libdir + "/libpmubench.a")
    ok(ar == api, "the static archive's global symbols are exactly the API: no internal pmb__ name to collide "
       "with (extra %s)" % sorted(ar - api)[:8])
    exe, _ = defined(["-D"], e.pmubench)
    ok({s for s in exe if s.startswith("pmb")} == api,
       "the pmubench program exports the API to what it loads (extra %s, missing %s)" %
       (sorted({s for s in exe if s.startswith("pmb")} - api), sorted(api - exe)))


def test_header_alone(e):
    inc = "-I" + e.prefix + "/include"
    for cc, std in (("cc", "c99"), ("cc", "c11"), ("g++", "c++11"), ("clang++", "c++11")):
        if not shutil.which(cc):
            skip("the header alone compiles with %s" % cc, "%s is not installed" % cc)
            continue
        lang = "c++" if "+" in cc else "c"
        r = subprocess.run([cc, "-x", lang, "-std=" + std, "-pedantic", *WARN, inc, "-fsyntax-only", "-"],
                           input="#include <pmubench.h>\n", capture_output=True, text=True)
        ok(r.returncode == 0 and not r.stderr, "the header alone compiles: %s -std=%s -pedantic -Werror: %s" %
           (cc, std, last(r.stderr) or "no warning"))


def test_man_documents(e):
    """pmubench(3) names every public symbol of the installed header."""
    with open(e.prefix + "/include/pmubench.h") as f:
        h = f.read()
    with open(e.prefix + "/share/man/man3/pmubench.3") as f:
        man = unescape(re.sub(r"\\f[BIRP]", "", f.read()))
    names = public_api(e)
    names |= {m for m in re.findall(r"^#define (PMB_[A-Z0-9_]+)", h, re.M) if not m.startswith("PMB__")}
    names |= set(re.findall(r"\b(PMB_(?:AXIS|ROLE|VALUE)_[A-Z_]+)\b", h))
    names |= {"PMB_E" + m for m in re.findall(r"^\s*X\(([A-Z]+), \d+,", h, re.M)}
    names |= set(re.findall(r"^(?:struct|enum) (pmb_\w+)(?: \{|;)", h, re.M))
    names |= {"pmb_do_not_optimize", "pmb_opaque", "pmb_loop", "pmb_loop_batch", "pmb_clobber_memory"}
    missing = sorted(n for n in names if not re.search(r"(?<!\w)%s(?!\w)" % re.escape(n), man))
    ok(len(names) > 60 and not missing, "pmubench(3) names each of the header's %d public symbols (missing %s)" %
       (len(names), missing))


def needed(path):
    r = sh(["readelf", "-d", path])
    return re.findall(r"\(NEEDED\).*\[(.+?)\]", r.stdout), sh(["readelf", "-l", path]).stdout


def test_static(e):
    libs = e.pkg("--static", "--libs")
    ok(libs and all(x in libs for x in ("-lpmubench", "-lpfm", "-lhwloc", "-ludev", "-ljansson", "-lm")),
       "pkg-config --static --libs names what the static libraries need: %s" % libs)
    udev = sh(["cc", "-print-file-name=libudev.a"]).stdout.strip()
    if not os.path.isabs(sh(["cc", "-print-file-name=libudev.so"]).stdout.strip()):
        skip("a static link", "libudev-dev is not installed (hwloc's static library needs -ludev)")
        return
    if os.path.isabs(udev):
        r = e.run("cc", "-static", "-O2", "my_bench.c", *e.pkg("--cflags"), *libs, "-o", "my_bench_static")
        libs_needed, headers = needed(e.tmp + "/my_bench_static")
        ok(r.returncode == 0 and not libs_needed and "INTERP" not in headers,
           "cc -static with pkg-config --static links a fully static binary: %s" % (last(r.stderr) or "ok"))
    else:
        skip("cc -static with pkg-config --static", "no libudev.a here (Debian 12's libudev-dev ships only "
             "libudev.so), which hwloc's static library needs")
        r = e.run("cc", "-O2", "my_bench.c", *e.pkg("--cflags"), "-L" + e.libdir, "-Wl,-Bstatic", "-lpmubench",
                  "-lpfm", "-lhwloc", "-ljansson", "-lcapstone", "-ldw", "-lelf", "-lz", "-llzma", "-lbz2",
                  "-Wl,-Bdynamic", "-ludev", "-ldl", "-lm", "-lpthread", "-o", "my_bench_static")
        libs_needed, _ = needed(e.tmp + "/my_bench_static")
        ok(r.returncode == 0 and libs_needed and
           not [x for x in libs_needed if re.match(r"lib(pmubench|pfm|hwloc|jansson|capstone|dw|elf)\.", x)],
           "the documented static link: pmubench, libpfm4, hwloc, jansson, capstone, libdw, libelf static; shared only %s: %s" %
           (libs_needed, last(r.stderr) or "ok"))
    r = e.run("./my_bench_static", "--list")
    ok(r.returncode == 0 and r.stdout.split() == DEMO, "the static binary runs")


def checks(prefix, libdir, tmp):
    """Everything a user of the installed tree does, on the tree installed
    at prefix (its libraries in libdir); tmp: a scratch folder."""
    e = Env(prefix, libdir, tmp)
    ex = examples(prefix + "/share/man/man3/pmubench.3")
    ok(set(ex) == {"A benchmark program", "Work the loop must not lose", "Templates and lambdas in C++",
                   "Figures in a program"},
       "the man page's examples: %s" % sorted(ex))
    bench, figures = ex.get("A benchmark program", ""), ex.get("Figures in a program", "")
    readme = open(SRC + "/README.md").read()
    ok(bench and "```c\n" + bench + "```" in readme, "README's example is the man page's")
    test_pkgconfig(e)
    test_c(e, bench)
    cxx = test_cxx(e, bench)
    test_opaque_example(e, ex.get("Work the loop must not lose", ""))
    test_cxx_fn(e, ex.get("Templates and lambdas in C++", ""))
    test_fields(e)
    test_api_example(e, figures)
    test_plugin(e, bench, cxx, figures)
    test_load_errors(e)
    test_symbols(e)
    test_man_documents(e)
    test_header_alone(e)
    test_static(e)
    r = e.run(e.pmubench, "--list-events=cycles",
              env=dict(e.env, PMUBENCH_EVENTS_DIR=prefix + "/share/pmubench/events"))
    ok(r.returncode in (0, 1) and "events tables" not in r.stderr,
       "the installed pmubench reads the installed events tables: %s" % (last(r.stderr) or "ok"))


def tree_of(root):
    """{path: (size, mtime)} of every file under root."""
    found = {}
    for d, _, files in os.walk(root):
        for f in files:
            st = os.lstat(os.path.join(d, f))
            found[os.path.join(d, f)] = (st.st_size, st.st_mtime_ns)
    return found


def checks_of_installed(build, prefix, tmp):
    """The checks on a tree already built in build and installed at prefix
    (README's user-prefix install, which test_readme.py runs: one build for
    both tests).  The DESTDIR staging is checked by installing once more,
    into tmp/dest, with nothing written to the prefix."""
    before = tree_of(prefix)
    r = sh(["meson", "install", "-C", build, "--no-rebuild", "--quiet"],
           env=dict(os.environ, DESTDIR=tmp + "/dest"))
    if not ok(r.returncode == 0, "meson install with DESTDIR, after README's install: %s" %
              (last(r.stdout + r.stderr) or "ok")):
        diag(r.stdout + r.stderr)
        return
    ok(tree_of(prefix) == before, "nothing written to the prefix itself: DESTDIR is respected")
    check_parts(tmp + "/dest" + prefix)
    checks(prefix, check_parts(prefix), tmp)


def main():
    if emulator():
        print("1..0 # SKIP builds and installs for the host; this is a cross build under %s" % emulator())
        return
    for tool in ("meson", "ninja", "pkg-config", "cc", "nm", "readelf"):
        if not shutil.which(tool):
            print("1..0 # SKIP %s is not installed" % tool)
            return
    tmp = tempfile.mkdtemp(prefix="pmb-install-")
    try:
        got = install(tmp)
        if not got:
            return
        prefix, staged = got
        checks(prefix, check_layout(prefix, staged), tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
    done()
