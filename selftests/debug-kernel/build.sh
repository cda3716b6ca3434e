#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh: build, once, the debug kernel of `make check-debug` (KASAN,
# lockdep, kmemleak, UBSAN, DMA-API debug; see debug.config) from
# /usr/src/linux-source-6.12.tar.xz, and print the directory that holds it:
#   DIR/linux                      the built tree: vmlinux, and KDIR for M=
#   DIR/modules/lib/modules/KVER   its modules, installed (depmod done)
#   DIR/kernelrelease              KVER
#
# DIR is $KVPERF_CACHE/debug-kernel-KEY (KVPERF_CACHE defaults to
# $XDG_CACHE_HOME/kvperf, else ~/.cache/kvperf), KEY a hash of the source
# tarball's identity and of debug.config, so later runs and other clones
# reuse it. An interrupted build resumes where it stopped. The kernel
# source is extracted there at build time, never kept in the repository.
#
# The build runs at nice 19 with -j2 (KVPERF_JOBS overrides): it takes
# 48 min on two cores shared with other work (22 min of CPU time).
set -eu
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
prog=debug-kernel/build.sh
series=6.12
tarball=${KVPERF_KSRC_TAR:-/usr/src/linux-source-$series.tar.xz}
fragment=$here/debug.config
jobs=${KVPERF_JOBS:-2}

die() {
	echo "$prog: $*" >&2
	exit 1
}

[ $# = 0 ] || { echo "usage: $0" >&2; exit 2; }
[ -r "$tarball" ] ||
	die "missing $tarball (install linux-source-$series: make deps)"
for t in gcc make flex bison bc xz; do
	command -v "$t" >/dev/null || die "missing $t (make deps)"
done
[ -r /usr/include/libelf.h ] || die "missing libelf-dev (make deps)"

cache=${KVPERF_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kvperf}
key=$( { stat -L -c '%n %s %Y' "$tarball"
	 dpkg-query -W -f '${Version}' "linux-source-$series" 2>/dev/null
	 cat "$fragment"; } | sha256sum | cut -c1-16)
dir=$cache/debug-kernel-$key
tree=$dir/linux

# Cached: say so, and how long the build took.
reuse() {
	local secs

	secs=$(cat "$dir/build-seconds" 2>/dev/null || echo 0)
	echo "$prog: reusing $(cat "$dir/kernelrelease") in $dir" \
	     "(built in $((secs / 60)) min $((secs % 60)) s)" >&2
	echo "$dir"
	exit 0
}

[ -f "$dir/.done" ] && reuse
mkdir -p "$dir"
# One build at a time per key; a second caller waits and reuses it.
exec {lock}>"$dir.lock"
if ! flock -n "$lock"; then
	echo "$prog: another build of $dir is running; waiting" >&2
	flock "$lock"
fi
[ -f "$dir/.done" ] && reuse

start=$(date +%s)
if [ ! -f "$tree/.extracted" ]; then
	echo "$prog: extracting $tarball into $tree" >&2
	rm -rf "$tree"
	mkdir -p "$tree"
	tar -xJf "$tarball" -C "$tree" --strip-components=1 ||
		die "extracting $tarball failed"
	touch "$tree/.extracted"
fi

kmake() {
	nice -n 19 make -s -C "$tree" -j"$jobs" "$@"
}

if [ ! -f "$tree/.configured" ]; then
	echo "$prog: configuring (defconfig + kvm_guest.config + ${fragment##*/})" >&2
	kmake defconfig >&2
	kmake kvm_guest.config >&2
	(cd "$tree" && scripts/kconfig/merge_config.sh -m .config "$fragment") \
		>"$dir/merge.log" 2>&1 || die "merge_config failed: see $dir/merge.log"
	kmake olddefconfig >&2
	# Every setting of the fragment must have survived olddefconfig.
	missing=$(grep -E '^CONFIG_' "$fragment" |
		  grep -vxFf "$tree/.config" || true)
	missing+=$(sed -n 's/^# \(CONFIG_[A-Za-z0-9_]*\) is not set$/^\1=/p' \
		   "$fragment" | grep -of - "$tree/.config" || true)
	[ -z "$missing" ] ||
		die "options of ${fragment##*/} that the kernel did not take:
$missing"
	touch "$tree/.configured"
fi

echo "$prog: building the kernel and modules (nice 19, -j$jobs)" >&2
kmake vmlinux bzImage modules >&2 || die "the kernel build failed"
rm -rf "$dir/modules"
kmake INSTALL_MOD_PATH="$dir/modules" modules_install >&2 ||
	die "modules_install failed"
cp "$tree/include/config/kernel.release" "$dir/kernelrelease"
secs=$(($(date +%s) - start))
echo "$secs" >"$dir/build-seconds"
touch "$dir/.done"
echo "$prog: built $(cat "$dir/kernelrelease") in $((secs / 60)) min $((secs % 60)) s" >&2
echo "$dir"
