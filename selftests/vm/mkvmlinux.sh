#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Unpack the ELF vmlinux from an installed bzImage so that QEMU can boot it
# through its PVH entry point: under TCG this skips the 2-3 s the kernel
# spends decompressing itself. Exits non-zero (and writes nothing) when the
# kernel has no PVH entry or its payload is in a format not handled here;
# the caller then boots the bzImage.
#
# usage: mkvmlinux.sh KVER OUTPUT

set -u
set -o pipefail

[ $# -eq 2 ] || { echo "usage: mkvmlinux.sh KVER OUTPUT" >&2; exit 2; }
kver=$1
out=$2
img=/boot/vmlinuz-$kver

grep -qx 'CONFIG_PVH=y' "/boot/config-$kver" 2>/dev/null || exit 1

# Little-endian unsigned integer of $2 bytes at offset $1 of the image.
le() {
	od -An -t "u$2" -j "$1" -N "$2" "$img" | tr -d ' '
}

# x86 boot protocol: the protected-mode code starts after the setup
# sectors; payload_offset/payload_length (at 0x248/0x24c) locate the
# compressed kernel in it, whose last 4 bytes are its decompressed size.
sects=$(le $((0x1f1)) 1) || exit 1
[ "$sects" -eq 0 ] && sects=4
start=$(( (sects + 1) * 512 + $(le $((0x248)) 4) ))
len=$(le $((0x24c)) 4) || exit 1
size=$(le $((start + len - 4)) 4) || exit 1

magic=$(od -An -tx1 -j "$start" -N 4 "$img" | tr -d ' ')
case "$magic" in
fd377a58) dec=(xz -dcq) ;;
28b52ffd) dec=(zstd -dcq) ;;
1f8b*) dec=(gzip -dcq) ;;
*) exit 1 ;;
esac
command -v "${dec[0]}" >/dev/null || exit 1

tmp=$out.tmp.$$
# The decompressors complain about the size trailer after the stream;
# the size check below is what tells a complete kernel.
tail -c +$((start + 1)) "$img" | head -c "$len" | "${dec[@]}" >"$tmp" 2>/dev/null
if [ "$(stat -c %s "$tmp")" != "$size" ] ||
   [ "$(od -An -tx1 -N 4 "$tmp" | tr -d ' ')" != 7f454c46 ]; then
	rm -f "$tmp"
	exit 1
fi
mv -f "$tmp" "$out"
