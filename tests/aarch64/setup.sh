#!/bin/sh
# Prepares the emulated-PMU guest (see tests/aarch64/README): installs the
# cross tools and QEMU if missing, cross-builds pmubench and the C tests into
# build-aarch64, fetches an arm64 Debian kernel and packs an initramfs.
# Everything lands in $PMB_AARCH64_BUILD (default build-aarch64) and in its
# guest/ folder; a second run reuses what is there.
# Progress goes to stderr.  Exit 77 (meson's "skipped") with ONE line on
# stdout saying why when the tools or the kernel cannot be had here.
set -eu
cd "$(dirname "$0")/../.."
src=$(pwd)
build=${PMB_AARCH64_BUILD:-$src/build-aarch64}
guest=$build/guest

skip() { echo "$*"; exit 77; }
log() { echo "aarch64 setup: $*" >&2; }
nj() { (cd "$build" && ninja "$@") >&2; }

# ---- packages --------------------------------------------------------------
# "name:arch" pairs.  A bare dpkg-query name can match the package of
# another architecture (libhwloc-dev vs libhwloc-dev:arm64), so compare the
# installed package's architecture too ("all" packages count for both).
native=$(dpkg --print-architecture 2>/dev/null) || skip "not a dpkg system: cannot install the aarch64 cross tools"
pkgs="qemu-system-arm:$native gcc-aarch64-linux-gnu:$native libc6-dev-arm64-cross:all
	cpio:$native qemu-user-static:$native meson:all ninja-build:$native pkg-config:$native
	libpfm4-dev:arm64 libhwloc-dev:arm64 libjansson-dev:arm64 busybox-static:arm64
	libcapstone-dev:arm64 libelf-dev:arm64 libdw-dev:arm64"
need=""
for p in $pkgs; do
	name=${p%%:*} arch=${p#*:}
	dpkg-query -W -f='${Status} ${Architecture}\n' "$name" 2>/dev/null |
		grep -Eq "^install ok installed ($arch|all)\$" || need="$need $name:$arch"
done
if [ -n "$need" ]; then
	need=$(echo "$need" | sed 's/:all\b//g')
	if [ "$(id -u)" = 0 ]; then sudo=""
	elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo -n"
	else skip "missing packages (${need# }) and no root or password-less sudo to install them"
	fi
	command -v apt-get >/dev/null || skip "missing packages (${need# }) and no apt-get"
	log "installing:$need"
	# arm64 must be a foreign architecture before apt knows the :arm64 packages.
	dpkg --print-foreign-architectures | grep -qx arm64 || $sudo dpkg --add-architecture arm64
	aptlog=${TMPDIR:-/tmp}/pmubench-aarch64-apt.log
	# env after sudo: sudo would drop a DEBIAN_FRONTEND set before it.
	# shellcheck disable=SC2086 # $need: one word per package
	{ $sudo apt-get update && $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y $need; } \
		>"$aptlog" 2>&1 || skip "cannot install${need} (apt-get failed, no network?): see $aptlog"
fi

# ---- cross-build -------------------------------------------------------------
if [ ! -f "$build/build.ninja" ]; then
	log "meson setup $build"
	meson setup "$build" --cross-file tests/aarch64/cross.ini -Dwerror=true >&2
fi
# pmubench must build; the C tests are taken where they build (a test that
# does not compile for aarch64 yet is left out, not fatal).
# The programs the guest runs: the C tests (test_*) and the helpers
# test_hw.py starts there (hw_hog, disasm_bench); the other programs of
# tests/ serve the x86 tests only, and building them cost CPU the suite's
# five minutes lack (issue 29).  run-suite.sh's meson test builds all.
# build.ninja first brought up to date: `-t targets` reads it as it is, and
# a build folder set up before a test was added left that test out.
nj build.ninja
tests=$(ninja -C "$build" -t targets all |
	sed -n 's,^\(tests/\(test_[A-Za-z0-9_]*\|hw_hog\|disasm_bench\)\): c_LINKER$,\1,p' | sort -u | tr '\n' ' ')
# One ninja for all of them, which keeps both cores busy where one per
# target waited on each one's last link (issue 29); -k 0: a test that fails
# to build stops no other.  Only where it failed is each target asked
# (a dry run) whether it is built.
built=" $tests"
# shellcheck disable=SC2086 # $tests: one word per target
if ! nj -k 0 src/pmubench $tests; then
	[ "$(cd "$build" && ninja -n src/pmubench)" = "ninja: no work to do." ] ||
		{ log "pmubench does not build for aarch64"; exit 1; }
	built=""
	for t in $tests; do
		if [ "$(cd "$build" && ninja -n "$t")" = "ninja: no work to do." ]; then built="$built $t"
		else log "$t does not build for aarch64; left out"
		fi
	done
fi

# ---- kernel ------------------------------------------------------------------
# The kernel linux-image-cloud-arm64 depends on (PERF_EVENTS, ARM_PMU and the
# PL011 console built in, so no modules are needed).  Kept once fetched, in
# the user's cache ($PMB_AARCH64_KERNEL_CACHE, default
# ~/.cache/pmubench/aarch64-kernel) as well as here: a fresh clone needs no
# network then, nor apt-cache (1.4 CPU s) and the download (4.7 CPU s here,
# issue 29).  Delete that folder to fetch the current kernel again.
cache=${PMB_AARCH64_KERNEL_CACHE:-${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/pmubench/aarch64-kernel}
mkdir -p "$guest"
if [ ! -f "$guest/vmlinuz" ] && [ -f "$cache/vmlinuz" ] && [ -f "$cache/kernel.pkg" ]; then
	for f in config kernel.pkg vmlinuz; do cp "$cache/$f" "$guest/$f.tmp" && mv "$guest/$f.tmp" "$guest/$f"; done
	log "kernel $(cat "$guest/kernel.pkg") from $cache"
fi
if [ ! -f "$guest/vmlinuz" ]; then
	pkg=$(apt-cache depends linux-image-cloud-arm64:arm64 2>/dev/null |
		sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*\)$/\1/p' | head -n 1)
	[ -n "$pkg" ] || skip "apt-cache does not know linux-image-cloud-arm64:arm64 (apt-get update with arm64 added?)"
	log "fetching $pkg"
	tmp=$(mktemp -d "$guest/kernel.XXXXXX")
	# Sandbox user root: the _apt user may not write here (apt warns otherwise).
	(cd "$tmp" && apt-get download -o APT::Sandbox::User=root "$pkg" >&2) ||
		{ rm -rf "$tmp"; skip "cannot download $pkg (no network?)"; }
	# Only boot/ out of the package: the modules (most of it) are not needed.
	dpkg-deb --fsys-tarfile "$tmp"/*.deb | (cd "$tmp" && tar -x ./boot)
	mv "$tmp"/boot/config-* "$guest/config"
	mv "$tmp"/boot/vmlinuz-* "$guest/vmlinuz"
	echo "${pkg%:arm64}" >"$guest/kernel.pkg"
	rm -rf "$tmp"
	# Into the cache, staged and renamed: another clone may read it now.
	# A cache that cannot be written is no error (the copy here serves).
	if mkdir -p "$cache" 2>/dev/null && ctmp=$(mktemp -d "$cache/new.XXXXXX" 2>/dev/null); then
		cp "$guest/vmlinuz" "$guest/config" "$guest/kernel.pkg" "$ctmp/" &&
			for f in config kernel.pkg vmlinuz; do mv "$ctmp/$f" "$cache/$f"; done
		rm -rf "$ctmp"
	fi
fi

# ---- initramfs ---------------------------------------------------------------
# Packed on every run: it takes about 0.3 s, less than keeping track of what
# changed (pmubench, the tests, events/, the libraries, this script, init).
# Staged in a fresh folder and renamed into place, so a guest booting from
# the previous one is not disturbed.
exes="$build/src/pmubench"
for t in $built; do exes="$exes $build/$t"; done
root=$(mktemp -d "$guest/root.XXXXXX")
trap 'rm -rf "$root" "$root.cpio"' EXIT
chmod 755 "$root"    # it becomes the guest's /: mktemp made it 0700
mkdir -p "$root/bin" "$root/lib/aarch64-linux-gnu" "$root/etc" "$root/proc" "$root/sys" \
	"$root/dev" "$root/tmp" "$root/root" "$root/pmb/tests" "$root/pmb/src/tests"
cp /bin/busybox "$root/bin/busybox"
cp tests/aarch64/init "$root/init"
chmod 755 "$root/init"
cp "$build/src/pmubench" "$root/pmb/pmubench"
for t in $built; do cp "$build/$t" "$root/pmb/tests/"; done
cp -r events "$root/pmb/events"
rm -f "$root/pmb/events/meson.build"
# test_topology reads $PMB_SOURCE_ROOT/tests/topo.
cp -r tests/topo "$root/pmb/src/tests/topo"
printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/sh\n' >"$root/etc/passwd"
printf 'root:x:0:\nnogroup:x:65534:\n' >"$root/etc/group"

# Shared libraries: NEEDED entries, recursively, found where the arm64
# multiarch packages and the cross libc put them.  All go to
# /lib/aarch64-linux-gnu, which the aarch64 loader searches by default.
# The build's tests/ too: a test program linked with a library built
# beside it (disasm_bench with libdisasm_lib.so), and the build's src/ for
# a test program linked with libpmubench.so (hoist_bench).
libdirs="/usr/lib/aarch64-linux-gnu /lib/aarch64-linux-gnu /usr/aarch64-linux-gnu/lib $build/tests $build/src"
todo=$exes seen=""
while [ -n "$todo" ]; do
	next=""
	for f in $todo; do
		for lib in $(aarch64-linux-gnu-readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			case " $seen " in *" $lib "*) continue ;; esac
			seen="$seen $lib"
			path=""
			for d in $libdirs; do
				[ -e "$d/$lib" ] && { path=$d/$lib; break; }
			done
			[ -n "$path" ] || { echo "aarch64 setup: $lib (needed by $f) not found in $libdirs" >&2; exit 1; }
			cp -L "$path" "$root/lib/aarch64-linux-gnu/$lib"
			next="$next $path"
		done
	done
	todo=$next
done
cp -L /lib/ld-linux-aarch64.so.1 "$root/lib/aarch64-linux-gnu/ld-linux-aarch64.so.1"
ln -s aarch64-linux-gnu/ld-linux-aarch64.so.1 "$root/lib/ld-linux-aarch64.so.1"

# newc, owned by root whoever packs it; the kernel's own built-in initramfs
# already holds /dev/console.  Not compressed: gzip -1 cost 0.4 CPU s here
# and the guest's unpacking of it 1.1 CPU s of QEMU at each of its two
# boots (3.8 s against 2.7 s per boot, issue 29); QEMU reads the 19 MB as
# they are.
initrd=$guest/initramfs.cpio
(cd "$root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) >"$root.cpio"
mv "$root.cpio" "$initrd"
rm -f "$guest/initramfs.gz"    # a build-aarch64 packed before
log "initramfs: $(du -h "$initrd" | cut -f1), with$built"
