#!/bin/busybox sh
# shellcheck shell=dash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the vmtest initramfs (busybox sh, PID 1). Loads the virtio/9p
# modules, mounts the host root read-only and the project directory
# read-write (at the same path as on the host) over virtio-9p, and hands
# over to selftests/vm/guest.sh from the project share.

PATH=/bin
export PATH

die() {
	# ttyS1 is the user's channel; ttyS0 is the kernel log file.
	echo "vmtest-init: $*" >/dev/ttyS1 2>/dev/null
	echo "vmtest-init: $*" >/dev/console
	poweroff -f
}

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

# Listed in dependency order by mkinitramfs.sh.
while read -r mod; do
	insmod "/modules/$mod" || die "insmod $mod failed"
done </modules/order

top=
mods=
ro=
# shellcheck disable=SC2013 # the command line is one line of words
for arg in $(cat /proc/cmdline); do
	case "$arg" in
	kvtop=*) top="${arg#kvtop=}" ;;
	kvmods=1) mods=1 ;;
	kvro=1) ro=1 ;;
	esac
done
[ -n "$top" ] || die "no kvtop= on the kernel command line"

opts=trans=virtio,version=9p2000.L,msize=512000
mkdir -p /newroot
mount -t 9p -o "$opts,cache=loose,ro" root /newroot ||
	die "cannot mount the host root over 9p"
for d in tmp run var/tmp var/lib root; do
	mount -t tmpfs -o mode=0755 tmpfs "/newroot/$d" || die "tmpfs on /$d"
done
chmod 1777 /newroot/tmp /newroot/var/tmp
# No cache on the read-write share: the host sees results at once, and
# the guest sees files the host and the other guests change.
# the project may live below one of the tmpfs mounts (e.g. a clone in /tmp)
[ -d "/newroot$top" ] || mkdir -p "/newroot$top" ||
	die "cannot create the mount point $top"
mount -t 9p -o "$opts" kvtop "/newroot$top" ||
	die "cannot mount the project directory $top over 9p"
# The trees the guest only reads, from the cached read-only share of the
# project (vmtest.sh's guest_share_args says why): the tool, the tests,
# the kselftest install and the in-tree copy.
if [ -n "$ro" ]; then
	mkdir -p /newroot/run/kvtop-ro
	mount -t 9p -o "$opts,cache=loose,ro" kvtopro /newroot/run/kvtop-ro ||
		die "cannot mount the project directory again (kvtopro) over 9p"
	for d in user selftests build/kselftest build/intree; do
		[ -d "/newroot/run/kvtop-ro/$d" ] || continue
		mount -o bind "/newroot/run/kvtop-ro/$d" "/newroot$top/$d" ||
			die "cannot bind $top/$d from the read-only share"
	done
fi

# vmtest.sh -K: the booted kernel's modules are a share of their own.
if [ -n "$mods" ]; then
	mount -t 9p -o "$opts,ro" kvmods /newroot/lib/modules ||
		die "cannot mount the kernel's modules (kvmods) over 9p"
fi

mount --move /proc /newroot/proc
mount --move /sys /newroot/sys
mount --move /dev /newroot/dev

exec switch_root /newroot /bin/bash "$top/selftests/vm/guest.sh"
