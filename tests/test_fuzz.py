#!/usr/bin/env python3
"""test_fuzz.py - the libFuzzer harnesses (tests/fuzz_*.c) built with clang
under ASan and UBSan: each one's crash corpus (tests/fuzz/NAME/) replayed,
then a short run of each (PMB_FUZZ_SECONDS, default 30).  Skips, saying why,
where clang or its libFuzzer is missing.

For a long run of one harness:
  PMB_FUZZ_SECONDS=600 PMB_FUZZ_ONLY=results meson test -C build fuzz
(the corpus it grows stays in build/fuzz/corpus/NAME, or under
$PMB_FUZZ_OUT; an input that crashes is saved as build/fuzz/artifacts/NAME-crash-*: copy it into tests/fuzz/NAME/
once fixed, so that every later run replays it)."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

from pmbtap import diag, done, ok, skip

SRC = os.environ.get("PMB_SOURCE_ROOT") or os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = os.environ.get("PMB_BUILD_ROOT") or os.path.join(SRC, "build")
OUT = os.environ.get("PMB_FUZZ_OUT") or os.path.join(BUILD, "fuzz")
HARNESSES = ["results", "cmdline", "counters", "tables"]
SECONDS = int(os.environ.get("PMB_FUZZ_SECONDS", "30"))
ONLY = os.environ.get("PMB_FUZZ_ONLY")
SAN = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all"]
# src/ has one folder per layer; each is on the include path, as in meson.build.
SRC_DIRS = [os.path.join(SRC, "src")] + sorted(
    os.path.join(SRC, "src", d) for d in os.listdir(os.path.join(SRC, "src"))
    if os.path.isdir(os.path.join(SRC, "src", d)) and d != "kernels")
CFLAGS = ["-std=gnu11", "-D_GNU_SOURCE", "-DPMB_BUILDING_LIBRARY", "-O1", "-g",
          "-fno-omit-frame-pointer", "-I" + os.path.join(SRC, "include")] + \
    ["-I" + d for d in SRC_DIRS] + ["-I" + BUILD]


def skip_all(reason):
    print("1..0 # SKIP %s" % reason)
    sys.exit(0)


def find_clang():
    for c in [os.environ.get("CLANG"), "clang-14", "clang"]:
        if c and shutil.which(c):
            return shutil.which(c)
    return None


def pkg(*args):
    r = subprocess.run(["pkg-config", *args, "hwloc", "jansson", "capstone", "libelf", "libdw"],
                       capture_output=True, text=True)
    return r.stdout.split() if r.returncode == 0 else None


def probe(clang):
    """Why clang cannot build a libFuzzer harness with the sanitizers, or None."""
    d = tempfile.mkdtemp(prefix="pmb-fuzz-probe-")
    src = os.path.join(d, "p.c")
    with open(src, "w") as f:
        f.write("#include <stdint.h>\n#include <stddef.h>\n"
                "int LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) "
                "{ (void)d; (void)n; return 0; }\n")
    r = subprocess.run([clang, "-fsanitize=fuzzer", *SAN, src, "-o", os.path.join(d, "p")],
                       capture_output=True, text=True)
    shutil.rmtree(d)
    if r.returncode:
        last = (r.stderr.strip().splitlines() or ["?"])[-1]
        return "%s cannot link -fsanitize=fuzzer,address,undefined: %s" % (clang, last)
    return None


def lib_sources():
    """The library's sources, as src/meson.build lists them."""
    with open(os.path.join(SRC, "src", "meson.build")) as f:
        block = re.search(r"lib_sources = files\((.*?)\)", f.read(), re.S).group(1)
    return [os.path.join(SRC, "src", s) for s in re.findall(r"'([^']+\.c)'", block)]


def newest_header():
    dirs = SRC_DIRS + [os.path.join(SRC, "include")]
    return max(os.path.getmtime(os.path.join(d, f)) for d in dirs for f in os.listdir(d)
               if f.endswith(".h"))


def compile_one(clang, src, obj, extra, hdr):
    if os.path.exists(obj) and os.path.getmtime(obj) > max(os.path.getmtime(src), hdr):
        return None
    r = subprocess.run(["nice", clang, *CFLAGS, *extra, *SAN, "-c", src, "-o", obj],
                       capture_output=True, text=True)
    return None if r.returncode == 0 else "%s: %s" % (os.path.basename(src), r.stderr.strip()[-2000:])


def build(clang):
    """Build every harness; returns {name: executable} and the errors."""
    cflags, libs = pkg("--cflags"), pkg("--libs")
    if cflags is None or libs is None:
        return {}, ["pkg-config knows no hwloc or jansson"]
    os.makedirs(os.path.join(OUT, "obj"), exist_ok=True)
    hdr = newest_header()
    objs = [(s, os.path.join(OUT, "obj", os.path.basename(s)[:-2] + ".o")) for s in lib_sources()]
    extra = cflags + ["-fsanitize=fuzzer-no-link"]
    with ThreadPoolExecutor(max_workers=2) as ex:
        errs = [e for e in ex.map(lambda so: compile_one(clang, so[0], so[1], extra, hdr), objs) if e]
    if errs:
        return {}, errs
    lib = os.path.join(OUT, "libpmubench_fuzz.a")
    if not os.path.exists(lib) or os.path.getmtime(lib) < max(os.path.getmtime(o) for _, o in objs):
        if os.path.exists(lib):
            os.unlink(lib)
        subprocess.run(["ar", "rcs", lib] + [o for _, o in objs], check=True)
    exes, errs = {}, []
    for h in HARNESSES:
        src, exe = os.path.join(SRC, "tests", "fuzz_%s.c" % h), os.path.join(OUT, "fuzz_" + h)
        r = subprocess.run(["nice", clang, *CFLAGS, *cflags, "-fsanitize=fuzzer", *SAN, src, lib,
                            *libs, "-lpfm", "-ldl", "-lm", "-o", exe], capture_output=True, text=True)
        if r.returncode:
            errs.append("fuzz_%s: %s" % (h, r.stderr.strip()[-2000:]))
        else:
            exes[h] = exe
    return exes, errs


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
exes, errs = build(clang)
ok(not errs, "the harnesses build with %s under ASan+UBSan" % os.path.basename(clang))
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
