#!/bin/sh
# meson test entry point for the emulated-PMU tests (see tests/aarch64/README):
#   run.sh hw      tests/test_hw.py, every pmubench run inside the aarch64 guest
#   run.sh ctests  the cross-built C tests (tests/test_*) inside the guest
#   run.sh all     both in one guest (all.py): what meson test aarch64 runs
# TAP on stdout; "1..0 # SKIP why" where the guest cannot be built here.
set -eu
cd "$(dirname "$0")/../.."
PMB_SOURCE_ROOT=$(pwd)
export PMB_SOURCE_ROOT
export PMB_AARCH64_BUILD="${PMB_AARCH64_BUILD:-$PMB_SOURCE_ROOT/build-aarch64}"

rc=0
# Two of these may run beside each other (hw and ctests by hand, or
# run-suite.sh): one sets up build-aarch64 and the initramfs while the other
# waits here, then each boots its own guest (QEMU reads the initramfs when
# it starts).
mkdir -p "$PMB_AARCH64_BUILD"
why=$(flock "$PMB_AARCH64_BUILD/setup.lock" tests/aarch64/setup.sh) || rc=$?
if [ "$rc" = 77 ]; then
	echo "1..0 # SKIP $why"
	exit 0
elif [ "$rc" != 0 ]; then
	echo "Bail out! tests/aarch64/setup.sh failed (exit $rc; its messages are on stderr)"
	exit 1
fi

# pmbtap.run() sends every pmubench run to the guest when PMB_GUEST is set.
# PMUBENCH names the cross-built binary the guest runs (test_hw.py checks
# that it exists; inside the guest it is /pmb/pmubench).
export PMB_GUEST=cortex-a57
export PMUBENCH="$PMB_AARCH64_BUILD/src/pmubench"
export PMUBENCH_EVENTS_DIR="$PMB_SOURCE_ROOT/events"
case "${1:-}" in
hw)
	exec python3 tests/test_hw.py ;;
ctests)
	exec python3 tests/aarch64/ctests.py ;;
all)
	exec python3 tests/aarch64/all.py ;;
*)
	echo "usage: tests/aarch64/run.sh hw|ctests|all" >&2
	exit 2 ;;
esac
