#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the vmtest initramfs for one installed kernel: a static busybox,
# the modules virtio-9p needs (as modprobe resolves them for that kernel,
# decompressed) and selftests/vm/init.sh as /init. Nothing else: the guest
# runs from the host root, shared read-only.
#
# usage: mkinitramfs.sh KVER OUTPUT BUSYBOX [MODROOT]
# (MODROOT: where the kernel's lib/modules is, when not in /)

set -u
set -o pipefail

die() {
	echo "mkinitramfs: $*" >&2
	exit 1
}

[ $# -eq 3 ] || [ $# -eq 4 ] ||
	die "usage: mkinitramfs.sh KVER OUTPUT BUSYBOX [MODROOT]"
kver=$1
out=$2
busybox=$3
modroot=${4:-/}
here=$(dirname "$(readlink -f "$0")")

# virtio_pci brings the transport, 9pnet_virtio the 9p channel, 9p the fs.
# Any of them may be built in; modprobe says so with a "builtin" line.
mods=(virtio_pci 9pnet_virtio 9p)

stage=$(mktemp -d "${TMPDIR:-/tmp}/kvperf-initramfs.XXXXXX") ||
	die "mktemp failed"
trap 'rm -rf "$stage"' EXIT

mkdir -p "$stage"/{bin,dev,proc,sys,modules,newroot} || die "mkdir failed"
cp "$busybox" "$stage/bin/busybox" || die "cannot copy $busybox"
for applet in $("$busybox" --list); do
	[ "$applet" = busybox ] || ln -s busybox "$stage/bin/$applet"
done
install -m 755 "$here/init.sh" "$stage/init" || die "cannot install init.sh"

declare -A seen=()
: >"$stage/modules/order"
for mod in "${mods[@]}"; do
	deps=$(modprobe -d "$modroot" -S "$kver" --show-depends "$mod" 2>&1) ||
		die "modprobe -d $modroot -S $kver --show-depends $mod: $deps"
	while read -r verb path _; do
		[ "$verb" = insmod ] || continue
		[ -z "${seen[$path]:-}" ] || continue
		seen[$path]=1
		name=$(basename "$path")
		case "$name" in
		*.ko.xz) xz -dc "$path" >"$stage/modules/${name%.xz}" ;;
		*.ko.zst) zstd -qdc "$path" >"$stage/modules/${name%.zst}" ;;
		*.ko.gz) gzip -dc "$path" >"$stage/modules/${name%.gz}" ;;
		*.ko) cp "$path" "$stage/modules/$name" ;;
		*) die "unexpected module file $path" ;;
		esac || die "cannot unpack $path"
		name=${name%.xz}
		name=${name%.zst}
		echo "${name%.gz}" >>"$stage/modules/order"
	done <<<"$deps"
done

tmp="$out.tmp.$$"
(cd "$stage" && find . -print0 | LC_ALL=C sort -z |
	cpio --null -o -H newc --owner=0:0 --quiet) >"$tmp" ||
	{ rm -f "$tmp"; die "cpio failed"; }
mv -f "$tmp" "$out" || die "cannot write $out"
