#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Four vmtest guests, kvc0 to kvc3, on one Ethernet segment: a Linux
# bridge in a network namespace of this script's own (unshare -n), a tap
# per guest on it. Each guest has what a vmtest.sh guest has (rxe0, rxe1,
# kvperf.ko built for its kernel), plus the cluster NIC with the
# Soft-RoCE device rxe_c on it, sshd, munged and slurmd (slurmctld on
# kvc0), all configured for the run from files in the cluster's
# directory. kvc0 runs COMMAND (or the fabric suite, selftests/fabric/)
# once the cluster is ready; the others idle until it ends. The host
# SIGKILLs a guest on kvc0's request (a file in the shared directory).
#
# Kept apart from vmtest.sh and vmpair.sh (whose functions it shares
# through vmtest.sh): four guests, a namespace, a watcher and the
# cluster's services, none of which the other paths need.

set -u
set -o pipefail

# (shellcheck would follow vmtest.sh to its end, past the return)
# shellcheck source=/dev/null
KVPERF_VMTEST_SOURCED=1 . "$(dirname "$(readlink -f "$0")")/vmtest.sh"
# What this script takes from vmtest.sh besides its functions:
# shellcheck disable=SC2154 # set there
: "${prog:?}" "${top:?}" "${scale:?}" "${timeout_run:?}"

cl_names=(kvc0 kvc1 kvc2 kvc3)
cl_addrs=(10.98.0.1 10.98.0.2 10.98.0.3 10.98.0.4)
cl_macs=(52:54:00:98:00:01 52:54:00:98:00:02 52:54:00:98:00:03 52:54:00:98:00:04)
# a name every guest resolves, that no guest has: a host down from the start
cl_down_name=kvc4
cl_down_addr=10.98.0.5
cl_netdev=kvcl0
cl_dev=rxe_c
# Each guest's memory and vCPUs: four guests share the host's cores.
cl_mem=${KVPERF_CLUSTER_MEM:-1G}
cl_smp=${KVPERF_CLUSTER_SMP:-1}

usage() {
	cat <<EOF
usage: $prog [-k KVER] [-p KVER] [-t SECONDS] [-a KERNEL-ARGS] [-- COMMAND [ARGS...]]

Boot four guests as vmtest.sh does, ${cl_names[*]}, on one Ethernet
segment: a bridge in a network namespace this script makes (no traffic
leaves it), $cl_netdev in each guest (${cl_addrs[0]} to ${cl_addrs[3]}/24) with
the Soft-RoCE device $cl_dev on it, besides rxe0 and rxe1; kvperf.ko built
for each guest's kernel is loaded. In every guest, from files made for
the run: the hostname, an /etc/hosts naming the four and $cl_down_name
($cl_down_addr, which no guest has: a host down from the start), sshd on
the cluster address (root's key and the host keys are the run's, so
ssh and pdsh need no setup), munged, and Slurm: slurmd on all four,
slurmctld on kvc0, partition "fabric". Once all four nodes are idle in
sinfo and pdsh reaches them, kvc0 runs:
  (no command)   the fabric suite (selftests/fabric/run.sh), KTAP
  -- COMMAND     COMMAND (words as in vmtest.sh, '\$KVPERF_...'
                 expanded in the guest); exit with its status
The other guests idle until kvc0 is done, then power off.

Options:
  -k KVER        kvc0's and kvc2's kernel (default: the newest 6.12)
  -p KVER        kvc1's and kvc3's kernel (default: the newest 6.1)
  -t SECONDS     hard time limit for the cluster (default $timeout_run)
  -a ARGS        append ARGS to every guest's kernel command line
  -h             this help

Needs root (a network namespace, a bridge, taps).

Environment: as vmtest.sh (KVPERF_TIME_SCALE, KVPERF_NO_MODULE); and
  KVPERF_CLUSTER_MEM=SIZE  each guest's memory (default $cl_mem)
  KVPERF_CLUSTER_SMP=N     each guest's vCPUs (default $cl_smp; Slurm's CPUs)

In every guest, besides vmtest.sh's variables: KVPERF_CLUSTER_NAME (its
own name), KVPERF_CLUSTER_HOSTS ("${cl_names[*]}"), KVPERF_CLUSTER_ADDRS
(their addresses, same order), KVPERF_CLUSTER_DOWN_HOST ($cl_down_name),
KVPERF_CLUSTER_DOWN_ADDR, KVPERF_CLUSTER_DEV ($cl_dev),
KVPERF_CLUSTER_NETDEV ($cl_netdev), KVPERF_CLUSTER_DIR (the cluster's
directory, build/vm/cluster-PID/, shared with the host and the other
guests), SLURM_CONF, and PDSH_RCMD_TYPE, PDSH_SSH_ARGS_APPEND,
PDSH_CONNECT_TIMEOUT for pdsh over ssh. Commands run over ssh find
kvperf and SLURM_CONF too. In the cluster's directory:
  kvcN/              each guest's run directory (console log, dmesg,
                     status; its services' logs; "steps": the seconds
                     since its boot at each setup step)
  ready-kvcN         written by each guest when its setup is done
  cluster-ready      written by kvc0 once the cluster is ready
  kill-kvcN          kvc0 creates it: the host SIGKILLs kvcN's QEMU
                     (N 1 to 3), then writes
  killed-kvcN        (the time of the kill)
  kvcN-exited        the host writes it when kvcN's QEMU has ended
  kvc0-finished      the host writes it when kvc0's QEMU has ended
The other guests' output is streamed to stderr (prefixed "kvcN| ") and
saved in kvcN/output. Every guest's kernel log is scanned as vmtest.sh
does.

Exit status: kvc0's command's; 1 if a kernel log shows a problem, the
cluster did not get ready, or another guest died or failed (unless it
was killed on request); 124 on timeout; 2 on usage errors or missing
dependencies.

Examples:
  $prog
  $prog -- pdsh -w 'kvc[0-3]' uname -r
  $prog -- bash -c 'salloc -N 4 srun hostname; sinfo'
EOF
}

kver_even=6.12
kver_odd=6.1
limit=$timeout_run
append=
while getopts ":k:p:t:a:h" opt; do
	case "$opt" in
	k) kver_even=$OPTARG ;;
	p) kver_odd=$OPTARG ;;
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
case "$cl_smp" in
'' | *[!0-9]* | 0) usage_error "KVPERF_CLUSTER_SMP=$cl_smp is not a number of vCPUs" ;;
esac
case "$top" in
*[!A-Za-z0-9._/+-]*)
	usage_error "project path '$top' has characters the kernel command line cannot carry"
	;;
esac

[ "$(id -u)" = 0 ] ||
	{ msg "needs root: the cluster's segment is a bridge and taps in a network namespace"; exit 2; }
for c in qemu-system-x86_64 cpio modprobe ip unshare ssh-keygen; do
	command -v "$c" >/dev/null || missing "$c"
done
for c in /usr/sbin/sshd /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd \
	 pdsh sinfo srun; do
	command -v "$c" >/dev/null ||
		missing "$c (openssh-server, munge, slurmctld, slurmd, slurm-client, pdsh)"
done

# The rest runs in a network namespace of its own: the bridge, the taps
# and the guests' traffic vanish with it, however this script ends.
if [ -z "${KVPERF_CLUSTER_NETNS:-}" ]; then
	KVPERF_CLUSTER_NETNS=$$ exec unshare --net -- "$top/selftests/vmcluster.sh" \
		-k "$kver_even" -p "$kver_odd" -t "$limit" -a "$append" -- "$@"
fi

# (and never in the host's own: KVPERF_CLUSTER_NETNS is this script's)
[ "$(readlink /proc/self/ns/net)" != "$(readlink /proc/1/ns/net)" ] ||
	{ msg "not in a network namespace of its own (unshare --net failed?)"; exit 1; }

busybox=$(find_busybox) || missing "a static busybox (busybox-static)"
qboot=/usr/share/qemu/qboot.rom
mkdir -p "$top/build/vm" || exit 1

# The fabric suite needs the KTAP helpers (build/ksrc) and the tool.
if [ $# -eq 0 ]; then
	make -s --no-print-directory -C "$top" ksrc tools >&2 ||
		{ msg "make ksrc tools failed: the fabric suite needs both"; exit 1; }
fi

# Keep the 10 newest cluster directories.
find "$top/build/vm" -maxdepth 1 -name 'cluster-*' -type d -printf '%T@ %p\n' |
	sort -rn | tail -n +10 | cut -d' ' -f2- | xargs -r rm -rf
cl=$top/build/vm/cluster-${KVPERF_CLUSTER_NETNS}
rm -rf "$cl"
mkdir -p "$cl/ssh" "$cl/slurm" || exit 1
for n in "${cl_names[@]}"; do
	mkdir "$cl/$n" || exit 1
done

t_host=$(date +%s.%N)
# since T0 [T1]: seconds from T0 to T1 (default now), one decimal.
since() {
	awk -v a="$1" -v b="${2:-$(date +%s.%N)}" 'BEGIN { printf "%.1f", b - a }'
}

# The run's credentials, configuration and names, shared with the
# guests over 9p: they copy what must be private to their tmpfs.
cluster_files() {
	local i n

	ssh-keygen -q -t ed25519 -N '' -C "root@kvcluster" -f "$cl/ssh/id_ed25519" ||
		return 1
	for i in "${!cl_names[@]}"; do
		n=${cl_names[i]}
		ssh-keygen -q -t ed25519 -N '' -C "$n" -f "$cl/ssh/${n}_host_ed25519" ||
			return 1
		echo "$n,${cl_addrs[i]} $(cut -d' ' -f1-2 "$cl/ssh/${n}_host_ed25519.pub")"
	done >"$cl/ssh/known_hosts" || return 1
	# munged wants at least 32 bytes it alone can read
	(umask 077 && head -c 1024 /dev/urandom >"$cl/munge.key") || return 1
	{
		printf '127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n'
		for i in "${!cl_names[@]}"; do
			printf '%s\t%s\n' "${cl_addrs[i]}" "${cl_names[i]}"
		done
		printf '%s\t%s\n' "$cl_down_addr" "$cl_down_name"
	} >"$cl/hosts" || return 1
	slurm_conf >"$cl/slurm/slurm.conf" || return 1
	# cgroup/v1, named: autodetection fails on a guest with no cgroup
	# file system mounted, and slurmd with it; with proctrack/linuxproc
	# and task/none the plugin is loaded and never used.
	printf 'CgroupPlugin=cgroup/v1\n' >"$cl/slurm/cgroup.conf"
}

# slurm_conf: the cluster's slurm.conf. The daemons run as root; state
# and spool live on the guests' tmpfs (/var/lib), logs in each guest's
# run directory; timeouts are short, scaled.
slurm_conf() {
	local i

	cat <<-EOF
		# slurm.conf of a vmcluster.sh run (selftests/vmcluster.sh)
		ClusterName=kvcluster
		SlurmctldHost=${cl_names[0]}(${cl_addrs[0]})
		SlurmUser=root
		SlurmdUser=root
		AuthType=auth/munge
		CredType=cred/munge
		ProctrackType=proctrack/linuxproc
		TaskPlugin=task/none
		JobAcctGatherType=jobacct_gather/none
		AccountingStorageType=accounting_storage/none
		JobCompType=jobcomp/none
		MpiDefault=none
		SchedulerType=sched/builtin
		SelectType=select/linear
		ReturnToService=2
		SlurmctldTimeout=$((30 * scale))
		SlurmdTimeout=$((20 * scale))
		MessageTimeout=$((10 * scale))
		BatchStartTimeout=$((10 * scale))
		KillWait=5
		MinJobAge=60
		InactiveLimit=0
		Waittime=0
		StateSaveLocation=/var/lib/slurm/slurmctld
		SlurmdSpoolDir=/var/lib/slurm/slurmd
		SlurmctldPidFile=/run/slurm/slurmctld.pid
		SlurmdPidFile=/run/slurm/slurmd.pid
		SlurmctldLogFile=$cl/${cl_names[0]}/slurmctld.log
		SlurmdLogFile=$cl/%n/slurmd.log
		SlurmctldDebug=info
		SlurmdDebug=info
	EOF
	for i in "${!cl_names[@]}"; do
		echo "NodeName=${cl_names[i]} NodeAddr=${cl_addrs[i]} CPUs=$cl_smp State=UNKNOWN"
	done
	# a node that never comes: never allocated, the others still are
	echo "NodeName=$cl_down_name NodeAddr=$cl_down_addr CPUs=$cl_smp State=UNKNOWN"
	echo "PartitionName=fabric Nodes=$(IFS=,; echo "${cl_names[*]}"),$cl_down_name Default=YES State=UP MaxTime=INFINITE"
}

cluster_files || { msg "making the cluster's keys and configuration failed"; exit 1; }

# kernel_prep KVER: resolve a kernel, build its module, make its
# initramfs and boot image; sets k_kver, k_ko, k_initrd, k_kernel.
kernel_prep() {
	k_kver=$(resolve_kernel "$1") || missing "kernel $1 (no /boot/vmlinuz-$1*)"
	[ -r "/lib/modules/$k_kver/modules.dep" ] ||
		missing "modules of $k_kver (/lib/modules/$k_kver)"
	k_ko=
	if [ "${KVPERF_NO_MODULE:-0}" != 1 ]; then
		k_ko=$(build_module "$k_kver") || exit 1
	fi
	k_initrd=$(initramfs_for "$k_kver" "$busybox") || exit 1
	k_kernel=$(kernel_for "$k_kver")
}

# Kernels alternate: kvc0 and kvc2 on -k's, kvc1 and kvc3 on -p's.
declare -a g_kver g_ko g_kernel g_initrd
for i in 0 1; do
	if [ "$i" = 0 ]; then kernel_prep "$kver_even"; else kernel_prep "$kver_odd"; fi
	for j in "$i" $((i + 2)); do
		g_kver[j]=$k_kver g_ko[j]=$k_ko g_initrd[j]=$k_initrd g_kernel[j]=$k_kernel
	done
done

# Each guest's run directory's config (as vmtest.sh's, with the cluster).
for i in "${!cl_names[@]}"; do
	{
		printf 'MODE=run\n'
		printf 'KVER=%q\nKO=%q\nCWD=%q\n' "${g_kver[i]}" "${g_ko[i]}" "$(pwd -P)"
		printf 'ROWS=24\nCOLS=80\nTERM_HOST=vt100\n'
		printf 'TIME_SCALE=%q\nRXE_KO=\n' "$scale"
		printf 'CLUSTER_NAME=%q\nCLUSTER_DIR=%q\n' "${cl_names[i]}" "$cl"
		printf 'CLUSTER_MAC=%q\nCLUSTER_ADDR=%q\n' "${cl_macs[i]}" "${cl_addrs[i]}"
		printf 'CLUSTER_HOSTS=%q\nCLUSTER_ADDRS=%q\n' "${cl_names[*]}" "${cl_addrs[*]}"
		printf 'CLUSTER_DOWN_HOST=%q\nCLUSTER_DOWN_ADDR=%q\n' "$cl_down_name" "$cl_down_addr"
		printf 'CLUSTER_NETDEV=%q\nCLUSTER_DEV=%q\nCLUSTER_CPUS=%q\n' \
			"$cl_netdev" "$cl_dev" "$cl_smp"
	} >"$cl/${cl_names[i]}/config" || exit 1
done

# kvc0's command: COMMAND as vmtest.sh writes it, or the fabric suite
# (its KTAP copied for the summary); the others idle.
if [ $# -gt 0 ]; then
	{
		printf 'exec'
		for w in "$@"; do
			[[ $w =~ ^\$\{?KVPERF_[A-Z0-9_]+\}?$ ]] &&
				printf ' "%s"' "$w" && continue
			printf ' %q' "$w"
		done
		echo
	} >"$cl/${cl_names[0]}/cmd"
else
	# shellcheck disable=SC2016 # expanded in the guest
	printf '%s\n' 'bash "$KVPERF_TOP/selftests/fabric/run.sh" | tee "$KVPERF_RUNDIR/ktap"' \
		'exit "${PIPESTATUS[0]}"' >"$cl/${cl_names[0]}/cmd"
fi
for n in "${cl_names[@]:1}"; do
	# shellcheck disable=SC2016 # expanded in the guest
	printf '%s\n' '. "$KVPERF_TOP/selftests/vm/cluster.sh"' 'cluster_idle' >"$cl/$n/cmd"
done

# The segment: a bridge and a tap per guest, in this namespace. No
# address on the bridge (the host takes no part) and no IPv6 on it.
segment() {
	local n

	sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1
	{
		echo "link set lo up"
		echo "link add kvcbr0 type bridge forward_delay 0 stp_state 0"
		for n in "${!cl_names[@]}"; do
			echo "tuntap add kvctap$n mode tap"
			echo "link set kvctap$n master kvcbr0"
			echo "link set kvctap$n up"
		done
		echo "link set kvcbr0 up"
	} | ip -batch -
}
segment || { msg "making the bridge and taps in the namespace failed"; exit 1; }

# start_guest I SERIAL-OPTIONS...: start guest I's qemu (under timeout)
# in the background, its ttyS1 and ttyS2 as SERIAL-OPTIONS say; its pid
# (timeout's) in qpid[I].
start_guest() {
	local i=$1 run=$cl/${cl_names[$1]} cmdline
	local -a q

	shift
	cmdline=$(guest_cmdline 0)
	cmdline+=" kvtop=$top kvrun=$run${append:+ $append}"
	# shellcheck disable=SC2054 # qemu's option values are comma-separated
	q=(qemu-system-x86_64 -accel tcg -cpu "${KVPERF_QEMU_CPU:-$vm_default_cpu}"
		-smp "$cl_smp" -m "$cl_mem"
		-nodefaults -no-reboot -display none -monitor none
		-kernel "${g_kernel[i]}" -initrd "${g_initrd[i]}" -append "$cmdline"
		-netdev "tap,id=kvc,ifname=kvctap$i,script=no,downscript=no"
		-device "virtio-net-pci,netdev=kvc,mac=${cl_macs[i]}"
		-object rng-random,id=rng,filename=/dev/urandom
		-device virtio-rng-pci,rng=rng
		-pidfile "$run/qemu.pid"
		-serial "file:$run/console.log")
	guest_share_args q
	[ -r "$qboot" ] && q+=(-bios "$qboot")
	timeout -k 5 "$limit" "${q[@]}" "$@" </dev/null &
	qpid[i]=$!
}

for i in "${!cl_names[@]}"; do
	msg "${cl_names[i]}: ${cl_addrs[i]}, kernel ${g_kver[i]}, ${g_ko[i]:-no module}"
done
msg "results in ${cl#"$top"/}; prepared in $(since "$t_host") s"

declare -a qpid=() tpid=() outfd=()
interrupted=
# shellcheck disable=SC2317 # run by the traps
stop_all() {
	local p

	for p in "${qpid[@]}"; do
		kill -TERM "$p" 2>/dev/null
	done
}
trap 'interrupted=1; stop_all' INT TERM HUP
trap stop_all EXIT

# put NAME [TEXT]: a marker file in the cluster directory, written whole.
put() {
	echo "${2:-}" >"$cl/$1.tmp" && mv -f "$cl/$1.tmp" "$cl/$1"
}

start=$(date +%s.%N)
# kvc0's ttyS1 is our stdout, its ttyS2 our stderr; both of each other
# guest's go to kvcN/output and, prefixed, to our stderr.
exec {errfd}> >(exec cat >&2)
tpid+=($!)
start_guest 0 -serial stdio -serial "file:/dev/fd/$errfd"
for i in 1 2 3; do
	n=${cl_names[i]}
	exec {fd}> >(tee "$cl/$n/output" | sed -u "s/^/$n| /" >&2)
	tpid+=($!)
	start_guest "$i" -serial "file:/dev/fd/$fd" -serial "file:/dev/fd/$fd" >&2
	outfd[i]=$fd
done

# The watcher: kill guests on request, note when they end.
declare -A killed=()
while kill -0 "${qpid[0]}" 2>/dev/null && [ -z "$interrupted" ]; do
	for i in 1 2 3; do
		n=${cl_names[i]}
		if [ -z "${killed[$n]:-}" ] && [ -e "$cl/kill-$n" ]; then
			p=$(cat "$cl/$n/qemu.pid" 2>/dev/null)
			[ -n "$p" ] && kill -KILL "$p" 2>/dev/null
			killed[$n]=$(date +%s.%N)
			wait "${qpid[i]}" 2>/dev/null
			put "killed-$n" "${killed[$n]}"
			msg "killed $n (qemu pid ${p:-unknown}) on kvc0's request"
		fi
		if [ ! -e "$cl/$n-exited" ] && ! kill -0 "${qpid[i]}" 2>/dev/null; then
			put "$n-exited" "$(date +%s.%N)"
		fi
	done
	[ -e "$cl/kill-${cl_names[0]}" ] && [ ! -e "$cl/kill-${cl_names[0]}.refused" ] &&
		put "kill-${cl_names[0]}.refused" &&
		msg "kvc0 asked to kill itself; refused (it runs the command)"
	sleep 0.2
done
wait "${qpid[0]}"
rc0=$?
put "${cl_names[0]}-finished" "$(date +%s.%N)"
# The others stop idling on kvc0-finished and power off; give them time.
declare -a grc=()
for _ in $(seq $((200 * scale))); do
	alive=0
	for i in 1 2 3; do
		kill -0 "${qpid[i]}" 2>/dev/null && alive=1
	done
	[ "$alive" = 0 ] && break
	sleep 0.1
done
declare -A stopped=()
for i in 1 2 3; do
	if kill -0 "${qpid[i]}" 2>/dev/null; then
		stopped[${cl_names[i]}]=1
		kill -TERM "${qpid[i]}" 2>/dev/null
	fi
	wait "${qpid[i]}"
	grc[i]=$?
	[ -e "$cl/${cl_names[i]}-exited" ] || put "${cl_names[i]}-exited" "$(date +%s.%N)"
done
trap - INT TERM HUP EXIT
exec {errfd}>&-
for fd in "${outfd[@]}"; do
	eval "exec $fd>&-"
done
wait "${tpid[@]}" 2>/dev/null
end=$(date +%s.%N)

if [ -n "$interrupted" ]; then
	msg "interrupted; the guests were stopped"
	rc=130
else
	guest_rc "$cl/${cl_names[0]}" "${cl_names[0]}" "$rc0" "$limit"
	rc=$?
	for i in 1 2 3; do
		n=${cl_names[i]}
		if [ -n "${killed[$n]:-}" ]; then
			msg "$n was killed on request; its kernel log is its console log"
		elif [ -n "${stopped[$n]:-}" ]; then
			msg "$n did not power off within $((20 * scale)) s of kvc0's end; stopped"
			[ "$rc" = 0 ] && rc=1
		else
			guest_rc "$cl/$n" "$n" "${grc[i]}" "$limit"
			r=$?
			if [ "$r" != 0 ]; then
				msg "$n: exit $r (its output: ${cl#"$top"/}/$n/output)"
				[ "$rc" = 0 ] && rc=1
			fi
		fi
	done
fi
for n in "${cl_names[@]}"; do
	klog_check "$cl/$n" "$n" || { [ "$rc" = 0 ] && rc=1; }
done

# The setup's steps: each guest's seconds since its boot at each step
# (its "steps" file), then when the host saw it ready.
for n in "${cl_names[@]}"; do
	[ -r "$cl/$n/steps" ] || continue
	line=$(awk '{ printf " %s %s", $1, $2 }' "$cl/$n/steps")
	ready=-
	[ -e "$cl/ready-$n" ] && ready=$(since "$start" "$(stat -c %.3Y "$cl/ready-$n")")
	msg "$n steps (s since boot):$line; ready ${ready} s after start"
done
ready=-
[ -e "$cl/cluster-ready" ] &&
	ready=$(since "$start" "$(stat -c %.3Y "$cl/cluster-ready")")
msg "cluster ready after $ready s; exit $rc after $(since "$start" "$end") s"
if [ $# -eq 0 ] && [ -f "$cl/${cl_names[0]}/ktap" ]; then
	pass=$(grep -cE '^ok [0-9]+' "$cl/${cl_names[0]}/ktap" | tr -d ' ')
	skip=$(grep -cE '^ok [0-9]+ .*# SKIP' "$cl/${cl_names[0]}/ktap")
	fail=$(grep -cE '^not ok [0-9]+' "$cl/${cl_names[0]}/ktap")
	echo "vmcluster: $((pass - skip)) passed, $fail failed, $skip skipped" >&2
fi
exit "$rc"
