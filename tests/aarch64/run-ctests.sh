#!/bin/sh
# meson test entry point: the cross-built C tests (tests/test_*) run inside
# the aarch64 QEMU guest, whose emulated PMU counts (see tests/aarch64/README).
# One TAP stream on stdout; "1..0 # SKIP why" where the guest cannot be built.
set -eu
cd "$(dirname "$0")/../.."
PMB_SOURCE_ROOT=$(pwd)
export PMB_SOURCE_ROOT
export PMB_AARCH64_BUILD="${PMB_AARCH64_BUILD:-$PMB_SOURCE_ROOT/build-aarch64}"

rc=0
why=$(tests/aarch64/setup.sh) || rc=$?
if [ "$rc" = 77 ]; then
	echo "1..0 # SKIP $why"
	exit 0
elif [ "$rc" != 0 ]; then
	echo "Bail out! tests/aarch64/setup.sh failed (exit $rc; its messages are on stderr)"
	exit 1
fi
exec python3 tests/aarch64/ctests.py
