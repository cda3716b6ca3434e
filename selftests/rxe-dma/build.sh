#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# build.sh KVER OUTDIR: build the DMA-faithful Soft-RoCE (rdma_rxe.ko) for
# the installed kernel KVER in OUTDIR, from that kernel's own source
# package and the patch next to this script; print the module's path.
#
# The driver's source is never kept in this repository: it comes from
# /usr/src/linux-source-SERIES.tar.xz (Debian's linux-source-SERIES),
# whose version must be the kernel's, and is patched at build time with
# rdma_rxe-SERIES.patch. A series without a patch has no DMA lane.
#
# The build is cached: it is redone when the patch, this script, the
# source tarball or the kernel headers change.
set -eu
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd -P)
prog=rxe-dma/build.sh

die() {
	echo "$prog: $*" >&2
	exit 1
}

[ $# = 2 ] || { echo "usage: $0 KVER OUTDIR" >&2; exit 2; }
kver=$1
out=$2
series=$(sed -n 's/^\([0-9]\+\.[0-9]\+\)[.+-].*/\1/p' <<<"$kver")
[ -n "$series" ] || die "cannot tell the series of kernel '$kver'"
patch=$here/rdma_rxe-$series.patch
[ -r "$patch" ] || die "no DMA lane for $series kernels (no ${patch#"$here"/})"
tarball=/usr/src/linux-source-$series.tar.xz
[ -r "$tarball" ] ||
	die "missing $tarball (install linux-source-$series: make deps)"
kdir=/lib/modules/$kver/build
[ -f "$kdir/Makefile" ] || kdir=/usr/src/linux-headers-$kver
[ -f "$kdir/Makefile" ] ||
	die "missing the headers of $kver (install linux-headers-$kver: make deps)"

# The patch is written against the kernel's exact source: a source
# package of another version may not even build against these headers.
src_ver=$(dpkg-query -W -f '${Version}' "linux-source-$series" 2>/dev/null) ||
	die "linux-source-$series is not installed as a package"
img_ver=$(dpkg-query -W -f '${Version}' "linux-image-$kver" 2>/dev/null ||
	  dpkg-query -W -f '${Version}' "linux-image-$kver-unsigned" 2>/dev/null) ||
	die "linux-image-$kver is not installed as a package"
[ "$src_ver" = "$img_ver" ] ||
	die "linux-source-$series is $src_ver but linux-image-$kver is $img_ver: install matching versions (make deps)"

ko=$out/rdma_rxe.ko
key=$( { cat "$patch" "$0"; stat -c '%n %s %Y' "$tarball" "$kdir/Makefile"
	 echo "$src_ver"; } | sha256sum)
if [ -f "$ko" ] && [ "$(cat "$out/.key" 2>/dev/null)" = "$key" ]; then
	echo "$ko"
	exit 0
fi

rm -rf "$out"
mkdir -p "$out"
tmp=$out/src
mkdir -p "$tmp"
tar -xJf "$tarball" -C "$tmp" --strip-components=1 \
	"linux-source-$series/drivers/infiniband/sw/rxe" ||
	die "extracting the rxe driver from $tarball failed"
(cd "$tmp" && patch -p1 --quiet --batch <"$patch") ||
	die "${patch#"$here"/} does not apply to linux-source-$series $src_ver"
make -s -C "$kdir" M="$tmp/drivers/infiniband/sw/rxe" CONFIG_RDMA_RXE=m \
	modules >&2 || die "building the DMA-lane rdma_rxe for $kver failed"
cp "$tmp/drivers/infiniband/sw/rxe/rdma_rxe.ko" "$ko"
echo "$key" >"$out/.key"
echo "$ko"
