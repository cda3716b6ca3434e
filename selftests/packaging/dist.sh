#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make dist: the tarball is named after user/version.sh, holds the tree
# and its VERSION and nothing built, and builds from itself alone,
# unpacked outside any git tree: the tool (whose -V is the tarball's
# version) and the unit tests, which pass. With KVPERF_DIST_MODULE=1
# also the module, for the newest Debian kernel with headers (about a
# minute more; DKMS's tests build it from the tarball anyway). KTAP.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d /tmp/kvperf-dist.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT

# shellcheck source=selftests/ktap.sh
. "$top/selftests/ktap.sh"

echo "TAP version 13"
if [ "$(git -C "$top" rev-parse --show-toplevel 2>/dev/null)" != "$top" ]; then
	echo "1..0 # SKIP not a git checkout (make dist archives one)"
	exit 0
fi
echo "1..$((5 + ${KVPERF_DIST_MODULE:-0}))"

version=$("$top/user/version.sh")
tarball=$top/build/kvperf-$version.tar.gz
make -s -C "$top" dist >"$tmp/dist.log" 2>&1 && [ -s "$tarball" ]
result $? "make dist writes build/kvperf-$version.tar.gz" "$(diag "$tmp/dist.log")"

tar -tzf "$tarball" >"$tmp/list" 2>&1
{
	for f in Makefile Kbuild README.md COPYING VERSION kmod/Kbuild \
		 kmod/kvperf.h user/Makefile user/version.sh \
		 include/uapi/linux/kvperf.h selftests/unit/Makefile; do
		grep -qx "kvperf-$version/$f" "$tmp/list" ||
			echo "missing: $f"
	done
	grep -E '\.(o|ko|a|d)$|/build/|/user/kvperf$' "$tmp/list" |
		sed 's/^/built product: /'
} >"$tmp/contents"
[ ! -s "$tmp/contents" ]
result $? "the tarball holds the tree, its VERSION and nothing built" \
	"$(diag "$tmp/contents")"

tar -xzf "$tarball" -C "$tmp" 2>"$tmp/untar.log"
src=$tmp/kvperf-$version
[ "$(cat "$src/VERSION" 2>&1)" = "$version" ] &&
	[ "$("$src/user/version.sh")" = "$version" ]
result $? "unpacked, user/version.sh says $version without git" \
	"$(diag "$tmp/untar.log")"

make -s -C "$src/user" -j"$(nproc)" test >"$tmp/unit.log" 2>&1 &&
	! grep -q '^not ok' "$tmp/unit.log"
result $? "the unit tests build and pass in the unpacked tarball" \
	"$(diag "$tmp/unit.log")"

"$src/user/kvperf" -V >"$tmp/v.log" 2>&1
[ "$(head -n 1 "$tmp/v.log")" = "kvperf $version" ]
result $? "the tool built from it prints kvperf $version" "$(diag "$tmp/v.log")"

[ "${KVPERF_DIST_MODULE:-0}" = 1 ] || exit $((fail > 0))
kver=$("$top/selftests/kernels.sh" 2>/dev/null | tail -n 1)
if [ -z "$kver" ]; then
	n=$((n + 1))
	echo "ok $n the module builds from the tarball # SKIP no Debian kernel with headers"
else
	make -s -C "$src" KVER="$kver" -j"$(nproc)" modules \
		>"$tmp/mod.log" 2>&1 && [ -f "$src/kmod/kvperf.ko" ]
	result $? "the module builds from the tarball for $kver" \
		"$(diag "$tmp/mod.log")"
fi
[ "$fail" -eq 0 ]
