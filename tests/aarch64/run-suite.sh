#!/bin/sh
# The whole test suite on aarch64 under qemu-user: setup.sh cross-builds
# build-aarch64, then meson test runs the C tests under the cross file's
# exe_wrapper and the Python tests against a wrapper that does the same
# (tests/meson.build); checks that need x86-64, a CPU's own timing or
# valgrind for the binary's platform skip there with the reason.
# Arguments go to meson test (e.g. a test name).  The last line is a
# one-line summary; the exit status is meson test's, 77 when setup.sh cannot
# build here.  About 2.5 minutes on a 2-core VM with build-aarch64 built
# (branch_cli is 110 s of it); a first run adds the build and the kernel.
set -eu
cd "$(dirname "$0")/../.."
build=${PMB_AARCH64_BUILD:-$(pwd)/build-aarch64}
export PMB_AARCH64_BUILD="$build"
start=$(date +%s)

rc=0
# The lock run.sh takes: the aarch64 tests of a meson test may be setting
# up the same build-aarch64.
mkdir -p "$build"
why=$(flock "$build/setup.lock" tests/aarch64/setup.sh) || rc=$?
if [ "$rc" = 77 ]; then
	echo "aarch64 suite: skipped: $why"
	exit 77
elif [ "$rc" != 0 ]; then
	echo "aarch64 suite: tests/aarch64/setup.sh failed (exit $rc; its messages are above)"
	exit "$rc"
fi

rc=0
meson test -C "$build" --print-errorlogs "$@" || rc=$?
# testlog.json: one JSON object per test of this run.
counts=$(python3 -c '
import collections, json, sys
n = collections.Counter()
for line in open(sys.argv[1]):
    n[json.loads(line)["result"]] += 1
print("%d ok, %d failed, %d skipped" % (n["OK"], sum(v for k, v in n.items() if k not in ("OK", "SKIP")), n["SKIP"]))
' "$build/meson-logs/testlog.json" 2>/dev/null) || counts="no test log"
echo "aarch64 suite under qemu-user: $counts, exit $rc, $(($(date +%s) - start)) s"
exit "$rc"
