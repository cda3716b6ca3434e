#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run kvperf in a QEMU guest with two Soft-RoCE devices: the selftest suite
# (default), one command, or an interactive shell. No RDMA hardware and no
# KVM needed; the guest boots an installed Debian kernel under TCG and runs
# the host's own userspace, shared read-only over virtio-9p, with the
# project directory shared read-write at the same path.

set -u
set -o pipefail

usage() {
	cat <<EOF
usage: $prog [-k KVER | -K DIR] [-d | -b] [-i | -p] [-t SECONDS] [-a KERNEL-ARGS] [-s | -- COMMAND [ARGS...]]

Boot an installed kernel under QEMU (TCG), create rxe0 on kvd0 ($addr0/24)
and rxe1 on kvd1 ($addr1/24), load the freshly built kvperf.ko and then:
  (no command)   run the selftests (selftests/kvperf/run.sh), print KTAP,
                 exit non-zero if any test fails (4 if all were skipped)
  -- COMMAND     run COMMAND in the guest, exit with its status
  -s             interactive shell on the guest's serial line
                 (Ctrl-A x kills the guest)

Options:
  -k KVER        kernel to boot: a version from /boot/vmlinuz-* or a prefix
                 of one (newest match); default: the newest 6.1 kernel
  -K DIR         boot a kernel built by selftests/debug-kernel/build.sh
                 instead (DIR as it prints it): DIR/linux/vmlinux, with
                 the modules of DIR/modules and kvperf.ko built against
                 DIR/linux (make vm-module KDIR=DIR/linux)
  -d             the DMA lane: the guest has an emulated IOMMU (q35,
                 intel-iommu) and a Soft-RoCE patched to map DMA through
                 it (selftests/rxe-dma/), so DMA addresses are IO virtual
                 addresses as on an HCA, not kernel pointers
  -b             the bounce-buffer lane: the DMA lane's Soft-RoCE with the
                 IOMMU passing through (iommu=pt) and swiotlb bouncing
                 every streaming mapping (swiotlb=force, $bounce_mib MiB), as
                 in a confidential guest: the device reads and writes
                 copies, and only the ib_dma_sync_*() calls move data
                 between them and the buffers
  -i             deterministic clock: QEMU counts instructions (-icount
                 shift=0,sleep=on: one guest instruction is one
                 nanosecond of guest time; while the guest is idle its
                 clock follows the host's) and the guest has one vCPU,
                 so guest timings are instruction time and the host's
                 load does not change them
                 (busy polling is meaningless there; see
                 Documentation/benchmarks.rst)
  -p             profile (implies -i): QEMU counts the guest instructions
                 of every piece of code (selftests/tbprof/), and each run
                 of \$KVPERF_MARK in the guest writes the counts since the
                 last one to the run directory's tbprof/dump.NNNN;
                 selftests/tbprof/tbprof.py names the functions
  -t SECONDS     hard time limit for the whole guest run (default $timeout_run;
                 $timeout_shell for -s)
  -a ARGS        append ARGS to the guest kernel command line (e.g. idle=poll)
  -h             this help

Environment:
  KVPERF_TIME_SCALE=N multiply every time limit by N (the guest's, its
                      stall detectors', the tests' waits); default
                      selftests/vm/defaults.sh ($scale)
  KVPERF_NO_MODULE=1  do not build or load kvperf.ko
  KVPERF_KO=PATH      load this module instead of running make vm-module
  KVPERF_LANE=feature the guest's tests run each feature once, not their
                      full combination matrices (make check's 6.1 lane;
                      see selftests/kvperf/lib.sh, kv_full_lane)
  KVPERF_QEMU_CPU=M   QEMU's CPU model (default qemu64; max with -i)
  KVPERF_GUEST_TSC=V  the guest's tsc= (default unstable: it keeps time
                      by the HPET; reliable with -i)
  KVPERF_FUZZ_SOAK=1  the fuzz tests' long soak (make check-fuzz), not
                      their smoke; NL_FUZZ_* and KVPERF_WIRE_FUZZ_* too
                      are passed to the guest

In the guest: PATH starts with $top/user; KVPERF_DEV0/1 (rxe0, rxe1),
KVPERF_NETDEV0/1, KVPERF_ADDR0/1 (their IPv4 addresses), KVPERF_ADDR6_0/1
(their IPv6 addresses, 2001:2::1/64 and 2001:2:0:1::1/64, whose RoCE GIDs
exist before COMMAND starts), KVPERF_KVER, KVPERF_TOP, KVPERF_KO,
KVPERF_RUNDIR, KVPERF_CLOCK (icount with -i, else wall) and
KVPERF_MARK (with -p: the marker program, else empty) are set; a
word of COMMAND that is one of them, quoted on the host
('\$KVPERF_ADDR0'), is expanded in the guest. COMMAND runs in
the current directory (when the
guest has it) with stdin from /dev/null; its stdout and stderr are
streamed to this stdout and stderr. The guest's kernel log is saved in
the run directory (build/vm/run-KVER-PID/dmesg) and scanned: a BUG,
WARNING, Oops, RCU stall, lockup or hung task fails the run.

Exit status: the command's (or the suite's); 1 if the kernel log shows a
problem or the guest died; 124 on timeout; 2 on usage errors or missing
dependencies.

Examples:
  $prog
  $prog -k 6.12 -- kvperf -j dev show
  $prog -- kvperf compare lat op send addr '\$KVPERF_ADDR0' size 64 rounds 3
  $prog -- selftests/kvperf/run.sh hotplug.sh
  $prog -- bash -c 'rdma link; ibv_devinfo -d \$KVPERF_DEV0'
  KVPERF_NO_MODULE=1 $prog -- true
EOF
}

prog=$(basename "$0")
top=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd -P)
vmdir=$top/selftests/vm
addr0=198.18.0.1
addr1=198.18.1.1
timeout_shell=3600
# -b: swiotlb's pool, the most all mappings of the guest may hold at once:
# above what kvperf pins for runs and servers together (max_pinned_mb,
# max_server_pinned_mb: 320 MiB).
bounce_mib=384

# shellcheck source=selftests/vm/defaults.sh
. "$vmdir/defaults.sh"

# One factor for every wait and limit of the suite on a loaded host:
# KVPERF_TIME_SCALE, default vm_default_time_scale (selftests/vm/
# defaults.sh). It scales the guest's time limit, its stall detectors
# and (through lib.sh) every wait of the tests.
scale=${KVPERF_TIME_SCALE:-$vm_default_time_scale}
case "${scale:-1}" in
'' | *[!0-9]* | 0)
	echo "$prog: KVPERF_TIME_SCALE=$scale is not a positive integer" >&2
	exit 2 ;;
esac
scale=${scale:-1}
timeout_run=$((700 * scale))

msg() {
	echo "$prog: $*" >&2
}

# A missing piece of the host setup: one line naming it, exit 2.
missing() {
	msg "missing $* (install it with: make deps)"
	exit 2
}

usage_error() {
	msg "$*"
	echo "Try '$prog -h'." >&2
	exit 2
}

# Newest installed kernel whose version is $1 or starts with "$1." "$1-"
# or "$1+" (so 6.1 never picks 6.12).
resolve_kernel() {
	local want=$1 f v best=

	if [ -e "/boot/vmlinuz-$want" ]; then
		echo "$want"
		return 0
	fi
	for f in /boot/vmlinuz-"$want".* /boot/vmlinuz-"$want"-* \
		 /boot/vmlinuz-"$want"+*; do
		[ -e "$f" ] || continue
		v=${f#/boot/vmlinuz-}
		best=$(printf '%s\n' "$best" "$v" | sed '/^$/d' | sort -V |
		       tail -n 1)
	done
	[ -n "$best" ] || return 1
	echo "$best"
}

is_static() {
	local out

	out=$(LC_ALL=C ldd "$1" 2>&1)
	case "$out" in
	*"not a dynamic executable"* | *"statically linked"*) return 0 ;;
	esac
	return 1
}

find_busybox() {
	local b

	for b in /bin/busybox /usr/bin/busybox "$(command -v busybox)"; do
		[ -n "$b" ] && [ -x "$b" ] && is_static "$b" && {
			echo "$b"
			return 0
		}
	done
	return 1
}

# Rebuild the cached initramfs when its inputs change: the scripts that
# make it, the busybox binary, or the kernel's module set.
initramfs_for() {
	# a -K build's modules; Debian's under / (also for vmpair.sh)
	local kver=$1 busybox=$2 img=$top/build/vm/initramfs-$1.cpio key
	local mods=${modroot:-}

	key=$( { cat "$vmdir/mkinitramfs.sh" "$vmdir/init.sh"
		 stat -c '%n %s %Y' "$busybox" \
			"$mods/lib/modules/$kver/modules.dep"; } | sha256sum)
	if [ ! -f "$img" ] || [ "$(cat "$img.key" 2>/dev/null)" != "$key" ]; then
		bash "$vmdir/mkinitramfs.sh" "$kver" "$img" "$busybox" \
			"$mods" ||
			return 1
		echo "$key" >"$img.key"
	fi
	echo "$img"
}

# The kernel to hand qemu: the unpacked ELF vmlinux (PVH boot, cached)
# when mkvmlinux.sh can make one, else the bzImage.
kernel_for() {
	local kver=$1 elf=$top/build/vm/vmlinux-$1 key

	key=$( { cat "$vmdir/mkvmlinux.sh"
		 stat -c '%n %s %Y' "/boot/vmlinuz-$kver"; } | sha256sum)
	if [ -f "$elf" ] && [ "$(cat "$elf.key" 2>/dev/null)" = "$key" ]; then
		echo "$elf"
	elif bash "$vmdir/mkvmlinux.sh" "$kver" "$elf"; then
		echo "$key" >"$elf.key"
		echo "$elf"
	else
		rm -f "$elf.key"
		echo "/boot/vmlinuz-$kver"
	fi
}

# Last stdout line of make vm-module is the module's path.
build_module() {
	local kver=$1 out ko

	if ! out=$(make -s --no-print-directory -C "$top" vm-module \
		   "${mod_kdir:-KVER=$kver}"); then
		[ -n "$out" ] && echo "$out" >&2
		msg "building kvperf.ko for $kver failed (make vm-module KVER=$kver)"
		return 1
	fi
	ko=$(printf '%s\n' "$out" | tail -n 1)
	case "$ko" in
	/*) ;;
	*) ko=$top/$ko ;;
	esac
	if [ ! -f "$ko" ]; then
		[ -n "$out" ] && echo "$out" >&2
		msg "make vm-module did not name a module file (got '$ko')"
		return 1
	fi
	readlink -f "$ko"
}

# shellcheck source=selftests/kvperf/klog.sh
. "$top/selftests/kvperf/klog.sh"

# A -K guest (a debug-kernel build, modules in MODROOT): the words its
# kernel command line gets and the qemu options that share its modules.
# init.sh mounts the share when it sees kvmods=1; acpi=noirq spares a
# debug kernel about a minute of ACPI AML loop timeouts under TCG.
debug_kernel_cmdline() {
	echo "kvmods=1 acpi=noirq"
}

# debug_kernel_qemu_args ARRAY MODROOT: append the share to ARRAY.
debug_kernel_qemu_args() {
	local -n args=$1

	args+=(-virtfs
	       "local,path=$2/lib/modules,mount_tag=kvmods,security_model=none,readonly=on")
}

# guest_share_args ARRAY: append the shares every guest mounts (init.sh):
# the host's root, read-only and cached; the project directory,
# read-write and uncached (kvtop: the host sees results at once, guests
# and host exchange files through it); and the project directory again,
# read-only and cached (kvtopro), which init.sh binds over the trees a
# guest only reads: the tool, the tests and their installs, which a
# guest then cannot change either. Uncached, every program start and
# every script and Python module read crosses 9p: in a 6.1 guest kvperf
# started in twice the time from kvtop as from a tmpfs copy, and Python
# imported the tests' modules in twice the time; the suite's scripts,
# though, took the same time either way (within 5 %, nine scripts of the
# 6.1 lane): their time is the guest's own work. KVPERF_GUEST_RO_SHARE=0
# leaves the second share out (everything from kvtop, to compare);
# guest_cmdline says kvro=1 when it is in.
guest_share_args() {
	local -n share_q=$1

	# shellcheck disable=SC2054 # qemu's option values are comma-separated
	share_q+=(-virtfs local,path=/,mount_tag=root,security_model=none,readonly=on,multidevs=remap
	       -virtfs "local,path=$top,mount_tag=kvtop,security_model=none,multidevs=remap")
	[ "${KVPERF_GUEST_RO_SHARE:-1}" = 0 ] ||
		share_q+=(-virtfs "local,path=$top,mount_tag=kvtopro,security_model=none,readonly=on,multidevs=remap")
}

# guest_cmdline ICOUNT: the kernel command line every guest starts with
# (vmtest.sh's, both of vmpair.sh's); ICOUNT is 1 for -i.
guest_cmdline() {
	local line="console=ttyS0 quiet loglevel=3 panic=-1 mitigations=off"

	# The guest's clock. Under TCG the guest's TSC is the host's own TSC
	# read by QEMU, and the machines this runs on (microVMs that are paused,
	# snapshotted and restored) mark their TSC unstable on their own kernel
	# command line: a debug-lane guest once saw its clock jump 6.75 hours in
	# a few minutes (RCU stall and soft lockup reports, "stuck for 22684s",
	# then timeouts). tsc=unstable: the guest keeps time by the HPET, which
	# QEMU derives from the host's monotonic clock, as the host keeps time
	# by kvm-clock; from boot, so no switch of clocks mid-run (which has
	# crashed TCG guests: an int3 Oops in sched_clock_cpu, when the watchdog
	# found the TSC skewed). Measured: lat_basic.sh and bw_basic.sh took
	# the same time either way (93-101 s against 99-115 s, alternating).
	# With -i the TSC counts instructions, and stays the clock.
	# KVPERF_GUEST_TSC=reliable|unstable overrides either (to compare them).
	if [ "$1" = 1 ]; then
		line+=" tsc=${KVPERF_GUEST_TSC:-reliable}"
	else
		line+=" tsc=${KVPERF_GUEST_TSC:-unstable}"
	fi
	# no_timer_check: on a busy host the boot-time check of the IO-APIC timer
	# can miss its ticks and panic ("IO-APIC + timer doesn't work").
	line+=" no_timer_check"
	# the cached read-only share of the project (guest_share_args)
	[ "${KVPERF_GUEST_RO_SHARE:-1}" = 0 ] || line+=" kvro=1"
	# The stall detectors, scaled: a vCPU of a TCG guest on a busy host can
	# go unscheduled for seconds, which the defaults (RCU stall 21 s, soft
	# lockup 20 s, hung task 120 s) report as a stall. A real one (a loop
	# that never yields) still shows, only later.
	line+=" rcupdate.rcu_cpu_stall_timeout=$((21 * scale))"
	line+=" watchdog_thresh=$((10 * scale))"
	line+=" sysctl.kernel.hung_task_timeout_secs=$((120 * scale))"
	echo "$line"
}

# selftests/vmpair.sh sources this file for the functions above, and
# stops here.
# guest_rc RUN-DIR NAME QEMU-STATUS LIMIT: the verdict on one guest's run
# of several (vmpair.sh, vmcluster.sh), from its run directory, as this
# script judges its one guest: a timeout (LIMIT s), no exit status, a
# failed setup, or the command's status.
guest_rc() {
	local run=$1 n=$2 qrc=$3 limit=$4 phase status

	phase=$(cat "$run/phase" 2>/dev/null || echo boot)
	status=$(cat "$run/status" 2>/dev/null)
	if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
		msg "TIMEOUT: $n did not finish within $limit s (phase: $phase)"
		tail -n 20 "$run/console.log" >&2
		return 124
	elif [ -z "$status" ]; then
		msg "$n stopped without reporting an exit status" \
		    "(phase: $phase, qemu exit $qrc); last kernel messages:"
		tail -n 30 "$run/console.log" >&2
		return 1
	elif [ -e "$run/setup-failed" ]; then
		msg "$n setup failed: $(cat "$run/setup-failed")"
		return 1
	fi
	return "$status"
}

# klog_check RUN-DIR NAME: a guest's kernel log (dmesg, or the console
# log of a guest that did not save one) has no problem.
klog_check() {
	local log=$1/dmesg problems crashes

	[ -s "$log" ] || log=$1/console.log
	problems=$(klog_scan "$log")
	crashes=$(klog_user_crashes "$log")
	if [ -n "$crashes" ]; then
		msg "note: perftest crashed in user space in $2 (not a failure):"
		printf '%s\n' "$crashes" | sed 's/^/  /' >&2
	fi
	[ -z "$problems" ] && return 0
	msg "$2's kernel log has problems (full log: ${log#"$top"/}):"
	printf '%s\n' "$problems" | sed 's/^/  /' >&2
	return 1
}

[ -n "${KVPERF_VMTEST_SOURCED:-}" ] && return 0

kver_arg=6.1
kdir_arg=
limit=
shell=0
append=
dma=0
bounce=0
icount=0
profile=0
while getopts ":k:K:t:a:dbipsh" opt; do
	case "$opt" in
	k) kver_arg=$OPTARG ;;
	K) kdir_arg=$OPTARG ;;
	d) dma=1 ;;
	b) dma=1 bounce=1 ;;
	i) icount=1 ;;
	p) profile=1 icount=1 ;;
	t) limit=$OPTARG ;;
	a) append=$OPTARG ;;
	s) shell=1 ;;
	h) usage; exit 0 ;;
	:) usage_error "option -$OPTARG needs an argument" ;;
	*) usage_error "unknown option -$OPTARG" ;;
	esac
done
shift $((OPTIND - 1))
if [ $# -gt 0 ] && [ "$shell" = 1 ]; then
	usage_error "-s and a command exclude each other"
fi
if [ -n "$kdir_arg" ] && [ "$dma" = 1 ]; then
	usage_error "-K excludes -d and -b"
fi
if [ $# -gt 0 ] && [ -z "$1" ]; then
	usage_error "empty command"
fi
if [ "$shell" = 1 ]; then
	mode=shell
	limit=${limit:-$timeout_shell}
elif [ $# -gt 0 ]; then
	mode=run
	limit=${limit:-$timeout_run}
else
	mode=suite
	limit=${limit:-$timeout_run}
fi
case "$limit" in
'' | *[!0-9]* | 0) usage_error "-t needs a positive number of seconds" ;;
esac
case "$top" in
*[!A-Za-z0-9._/+-]*)
	usage_error "project path '$top' has characters the kernel command line cannot carry"
	;;
esac

command -v qemu-system-x86_64 >/dev/null || missing qemu-system-x86_64
command -v cpio >/dev/null || missing cpio
command -v modprobe >/dev/null || missing "modprobe (kmod)"
busybox=$(find_busybox) || missing "a static busybox (busybox-static)"
# -K: a built kernel tree and its installed modules, shared with the
# guest as its /lib/modules.
modroot=
mod_kdir=
if [ -n "$kdir_arg" ]; then
	kdir_arg=$(readlink -f "$kdir_arg")
	kver=$(cat "$kdir_arg/kernelrelease" 2>/dev/null) ||
		usage_error "-K $kdir_arg: not a directory of debug-kernel/build.sh"
	modroot=$kdir_arg/modules
	mod_kdir=KDIR=$kdir_arg/linux
else
	kver=$(resolve_kernel "$kver_arg") ||
		missing "kernel $kver_arg (no /boot/vmlinuz-$kver_arg*)"
	[ -r "/boot/vmlinuz-$kver" ] || missing "/boot/vmlinuz-$kver"
fi
[ -r "$modroot/lib/modules/$kver/modules.dep" ] ||
	missing "modules of $kver ($modroot/lib/modules/$kver)"
qboot=/usr/share/qemu/qboot.rom

mkdir -p "$top/build/vm" || exit 1
initrd=$(initramfs_for "$kver" "$busybox") || exit 1
if [ -n "$kdir_arg" ]; then
	kernel=$kdir_arg/linux/vmlinux
else
	kernel=$(kernel_for "$kver")
fi

# The suite runs from its kselftest install (build/kselftest, made by
# make selftests): made afresh for the suite, and whenever one exists, so
# that a guest never runs an edited test's old copy. Not where the caller
# made it and says so (KVPERF_SELFTESTS_MADE=1: check.sh, after its build).
if [ "${KVPERF_SELFTESTS_MADE:-0}" != 1 ] &&
	{ [ "$mode" = suite ] || [ -d "$top/build/kselftest" ]; }; then
	make -s --no-print-directory -C "$top" selftests >&2 ||
		{ msg "make selftests failed: the suite runs from its install in build/kselftest"; exit 1; }
fi

ko=
if [ "${KVPERF_NO_MODULE:-0}" != 1 ]; then
	if [ -n "${KVPERF_KO:-}" ]; then
		ko=$(readlink -f "$KVPERF_KO")
		[ -f "$ko" ] || usage_error "KVPERF_KO=$KVPERF_KO: no such file"
	else
		ko=$(build_module "$kver") || exit 1
	fi
fi

rxe_ko=
if [ "$dma" = 1 ]; then
	rxe_ko=$("$top/selftests/rxe-dma/build.sh" "$kver" \
		 "$top/build/rxe-dma-$kver" | tail -n 1) || exit 1
fi

# -p: the profiler plugin and the marker, and where the marker starts.
tbprof=$top/build/tbprof
mark=
if [ "$profile" = 1 ]; then
	make -s --no-print-directory -C "$top/selftests/tbprof" OUT="$tbprof" >&2 ||
		{ msg "building the profiler (selftests/tbprof) failed"; exit 1; }
	mark=$tbprof/kvperf-mark
	mark_addr=$(nm "$mark" | sed -n 's/^\([0-9a-f]*\) T _start$/\1/p')
	[ -n "$mark_addr" ] || { msg "$mark has no _start"; exit 1; }
fi

# Keep the 20 newest run directories.
find "$top/build/vm" -maxdepth 1 -name 'run-*' -type d -printf '%T@ %p\n' |
	sort -rn | tail -n +20 | cut -d' ' -f2- | xargs -r rm -rf
run=$top/build/vm/run-$kver-$$
rm -rf "$run"
mkdir -p "$run" || exit 1
[ "$profile" = 1 ] && { mkdir "$run/tbprof" || exit 1; }

rows=24
cols=80
if [ "$mode" = shell ] && [ -t 0 ]; then
	read -r rows cols < <(stty size 2>/dev/null) || { rows=24; cols=80; }
fi
{
	printf 'MODE=%q\n' "$mode"
	printf 'KVER=%q\n' "$kver"
	printf 'KO=%q\n' "$ko"
	printf 'CWD=%q\n' "$(pwd -P)"
	printf 'ROWS=%q\nCOLS=%q\n' "$rows" "$cols"
	# the host's terminal type, or dumb when stdout is no terminal
	printf 'TERM_HOST=%q\n' "$([ -t 1 ] && echo "${TERM:-vt100}" || echo dumb)"
	printf 'TIME_SCALE=%q\n' "$scale"
	printf 'RXE_KO=%q\n' "$rxe_ko"
	printf 'BOUNCE=%q\n' "$bounce"
	printf 'CLOCK=%q\n' "$([ "$icount" = 1 ] && echo icount || echo wall)"
	printf 'MARK=%q\n' "$mark"
} >"$run/config"
# The tests' own knobs, as set here, exported in the guest as they are:
# KVPERF_LANE (selftests/kvperf/lib.sh), KVPERF_FUZZ_SOAK and the
# fuzzers' NL_FUZZ_* and KVPERF_WIRE_FUZZ_* (nl_fuzz.sh, wire_fuzz.sh).
compgen -v | grep -E '^(KVPERF_(LANE|FUZZ_SOAK|WIRE_FUZZ_[A-Z]+)|NL_FUZZ_[A-Z]+)$' |
	while read -r v; do
		printf 'export %s=%q\n' "$v" "${!v}"
	done >"$run/env"
if [ "$mode" = run ]; then
	# Words that are just a guest variable ('$KVPERF_ADDR0', quoted on
	# the host) are expanded in the guest; everything else is literal.
	{
		printf 'exec'
		for w in "$@"; do
			if [[ $w =~ ^\$\{?KVPERF_[A-Z0-9_]+\}?$ ]]; then
				printf ' "%s"' "$w"
			else
				printf ' %q' "$w"
			fi
		done
		echo
	} >"$run/cmd"
fi

cmdline=$(guest_cmdline "$icount")
# The DMA lane's IOMMU is off unless asked for.
[ "$dma" = 1 ] && cmdline+=" intel_iommu=on"
# The bounce-buffer lane: swiotlb's slots are 2 KiB each.
[ "$bounce" = 1 ] &&
	cmdline+=" iommu=pt swiotlb=$((bounce_mib * 512)),force"
[ -n "$modroot" ] && cmdline+=" $(debug_kernel_cmdline)"
cmdline+=" kvtop=$top kvrun=$run${append:+ $append}"
vcpus=2
[ "$icount" = 1 ] && vcpus=1
# the CPU model: selftests/vm/defaults.sh says why
cpu=${KVPERF_QEMU_CPU:-$vm_default_cpu}
[ "$icount" = 1 ] && cpu=${KVPERF_QEMU_CPU:-max}
# shellcheck disable=SC2054 # qemu's option values are comma-separated
qemu=(qemu-system-x86_64 -accel tcg -cpu "$cpu" -smp "$vcpus" -m 2G
	-nodefaults -no-reboot -display none
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	-serial "file:$run/console.log")
guest_share_args qemu
[ -r "$qboot" ] && qemu+=(-bios "$qboot")
# One vCPU: icount runs every vCPU on one host thread in turns, so a
# second vCPU only adds QEMU's round-robin slice to every wake-up (and
# 6.1 hangs bringing it up); see Documentation/benchmarks.rst.
# sleep=on: while the guest is idle (waiting for the host's 9p share,
# say) its clock follows the host's; sleep=off would jump it to the next
# timer, which with nothing due was 15 to 149 s for one kvperf start.
# Instruction time is the same either way: the short bench gave the
# baseline's numbers within 0.35 %.
# shellcheck disable=SC2054
[ "$icount" = 1 ] && qemu+=(-icount shift=0,sleep=on)
# -p: the plugin counts each block's runs on the host, so the guest runs
# exactly the instructions it would without it.
[ "$profile" = 1 ] && qemu+=(-plugin
	"$tbprof/tbprof.so,out=$run/tbprof,mark=0x$mark_addr")
[ -n "$modroot" ] && debug_kernel_qemu_args qemu "$modroot"
if [ "$dma" = 1 ]; then
	# An IOMMU, and PCI functions that no driver claims for the patched
	# Soft-RoCE to map DMA through: one per device, and spares for the
	# devices the tests add and remove.
	qemu+=(-machine q35 -device intel-iommu)
	for _ in 1 2 3 4; do
		qemu+=(-device pci-testdev)
	done
fi

msg "kernel $kver, ${ko:-no module}; results in ${run#"$top"/}"

# Run the guest to its end: qrc is qemu's exit, interrupted set on a signal.
boot_guest() {
	if [ "$mode" = shell ]; then
		# In the foreground of the terminal: qemu owns it until the
		# guest powers off.
		timeout --foreground -k 5 "$limit" "${qemu[@]}" \
			-serial mon:stdio -serial null
		qrc=$?
		return
	fi
	# The guest's ttyS1 is our stdout, ttyS2 our stderr (through cat, so
	# that qemu never truncates a file the caller redirected to).
	exec {errfd}> >(exec cat >&2)
	errpid=$!
	timeout -k 5 "$limit" "${qemu[@]}" -monitor none \
		-serial stdio -serial "file:/dev/fd/$errfd" </dev/null &
	qpid=$!
	interrupted=
	trap 'interrupted=1; kill -TERM $qpid 2>/dev/null' INT TERM HUP
	while :; do
		wait "$qpid"
		qrc=$?
		# wait returns >128 when a trapped signal interrupted it.
		kill -0 "$qpid" 2>/dev/null || break
	done
	trap - INT TERM HUP
	exec {errfd}>&-
	wait "$errpid" 2>/dev/null
}

# Did the guest's kernel crash while it booted, before guest.sh began (the
# first thing it does is set the phase to setup)? Nothing of kvperf was
# loaded then: it is the emulator's or the distribution kernel's fault.
boot_crashed() {
	[ -z "${interrupted:-}" ] && [ ! -e "$run/phase" ] &&
		[ ! -e "$run/status" ] && [ "$qrc" != 124 ] &&
		[ "$qrc" != 137 ] &&
		grep -qE 'Oops|double fault|general protection|Kernel panic|BUG:' \
			"$run/console.log" 2>/dev/null
}

start=$(date +%s)
boot_guest
# A multi-threaded TCG guest (QEMU 7.2) crashes now and then while it
# boots (an int3 oops at a site its kernel had just patched, seen once in
# hundreds of boots): boot once more, keeping the first console log.
if [ "$mode" != shell ] && boot_crashed; then
	mv "$run/console.log" "$run/console-boot-crash.log"
	msg "the guest's kernel crashed while booting, before any test or" \
	    "module (${run#"$top"/}/console-boot-crash.log); booting again, once:"
	grep -m 3 -E 'Oops|double fault|general protection|Kernel panic|BUG:' \
		"$run/console-boot-crash.log" | sed 's/^/  /' >&2
	# and on stdout, a KTAP diagnostic make check counts in its table
	echo "# retry: vmtest.sh: the $kver guest's kernel crashed while booting; booted again"
	boot_guest
fi
elapsed=$(($(date +%s) - start))

phase=$(cat "$run/phase" 2>/dev/null || echo boot)
status=$(cat "$run/status" 2>/dev/null)
log=$run/dmesg
[ -s "$log" ] || log=$run/console.log

rc=0
if [ -n "${interrupted:-}" ]; then
	msg "interrupted; the guest was stopped (guest phase: $phase)"
	rc=130
elif [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	msg "TIMEOUT: the guest did not finish within $limit s (guest phase: $phase);" \
	    "kernel log: ${log#"$top"/}"
	tail -n 20 "$run/console.log" >&2
	rc=124
elif [ -z "$status" ]; then
	msg "the guest stopped without reporting an exit status (guest phase: $phase," \
	    "qemu exit $qrc); last kernel messages:"
	tail -n 30 "$run/console.log" >&2
	rc=1
elif [ -e "$run/setup-failed" ]; then
	msg "guest setup failed: $(cat "$run/setup-failed")"
	rc=1
else
	rc=$status
fi

problems=$(klog_scan "$log")
if [ -n "$problems" ]; then
	msg "kernel log problems (full log: ${log#"$top"/}):"
	printf '%s\n' "$problems" | sed 's/^/  /' >&2
	[ "$rc" = 0 ] && rc=1
fi
crashes=$(klog_user_crashes "$log")
if [ -n "$crashes" ]; then
	msg "note: perftest crashed in user space (not a failure):"
	printf '%s\n' "$crashes" | sed 's/^/  /' >&2
fi

msg "exit $rc after ${elapsed}s"
if [ "$mode" = suite ] && [ -f "$run/ktap" ]; then
	# Top-level results of the KTAP stream, as one closing line.
	pass=$(grep -cE '^ok [0-9]+' "$run/ktap" | tr -d ' ')
	skip=$(grep -cE '^ok [0-9]+ .*# SKIP' "$run/ktap")
	fail=$(grep -cE '^not ok [0-9]+' "$run/ktap")
	echo "vmtest: $((pass - skip)) passed, $fail failed, $skip skipped" >&2
fi
exit "$rc"
