#!/usr/bin/env bash
# x86-pmu.sh - pmubench's known-answer checks on a real x86 PMU, one table
# to paste in an issue (issue 30).  Run from a copy of the tree on any x86-64
# Linux machine:
#
#   tests/device/x86-pmu.sh [--pmubench=PATH] [--build-dir=DIR] [--cpu=N]
#
# --pmubench=PATH (or $PMUBENCH): use that pmubench, built from this tree;
# else pmubench is built with meson and ninja into --build-dir (default
# ${TMPDIR:-/tmp}/pmubench-x86pmu-build, kept for the next run).  Nothing is
# installed: what is missing is named with the apt-get command for it.
# The imul benchmark (imul_chain.c, run by --load) and the hog that forces
# multiplexing (x86_hog.c) are compiled with cc into a temporary folder;
# without cc their two checks SKIP.  --cpu=N pins the checks to core N
# (default: the last core, on a hybrid CPU the last P-core).
#
# Prints the machine (CPU model, kernel, perf_event_paranoid, the PMU
# pmubench chose) and one line per check: PASS, FAIL or SKIP, the figure,
# the bound, the reason (tests/device/x86_pmu.py).  Where there is no PMU
# or perf_event_open is refused, every check is SKIP with the reason.
# Exit status: 0 nothing FAILed, 1 a check FAILed, 2 usage or a missing tool.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
pmubench=${PMUBENCH:-}
build=${TMPDIR:-/tmp}/pmubench-x86pmu-build
cpu=""
for arg in "$@"; do
	case $arg in
	--pmubench=*) pmubench=${arg#*=} ;;
	--build-dir=*) build=${arg#*=} ;;
	--cpu=*) cpu=${arg#*=} ;;
	-h | --help)
		sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
		exit 0
		;;
	*)
		echo "x86-pmu.sh: unknown argument '$arg' (see --help)" >&2
		exit 2
		;;
	esac
done

# What a missing command is packaged in, on Debian and Ubuntu.
missing=""
need() { command -v "$1" >/dev/null 2>&1 || missing="$missing $2"; }
need python3 python3
if [ -z "$pmubench" ]; then
	need meson meson
	need ninja ninja-build
	need pkg-config pkg-config
	need cc gcc
fi
if [ -n "$missing" ]; then
	echo "x86-pmu.sh: missing:$missing; install with: sudo apt-get install$missing" >&2
	exit 2
fi

if [ -z "$pmubench" ]; then
	# The libraries: meson names the first one it lacks; these are all of
	# them (tests/setup.sh installs the same, and the test tools too).
	libs="libpfm4-dev libhwloc-dev libjansson-dev libcapstone-dev libelf-dev libdw-dev"
	echo "building pmubench in $build ..." >&2
	if [ -f "$build/build.ninja" ]; then
		# A build folder of another copy of the tree would build that copy.
		src=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["directories"]["source"])' \
			"$build/meson-info/meson-info.json" 2>/dev/null || true)
		if [ "$src" != "$root" ]; then
			echo "x86-pmu.sh: $build is the build of ${src:-another tree}, not of $root: give --build-dir=DIR" >&2
			exit 2
		fi
		set_up() { true; }
	else
		set_up() { meson setup "$build" "$root" --buildtype=release; }
	fi
	if ! log=$( (set_up && ninja -C "$build" src/pmubench) 2>&1); then
		printf '%s\n' "$log" | tail -n 15 >&2
		echo "x86-pmu.sh: the build failed; if a library is missing: sudo apt-get install $libs" >&2
		exit 2
	fi
	pmubench=$build/src/pmubench
fi
if [ ! -x "$pmubench" ]; then
	echo "x86-pmu.sh: $pmubench is not an executable pmubench" >&2
	exit 2
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/x86pmu.XXXXXX")
trap 'rm -rf "$work"' EXIT
imul=""
hog=""
if command -v cc >/dev/null 2>&1; then
	# --load needs no -lpmubench: the pmubench running it provides the API.
	if cc -O2 -shared -fPIC -I"$root/include" "$root/tests/device/imul_chain.c" \
		-o "$work/imul_chain.so" 2>"$work/cc.log"; then
		imul=$work/imul_chain.so
	else
		cat "$work/cc.log" >&2
	fi
	if cc -O2 -std=gnu11 "$root/tests/device/x86_hog.c" -o "$work/x86_hog" 2>"$work/cc.log"; then
		hog=$work/x86_hog
	else
		cat "$work/cc.log" >&2
	fi
fi

status=0
python3 "$root/tests/device/x86_pmu.py" --pmubench="$pmubench" --imul-so="$imul" --hog="$hog" \
	${cpu:+--cpu="$cpu"} || status=$?
exit "$status"
