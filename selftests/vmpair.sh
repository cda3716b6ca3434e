#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Two vmtest guests, A and B, each on its own kernel, joined by a link: a
# QEMU stream netdev over a unix socket on the host, a virtio-net device
# (kvx0) in each guest with rxe_x on it. Each guest has all a vmtest.sh
# guest has besides (rxe0, rxe1, kvperf.ko built for its kernel). A runs
# COMMAND (or the pair suite, selftests/pair/), B a peer command. The
# host kills B on A's request (a file in the shared pair directory), so
# that tests can make the peer vanish without a disconnect.
#
# Kept apart from vmtest.sh (whose functions it sources): two guests, a
# watcher between them and its own exit rules, none of which the one-guest
# path needs.

set -u
set -o pipefail

# (shellcheck would follow vmtest.sh to its end, past the return)
# shellcheck source=/dev/null
KVPERF_VMTEST_SOURCED=1 . "$(dirname "$(readlink -f "$0")")/vmtest.sh"
# What this script takes from vmtest.sh besides its functions:
# shellcheck disable=SC2154 # set there
: "${prog:?}" "${top:?}" "${scale:?}" "${timeout_run:?}"

pair_addrs=(10.99.0.1 10.99.0.2)
pair_addrs6=(fd99::1 fd99::2)
pair_macs=(52:54:00:99:00:0a 52:54:00:99:00:0b)

usage() {
	cat <<EOF
usage: $prog [-k KVER | -K DIR] [-p KVER] [-P 'PEER COMMAND'] [-t SECONDS]
       [-a KERNEL-ARGS] [-- COMMAND [ARGS...]]

Boot two guests as vmtest.sh does, A and B, joined by a link: kvx0 in
each (A ${pair_addrs[0]}/24 ${pair_addrs6[0]}/64, B ${pair_addrs[1]}/24 ${pair_addrs6[1]}/64) with the
Soft-RoCE device rxe_x on it, besides rxe0 and rxe1. Both load kvperf.ko
built for their kernel. Then:
  (no command)   the pair suite (selftests/pair/run.sh) in both guests:
                 A prints KTAP, B serves as the peer
  -- COMMAND     A runs COMMAND (words as in vmtest.sh, '\$KVPERF_...'
                 expanded in the guest); exit with its status

Options:
  -k KVER        guest A's kernel (default: the newest 6.12)
  -K DIR         guest A boots the debug kernel built by
                 selftests/debug-kernel/build.sh (DIR as it prints it;
                 KASAN, lockdep, kmemleak), as vmtest.sh -K does: the
                 peer's traffic then meets a kernel that reports a
                 stray write when it happens, not when it is hit
  -p KVER        guest B's kernel (default: the newest 6.1)
  -P COMMAND     guest B's command, a bash command line (default: the
                 pair suite's peer side with no COMMAND, else nothing:
                 B waits). It is stopped when A finishes.
  -t SECONDS     hard time limit for the pair (default $timeout_run)
  -a ARGS        append ARGS to both guests' kernel command lines
  -h             this help

Environment: as vmtest.sh (KVPERF_TIME_SCALE, KVPERF_NO_MODULE); and
  KVPERF_PEER_DEATH_DEADLINE=SECONDS  passed into both guests (the
                 peer_death test's deadline; default 60 x time scale)

In both guests, besides vmtest.sh's variables: KVPERF_PEER_ROLE (a or
b: this guest's role), KVPERF_SELF_ADDR, KVPERF_PEER_ADDR (IPv4 on the
link), KVPERF_SELF_ADDR6, KVPERF_PEER_ADDR6, KVPERF_DEVX (rxe_x),
KVPERF_NETDEVX (kvx0) and KVPERF_PAIR_DIR, the pair's directory, shared
with the host and the other guest (build/vm/pair-PID/; each guest's run
directory, its console log and dmesg are in a/ and b/ there):
  ready-a, ready-b   written by each guest when its setup is done
  kill-peer          A creates it: the host SIGKILLs B's QEMU (no
                     shutdown, no RDMA CM disconnect), then writes
  peer-killed        (the time of the kill)
  b-exited           the host writes it when B's QEMU has ended
  a-finished         the host writes it when A's QEMU has ended; B's
                     command is then stopped
B's output is streamed to stderr (prefixed "b| ") and saved in
b/output. Both kernel logs are scanned as vmtest.sh does.

Exit status: A's command's; 1 if a kernel log shows a problem, a guest
died, or B's command failed (unless B was killed on request or stopped
when A finished); 124 on timeout; 2 on usage errors.

Examples:
  $prog
  $prog -P 'kvperf server start addr \$KVPERF_SELF_ADDR' -- \\
      bash -c 'sleep 3; kvperf run lat op send addr \$KVPERF_PEER_ADDR'
EOF
}

kver_a=6.12
kver_b=6.1
kdir_a=
peer_cmd=
peer_cmd_set=0
limit=$timeout_run
append=
while getopts ":k:K:p:P:t:a:h" opt; do
	case "$opt" in
	k) kver_a=$OPTARG ;;
	K) kdir_a=$(readlink -f "$OPTARG") ;;
	p) kver_b=$OPTARG ;;
	P) peer_cmd=$OPTARG peer_cmd_set=1 ;;
	t) limit=$OPTARG ;;
	a) append=$OPTARG ;;
	h) usage; exit 0 ;;
	:) usage_error "option -$OPTARG needs an argument" ;;
	*) usage_error "unknown option -$OPTARG" ;;
	esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] && [ -z "$1" ] && usage_error "empty command"
case "$limit" in
'' | *[!0-9]* | 0) usage_error "-t needs a positive number of seconds" ;;
esac
[ -z "$kdir_a" ] || [ -r "$kdir_a/kernelrelease" ] ||
	usage_error "-K $kdir_a: not a directory of debug-kernel/build.sh"
case "$top" in
*[!A-Za-z0-9._/+-]*)
	usage_error "project path '$top' has characters the kernel command line cannot carry"
	;;
esac
deadline=${KVPERF_PEER_DEATH_DEADLINE:-}
case "$deadline" in
*[!0-9]* | 0*)
	usage_error "KVPERF_PEER_DEATH_DEADLINE=$deadline is not a number of seconds" ;;
esac

command -v qemu-system-x86_64 >/dev/null || missing qemu-system-x86_64
command -v cpio >/dev/null || missing cpio
command -v modprobe >/dev/null || missing "modprobe (kmod)"
busybox=$(find_busybox) || missing "a static busybox (busybox-static)"
qboot=/usr/share/qemu/qboot.rom
mkdir -p "$top/build/vm" || exit 1

# The pair suite needs the KTAP helpers and, for hw_mode.sh, the VM
# suite's kselftest install (build/kselftest), made afresh as vmtest.sh
# makes it.
if [ $# -eq 0 ]; then
	make -s --no-print-directory -C "$top" selftests >&2 ||
		{ msg "make selftests failed: the pair suite runs the VM suite's install"; exit 1; }
fi

# Keep the 10 newest pair directories.
find "$top/build/vm" -maxdepth 1 -name 'pair-*' -type d -printf '%T@ %p\n' |
	sort -rn | tail -n +10 | cut -d' ' -f2- | xargs -r rm -rf
pair=$top/build/vm/pair-$$
rm -rf "$pair"
mkdir -p "$pair/a" "$pair/b" || exit 1
# The socket's path must fit in sun_path (108 bytes): not below $top.
sockdir=$(mktemp -d "${TMPDIR:-/tmp}/kvpair.XXXXXX") || exit 1
sock=$sockdir/link

# pair_guest ROLE KVER [DIR]: resolve ROLE's kernel (DIR: a debug-kernel
# build's), initramfs and module, and write its run directory's config;
# sets kernel_ROLE, initrd_ROLE, kver_ROLE and ko_ROLE. vmtest.sh's
# build_module and initramfs_for read modroot and mod_kdir.
pair_guest() {
	local role=$1 i=0 kver ko='' run=$pair/$1 kdir=${3:-}
	local modroot='' mod_kdir=''

	[ "$role" = b ] && i=1
	if [ -n "$kdir" ]; then
		kver=$(cat "$kdir/kernelrelease") || exit 1
		# shellcheck disable=SC2034 # mod_kdir: for build_module
		modroot=$kdir/modules mod_kdir=KDIR=$kdir/linux
	else
		kver=$(resolve_kernel "$2") ||
			missing "kernel $2 (no /boot/vmlinuz-$2*)"
	fi
	[ -r "$modroot/lib/modules/$kver/modules.dep" ] ||
		missing "modules of $kver ($modroot/lib/modules/$kver)"
	if [ "${KVPERF_NO_MODULE:-0}" != 1 ]; then
		ko=$(build_module "$kver") || exit 1
	fi
	printf -v "kver_$role" %s "$kver"
	printf -v "ko_$role" %s "$ko"
	printf -v "initrd_$role" %s "$(initramfs_for "$kver" "$busybox")" ||
		exit 1
	if [ -n "$kdir" ]; then
		printf -v "kernel_$role" %s "$kdir/linux/vmlinux"
		printf -v "mods_$role" %s "$modroot"
	else
		printf -v "kernel_$role" %s "$(kernel_for "$kver")"
	fi
	{
		printf 'MODE=run\n'
		printf 'KVER=%q\nKO=%q\nCWD=%q\n' "$kver" "$ko" "$(pwd -P)"
		printf 'ROWS=24\nCOLS=80\nTERM_HOST=vt100\n'
		printf 'TIME_SCALE=%q\nRXE_KO=\n' "$scale"
		printf 'PAIR_ROLE=%q\nPAIR_DIR=%q\nPAIR_MAC=%q\n' \
			"$role" "$pair" "${pair_macs[i]}"
		printf 'PAIR_ADDR=%q\nPAIR_PEER_ADDR=%q\n' \
			"${pair_addrs[i]}" "${pair_addrs[1 - i]}"
		printf 'PAIR_ADDR6=%q\nPAIR_PEER_ADDR6=%q\n' \
			"${pair_addrs6[i]}" "${pair_addrs6[1 - i]}"
		printf 'PAIR_ENV=%q\n' \
			"${deadline:+KVPERF_PEER_DEATH_DEADLINE=$deadline}"
	} >"$run/config"
}

# shellcheck disable=SC2034 # read through ${!mods} in pair_qemu
mods_a='' mods_b=''
pair_guest a "$kver_a" "$kdir_a"
pair_guest b "$kver_b"

# A's command: COMMAND as vmtest.sh writes it, or the pair suite (its
# KTAP copied for the summary).
if [ $# -gt 0 ]; then
	{
		printf 'exec'
		for w in "$@"; do
			[[ $w =~ ^\$\{?KVPERF_[A-Z0-9_]+\}?$ ]] &&
				printf ' "%s"' "$w" && continue
			printf ' %q' "$w"
		done
		echo
	} >"$pair/a/cmd"
else
	# shellcheck disable=SC2016 # expanded in the guest
	printf '%s\n' 'bash "$KVPERF_TOP/selftests/pair/run.sh" | tee "$KVPERF_RUNDIR/ktap"' \
		'exit "${PIPESTATUS[0]}"' >"$pair/a/cmd"
fi
# B's: the peer command, under pair_run_peer (stopped when A finishes).
if [ "$peer_cmd_set" = 1 ]; then
	printf '%s\n' "$peer_cmd" >"$pair/b/peer"
elif [ $# -eq 0 ]; then
	# shellcheck disable=SC2016 # expanded in the guest
	echo 'exec bash "$KVPERF_TOP/selftests/pair/run.sh"' >"$pair/b/peer"
else
	echo 'while :; do sleep 1; done' >"$pair/b/peer"
fi
# shellcheck disable=SC2016 # expanded in the guest
printf '%s\n' '. "$KVPERF_TOP/selftests/vm/pair.sh"' \
	'pair_run_peer "$KVPERF_RUNDIR/peer"' >"$pair/b/cmd"

# pair_qemu ROLE NETDEV-OPTIONS: the qemu command line of ROLE's guest
# in qemu_ROLE (as vmtest.sh's, with the link).
pair_qemu() {
	local role=$1 kernel initrd mods cmdline i=0
	local -a q

	[ "$role" = b ] && i=1
	kernel=kernel_$role initrd=initrd_$role mods=mods_$role
	cmdline=$(guest_cmdline 0)
	[ -n "${!mods}" ] && cmdline+=" $(debug_kernel_cmdline)"
	cmdline+=" kvtop=$top kvrun=$pair/$role${append:+ $append}"
	# the CPU model of vmtest.sh's suites (selftests/vm/defaults.sh)
	# shellcheck disable=SC2054 # qemu's option values are comma-separated
	q=(qemu-system-x86_64 -accel tcg -cpu "${KVPERF_QEMU_CPU:-$vm_default_cpu}"
		-smp 2 -m 2G
		-nodefaults -no-reboot -display none -monitor none
		-kernel "${!kernel}" -initrd "${!initrd}" -append "$cmdline"
		-netdev "stream,id=kvx,addr.type=unix,addr.path=$sock,$2"
		-device "virtio-net-pci,netdev=kvx,mac=${pair_macs[i]}"
		-pidfile "$pair/$role/qemu.pid"
		-serial "file:$pair/$role/console.log")
	guest_share_args q
	[ -r "$qboot" ] && q+=(-bios "$qboot")
	[ -n "${!mods}" ] && debug_kernel_qemu_args q "${!mods}"
	eval "qemu_$role=(\"\${q[@]}\")"
}
pair_qemu a server=on
pair_qemu b server=off

msg "guest A: kernel $kver_a, ${ko_a:-no module}"
msg "guest B: kernel $kver_b, ${ko_b:-no module}"
msg "results in ${pair#"$top"/}"

apid='' bpid=''
interrupted=
# shellcheck disable=SC2317 # run by the traps
stop_all() {
	[ -n "$apid" ] && kill -TERM "$apid" 2>/dev/null
	[ -n "$bpid" ] && kill -TERM "$bpid" 2>/dev/null
}
trap 'interrupted=1; stop_all' INT TERM HUP
# shellcheck disable=SC2317 # run by the trap
cleanup() {
	stop_all
	rm -rf "$sockdir"
}
trap cleanup EXIT

# put NAME [TEXT]: a marker file in the pair directory, written whole.
put() {
	echo "${2:-}" >"$pair/$1.tmp" && mv -f "$pair/$1.tmp" "$pair/$1"
}

start=$(date +%s.%N)
# A's ttyS1 is our stdout, its ttyS2 our stderr; both of B's go to
# b/output and, prefixed, to our stderr.
exec {errfd}> >(exec cat >&2)
errpid=$!
exec {bfd}> >(tee "$pair/b/output" | sed -u 's/^/b| /' >&2)
bteepid=$!
# shellcheck disable=SC2154 # set by pair_qemu
timeout -k 5 "$limit" "${qemu_a[@]}" -serial stdio \
	-serial "file:/dev/fd/$errfd" </dev/null &
apid=$!
# B connects to the socket A's qemu listens on.
for _ in $(seq 100); do
	[ -S "$sock" ] && break
	kill -0 "$apid" 2>/dev/null || break
	sleep 0.1
done
[ -S "$sock" ] || msg "guest A's qemu did not create the link's socket $sock"
# shellcheck disable=SC2154 # set by pair_qemu
timeout -k 5 "$limit" "${qemu_b[@]}" -serial "file:/dev/fd/$bfd" \
	-serial "file:/dev/fd/$bfd" </dev/null >&2 &
bpid=$!

# The watcher: kill B on request, note when B's qemu ends.
killed=
while kill -0 "$apid" 2>/dev/null && [ -z "$interrupted" ]; do
	if [ -z "$killed" ] && [ -e "$pair/kill-peer" ]; then
		bq=$(cat "$pair/b/qemu.pid" 2>/dev/null)
		[ -n "$bq" ] && kill -KILL "$bq" 2>/dev/null
		killed=$(date +%s.%N)
		wait "$bpid" 2>/dev/null
		put peer-killed "$killed"
		msg "killed guest B (qemu pid ${bq:-unknown}) on guest A's request"
	fi
	if [ ! -e "$pair/b-exited" ] && ! kill -0 "$bpid" 2>/dev/null; then
		put b-exited "$(date +%s.%N)"
	fi
	sleep 0.2
done
wait "$apid"
arc=$?
put a-finished "$(date +%s.%N)"
# B stops its command on a-finished and powers off; give it the time.
for _ in $(seq $((200 * scale))); do
	kill -0 "$bpid" 2>/dev/null || break
	sleep 0.1
done
bstopped=
if kill -0 "$bpid" 2>/dev/null; then
	bstopped=1
	kill -TERM "$bpid" 2>/dev/null
fi
wait "$bpid"
brc=$?
[ -e "$pair/b-exited" ] || put b-exited "$(date +%s.%N)"
trap - INT TERM HUP
exec {errfd}>&- {bfd}>&-
wait "$errpid" "$bteepid" 2>/dev/null
end=$(date +%s.%N)

# since FILE: seconds from the start to FILE's modification.
since() {
	[ -e "$1" ] || { echo "-"; return; }
	awk -v a="$start" -v b="$(stat -c %.3Y "$1")" 'BEGIN { printf "%.1f", b - a }'
}

if [ -n "$interrupted" ]; then
	msg "interrupted; the guests were stopped"
	rc=130
else
	guest_rc "$pair/a" "guest a" "$arc" "$limit"
	rc=$?
	if [ -n "$killed" ]; then
		msg "guest B was killed on request; its kernel log is its console log"
	elif [ -n "$bstopped" ]; then
		msg "guest B did not power off within $((20 * scale)) s of A's end; stopped"
		[ "$rc" = 0 ] && rc=1
	else
		guest_rc "$pair/b" "guest b" "$brc" "$limit"
		b=$?
		if [ "$b" != 0 ]; then
			msg "guest B: exit $b (its output: ${pair#"$top"/}/b/output)"
			[ "$rc" = 0 ] && rc=1
		fi
	fi
fi
klog_check "$pair/a" "guest a" || { [ "$rc" = 0 ] && rc=1; }
klog_check "$pair/b" "guest b" || { [ "$rc" = 0 ] && rc=1; }

msg "guest A ready after $(since "$pair/ready-a") s, guest B after" \
    "$(since "$pair/ready-b") s; exit $rc after" \
    "$(awk -v a="$start" -v b="$end" 'BEGIN { printf "%.0f", b - a }')s"
if [ $# -eq 0 ] && [ -f "$pair/a/ktap" ]; then
	pass=$(grep -cE '^ok [0-9]+' "$pair/a/ktap" | tr -d ' ')
	skip=$(grep -cE '^ok [0-9]+ .*# SKIP' "$pair/a/ktap")
	fail=$(grep -cE '^not ok [0-9]+' "$pair/a/ktap")
	echo "vmpair: $((pass - skip)) passed, $fail failed, $skip skipped" >&2
fi
exit "$rc"
