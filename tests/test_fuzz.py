#!/usr/bin/env python3
"""test_fuzz.py - the libFuzzer harnesses (tests/fuzz_*.c) under ASan and
UBSan: each one's crash corpus (tests/fuzz/NAME/) replayed, then a short run
of each (PMB_FUZZ_SECONDS, default 1: the suite fuzzes briefly; longer
fuzzing is the command below).  Skips, saying why, where clang or its
libFuzzer is missing.

meson builds them, in a build directory of their own (clang, -Dfuzz=true,
b_sanitize=address,undefined), set up here once as $PMB_BUILD_ROOT/fuzz-asan;
ninja then rebuilds what changed, like any build directory.

For a long run of one harness:
  PMB_FUZZ_SECONDS=600 PMB_FUZZ_ONLY=results meson test -C build fuzz -t 0
(-t 0: no meson timeout; the corpus it grows stays in build/fuzz/corpus/NAME,
or under $PMB_FUZZ_OUT; an input that crashes is saved as
build/fuzz/artifacts/NAME-crash-*: copy it into tests/fuzz/NAME/ once fixed,
so that every later run replays it)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from pmbtap import diag, done, ok, skip

SRC = os.environ.get("PMB_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("PMB_BUILD_ROOT") or os.path.join(SRC, "build")
FUZZ_BUILD = os.path.join(BUILD, "fuzz-asan")
OUT = os.environ.get("PMB_FUZZ_OUT") or os.path.join(BUILD, "fuzz")
HARNESSES = ["results", "pair", "cmdline", "counters", "tables"]
SECONDS = int(os.environ.get("PMB_FUZZ_SECONDS", "1"))
ONLY = os.environ.get("PMB_FUZZ_ONLY")
# The fuzz build directory's options: the sanitizers on every object, with
# debug information for readable reports; b_lundef=false, which clang needs
# with the sanitizers.  -O0: the sanitizers need no optimisation, and clang
# compiles the library's 78 files in 2.5 times less CPU than at -O1 (12 of
# them: 2.9 s against 7.2 s here), about half of this test's time from a
# fresh clone (issue 29); the few seconds of fuzzing run fewer inputs.
SETUP = ["-Dfuzz=true", "-Db_sanitize=address,undefined", "-Db_lundef=false",
         "-Doptimization=0", "-Ddebug=true"]


def skip_all(reason):
    print("1..0 # SKIP %s" % reason)
    sys.exit(0)


def find_clang():
    for c in [os.environ.get("CLANG"), "clang-14", "clang"]:
        if c and shutil.which(c):
            return shutil.which(c)
    return None


def probe(clang):
    """Why clang cannot build a libFuzzer harness with the sanitizers, or None."""
    d = tempfile.mkdtemp(prefix="pmb-fuzz-probe-")
    src = os.path.join(d, "p.c")
    with open(src, "w") as f:
        f.write("#include <stdint.h>\n#include <stddef.h>\n"
                "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) "
                "{ (void)d; (void)n; return 0; }\n")
    r = subprocess.run([clang, "-fsanitize=fuzzer,address,undefined", src, "-o", os.path.join(d, "p")],
                       capture_output=True, text=True)
    shutil.rmtree(d)
    if r.returncode:
        last = (r.stderr.strip().splitlines() or ["?"])[-1]
        return "%s cannot link -fsanitize=fuzzer,address,undefined: %s" % (clang, last)
    return None


def tail(r):
    return (r.stdout + r.stderr).strip()[-3000:]


def build(clang):
    """meson sets up the fuzz build directory (once), ninja builds the
    harnesses in it: {name: executable}, and what went wrong."""
    env = dict(os.environ, CC=clang)
    if not os.path.exists(os.path.join(FUZZ_BUILD, "build.ninja")):
        r = subprocess.run(["meson", "setup", FUZZ_BUILD, SRC, *SETUP], capture_output=True,
                           text=True, env=env)
        if r.returncode:
            return {}, ["meson setup %s: %s" % (FUZZ_BUILD, tail(r))]
    want = [h for h in HARNESSES if not ONLY or h == ONLY]
    r = subprocess.run(["nice", "ninja", "-C", FUZZ_BUILD] + ["tests/fuzz_" + h for h in want],
                       capture_output=True, text=True, env=env)
    if r.returncode:
        return {}, ["ninja -C %s: %s" % (FUZZ_BUILD, tail(r))]
    return {h: os.path.join(FUZZ_BUILD, "tests", "fuzz_" + h) for h in want}, []


def fuzz_env():
    env = dict(os.environ)
    env.setdefault("PMUBENCH_EVENTS_DIR", os.path.join(SRC, "events"))
    env["ASAN_OPTIONS"] = "detect_leaks=1:abort_on_error=0"
    env["UBSAN_OPTIONS"] = "print_stacktrace=1:halt_on_error=1"
    return env


def libfuzzer(exe, args, timeout):
    """Run a harness; (exit status, output)."""
    common = ["-timeout=10", "-rss_limit_mb=2048", "-close_fd_mask=3", "-print_final_stats=1"]
    try:
        r = subprocess.run(["nice", "-n", "10", exe, *common, *args], capture_output=True,
                           text=True, errors="replace", timeout=timeout, env=fuzz_env())
        return r.returncode, r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:
        return -1, "timed out after %d s: %s" % (timeout, e)


def stats(out):
    """libFuzzer's final stats: executions, and the coverage line."""
    execs = re.search(r"stat::number_of_executed_units:\s*(\d+)", out)
    cov = re.findall(r"#\d+\s+\w+\s+cov: (\d+) ft: (\d+) corp: (\d+)", out)
    return (int(execs.group(1)) if execs else 0), (cov[-1] if cov else None)


def replay(name, exe):
    """Every input of tests/fuzz/NAME/ once: the crashes found before stay fixed."""
    corpus = os.path.join(SRC, "tests", "fuzz", name)
    files = sorted(os.listdir(corpus)) if os.path.isdir(corpus) else []
    rc, out = libfuzzer(exe, ["-runs=0", corpus], 600)
    ok(rc == 0 and files, "fuzz_%s: the %d inputs of tests/fuzz/%s replayed, no finding" %
       (name, len(files), name))
    if rc:
        diag(out[-3000:])


def short_run(name, exe):
    """SECONDS of fuzzing from the checked-in inputs and what earlier runs grew."""
    grown = os.path.join(OUT, "corpus", name)
    arts = os.path.join(OUT, "artifacts")
    os.makedirs(grown, exist_ok=True)
    os.makedirs(arts, exist_ok=True)
    t0 = time.monotonic()
    rc, out = libfuzzer(exe, ["-max_total_time=%d" % SECONDS, "-artifact_prefix=%s/%s-" % (arts, name),
                              grown, os.path.join(SRC, "tests", "fuzz", name)], SECONDS + 300)
    secs = time.monotonic() - t0
    execs, cov = stats(out)
    diag("fuzz_%s: %d executions in %.0f s%s" % (name, execs, secs,
         ", cov %s ft %s corpus %s" % cov if cov else ""))
    ok(rc == 0 and execs > 0, "fuzz_%s: %d s under ASan+UBSan, no crash, leak or hang "
       "(%d executions)" % (name, SECONDS, execs))
    if rc:
        diag(out[-4000:])


clang = find_clang()
if not clang:
    skip_all("no clang (clang-14 or clang) to build the libFuzzer harnesses with")
why = probe(clang)
if why:
    skip_all(why)
t0 = time.monotonic()
exes, errs = build(clang)
ok(not errs, "meson and ninja build the harnesses in %s with %s under ASan+UBSan (%.0f s)"
   % (os.path.relpath(FUZZ_BUILD, BUILD), os.path.basename(clang), time.monotonic() - t0))
for e in errs:
    diag(e)
for name in HARNESSES:
    if ONLY and name != ONLY:
        continue
    if name not in exes:
        skip("fuzz_%s" % name, "it did not build")
        continue
    replay(name, exes[name])
    short_run(name, exes[name])
done()
