#!/usr/bin/env bash
# Install what a fresh Debian 12 machine lacks, then configure and build
# pmubench in ./build (warnings are errors).  Used by both README commands.
set -eu
cd "$(dirname "$0")/.."
need=""
# Query the native architecture's package: with arm64 added for the emulated
# PMU (tests/aarch64), a bare name would also match libhwloc-dev:arm64.
arch=$(dpkg --print-architecture)
# libbenchmark-tools and python3-scipy only for the test that feeds
# pmubench's JSON to Google Benchmark's compare.py; libudev-dev (which
# hwloc's static library needs), g++ and clang only for test_install.py's
# static link and C++ builds.
for pkg in meson ninja-build pkg-config gcc libc6-dev libpfm4-dev libhwloc-dev libjansson-dev valgrind binutils python3 \
	libbenchmark-tools python3-scipy \
	libudev-dev g++ clang; do
	dpkg-query -W -f='${Status} ${Architecture}\n' "$pkg" 2>/dev/null |
		grep -Eq "^install ok installed ($arch|all)\$" || need="$need $pkg"
done
if [ -n "$need" ]; then
	echo "installing:$need" >&2
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq $need >/dev/null
fi
if [ ! -f build/build.ninja ]; then
	meson setup build -Dwerror=true >/dev/null
fi
ninja -C build >/dev/null
